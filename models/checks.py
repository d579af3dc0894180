"""Argument checks shared by the model functions.

Each check raises ``ValueError`` whose message names the parameter and the bound it broke,
so that the CLI and the API can pass it on to the user unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

FloatOrArray = float | npt.NDArray[np.float64]


def _as_array(name: str, value: Any) -> npt.NDArray[np.float64]:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number, got {value!r}") from exc
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return arr


def finite(name: str, value: Any) -> Any:
    """Return ``value`` after checking it is a finite number (or array of them)."""
    _as_array(name, value)
    return value


def positive(name: str, value: Any) -> Any:
    """Check ``value > 0`` (and finite)."""
    arr = _as_array(name, value)
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return value


def non_negative(name: str, value: Any) -> Any:
    """Check ``value >= 0`` (and finite)."""
    arr = _as_array(name, value)
    if np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return value


def at_least(name: str, value: Any, bound: float) -> Any:
    """Check ``value >= bound`` (and finite)."""
    arr = _as_array(name, value)
    if np.any(arr < bound):
        raise ValueError(f"{name} must be >= {bound:g}, got {value!r}")
    return value


def in_range(
    name: str,
    value: Any,
    low: float,
    high: float,
    *,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> Any:
    """Check ``low <(=) value <(=) high`` (and finite)."""
    arr = _as_array(name, value)
    bad_low = arr < low if low_inclusive else arr <= low
    bad_high = arr > high if high_inclusive else arr >= high
    if np.any(bad_low) or np.any(bad_high):
        left = "[" if low_inclusive else "("
        right = "]" if high_inclusive else ")"
        raise ValueError(f"{name} must be in {left}{low:g}, {high:g}{right}, got {value!r}")
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
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if int(float(arr)) < bound:
        raise ValueError(f"{name} must be >= {bound}, got {value!r}")
    return int(float(arr))


def float_or_array(value: npt.NDArray[np.float64]) -> FloatOrArray:
    """A 0-d result as a plain ``float``, anything larger as the array itself."""
    return float(value) if value.ndim == 0 else value
