"""Numbers as the command line and the web page print them."""

from __future__ import annotations


def human_bytes(value: float) -> str:
    """A byte count with a decimal prefix and three significant digits: ``125 MB``."""
    for factor, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if value >= factor:
            return f"{value / factor:.3g} {unit}"
    return f"{value:.0f} B"
