"""Parse the quantities users type ("10 Gbit/s", "100ms", "64 KiB") into SI floats.

Network engineers write ``Mb/s`` and ``Gbps`` for megabits and gigabits per second; a pint
preprocessor reads those as bits.

A bare number, or a number followed by one of the common units of :data:`COMMON_UNITS`
(``10 Gbit/s``, ``100ms``, ``1500B``, ``64KiB``), is read without pint: importing pint and
building its unit registry costs more than everything else ``bufsize recommend`` does, so
pint is imported only when a quantity is written some other way. The table gives each unit the
factor pint gives it (``tests/app/test_units.py`` checks every entry against pint).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pint

# What each kind of field is converted to: the SI-style unit the models take.
TARGET_UNITS = {
    "rate": "bit / second",
    "time": "second",
    "size": "byte",
}


# "Mb/s", "Gbps", "10 kb": a lower-case b after an optional prefix is a bit, as network
# engineers write it (pint alone would read barn and gilbert).
_BIT_SYMBOL = re.compile(r"(?<![A-Za-z])([kKMGTPE]i?)?b(ps)?(?![A-Za-z])")


# "90KB": a capital K before B is a kilobyte as people write it (pint would read kelvin·byte).
_KILOBYTE = re.compile(r"(?<![A-Za-z])KB(?![A-Za-z])")


def _network_bits(text: str) -> str:
    return _BIT_SYMBOL.sub(
        lambda m: (m.group(1) or "") + "bit" + ("/s" if m.group(2) else ""), text
    )


def _kilobytes(text: str) -> str:
    return _KILOBYTE.sub("kB", text)


#: Units read without pint: spelling -> (kind, factor to the kind's unit in TARGET_UNITS), the
#: same factor pint applies (pint with :func:`_network_bits` reads ``Mb/s`` and ``Gbps`` as bits).
COMMON_UNITS: dict[str, tuple[str, float]] = {
    **{
        f"{prefix}{unit}": ("rate", factor)
        for prefix, factor in (("", 1.0), ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12))
        for unit in ("bit/s", "b/s", "bps")
    },
    "s": ("time", 1.0),
    "ms": ("time", 1e-3),
    "us": ("time", 1e-6),
    "µs": ("time", 1e-6),
    "ns": ("time", 1e-9),
    "B": ("size", 1.0),
    "kB": ("size", 1e3),
    "KB": ("size", 1e3),  # kilobytes, as _kilobytes tells pint
    "MB": ("size", 1e6),
    "GB": ("size", 1e9),
    "KiB": ("size", 1024.0),
    "MiB": ("size", 1024.0**2),
    "GiB": ("size", 1024.0**3),
}

#: A decimal number (optionally with an exponent) and an optional unit, nothing else.
_NUMBER_AND_UNIT = re.compile(
    r"\s*(?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(?P<unit>\S*)\s*"
)


@lru_cache(maxsize=1)
def registry() -> pint.UnitRegistry:  # type: ignore[type-arg]
    """pint's unit registry with the network engineers' bit symbols (imported on first use)."""
    import pint

    return pint.UnitRegistry(preprocessors=[_network_bits, _kilobytes])


def _common(field: str, text: str, kind: str) -> float | None:
    """``text`` read without pint when it is a bare number or a number and a common unit."""
    match = _NUMBER_AND_UNIT.fullmatch(text)
    if match is None:
        return None
    number, unit = float(match["number"]), match["unit"]
    if not unit:
        return number
    if unit not in COMMON_UNITS:
        return None
    unit_kind, factor = COMMON_UNITS[unit]
    if unit_kind != kind:
        raise UnitError(
            f"{field}: {text!r} is not a {kind} (expected units like {example(kind)!r})"
        )
    return number * factor


class UnitError(ValueError):
    """A quantity that cannot be read, or has the wrong dimension, for a named field."""


def parse_fraction(field: str, value: str | float) -> float:
    """A fraction typed as a percentage (``"1%"``) or as a number (``0.01``); no bounds checked."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    text = str(value).strip()
    try:
        return float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
    except ValueError as exc:
        raise UnitError(
            f"{field}: cannot read {value!r}; give a percentage such as '1%' or a "
            "fraction such as 0.01"
        ) from exc


def parse_quantity(field: str, value: str | float | int, kind: str) -> float:
    """Return ``value`` in the SI unit of ``kind`` ("rate", "time" or "size").

    A bare number is taken to be in that unit already (bit/s, s or bytes).
    """
    target = TARGET_UNITS[kind]
    if isinstance(value, bool):
        raise UnitError(f"{field}: expected a number or a quantity such as {example(kind)!r}")
    if isinstance(value, int | float):
        return float(value)
    text = value.strip()
    if not text:
        raise UnitError(f"{field}: empty value; give a quantity such as {example(kind)!r}")
    common = _common(field, text, kind)
    if common is not None:
        return common
    import pint

    ureg = registry()
    try:
        quantity: pint.Quantity = ureg.Quantity(text)  # type: ignore[type-arg]
    except Exception as exc:  # pint raises several unrelated types for unreadable text
        raise UnitError(
            f"{field}: cannot read {text!r} as a quantity; try {example(kind)!r}"
        ) from exc
    if quantity.unitless:
        return float(quantity.magnitude)
    try:
        return float(quantity.to(target).magnitude)
    except pint.DimensionalityError as exc:
        raise UnitError(
            f"{field}: {text!r} is not a {kind} (expected units like {example(kind)!r})"
        ) from exc


def example(kind: str) -> str:
    return {"rate": "10 Gbit/s", "time": "100 ms", "size": "1500 B"}[kind]


def parse_packets(field: str, value: str, packet_bytes: float) -> float:
    """A count of packets: a bare number is packets, a size (``64KiB``) is divided by the packet.

    Raises :class:`UnitError` for text that is neither, and for an infinite or NaN count.
    """
    try:
        packets = float(value)
    except ValueError:
        packets = parse_quantity(field, value, "size") / packet_bytes
    if not math.isfinite(packets):
        raise UnitError(f"{field} must be finite, got {value!r}")
    return packets
