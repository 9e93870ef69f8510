"""Host-side views of results: per-cell summaries now, the full report later."""
