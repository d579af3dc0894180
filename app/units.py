"""Parse the quantities users type ("10 Gbit/s", "100ms", "64 KiB") into SI floats.

A quantity is read by a closed grammar, never by a general unit library: a decimal number (its
exponent at most three digits), then optionally one unit of the field's kind, spelled from the
tables below. Nothing else is accepted: no operators, no powers, no unit expressions. Text longer
than :data:`MAX_QUANTITY_CHARS` is refused unread. Reading one quantity is a regular-expression
match and two dictionary look-ups, so a request with thousands of them costs milliseconds
(``9**9**9 bit/s`` once froze the service when a unit library evaluated it).

The units:

- sizes: ``B``, ``b`` and ``bit`` after an SI or IEC symbol prefix (``kB``, ``KB``, ``MiB``,
  ``Gb``, ``Mbit``; ``K`` is kilo, as people write ``KB``; a lower-case ``b`` is a bit, as
  network engineers write ``Mb/s``); ``byte(s)``, ``bit(s)``, ``octet(s)`` after a prefix word
  (``kilobyte``, ``mebibytes``, ``gigabits``);
- times: ``s`` and ``sec`` after ``m``, ``u``, ``µ``, ``n`` or ``p`` (``ms``, ``usec``);
  ``second(s)`` after ``milli``, ``micro``, ``nano`` or ``pico``; ``min``, ``minute(s)``,
  ``h``, ``hr``, ``hour(s)``;
- rates: a size per time, ``Gbit/s``, ``MB/sec``, ``kilobits per second``, or a size symbol then
  ``ps`` (``Gbps``, ``MBps``).

Each factor is the one pint gives the same spelling (``tests/app/test_units.py`` checks every
entry against pint, which only the tests import).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

# What each kind of field is converted to: the SI-style unit the models take.
TARGET_UNITS = {
    "rate": "bit / second",
    "time": "second",
    "size": "byte",
}

#: Longest quantity text read; a longer one is refused before any parsing.
MAX_QUANTITY_CHARS = 48

_BIG_SYMBOLS = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_IEC_SYMBOLS = {f"{p}i": 1024.0**n for n, p in enumerate("KMGTPE", start=1)}
_BIG_WORDS = {"": 1.0, "kilo": 1e3, "mega": 1e6, "giga": 1e9, "tera": 1e12, "peta": 1e15}
_BIG_WORDS.update({"exa": 1e18})
_IEC_WORDS = {f"{p}bi": 1024.0**n for n, p in enumerate(("ki", "me", "gi", "te", "pe", "ex"), 1)}
_SMALL_SYMBOLS = {"": 1.0, "m": 1e-3, "u": 1e-6, "µ": 1e-6, "μ": 1e-6, "n": 1e-9, "p": 1e-12}
_SMALL_WORDS = {"": 1.0, "milli": 1e-3, "micro": 1e-6, "nano": 1e-9, "pico": 1e-12}

#: Size symbols that take a symbol prefix (and ``ps`` for a rate), in bytes.
_SIZE_SYMBOLS = {"B": 1.0, "b": 0.125, "bit": 0.125}
#: Size words that take a prefix word, in bytes.
_SIZE_WORDS = {"byte": 1.0, "bytes": 1.0, "octet": 1.0, "octets": 1.0, "bit": 0.125}
_SIZE_WORDS.update({"bits": 0.125})

#: Every size spelling -> bytes.
SIZE_UNITS: dict[str, float] = {
    **{p + n: pf * nf for p, pf in _BIG_WORDS.items() for n, nf in _SIZE_WORDS.items()},
    **{p + n: pf * nf for p, pf in _IEC_WORDS.items() for n, nf in _SIZE_WORDS.items()},
    **{
        p + n: pf * nf
        for p, pf in {**_BIG_SYMBOLS, **_IEC_SYMBOLS}.items()
        for n, nf in _SIZE_SYMBOLS.items()
    },
}
#: Size spellings that may be followed by ``ps`` (per second): the symbols.
_SIZE_SYMBOL_SPELLINGS = {
    p + n for p in {**_BIG_SYMBOLS, **_IEC_SYMBOLS} for n in _SIZE_SYMBOLS if n != "bit"
} | {p + "bit" for p in {**_BIG_SYMBOLS, **_IEC_SYMBOLS}}

#: Every time spelling -> seconds.
TIME_UNITS: dict[str, float] = {
    **{p + n: f for p, f in _SMALL_SYMBOLS.items() for n in ("s", "sec")},
    **{p + n: f for p, f in _SMALL_WORDS.items() for n in ("second", "seconds")},
    "min": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hour": 3600.0,
    "hours": 3600.0,
}


def _alternation(spellings: set[str] | dict[str, float]) -> str:
    # Longest first, so that a regular expression engine tries "Gbit" before "G".
    return (
        "(?:" + "|".join(re.escape(s) for s in sorted(spellings, key=lambda s: (-len(s), s))) + ")"
    )


# Exponents of at most two digits: with at most MAX_QUANTITY_CHARS characters and the largest
# prefix, every number the pattern admits is finite once converted (1e145 at most).
_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?"
_SIZE = _alternation(SIZE_UNITS)
_TIME = _alternation(TIME_UNITS)
_RATE = f"(?:{_SIZE}(?: */ *| +per +){_TIME}|{_alternation(_SIZE_SYMBOL_SPELLINGS)}ps)"

#: The grammar of each kind as a regular expression (also the OpenAPI ``pattern`` of the
#: field's string form): spaces, a number, spaces, optionally a unit of the kind, spaces.
PATTERNS = {
    kind: f"^ *{_NUMBER} *(?:{unit})? *$"
    for kind, unit in (("rate", _RATE), ("time", _TIME), ("size", _SIZE))
}

#: A fraction typed as a number or a percentage (what :func:`parse_fraction` reads).
FRACTION_PATTERN = f"^ *{_NUMBER} *%? *$"

_QUANTITY = re.compile(r" *(?P<number>" + _NUMBER + r") *(?P<unit>[^ ].*?)? *")
_PER = re.compile(r" */ *| +per +")


class UnitError(ValueError):
    """A quantity that cannot be read, or has the wrong dimension, for a named field."""


def unit_factor(unit: str) -> tuple[str, float] | None:
    """``(kind, factor to the kind's unit in TARGET_UNITS)`` of a unit spelling, else None."""
    if unit in SIZE_UNITS:
        return "size", SIZE_UNITS[unit]
    if unit in TIME_UNITS:
        return "time", TIME_UNITS[unit]
    parts = _PER.split(unit, maxsplit=1)
    if len(parts) == 2 and parts[0] in SIZE_UNITS and parts[1] in TIME_UNITS:
        return "rate", SIZE_UNITS[parts[0]] * 8.0 / TIME_UNITS[parts[1]]
    if unit.endswith("ps") and unit[:-2] in _SIZE_SYMBOL_SPELLINGS:
        return "rate", SIZE_UNITS[unit[:-2]] * 8.0
    return None


def parse_fraction(field: str, value: str | float) -> float:
    """A fraction typed as a percentage (``"1%"``) or as a number (``0.01``); no bounds checked.

    A percentage is divided by 100 in decimal, then rounded once to the nearest float, so that
    ``"99.9%"`` is the float nearest 0.999 (binary division would give 0.9990000000000001).
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    text = str(value).strip()
    try:
        if text.endswith("%"):
            share = Decimal(text[:-1].strip()) / 100
            if not share.is_finite():
                raise ValueError(text)
            return float(share)
        return float(text)
    except (ValueError, ArithmeticError) as exc:
        raise UnitError(
            f"{field}: cannot read {value!r}; give a percentage such as '1%' or a "
            "fraction such as 0.01"
        ) from exc


def parse_quantity(field: str, value: str | float | int, kind: str) -> float:
    """Return ``value`` in the SI unit of ``kind`` ("rate", "time" or "size").

    A bare number is taken to be in that unit already (bit/s, s or bytes). Raises
    :class:`UnitError`, naming ``field``, for text outside the grammar, a unit of another kind,
    or a value that is not finite.
    """
    if kind not in TARGET_UNITS:
        raise ValueError(f"kind must be one of {sorted(TARGET_UNITS)}, got {kind!r}")
    if isinstance(value, bool):
        raise UnitError(f"{field}: expected a number or a quantity such as {example(kind)!r}")
    if isinstance(value, int | float):
        number = float(value)
        if not math.isfinite(number):
            raise UnitError(f"{field}: {value!r} is not a finite quantity")
        return number
    if len(value) > MAX_QUANTITY_CHARS:
        raise UnitError(
            f"{field}: {value[:MAX_QUANTITY_CHARS]!r}… is longer than {MAX_QUANTITY_CHARS} "
            f"characters; write a number and a unit such as {example(kind)!r}"
        )
    text = value.strip()
    if not text:
        raise UnitError(f"{field}: empty value; give a quantity such as {example(kind)!r}")
    match = _QUANTITY.fullmatch(text)
    found = None if match is None or match["unit"] is None else unit_factor(match["unit"])
    if match is None or (match["unit"] is not None and found is None):
        raise UnitError(
            f"{field}: cannot read {text!r} as a quantity; write a number and a unit such as "
            f"{example(kind)!r}"
        )
    number = float(match["number"])
    if found is not None:
        unit_kind, factor = found
        if unit_kind != kind:
            raise UnitError(
                f"{field}: {text!r} is not a {kind} (expected units like {example(kind)!r})"
            )
        number *= factor
    if not math.isfinite(number):
        raise UnitError(f"{field}: {text!r} is not a finite quantity")
    return number


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
