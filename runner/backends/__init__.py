"""How a cell runs: `local` realises the image spec as a venv on this host (the embedded default)."""
