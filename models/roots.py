"""The root of a monotone function of one variable on a bracket, without importing SciPy.

``scipy.optimize`` takes longer to import than the rest of ``bufsize recommend`` runs (it loads
SciPy's linear algebra, sparse and optimizers), and the engine needs only three scalar roots of
monotone functions (the TCP + M/M/1/B fixed point, 000 §3.6; the processor-sharing transparency
limit, 003 §3.3; BSCL's crossover for a few links, 004 §IV). A safeguarded Illinois regula
falsi finds them to the tolerance ``scipy.optimize.brentq`` stops at; SciPy stays where its
numerics matter (the special functions, BSCL's vectorised crossover), and
``tests/models/test_roots.py`` checks these roots against ``brentq``.

The other library measured, mpmath's ``findroot`` (in its ``fp`` context of plain floats, with
the Illinois solver), found these roots as well, but importing mpmath costs about 0.4 of
``import numpy``, which the ``bufsize recommend`` start-up budget (``benchmarks/cli_startup.py``:
at most 4x ``import numpy``) cannot hold on a loaded machine; its ``anderson`` and ``ridder``
solvers returned loads several per cent off ``brentq``'s roots of the processor-sharing and
TCP functions, as ``findroot`` without ``verify`` returns its last estimate when it runs out of
steps.
"""

from __future__ import annotations

from collections.abc import Callable

#: More steps than any double-precision bracket needs: every second step at least halves the
#: bracket, and 2^-1100 is below the smallest float.
_MAX_STEPS = 2200


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
        Stop when the bracket is at most ``xtol + rtol·|x|`` wide (``x`` the last estimate),
        the tolerance of ``scipy.optimize.brentq`` with the same arguments.

    Returns
    -------
    float
        The last estimate, inside a bracket at most ``xtol + rtol·|x|`` wide (an exact zero of
        ``f`` when one is met).

    Raises
    ------
    ValueError
        If ``f(lo)`` and ``f(hi)`` have the same sign (no bracket): a fault of the caller, which
        must pass a bracket, never a bad input of the user's.

    Notes
    -----
    The Illinois variant of regula falsi (Dowell and Jarratt, BIT 11, 1971): the next estimate
    is where the chord through the bracket's ends crosses zero, and the function value kept at
    an end that stays twice in a row is halved, so that both ends converge (superlinearly, of
    order about 1.44, on a smooth function). A step that fails to halve the bracket is followed
    by a bisection step, so the bracket at least halves every two steps whatever ``f``.
    """
    a, b = lo, hi
    f_a = f(a)
    if f_a == 0.0:
        return a
    f_b = f(b)
    if f_b == 0.0:
        return b
    if (f_a < 0.0) == (f_b < 0.0):
        raise ValueError(f"f(lo) and f(hi) must differ in sign, got {f_a:g} and {f_b:g}")
    kept = 0  # +1: ``a`` was kept by the last step, -1: ``b`` was, 0: a bisection step
    bisect = False
    x = 0.5 * (a + b)
    for _ in range(_MAX_STEPS):
        width = b - a
        if bisect:
            x = 0.5 * (a + b)
        else:
            x = (a * f_b - b * f_a) / (f_b - f_a)
            if not a < x < b:  # rounding put the chord's zero on an end
                x = 0.5 * (a + b)
        if width <= xtol + rtol * abs(x) or x in (a, b):
            return x
        f_x = f(x)
        if f_x == 0.0:
            return x
        if (f_x < 0.0) == (f_a < 0.0):
            a, f_a = x, f_x
            if kept == -1 and not bisect:
                f_b *= 0.5
            kept = -1
        else:
            b, f_b = x, f_x
            if kept == 1 and not bisect:
                f_a *= 0.5
            kept = 1
        bisect = not bisect and (b - a) > 0.5 * width
    return x
