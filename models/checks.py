"""Argument checks shared by the model functions.

Each check raises :class:`models.errors.ParameterError` (a ``ValueError``) carrying the parameter's
name and the bound it broke, with a message that says both, so that the CLI and the API can pass it
on to the user unchanged.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from models.errors import ParameterError

FloatOrArray = float | npt.NDArray[np.float64]


def _as_array(name: str, value: Any) -> npt.NDArray[np.float64]:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ParameterError.got(name, "a number", value) from exc
    if arr.size == 0:
        raise ParameterError(name, "non-empty", f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ParameterError.got(name, "finite", value)
    return arr


def _plain(value: Any) -> bool:
    """Whether ``value`` is a plain number (an int or a float, not a bool)."""
    return isinstance(value, float | int) and not isinstance(value, bool)


def _number(name: str, value: Any) -> float | None:
    """A plain number as a finite float (the common case, checked without numpy: the
    recommendation engine makes thousands of checks per answer); None for anything else."""
    if _plain(value):
        number = float(value)
        if not math.isfinite(number):
            raise ParameterError.got(name, "finite", value)
        return number
    return None


def _checked(name: str, value: Any) -> float | npt.NDArray[np.float64]:
    """``value`` as a finite float or a non-empty finite array (ParameterError otherwise)."""
    number = _number(name, value)
    return _as_array(name, value) if number is None else number


def _any(mask: Any) -> bool:
    """Whether any of ``mask`` (a bool, from a number, or an array) is true."""
    return mask if isinstance(mask, bool) else bool(np.any(mask))


def finite(name: str, value: Any) -> Any:
    """Return ``value`` after checking it is a finite number (or array of them)."""
    _checked(name, value)
    return value


def _all_plain_positive(value: Any) -> bool:
    """Whether ``value`` is a non-empty list or tuple of plain, finite, positive numbers:
    decided without numpy (every answer checks its scenario's RTTs three times); anything else
    goes through the array check, which names what is wrong."""
    return (
        isinstance(value, list | tuple)
        and len(value) > 0
        and all(_plain(v) and math.isfinite(v) and v > 0 for v in value)
    )


def positive(name: str, value: Any) -> Any:
    """Check ``value > 0`` (and finite)."""
    if _all_plain_positive(value):
        return value
    arr = _checked(name, value)
    if _any(arr <= 0):
        raise ParameterError.got(name, "> 0", value)
    return value


def non_negative(name: str, value: Any) -> Any:
    """Check ``value >= 0`` (and finite)."""
    arr = _checked(name, value)
    if _any(arr < 0):
        raise ParameterError.got(name, ">= 0", value)
    return value


def at_least(name: str, value: Any, bound: float) -> Any:
    """Check ``value >= bound`` (and finite)."""
    arr = _checked(name, value)
    if _any(arr < bound):
        raise ParameterError.got(name, f">= {bound:g}", value)
    return value


def in_range(
    name: str,
    value: Any,
    low: float,
    high: float,
    *,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    label: str | None = None,
) -> Any:
    """Check ``low <(=) value <(=) high`` (and finite).

    ``label`` names a quantity derived from the parameter ``name`` (``"load N·W/(C·RTT)"``) when
    that, not the parameter itself, is what must lie in the interval; the message then speaks of
    the quantity and the error still names the parameter.
    """
    arr = _checked(name, value)
    bad_low = arr < low if low_inclusive else arr <= low
    bad_high = arr > high if high_inclusive else arr >= high
    if _any(bad_low) or _any(bad_high):
        left = "[" if low_inclusive else "("
        right = "]" if high_inclusive else ")"
        interval = f"in {left}{low:g}, {high:g}{right}"
        if label is None:
            raise ParameterError.got(name, interval, value)
        raise ParameterError(
            name, f"such that {label} is {interval}", f"{label} must be {interval}, got {value!r}"
        )
    return value


def probability(name: str, value: Any, *, open_interval: bool = True) -> Any:
    """Check a probability: in (0, 1) by default, [0, 1] when ``open_interval`` is False."""
    return in_range(
        name, value, 0.0, 1.0, low_inclusive=not open_interval, high_inclusive=not open_interval
    )


def integer_at_least(name: str, value: Any, bound: int) -> int:
    """Check an integer count ``value >= bound`` and return it as ``int``."""
    arr = _as_array(name, value)
    if arr.ndim != 0 or float(arr) != int(float(arr)):
        raise ParameterError.got(name, "an integer", value)
    if int(float(arr)) < bound:
        raise ParameterError.got(name, f">= {bound}", value)
    return int(float(arr))


def float_or_array(value: npt.NDArray[np.float64]) -> FloatOrArray:
    """A 0-d result as a plain ``float``, anything larger as the array itself."""
    return float(value) if value.ndim == 0 else value
