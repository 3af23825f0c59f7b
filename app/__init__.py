"""Atout: a self-hostable Belote server."""

__version__ = "0.1.0"
