"""The root of a monotone function of one variable on a bracket, without importing SciPy.

``scipy.optimize`` takes longer to import than the rest of ``bufsize recommend`` runs (it loads
SciPy's linear algebra, sparse and optimizers), and the engine needs only two scalar roots of
monotone functions (the TCP + M/M/1/B fixed point, 000 §3.6; the processor-sharing transparency
limit, 003 §3.3). Bisection finds them to the same tolerance as ``scipy.optimize.brentq`` with
the same stopping rule; SciPy stays where its numerics matter (the special functions), and
``tests/models/test_roots.py`` checks this against ``brentq``.
"""

from __future__ import annotations

from collections.abc import Callable

#: More halvings than any double-precision bracket needs (2^-1100 is below the smallest float).
_MAX_HALVINGS = 1100


def bracketed_root(
    f: Callable[[float], float], lo: float, hi: float, *, xtol: float, rtol: float
) -> float:
    """A root of ``f`` in ``[lo, hi]``, where ``f(lo)`` and ``f(hi)`` differ in sign.

    Parameters
    ----------
    f : callable
        A continuous function of one float.
    lo, hi : float
        The bracket, ``lo < hi``.
    xtol, rtol : float
        Stop when the bracket is at most ``xtol + rtol·|x|`` wide (``x`` its midpoint), the
        tolerance of ``scipy.optimize.brentq`` with the same arguments.

    Returns
    -------
    float
        The midpoint of the last bracket, within ``xtol + rtol·|x|`` of a root (an exact zero of
        ``f`` when one is met).

    Raises
    ------
    ValueError
        If ``f(lo)`` and ``f(hi)`` have the same sign (no bracket): a fault of the caller, which
        must pass a bracket, never a bad input of the user's.

    Notes
    -----
    Bisection: each step halves the bracket and keeps the half whose ends differ in sign, so it
    converges for any continuous ``f``.
    """
    f_lo = f(lo)
    if f_lo == 0.0:
        return lo
    f_hi = f(hi)
    if f_hi == 0.0:
        return hi
    if (f_lo < 0.0) == (f_hi < 0.0):
        raise ValueError(f"f(lo) and f(hi) must differ in sign, got {f_lo:g} and {f_hi:g}")
    for _ in range(_MAX_HALVINGS):
        mid = 0.5 * (lo + hi)
        if hi - lo <= xtol + rtol * abs(mid) or mid in (lo, hi):
            return mid
        f_mid = f(mid)
        if f_mid == 0.0:
            return mid
        if (f_mid < 0.0) == (f_lo < 0.0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
