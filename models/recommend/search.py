"""Smallest buffer meeting a monotone condition, with the condition evaluated in batches.

The engine searches buffer sizes by doubling from 1 packet and then bisecting
(:func:`models.recommend.rules.smallest_integer`). Every step of that search evaluates a model
at one size, and most of the cost of a step is the fixed overhead of a NumPy call, not the
arithmetic. :func:`smallest_integer_batched` walks exactly the same steps and returns exactly
the same answer, but asks for the condition at all the sizes the next few steps could need in
one vectorised call.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

#: Verdicts of a batched condition: decided false, decided true, or left open.
FALSE, TRUE, OPEN = 0, 1, -1

#: Bisection steps looked ahead per batch (2^depth − 1 sizes per call).
DEPTH = 5

#: Doubling steps per batch (the answer is usually among the first few).
DOUBLINGS = 8

Sizes = npt.NDArray[np.float64]
Verdicts = npt.NDArray[np.int8]


def _doubling(upper: int) -> list[int]:
    """The sizes the doubling phase tries: 1, 2, 4, ... up to ``upper`` (included)."""
    sizes = [1]
    while sizes[-1] < upper:
        sizes.append(min(upper, 2 * sizes[-1]))
    return sizes


def _midpoints(lo: int, hi: int, depth: int) -> list[int]:
    """Every midpoint the next ``depth`` bisection steps from ``(lo, hi)`` can ask for."""
    if depth == 0 or hi - lo <= 1:
        return []
    mid = (lo + hi) // 2
    return [mid, *_midpoints(lo, mid, depth - 1), *_midpoints(mid, hi, depth - 1)]


def smallest_integer_batched(
    decide: Callable[[Sizes], Verdicts],
    upper: int,
    settle: Callable[[int], bool] | None = None,
    depth: int = DEPTH,
    doublings: int = DOUBLINGS,
) -> int | None:
    """Smallest integer ``b`` in ``[1, upper]`` meeting a monotone condition, else None.

    Parameters
    ----------
    decide : callable
        Takes an array of sizes and returns, for each, :data:`TRUE`, :data:`FALSE` or
        :data:`OPEN` (undecided by this cheap evaluation).
    upper : int
        Largest size tried (>= 1).
    settle : callable, optional
        The full condition at one size, called only for a size that ``decide`` left open and
        that the search needs. Required if ``decide`` can return :data:`OPEN`.
    depth : int
        Bisection steps per batch.
    doublings : int
        Doubling steps per batch.

    Returns
    -------
    int or None
        The size :func:`models.recommend.rules.smallest_integer` returns for the same
        condition: the same doubling from 1 and the same bisection, step for step.
    """

    def verdict(value: int, known: int) -> bool:
        if known == OPEN:
            if settle is None:
                raise ValueError("decide left a size open and no settle function was given")
            return settle(value)
        return known == TRUE

    tries = _doubling(upper)
    hi = None
    for start in range(0, len(tries), doublings):
        batch = tries[start : start + doublings]
        known = decide(np.asarray(batch, dtype=np.float64))
        hi = next((t for t, k in zip(batch, known, strict=True) if verdict(t, int(k))), None)
        if hi is not None:
            break
    if hi is None:
        return None
    lo = hi // 2  # the condition is false at lo (or lo == 0)
    while hi - lo > 1:
        mids = _midpoints(lo, hi, depth)
        table = dict(zip(mids, decide(np.asarray(mids, dtype=np.float64)).tolist(), strict=True))
        for _ in range(depth):
            if hi - lo <= 1:
                break
            mid = (lo + hi) // 2
            if verdict(mid, table[mid]):
                hi = mid
            else:
                lo = mid
    return hi
