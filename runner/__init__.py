"""Portability runner, the host side: plans the framework x device matrix, runs each cell in its environment
through a backend, owns the results folders, and reports. The harness that runs inside each environment
is its own package, `portability_harness` (harness/ in the checkout); this package is never imported there.
"""

__version__ = "0.2.0"
