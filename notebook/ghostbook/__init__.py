"""Ghostbook: a browser notebook for Python with local ghost-text completion."""

__version__ = "0.1.0"
