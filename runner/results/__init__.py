"""Results records: schema (record.py), JSON Lines store (store.py) and per-function verdicts (verdict.py).

Harness side: standard library only, Python 3.9+.
"""
