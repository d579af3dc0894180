"""Dynamic queue-length thresholds of shared-memory switches (Choudhury and Hahne, 1998).

A switch ASIC keeps one packet memory of ``B`` bytes for all its output queues. Under the
dynamic-threshold (DT) scheme a queue may accept an arrival only while its length is below a
threshold proportional to the memory still unused::

    q_i(t) < T(t) = α·(B − Q(t)),        Q(t) = Σ_j q_j(t)

With ``n`` queues congested at once (each always backlogged), every one of them settles where its
length equals the threshold, ``q = α·(B − n·q)``, that is ``q = α·B/(1 + n·α)``, and
``B/(1 + n·α)`` of the memory stays unallocated. This module turns a recommended per-queue buffer
into the smallest ``α`` that gives it, and rounds ``α`` to what a chip accepts (powers of two).

Units: sizes in bytes (any consistent unit works: the relations are homogeneous in size); ``α``
and its base-2 logarithm are dimensionless.

References
----------
.. [1] A. K. Choudhury and E. L. Hahne, "Dynamic queue length thresholds for shared-memory
   packet switches", IEEE/ACM Transactions on Networking 6(2):130-140, April 1998: the DT
   control law ``T(t) = α·(B − Q(t))`` ("the maximum permissible length, for any individual
   queue at any instant of time, is proportional to the unused buffering in the switch. A
   queue whose length equals or exceeds the current threshold value may accept no more
   arrivals", abstract) and the analysis of its steady state with ``S`` overloaded queues,
   each of length ``α·B/(1 + α·S)``, leaving ``B/(1 + α·S)`` unallocated ("a small amount of
   buffer space is (intentionally) left unallocated, and the remaining buffer space becomes
   equally distributed among the active output queues", abstract). The relations are derived
   again in the Notes of :func:`steady_queue_bytes`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from models import checks
from models.errors import ParameterError

#: The ``log2 α`` range of SONiC's ``BUFFER_PROFILE.dynamic_th`` (sonic-buffer-profile.yang,
#: ``leaf dynamic_th { type int32 { range "-8..7"; } }``), the default range of a chip's α.
SONIC_DYNAMIC_TH_RANGE = (-8, 7)


@dataclass(frozen=True)
class ThresholdChoice:
    """The α that gives a queue its buffer under dynamic thresholds, and what it yields.

    Attributes
    ----------
    target_bytes : float
        The per-queue buffer asked for, bytes.
    chip_buffer_bytes : float
        The shared memory ``B``, bytes.
    congested_queues : int
        ``n``, queues congested at the same time (a count).
    alpha_min : float or None
        Smallest α with ``α·B/(1 + n·α) >= target``, dimensionless; None when no α suffices.
    alpha : float or None
        ``alpha_min`` rounded up to a power of two in the chip's range; None when none suffices.
    alpha_log2 : int or None
        ``log2 alpha``, the value SONiC's ``dynamic_th`` takes.
    steady_queue_bytes : float or None
        Each congested queue's steady length ``α·B/(1 + n·α)`` at the chosen α, bytes.
    unallocated_bytes : float or None
        Memory left unused in that steady state, ``B/(1 + n·α)``, bytes.
    alpha_suffices : bool
        Whether some α in the range gives the target.
    reason : str
        Why, in a sentence.
    """

    target_bytes: float
    chip_buffer_bytes: float
    congested_queues: int
    alpha_min: float | None
    alpha: float | None
    alpha_log2: int | None
    steady_queue_bytes: float | None
    unallocated_bytes: float | None
    alpha_suffices: bool
    reason: str


def dynamic_threshold_bytes(
    alpha: float, chip_buffer_bytes: float, total_queued_bytes: float
) -> float:
    """The DT admission threshold ``T = α·(B − Q)``: a queue admits an arrival while ``q < T``.

    Parameters
    ----------
    alpha : float
        The DT multiplier α, dimensionless (> 0).
    chip_buffer_bytes : float
        The shared memory ``B``, bytes (> 0).
    total_queued_bytes : float
        ``Q``, the sum of all queue lengths, bytes (0 <= Q <= B).

    Returns
    -------
    float
        The threshold, bytes.

    References
    ----------
    .. [1] Choudhury and Hahne, IEEE/ACM ToN 6(2), 1998, the DT control law (abstract).
    """
    checks.positive("alpha", alpha)
    checks.positive("chip_buffer_bytes", chip_buffer_bytes)
    checks.in_range("total_queued_bytes", total_queued_bytes, 0.0, chip_buffer_bytes)
    return float(alpha) * (float(chip_buffer_bytes) - float(total_queued_bytes))


def steady_queue_bytes(alpha: float, chip_buffer_bytes: float, congested_queues: int) -> float:
    """Steady length of each of ``n`` always-backlogged queues: ``α·B/(1 + n·α)``.

    Parameters
    ----------
    alpha : float
        The DT multiplier α, dimensionless (> 0).
    chip_buffer_bytes : float
        The shared memory ``B``, bytes (> 0).
    congested_queues : int
        ``n``, queues congested at once (integer >= 1).

    Returns
    -------
    float
        Bytes each congested queue holds in the steady state.

    Notes
    -----
    Each congested queue grows until it meets the threshold, ``q = α·(B − n·q)``; solving gives
    ``q = α·B/(1 + n·α)`` and leaves ``B − n·q = B/(1 + n·α)`` unallocated. Assumes the ``n``
    queues are the only occupants of the memory and are overloaded (arrivals exceed service).

    References
    ----------
    .. [1] Choudhury and Hahne, IEEE/ACM ToN 6(2), 1998, steady-state analysis of ``S``
       overloaded queues.
    """
    checks.positive("alpha", alpha)
    checks.positive("chip_buffer_bytes", chip_buffer_bytes)
    n = checks.integer_at_least("congested_queues", congested_queues, 1)
    a = float(alpha)
    return a * float(chip_buffer_bytes) / (1.0 + n * a)


def unallocated_bytes(alpha: float, chip_buffer_bytes: float, congested_queues: int) -> float:
    """Memory left unused with ``n`` queues congested: ``B/(1 + n·α)`` (Choudhury, Hahne 1998)."""
    checks.positive("alpha", alpha)
    checks.positive("chip_buffer_bytes", chip_buffer_bytes)
    n = checks.integer_at_least("congested_queues", congested_queues, 1)
    return float(chip_buffer_bytes) / (1.0 + n * float(alpha))


def minimum_alpha(
    target_bytes: float, chip_buffer_bytes: float, congested_queues: int
) -> float | None:
    """Smallest α giving each of ``n`` congested queues at least ``target_bytes``.

    ``α·B/(1 + n·α) >= S`` holds exactly when ``α·(B − n·S) >= S``, so the answer is
    ``α = S/(B − n·S)`` when ``n·S < B``, and no α at all when ``n·S >= B`` (the steady length
    ``α·B/(1 + n·α)`` stays below ``B/n`` for every finite α).

    Parameters
    ----------
    target_bytes : float
        ``S``, the buffer each queue should get, bytes (> 0).
    chip_buffer_bytes : float
        ``B``, bytes (> 0).
    congested_queues : int
        ``n`` (integer >= 1).

    Returns
    -------
    float or None
        The smallest α, dimensionless, or None when ``n·S >= B``.

    References
    ----------
    .. [1] Choudhury and Hahne, IEEE/ACM ToN 6(2), 1998, the steady state inverted for α.
    """
    checks.positive("target_bytes", target_bytes)
    checks.positive("chip_buffer_bytes", chip_buffer_bytes)
    n = checks.integer_at_least("congested_queues", congested_queues, 1)
    spare = float(chip_buffer_bytes) - n * float(target_bytes)
    if spare <= 0.0:
        return None
    return float(target_bytes) / spare


def round_alpha_up(
    alpha: float, log2_range: tuple[int, int] = SONIC_DYNAMIC_TH_RANGE
) -> int | None:
    """The smallest ``k`` in ``log2_range`` with ``2**k >= alpha``; None if ``alpha > 2**max``.

    Parameters
    ----------
    alpha : float
        The α wanted, dimensionless (> 0).
    log2_range : (int, int)
        The exponents the chip accepts, inclusive (SONiC: -8..7).

    Returns
    -------
    int or None
        ``log2`` of the chip's α, at least the wanted one; the lowest exponent when ``alpha`` is
        below ``2**min``.
    """
    checks.positive("alpha", alpha)
    low, high = log2_range
    if not (isinstance(low, int) and isinstance(high, int)) or low > high:
        raise ParameterError.got("log2_range", "two integers low <= high", log2_range)
    k = math.ceil(math.log2(float(alpha)))
    # log2 of an exact power of two can land a hair above the integer: step back when 2**(k-1)
    # already suffices.
    if 2.0 ** (k - 1) >= float(alpha):
        k -= 1
    k = max(k, low)
    return k if k <= high else None


def choose_alpha(
    target_bytes: float,
    chip_buffer_bytes: float,
    congested_queues: int,
    log2_range: tuple[int, int] = SONIC_DYNAMIC_TH_RANGE,
) -> ThresholdChoice:
    """The chip's α (a power of two) that gives each of ``n`` congested queues ``target_bytes``.

    Parameters
    ----------
    target_bytes : float
        The recommended per-queue buffer, bytes (> 0).
    chip_buffer_bytes : float
        The shared memory ``B``, bytes (> 0).
    congested_queues : int
        ``n``, queues that may be congested together (integer >= 1).
    log2_range : (int, int)
        Exponents of the α values the chip accepts (SONiC ``dynamic_th``: -8..7).

    Returns
    -------
    ThresholdChoice
        The α, its steady per-queue length (at least the target when an α suffices) and the
        memory left unallocated; ``alpha_suffices`` is False, with the reason, when
        ``n·S >= B`` or when the α needed is above the chip's largest.

    References
    ----------
    .. [1] Choudhury and Hahne, IEEE/ACM ToN 6(2), 1998, steady-state analysis.
    """
    checks.positive("target_bytes", target_bytes)
    checks.positive("chip_buffer_bytes", chip_buffer_bytes)
    n = checks.integer_at_least("congested_queues", congested_queues, 1)
    target, memory = float(target_bytes), float(chip_buffer_bytes)
    alpha_min = minimum_alpha(target, memory, n)
    if alpha_min is None:
        return ThresholdChoice(
            target,
            memory,
            n,
            None,
            None,
            None,
            None,
            None,
            False,
            f"no α suffices: {n} congested queues × {target:.0f} B = {n * target:.0f} B is at "
            f"least the shared memory {memory:.0f} B, and each queue's steady share "
            f"α·B/(1 + n·α) stays below B/n = {memory / n:.0f} B for every α",
        )
    k = round_alpha_up(alpha_min, log2_range)
    if k is None:
        return ThresholdChoice(
            target,
            memory,
            n,
            alpha_min,
            None,
            None,
            None,
            None,
            False,
            f"α must be at least {alpha_min:.4g}, above the chip's largest 2^{log2_range[1]}",
        )
    alpha = 2.0**k
    queue = steady_queue_bytes(alpha, memory, n)
    return ThresholdChoice(
        target,
        memory,
        n,
        alpha_min,
        alpha,
        k,
        queue,
        unallocated_bytes(alpha, memory, n),
        True,
        f"α = 2^{k} gives each of {n} congested queues {queue:.0f} B >= {target:.0f} B "
        f"(the smallest α is {alpha_min:.4g})",
    )
