"""The in-image runner: `python -m runner.harness` supervises a pytest worker over the curated cases.

Standard library, pytest and the framework under test only; Python 3.9+.
"""
