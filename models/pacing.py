"""Paced traffic: the Chernoff union bound on packet drops of 000 Theorem 2 (App. B)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from models import checks
from models.checks import FloatOrArray
from models.rule_of_thumb import bdp_packets

#: Interval lengths are summed in chunks of at most this many (bounds memory on long RTTs).
_MAX_CHUNK = 1 << 20
#: Stop summing once what is left is below ``exp(-_TAIL_LOG_MARGIN)`` of the sum so far.
_TAIL_LOG_MARGIN = 40.0
#: Interval lengths up to this are summed term by term; longer ones in bins (upper bounds).
_EXACT_SLOTS = 1 << 15
#: Bins of interval lengths grow by this fraction (beyond the first ``_BLOCKS`` values of k).
_FINE_RATIO = 1.0 / 512.0
#: Coarser bins, for bounds that only decide whether the rest of the sum matters.
_COARSE_RATIO = 1.0 / 32.0
#: Bins of :func:`paced_drop_bound_bracket` up to ``_EXACT_SLOTS`` (tangent and chord bounds
#: stay within a fraction of a per cent of each other even this wide).
_BRACKET_RATIO = 1.0 / 8.0
#: The first this many values of ``k(l) = ⌈l/S⌉`` get bins of their own.
_BLOCKS = 512
#: Most bins of the geometric grid (their ratio grows for astronomically long RTTs).
_MAX_BINS = 20_000


@dataclass(frozen=True)
class PacedDropBound:
    """Union bound on the drop probability of one packet of paced traffic, by regime.

    Attributes
    ----------
    drop_probability : float
        ``min(1, one_packet_intervals + partial_window_intervals + whole_window_intervals)``.
        Once the running sum reaches 1 the summation stops, so the three parts are then
        partial sums. Interval lengths beyond 32768 slots enter the parts through upper
        bounds on their bins (see :func:`paced_drop_bound_slots`).
    one_packet_intervals : float
        Sum of the Chernoff bounds over intervals ``l ≤ S``, in which a flow has at most
        one packet (000 App. B: Lemma 7, ``l ≤ log W_max``, and the start of Lemma 8), not
        clipped.
    partial_window_intervals : float
        Sum over ``S < l < S·W_max``, in which a flow has at most ``⌈l/S⌉`` packets (the rest
        of Lemma 8, ``log W_max ≤ l ≤ S·W_max``), not clipped.
    whole_window_intervals : float
        Sum over ``l ≥ S·W_max``, which can hold a flow's whole window (Lemma 9), not clipped.
    load : float
        ``ρ = N·W_max/M``, dimensionless.
    slots_per_rtt : float
        ``M = C·RTT``, packet slots in one round-trip time.
    slowdown : float
        ``S``, bottleneck rate over access rate, dimensionless.
    longest_interval_slots : int
        The longest interval length that can be overpopulated, ``min(M, N·W_max − 1 − B)``.
    """

    drop_probability: float
    one_packet_intervals: float
    partial_window_intervals: float
    whole_window_intervals: float
    load: float
    slots_per_rtt: float
    slowdown: float
    longest_interval_slots: int


def _log_sum(log_terms: npt.NDArray[np.float64]) -> float:
    """``ln Σ exp(log_terms)`` without overflow (``-inf`` for no terms or all zero)."""
    if log_terms.size == 0:
        return -math.inf
    top = float(np.max(log_terms))
    if top == -math.inf:
        return top
    return top + math.log(float(np.sum(np.exp(log_terms - top))))


def _log_sums_by_regime(
    log_terms: npt.NDArray[np.float64], first: npt.NDArray[np.float64], s: float, w: float
) -> npt.NDArray[np.float64]:
    """Log sums of ``log_terms`` split by the sorted lengths ``first`` into the three classes.

    One packet per flow when the length is ``<= S``, the whole window when it is
    ``>= S·W_max`` (000 Lemma 9), else ``⌈l/S⌉`` packets (bins never straddle these
    boundaries).
    """
    short_end = int(np.searchsorted(first, s, side="right"))
    long_start = max(short_end, int(np.searchsorted(first, s * w, side="left")))
    return np.array(
        [
            _log_sum(log_terms[:short_end]),
            _log_sum(log_terms[short_end:long_start]),
            _log_sum(log_terms[long_start:]),
        ]
    )


def _log_chernoff(threshold: npt.NDArray[np.float64], mean: npt.NDArray[np.float64]) -> Any:
    """``ln[(e^δ/(1+δ)^(1+δ))^μ]`` with ``(1+δ)μ = threshold``; needs threshold > mean > 0."""
    return threshold - mean - threshold * np.log(threshold / mean)


def _log_chernoff_slope(length: Any, buffer: float, load: float) -> Any:
    """Derivative in ``l`` of :func:`_log_chernoff` at ``(l + B, ρ·l)``: ``ρ(r − 1) − ln r``.

    ``r = (l + B)/(ρ·l)``. The exponent ``E(l)`` is concave in ``l`` (``E'' = (ρ − 1/r)·r'`` with
    ``r >= 1/ρ`` and ``r' <= 0``), so its tangents lie above it and its chords below it.
    """
    ratio = (length + buffer) / (load * length)
    return load * (ratio - 1.0) - np.log(ratio)


def _log_geometric(count: Any, step: Any) -> Any:
    """``ln Σ_{i=0}^{count−1} e^(i·step)`` for whole ``count >= 1``, without overflow."""
    count = np.asarray(count, dtype=np.float64)
    step = np.asarray(step, dtype=np.float64)
    # A rising series is e^((count−1)·step) times the falling one with −step.
    down = -np.abs(step)
    safe = np.where(down < 0.0, down, -1.0)
    falling = np.where(down < 0.0, np.log(np.expm1(count * safe) / np.expm1(safe)), np.log(count))
    return falling + (count - 1.0) * np.maximum(step, 0.0)


def _bin_edges(
    first: float, last: float, s: float, w: float, ratio: float, blocks: int, stride: int = 1
) -> npt.NDArray[np.float64]:
    """Last interval length of each bin covering ``first..last`` (whole numbers, as floats).

    A bin never straddles a regime boundary (``l = S``, ``l = S·W``) nor, for the first
    ``blocks`` values of ``k``, a change of ``k(l) = ⌈l/S⌉``; otherwise bins grow by the factor
    ``1 + ratio`` (at most :data:`_MAX_BINS` of them). With ``stride`` only every
    ``stride``-th point of that grid is kept: the bins are then unions of the finer ones.
    """
    ratio = max(ratio, math.log(last / first) / _MAX_BINS)
    steps = math.ceil(math.log(last / first) / math.log1p(ratio))
    grid = np.floor(first * np.exp(np.arange(1, steps + 1) * math.log1p(ratio)))
    grid = grid[stride - 1 :: stride]
    k_top = min(float(blocks), math.ceil(w), math.floor(last / s) + 1.0)
    block_ends = np.floor(np.arange(1.0, k_top + 1.0) * s)
    regime_ends = [float(math.floor(s))]
    if math.isfinite(s * w):
        regime_ends.append(float(math.ceil(s * w)) - 1.0)
    edges = np.concatenate((grid, block_ends, regime_ends, [last]))
    edges = edges[(edges >= first) & (edges <= last)]
    out: npt.NDArray[np.float64] = np.unique(edges)
    return out


def _bin_bounds(starts: Any, ends: Any, load: float, s: float, w: float, b: Any) -> tuple[Any, Any]:
    """Logs of an upper and a lower bound on the terms ``l = starts..ends`` of each bin.

    Within a bin ``a..b`` the per-flow count lies between ``k(a)`` and ``k(b)`` and the exponent
    ``E(l) < 0`` is concave, so (all sums closed-form geometric series)

    - above: ``Σ exp(E(l)/k(l)) <= Σ exp(T(l)/k(b))``, ``T`` the lower of the tangents of ``E``
      at ``a`` and at ``b``;
    - below: ``Σ exp(E(l)/k(l)) >= Σ exp(χ(l)/k(a))``, ``χ`` the chord of ``E`` from ``a`` to
      ``b``.

    Bins of one interval length give the term itself, both ways. Arrays broadcast (one row
    per buffer size, one column per bin).
    """
    count = ends - starts + 1.0
    e_a = _log_chernoff(starts + b, load * starts)
    e_b = _log_chernoff(ends + b, load * ends)
    d_a = _log_chernoff_slope(starts, b, load)
    d_b = _log_chernoff_slope(ends, b, load)
    k_a = np.minimum(np.ceil(starts / s), w)
    k_b = np.minimum(np.ceil(ends / s), w)
    # Tangent at a up to the crossing of the two tangents, tangent at b after it; any split
    # point gives a valid bound, the crossing gives the tightest.
    gap = d_a - d_b
    safe_gap = np.where(gap > 0.0, gap, 1.0)
    cross = np.where(gap > 0.0, (e_b - e_a + d_a * starts - d_b * ends) / safe_gap, ends)
    split = np.clip(np.floor(cross), starts - 1.0, ends)
    left_n = split - starts + 1.0
    right_n = ends - split
    left = np.where(
        left_n > 0.0,
        e_a / k_b + _log_geometric(np.maximum(left_n, 1.0), d_a / k_b),
        -np.inf,
    )
    right = np.where(
        right_n > 0.0,
        e_b / k_b + _log_geometric(np.maximum(right_n, 1.0), -d_b / k_b),
        -np.inf,
    )
    upper = np.logaddexp(left, right)
    width = np.maximum(ends - starts, 1.0)
    chord = np.where(count > 1.0, (e_b - e_a) / width, 0.0)
    lower = e_a / k_a + _log_geometric(count, chord / k_a)
    return upper, lower


def _bin_log_sums(
    first: float,
    last: float,
    load: float,
    s: float,
    w: float,
    b: float,
    *,
    ratio: float,
    blocks: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Upper and lower bounds on the log of the sums of the terms ``l = first..last``, by regime.

    See :func:`_bin_bounds` for the bound on each bin and :func:`_bin_edges` for the bins.
    """
    ends = _bin_edges(first, last, s, w, ratio, blocks)
    starts = np.concatenate(([first], ends[:-1] + 1.0))
    upper, lower = _bin_bounds(starts, ends, load, s, w, b)
    # A bin is in the one-packet class when its last length is <= S: classify by that end
    # for it and by the first length for the whole-window class (the same bins, as none
    # straddles a boundary).
    short_end = int(np.searchsorted(ends, s, side="right"))
    long_start = max(short_end, int(np.searchsorted(starts, s * w, side="left")))
    parts = (slice(0, short_end), slice(short_end, long_start), slice(long_start, None))
    up = np.array([_log_sum(upper[part]) for part in parts])
    low = np.array([_log_sum(lower[part]) for part in parts])
    return up, low


def _log_sum_rows(log_terms: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """:func:`_log_sum` of each row of a 2-D array."""
    top = np.max(log_terms, axis=1)
    finite = np.isfinite(top)
    shift = np.where(finite, top, 0.0)
    total = np.sum(np.exp(log_terms - shift[:, None]), axis=1)
    out: npt.NDArray[np.float64] = np.where(
        finite, shift + np.log(np.where(finite, total, 1.0)), -np.inf
    )
    return out


def _binned_rows(
    ends: npt.NDArray[np.float64],
    lasts: npt.NDArray[np.float64],
    load: float,
    s: float,
    w: float,
    b: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Binned upper and lower bounds on the log of the terms ``1..lasts[i]`` at ``b[i]``.

    ``ends`` are the bins' last lengths (the first bin starts at 1); each row's bins are cut at
    its own last length.
    """
    starts = np.concatenate(([1.0], ends[:-1] + 1.0))
    row_last = lasts[:, None]
    used = starts[None, :] <= row_last
    row_ends = np.where(used, np.minimum(ends[None, :], row_last), starts[None, :])
    upper, lower = _bin_bounds(starts[None, :], row_ends, load, s, w, b[:, None])
    return (
        _log_sum_rows(np.where(used, upper, -np.inf)),
        _log_sum_rows(np.where(used, lower, -np.inf)),
    )


def _exact_log_sums(
    n: float, w: float, m: float, s: float, b: float
) -> tuple[npt.NDArray[np.float64], int, bool]:
    """Log sums by regime of the terms summed one by one (``l <= _EXACT_SLOTS``).

    Returns the three log sums, the longest interval length and whether the rest of the sum
    (interval lengths not summed one by one) is still to be added.
    """
    load = n * w / m
    longest = math.floor(min(m, n * w - 1.0 - b))
    exact_last = min(longest, _EXACT_SLOTS)
    logs = np.full(3, -np.inf)
    start, chunk = 1, 4096
    while start <= exact_last:
        stop = min(exact_last, start + chunk - 1)
        length = np.arange(start, stop + 1, dtype=np.float64)
        per_flow = np.minimum(np.ceil(length / s), w)
        exponent = _log_chernoff(length + b, load * length)
        log_terms = exponent / per_flow
        logs = np.logaddexp(logs, _log_sums_by_regime(log_terms, length, s, w))
        log_total = _log_sum(logs)
        if log_total >= 0.0:
            return logs, longest, False
        if stop < longest:
            # Every later term is at most exp(exponent(l)/W_max) (exponent < 0, k <= W_max),
            # and exponent(l) decreases once ρr − ln r − ρ < 0, r = (l+B)/(ρl) (r falls with l).
            r = (stop + b) / (load * stop)
            falling = load * r - math.log(r) - load < 0.0
            tail = math.log(longest - stop) + float(exponent[-1]) / w
            if falling and tail < log_total - _TAIL_LOG_MARGIN:
                return logs, longest, False
            # The binned upper bound on everything left, when the crude one above is too weak.
            rest, _ = _bin_log_sums(
                stop + 1.0, float(longest), load, s, w, b, ratio=_COARSE_RATIO, blocks=_BLOCKS
            )
            if _log_sum(rest) < log_total - _TAIL_LOG_MARGIN:
                return logs, longest, False
        start = stop + 1
        chunk = min(2 * chunk, _MAX_CHUNK)
    return logs, longest, longest > exact_last


def paced_drop_bound_slots(
    flows: float,
    max_window_packets: float,
    slots_per_rtt: float,
    slowdown: float,
    buffer_packets: float,
) -> PacedDropBound:
    """The App. B union bound in its own units: ``M`` slots per RTT, slowdown ``S``.

    Parameters
    ----------
    flows : float
        Number ``N`` of paced flows (>= 1).
    max_window_packets : float
        Most packets ``W_max`` a flow sends per RTT (>= 1).
    slots_per_rtt : float
        ``M = C·RTT``, packet transmission slots of the bottleneck in one RTT (> 0).
    slowdown : float
        ``S``, the fewest slots between two packets of one flow: bottleneck rate over access
        rate (> 0), dimensionless.
    buffer_packets : float
        Buffer size ``B`` in packets (>= 0).

    Returns
    -------
    PacedDropBound
        The bound and its three parts.

    Raises
    ------
    models.errors.ParameterError
        If an argument is out of range or the load ``N·W_max/M`` is not below 1.

    Notes
    -----
    A packet arriving in slot ``t`` is dropped only if some interval of ``l`` slots ending at
    ``t`` holds at least ``l + B`` other arrivals ("overpopulated"), so its drop probability is
    at most ``Σ_l Pr[interval of length l overpopulated]`` (union bound). Within an interval of
    ``l`` slots one flow has at most ``k(l) = min(⌈l/S⌉, W_max)`` packets and on average at most
    ``W_max·l/M``. With ``Y_i/k`` in [0, 1] independent across flows (random start times), the
    Chernoff bound ``Pr[X ≥ (1+δ)μ] < (e^δ/(1+δ)^(1+δ))^μ`` is applied to
    ``X = Σ Y_i/k`` with ``μ = ρ·l/k`` and ``(1+δ)μ = (l+B)/k``:

    - one packet per flow, ``l ≤ S``: ``k = 1``;
    - part of a window, ``S < l < S·W_max``: ``k = ⌈l/S⌉``;
    - the whole window, ``l ≥ S·W_max``: ``k = W_max``.

    The thesis splits the lengths differently: Lemma 7 is ``l ≤ log W_max`` (one packet per
    flow, as ``c_S ≥ 1`` makes ``log W_max ≤ S``), Lemma 8 is ``log W_max ≤ l ≤ S·W_max``
    (its proof takes ``(k − 1)·S ≤ l ≤ k·S``, so ``k = ⌈l/S⌉``) and Lemma 9 is
    ``l ≥ S·W_max`` (000 App. B). The first two classes here together cover Lemmas 7 and 8;
    the third is Lemma 9.

    Differences from the text, all keeping the bound valid: the threshold is ``l + B`` (the
    lemmas weaken it to ``B`` or ``l``); Lemma 8 uses the per-flow mean ``W_max·l/M`` (the
    "more accurate analysis" the text mentions) instead of the 0-or-k simplification; the sum
    runs over the intervals of one RTT, ``l ≤ M``, and stops at ``l = N·W_max − 1 − B`` since at
    most ``N·W_max`` packets arrive per RTT (the text integrates Lemma 9 to infinity).

    Evaluation: the terms ``l ≤ 32768`` are added one by one in log-space; once the remaining
    terms are provably below ``e^-40`` of the sum the summation stops. Longer intervals, if
    still needed, are grouped into bins (one per value of ``k`` for the first 512, then
    growing by 1/512) and each bin contributes an upper bound on its terms: the exponent
    ``E(l) = (l+B) − ρl − (l+B)·ln((l+B)/(ρl))`` is negative and concave in ``l``, so it lies
    below its tangents, and ``E(l)/k(l) <= E(l)/k(b)`` at the bin's last length ``b``; the
    tangent lines give geometric series summed in closed form. The work is thus bounded
    (at most a few thousand bins) whatever ``N·W_max``, and the result stays an upper bound
    on the union bound, a little above the term-by-term sum only for links with more than
    32768 slots of interval to add up.

    Assumptions:

    - flows start at independent, uniformly random slots (random jitter, no synchronization);
    - each flow sends at most ``W_max`` packets per RTT, at least ``S`` slots apart;
    - the over-provisioned link: ``ρ = N·W_max/M < 1``;
    - all packets have the same size (one per slot); drop-tail queue of ``B`` packets;
    - the analysis covers one RTT.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §3.4, Theorem 2; App. B, Lemmas 7-9.
    """
    n = float(checks.at_least("flows", flows, 1.0))
    w = float(checks.at_least("max_window_packets", max_window_packets, 1.0))
    m = float(checks.positive("slots_per_rtt", slots_per_rtt))
    s = float(checks.positive("slowdown", slowdown))
    b = float(checks.non_negative("buffer_packets", buffer_packets))
    load = n * w / m
    checks.in_range(
        "flows", load, 0.0, 1.0, high_inclusive=False, label="load N·max_window_packets/(C·RTT)"
    )

    logs, longest, rest = _exact_log_sums(n, w, m, s, b)
    if rest:
        binned, _ = _bin_log_sums(
            _EXACT_SLOTS + 1.0, float(longest), load, s, w, b, ratio=_FINE_RATIO, blocks=_BLOCKS
        )
        logs = np.logaddexp(logs, binned)
    parts = np.exp(logs)
    return PacedDropBound(
        drop_probability=float(min(1.0, parts.sum())),
        one_packet_intervals=float(parts[0]),
        partial_window_intervals=float(parts[1]),
        whole_window_intervals=float(parts[2]),
        load=load,
        slots_per_rtt=m,
        slowdown=s,
        longest_interval_slots=max(longest, 0),
    )


def _slots_and_slowdown(
    capacity_bps: Any, rtt_s: Any, access_bps: Any, packet_bytes: Any
) -> tuple[Any, Any]:
    checks.positive("access_bps", access_bps)
    slots = bdp_packets(capacity_bps, rtt_s, packet_bytes)
    slowdown = np.asarray(capacity_bps, dtype=np.float64) / np.asarray(access_bps, np.float64)
    return slots, slowdown


def _scalar_drop_bound(n: float, w: float, m: float, s: float, b: float) -> float:
    return paced_drop_bound_slots(n, w, m, s, b).drop_probability


_vector_drop_bound = np.vectorize(_scalar_drop_bound, otypes=[np.float64])


def paced_drop_probability_bound(
    flows: Any,
    max_window_packets: Any,
    capacity_bps: Any,
    rtt_s: Any,
    access_bps: Any,
    packet_bytes: Any,
    buffer_packets: Any,
) -> FloatOrArray:
    """Upper bound on the drop probability of a packet of paced flows (Theorem 2, App. B).

    Parameters
    ----------
    flows : float or array_like
        Number ``N`` of paced flows (>= 1).
    max_window_packets : float or array_like
        Largest window ``W_max`` in packets (>= 1).
    capacity_bps : float or array_like
        Bottleneck capacity ``C`` in bits per second (> 0).
    rtt_s : float or array_like
        Round-trip time in seconds (> 0).
    access_bps : float or array_like
        Access-link rate of each flow in bits per second (> 0); ``S = C / access_bps``.
    packet_bytes : float or array_like
        Packet size in bytes (> 0).
    buffer_packets : float or array_like
        Buffer size ``B`` in packets (>= 0).

    Returns
    -------
    float or ndarray
        The bound, a probability in [0, 1]; arrays broadcast.

    Notes
    -----
    ``M = C·RTT/(8·packet_bytes)`` slots, ``S = C/access_bps``, ``ρ = N·W_max/M``, and
    ``p ≤ Σ_l Chernoff(l)`` over the three interval regimes of Lemmas 7-9; see
    :func:`paced_drop_bound_slots` for the terms. The bound falls as ``B`` grows and as the
    access link gets slower (larger ``S``). For slow access links it is far below the
    Poisson bound ``ρ^B`` of Theorem 1 from about ten packets on (170 times below at
    ``B = 15`` on the 000 §1.3 link, 10 Gb/s, ``S = 1000``, ``ρ = 0.512``); as ``S -> 1``
    (flows as fast as the bottleneck, no link pacing) it is vacuous (1) for buffers of order
    ``log W_max``: the text's remark that without pacing constant throughput is not achievable
    with log-sized buffers.

    Assumptions:

    - flows are paced: packets of a flow at least ``S`` slots apart;
    - flows start at independent, uniformly random times (random jitter);
    - the link is over-provisioned: ``ρ = N·W_max/(C·RTT) < 1``;
    - windows are capped at ``W_max``; all packets have the same size;
    - drop-tail queue of ``B`` packets; the analysis covers one RTT.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §3.4, Theorem 2; App. B, Lemmas 7-9.
    """
    slots, slowdown = _slots_and_slowdown(capacity_bps, rtt_s, access_bps, packet_bytes)
    value = _vector_drop_bound(flows, max_window_packets, slots, slowdown, buffer_packets)
    return checks.float_or_array(np.asarray(value, dtype=np.float64))


def paced_utilization_bound(
    flows: Any,
    max_window_packets: Any,
    capacity_bps: Any,
    rtt_s: Any,
    access_bps: Any,
    packet_bytes: Any,
    buffer_packets: Any,
) -> FloatOrArray:
    """Effective utilization guaranteed for paced flows: ``θ ≥ 1 − p·W_max²/2``.

    Parameters
    ----------
    flows, max_window_packets, capacity_bps, rtt_s, access_bps, packet_bytes, buffer_packets
        As for :func:`paced_drop_probability_bound`.

    Returns
    -------
    float or ndarray
        Lower bound on ``θ`` (throughput over ``ρ·C``), dimensionless, clipped to [0, 1].

    Notes
    -----
    The throughput argument of App. A (eqs. A.7-A.12: at most ``W_max²/2`` packets of
    throughput lost per drop) with the paced drop bound ``p`` of
    :func:`paced_drop_probability_bound` in place of the Poisson bound ``ρ^B``.

    Assumptions:

    - those of :func:`paced_drop_probability_bound`;
    - each drop costs at most the triangle ``W_max²/2`` of Fig. A.2 (AIMD flows).

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §3.4, Theorem 2; App. A, eqs. A.7-A.12; App. B.
    """
    drop = np.asarray(
        paced_drop_probability_bound(
            flows,
            max_window_packets,
            capacity_bps,
            rtt_s,
            access_bps,
            packet_bytes,
            buffer_packets,
        ),
        dtype=np.float64,
    )
    window = np.asarray(max_window_packets, dtype=np.float64)
    return checks.float_or_array(np.clip(1.0 - drop * window**2 / 2.0, 0.0, 1.0))


def paced_drop_bound_bracket(
    flows: float,
    max_window_packets: float,
    slots_per_rtt: float,
    slowdown: float,
    buffer_packets: Any,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Cheap lower and upper bounds on :func:`paced_drop_bound_slots` at many buffer sizes.

    Parameters
    ----------
    flows, max_window_packets, slots_per_rtt, slowdown
        As for :func:`paced_drop_bound_slots` (scalars).
    buffer_packets : array_like
        Buffer sizes ``B`` in packets (>= 0), any number of them.

    Returns
    -------
    (ndarray, ndarray)
        For each buffer, a lower and an upper bound (probabilities) between which
        ``paced_drop_bound_slots(...).drop_probability`` lies, up to its own rounding.

    Raises
    ------
    models.errors.ParameterError
        If an argument is out of range or the load ``N·W_max/M`` is not below 1.

    Notes
    -----
    The terms are bounded in coarse bins (one per value of ``k`` for the first 512, then 1/8
    wide up to 32768 slots): tangent lines of the concave Chernoff exponent above and chords
    below (see :func:`paced_drop_bound_slots`). Beyond 32768 slots, where the full evaluation
    adds a binned upper bound rather than the terms, the bins are unions of 16 of its bins:
    their tangent-line bound lies above the sum of the finer ones, their chord bound below the
    terms. The bounds are typically within a few per cent of each other; a search for the
    smallest buffer meeting a target (as the recommendation engine does) evaluates the full
    bound only where the two disagree about the target.

    Assumptions:

    - those of :func:`paced_drop_bound_slots`.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §3.4, Theorem 2; App. B, Lemmas 7-9.
    """
    n = float(checks.at_least("flows", flows, 1.0))
    w = float(checks.at_least("max_window_packets", max_window_packets, 1.0))
    m = float(checks.positive("slots_per_rtt", slots_per_rtt))
    s = float(checks.positive("slowdown", slowdown))
    b = np.atleast_1d(
        np.asarray(checks.non_negative("buffer_packets", buffer_packets), dtype=np.float64)
    ).ravel()
    load = n * w / m
    checks.in_range(
        "flows", load, 0.0, 1.0, high_inclusive=False, label="load N·max_window_packets/(C·RTT)"
    )
    longest = np.floor(np.minimum(m, n * w - 1.0 - b))
    top = float(np.max(longest))
    if top < 1.0:
        return np.zeros(b.shape), np.zeros(b.shape)
    ends = _bin_edges(1.0, min(top, float(_EXACT_SLOTS)), s, w, _BRACKET_RATIO, _BLOCKS)
    same_grid = True
    if top > _EXACT_SLOTS:
        # The full evaluation's fine bins, grouped by 16: unions of those bins, so the
        # grouped upper bound is above theirs (tangents of a concave function) and the
        # grouped lower bound is below the terms themselves.
        first = _EXACT_SLOTS + 1.0
        beyond = _bin_edges(first, top, s, w, _FINE_RATIO, _BLOCKS, stride=16)
        ends = np.concatenate((ends, beyond))
        # Beyond about 1e21 slots the grid widens with the longest interval, differently
        # for each buffer: no upper bound is claimed then (every step is fully evaluated).
        same_grid = math.log(top / first) / _MAX_BINS <= _FINE_RATIO
    up, low = _binned_rows(ends, longest, load, s, w, b)
    if not same_grid:
        up = np.zeros(b.shape)
    # The two sums round differently: where they meet, keep the lower end at the upper one
    # (a 1-ulp excess was found by tests/models/test_pacing.py's random links).
    low = np.minimum(low, up)
    return np.exp(np.minimum(low, 0.0)), np.exp(np.minimum(up, 0.0))
