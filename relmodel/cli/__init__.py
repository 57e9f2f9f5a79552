"""Presentation layer, command line: ``relmodel rates|fit|interval|requirements|report``.

A thin layer over the Python API (every CLI feature is reachable from
Python): one module per command, :mod:`.common` for the shared log options.
May import every other layer; nothing imports it.
"""

from .main import cli, fail, main

__all__ = ["cli", "fail", "main"]
