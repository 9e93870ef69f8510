"""Portability runner: measures which functions of TensorFlow, PyTorch and JAX run on which device, and how fast.

This package is imported on both sides: on the host (Python 3.11+, Typer, Rich) and inside every image
(Python 3.9+, standard library and pytest only). Keep this file free of third-party imports.
"""

__version__ = "0.1.0"
