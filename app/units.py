"""Parse the quantities users type ("10 Gbit/s", "100ms", "64 KiB") into SI floats.

Network engineers write ``Mb/s`` and ``Gbps`` for megabits and gigabits per second; a pint
preprocessor reads those as bits.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

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


@lru_cache(maxsize=1)
def registry() -> pint.UnitRegistry:  # type: ignore[type-arg]
    return pint.UnitRegistry(preprocessors=[_network_bits, _kilobytes])


class UnitError(ValueError):
    """A quantity that cannot be read, or has the wrong dimension, for a named field."""


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
