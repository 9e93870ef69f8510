"""The results record: its schema (schema.py), the JSON Lines store (store.py), function verdicts (verdicts.py).

Shared by both sides: the harness writes records, the host merges and reports them.
"""
