"""The harness: runs one cell (a framework's curated cases on one device) inside the cell's environment.

Installed into every framework venv and image; Python 3.8+, the standard library and pytest only. The
host side (`runner`) imports it for the protocol, the record schema and the statistics; it never
imports the host side.
"""

__version__ = "0.2.0"
