"""BSCL: Buffer Sizing for Congested Links (Dhamdhere, Jiang, Dovrolis, INFOCOM 2005).

The minimum drop-tail buffer that keeps a link saturated by N_b locally-bottlenecked persistent
(LBP) TCP flows (the utilization term B_ρ, with partial loss synchronization) and keeps their loss
rate below p̂ (the loss term B_p), checked against a maximum queueing delay d̂.

Units: ``capacity_bps`` in bits per second, sizes in bytes (``_bytes``) or in segments of
``packet_bytes`` (``_packets``), times in seconds. The paper works in bytes and bytes per
second; the conversion ``C [bytes/s] = capacity_bps / 8`` is done here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from models import checks
from models.errors import ParameterError
from models.mathis import MATHIS_CONSTANT
from models.roots import bracketed_root
from models.rule_of_thumb import BITS_PER_BYTE, harmonic_mean_rtt_s

FloatOrArray = float | npt.NDArray[np.float64]
BoolOrArray = bool | npt.NDArray[np.bool_]
StrOrArray = str | npt.NDArray[np.str_]

DEFAULT_SYNC_FACTOR = 0.55
"""Loss synchronization factor α used in 004 §IV.B (Fig. 3) and suggested in §VI."""

FEW_FLOWS_THRESHOLD = 5.0
"""Below this many LBP flows BSCL falls back to B = C·T_e (004 §VII, after Fig. 8)."""

UTILIZATION = "utilization"
LOSS = "loss"


def _b(value: npt.NDArray[np.bool_]) -> BoolOrArray:
    return bool(value) if value.ndim == 0 else value


def _s(value: npt.NDArray[np.str_]) -> StrOrArray:
    return str(value) if value.ndim == 0 else value


def _arr(value: Any) -> npt.NDArray[np.float64]:
    return np.asarray(value, dtype=np.float64)


def _q(flows: Any, burst: Any) -> npt.NDArray[np.float64]:
    """q = 1 − (1 − 1/N_b)^L̄, computed as −expm1(L̄·log1p(−1/N_b)) (exact 1 at N_b = 1)."""
    with np.errstate(divide="ignore"):
        q = -np.expm1(np.multiply(burst, np.log1p(-1.0 / np.asarray(flows, dtype=np.float64))))
    return np.asarray(q, dtype=np.float64)


def _b_rho(q: Any, in_flight_bytes: Any, flows: Any, mss: Any) -> npt.NDArray[np.float64]:
    """Eq. 16 with C·T replaced by the in-flight bytes C_e·T_e (no argument checks)."""
    b = (q * in_flight_bytes - 2.0 * mss * flows * (1.0 - q)) / (2.0 - q)
    return np.asarray(b, dtype=np.float64)


def _b_p(kp: Any, in_flight_bytes: Any, flows: Any, mss: Any) -> npt.NDArray[np.float64]:
    """Eqs. 21/23: K_p·N_b·M − C_e·T_e (no argument checks)."""
    return np.asarray(kp * flows * mss - in_flight_bytes, dtype=np.float64)


def loss_synchronization(
    bottlenecked_flows: Any,
    sync_factor: Any = DEFAULT_SYNC_FACTOR,
    *,
    loss_burst_packets: Any = None,
) -> FloatOrArray:
    """Fraction q of the LBP flows that see a loss in a congestion event.

    Parameters
    ----------
    bottlenecked_flows : array_like
        Number N_b of LBP flows (>= 1; real values allowed for a time average).
    sync_factor : array_like, optional
        Loss synchronization factor α (> 0, dimensionless), so that the mean loss burst is
        ``L̄ = α·N_b`` packets (eq. 17). 0.55 by default.
    loss_burst_packets : array_like, optional
        Measured mean loss-burst length L̄ in packets (> 0). When given it is used instead of
        ``α·N_b``, as 004 §VI recommends when a loss trace is available.

    Returns
    -------
    float or numpy.ndarray
        ``q`` in (0, 1], dimensionless.

    Notes
    -----
    ``q(N_b) = 1 − (1 − 1/N_b)^L̄`` (004 §III.C eq. 13) with ``L̄ ≈ α·N_b`` (eq. 17).

    Assumptions:

    - each of the L̄ dropped packets of a congestion event belongs to a flow chosen uniformly and
      independently among the N_b flows;
    - the mean loss burst grows linearly in N_b (eq. 17), which 004 observed for N_b between about
      3-5 and a couple of hundred flows, with α typically 0.4-0.7.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §III.C eqs. 13 and 17, §VI.
    """
    flows = _arr(checks.at_least("bottlenecked_flows", bottlenecked_flows, 1.0))
    if loss_burst_packets is None:
        burst = _arr(checks.positive("sync_factor", sync_factor)) * flows
    else:
        burst = _arr(checks.positive("loss_burst_packets", loss_burst_packets))
    return checks.float_or_array(_q(flows, burst))


def kp_packets(max_loss: Any) -> FloatOrArray:
    """Window per LBP flow, in packets, that holds the loss rate at p̂.

    Parameters
    ----------
    max_loss : array_like
        Loss-rate bound p̂, a dimensionless probability in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        ``K_p = 0.87/√p̂`` packets (8.7 at 1 %, 6.15 at 2 %).

    Notes
    -----
    ``K_p = 0.87/√p̂`` — 004 §IV.A eq. 22, from the square-root law (eq. 2): a flow whose window
    averages K_p packets sees a loss rate p̂.

    Assumptions:

    - the square-root law of eq. 2 holds (congestion avoidance, fast-retransmit recovery).

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §IV.A eq. 22.
    """
    p = _arr(checks.probability("max_loss", max_loss))
    return checks.float_or_array(np.asarray(MATHIS_CONSTANT / np.sqrt(p), dtype=np.float64))


def utilization_buffer_bytes(
    loss_sync_q: Any,
    bottlenecked_capacity_bps: Any,
    effective_rtt_s: Any,
    bottlenecked_flows: Any,
    packet_bytes: Any,
) -> FloatOrArray:
    """B_ρ: the least buffer that keeps the link saturated after a congestion event.

    Parameters
    ----------
    loss_sync_q : array_like
        Fraction q of flows that see a loss per congestion event, in (0, 1] (dimensionless).
    bottlenecked_capacity_bps : array_like
        Capacity C_e used by the LBP flows, in bits per second (> 0).
    effective_rtt_s : array_like
        Effective (harmonic-mean) RTT T_e of the LBP flows, in seconds (> 0).
    bottlenecked_flows : array_like
        Number N_b of LBP flows (>= 1).
    packet_bytes : array_like
        Segment size M in bytes (> 0).

    Returns
    -------
    float or numpy.ndarray
        ``B_ρ`` in bytes. It may be negative: then no buffer is needed for utilization.

    Notes
    -----
    ``B_ρ = (q·C_e·T_e − 2·M·N_b·(1 − q)) / (2 − q)`` — 004 §III.C eq. 16 (solved from eq. 15),
    with T replaced by T_e for heterogeneous flows and C by C_e (Fig. 4). With ``q = 1`` (global
    synchronization) it is the bandwidth-delay product ``C_e·T_e`` (eq. 11).

    Assumptions:

    - flows that see a loss halve their window once; the others grow by one segment (eq. 14);
    - the buffer is full before the congestion event and may just empty after it;
    - the LBP flows carry most (80-90 %) of the link's traffic;
    - T_e excludes queueing at this link.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §III.C eqs. 14-16, Fig. 4.
    """
    q = _arr(checks.in_range("loss_sync_q", loss_sync_q, 0.0, 1.0, low_inclusive=False))
    capacity = (
        _arr(checks.positive("bottlenecked_capacity_bps", bottlenecked_capacity_bps))
        / BITS_PER_BYTE
    )
    rtt = _arr(checks.positive("effective_rtt_s", effective_rtt_s))
    flows = _arr(checks.at_least("bottlenecked_flows", bottlenecked_flows, 1.0))
    mss = _arr(checks.positive("packet_bytes", packet_bytes))
    return checks.float_or_array(_b_rho(q, capacity * rtt, flows, mss))


def loss_buffer_bytes(
    kp_packets: Any,
    bottlenecked_capacity_bps: Any,
    effective_rtt_s: Any,
    bottlenecked_flows: Any,
    packet_bytes: Any,
) -> FloatOrArray:
    """B_p: the least buffer that keeps the LBP flows' loss rate at or below p̂.

    Parameters
    ----------
    kp_packets : array_like
        Window per flow K_p in packets (> 0), as :func:`kp_packets` returns it.
    bottlenecked_capacity_bps : array_like
        Capacity C_e used by the LBP flows, in bits per second (> 0).
    effective_rtt_s : array_like
        Effective RTT T_e of the LBP flows in seconds (> 0).
    bottlenecked_flows : array_like
        Number N_b of LBP flows (>= 1).
    packet_bytes : array_like
        Segment size M in bytes (> 0).

    Returns
    -------
    float or numpy.ndarray
        ``B_p`` in bytes. It may be negative: then the path alone holds the windows.

    Notes
    -----
    ``B_p = K_p·N_b·M − C_e·T_e`` — 004 §IV eqs. 21 and 23 and Fig. 4 (written there with K_p in
    bytes). Each flow keeps a window of K_p packets, in this buffer or in flight (C_e·T_e).

    Assumptions:

    - the average queueing delay of the congested link is about its maximum B/C;
    - the square-root law (eq. 2) holds;
    - T_e excludes queueing at this link.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §IV.A-B eqs. 21-23, Fig. 4.
    """
    k = _arr(checks.positive("kp_packets", kp_packets))
    capacity = (
        _arr(checks.positive("bottlenecked_capacity_bps", bottlenecked_capacity_bps))
        / BITS_PER_BYTE
    )
    rtt = _arr(checks.positive("effective_rtt_s", effective_rtt_s))
    flows = _arr(checks.at_least("bottlenecked_flows", bottlenecked_flows, 1.0))
    mss = _arr(checks.positive("packet_bytes", packet_bytes))
    return checks.float_or_array(_b_p(k, capacity * rtt, flows, mss))


#: Up to this many crossovers are solved one by one by bisection, more at once.
_SCALAR_ROOTS = 32

#: Tolerance of the one-by-one crossovers: ``scipy.optimize.brentq``'s defaults (xtol 2e-12,
#: rtol four machine epsilons).
_ROOT_XTOL = 2e-12
_ROOT_RTOL = 4.0 * float(np.finfo(np.float64).eps)


def _scalar_gap(flows: float, x: float, m: float, k: float, a: float) -> float:
    """``gap`` of :func:`_crossover` at one point: the same operations in the same order as
    :func:`_q`, :func:`_b_rho` and :func:`_b_p`, NumPy's ``log1p`` and ``expm1`` included (the
    math module's differ from them in the last digit), the rest in plain floats (the same
    IEEE arithmetic), without the arrays' per-call cost: a root takes a dozen evaluations."""
    # log1p(−1/N_b) is −inf at N_b = 1, where q is exactly 1 (NumPy's, without its warning)
    log_keep = -math.inf if flows == 1.0 else float(np.log1p(-1.0 / flows))
    q = -float(np.expm1((a * flows) * log_keep))
    b_rho = (q * x - 2.0 * m * flows * (1.0 - q)) / (2.0 - q)
    return b_rho - (k * flows * m - x)


def _crossover(
    in_flight_bytes: npt.NDArray[np.float64],
    packet_bytes: npt.NDArray[np.float64],
    kp: npt.NDArray[np.float64],
    burst_per_flow: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """Real N_b >= 1 where B_ρ = B_p, with T_e, C_e, M, K_p and α held fixed (elementwise).

    ``B_ρ − B_p`` falls strictly with N_b (q falls, and so does the −2MN_b(1−q) term) and
    ``B_ρ <= C_e·T_e``, so the root lies in ``[1, 2·C_e·T_e/(K_p·M)]``. Where ``B_p >= B_ρ``
    already at N_b = 1 the result is 1.
    """

    def gap(flows: Any, x: Any, m: Any, k: Any, a: Any) -> npt.NDArray[np.float64]:
        q = _q(flows, a * flows)
        return _b_rho(q, x, flows, m) - _b_p(k, x, flows, m)

    one = np.ones_like(in_flight_bytes)
    upper = 2.0 * in_flight_bytes / (kp * packet_bytes)
    args = (in_flight_bytes, packet_bytes, kp, burst_per_flow)
    solve = (upper > 1.0) & (gap(one, *args) > 0.0)
    result = one.copy()
    # At the upper end gap = B_ρ − C_e·T_e <= 0 exactly, with equality when q = 1. A large
    # loss burst per flow (α = L̄/N_b of tens, as a trace of two flows can measure) makes q
    # equal 1 to rounding there, and the computed gap a rounding error above zero (5.96e-08
    # bytes of 4.68e+08 at 10 Gb/s, T_e 314 ms, N_b 3, L̄ 174): the crossover is then the
    # upper end itself, not "no bracket".
    with np.errstate(invalid="ignore"):
        at_upper = solve & (gap(upper, *args) >= 0.0)
    result[at_upper] = upper[at_upper]
    solve &= ~at_upper
    count = int(np.count_nonzero(solve))
    if 0 < count <= _SCALAR_ROOTS:
        # A few roots: one by one, by bisection to brentq's default tolerance (without importing
        # scipy.optimize, most of the start-up of `bufsize recommend`: models/roots.py).
        for index in np.ndindex(solve.shape):
            if not solve[index]:
                continue
            point = tuple(float(v[index]) for v in args)

            def gap_at(n: float, p: tuple[float, ...] = point) -> float:
                return _scalar_gap(n, *p)

            result[index] = bracketed_root(
                gap_at,
                1.0,
                float(upper[index]),
                xtol=_ROOT_XTOL,
                rtol=_ROOT_RTOL,
            )
    elif count > _SCALAR_ROOTS:
        # Many roots at once: SciPy's vectorised solver, imported on first use (slow import).
        from scipy.optimize.elementwise import find_root

        sub = tuple(np.asarray(v[solve], dtype=np.float64) for v in args)
        found = find_root(gap, (np.ones_like(sub[0]), upper[solve]), args=sub)
        result[solve] = found.x
    return result


@dataclass(frozen=True)
class BSCLResult:
    """BSCL buffer and its parts; fields are floats, or arrays when the inputs were arrays.

    Attributes
    ----------
    buffer_bytes, buffer_packets : float or ndarray
        The recommended buffer ``max{B_ρ, B_p}`` (``max{C·T_e, B_p}`` when N_b < 5), at least 0;
        packets are segments of ``packet_bytes`` (not rounded).
    b_rho_bytes, b_p_bytes : float or ndarray
        The utilization term (eq. 16) and the loss term (eq. 21/23), unclipped.
    governing_constraint : str or ndarray of str
        ``"utilization"`` or ``"loss"``: the term that sets the buffer.
    crossover_flows : float or ndarray
        Ñ_b, the real N_b at which B_ρ = B_p for these T_e, C_e, M, p̂, α (1.0 when the loss
        term dominates for every N_b >= 1).
    delay_feasible : bool, ndarray of bool, or None
        Whether ``buffer_bytes <= C·d̂`` (eq. 24); None when no d̂ was given.
    min_feasible_delay_s : float or ndarray
        The smallest d̂ the buffer allows: ``buffer_bytes / C`` (eq. 25).
    effective_rtt_s : float or ndarray
        T_e used.
    loss_sync_q : float or ndarray
        q(N_b), dimensionless.
    kp_packets : float or ndarray
        K_p in packets.
    few_flows_correction : bool or ndarray of bool
        True where N_b < 5 and B_ρ was replaced by C·T_e (004 §VII).
    """

    buffer_bytes: FloatOrArray
    buffer_packets: FloatOrArray
    b_rho_bytes: FloatOrArray
    b_p_bytes: FloatOrArray
    governing_constraint: StrOrArray
    crossover_flows: FloatOrArray
    delay_feasible: BoolOrArray | None
    min_feasible_delay_s: FloatOrArray
    effective_rtt_s: FloatOrArray
    loss_sync_q: FloatOrArray
    kp_packets: FloatOrArray
    few_flows_correction: BoolOrArray


def bscl_buffer(
    capacity_bps: Any,
    bottlenecked_share: Any,
    bottlenecked_flows: Any,
    packet_bytes: Any,
    max_loss: Any,
    *,
    effective_rtt_s: Any = None,
    rtts_s: Any = None,
    sync_factor: Any = DEFAULT_SYNC_FACTOR,
    max_queueing_delay_s: Any = None,
    loss_burst_packets: Any = None,
) -> BSCLResult:
    """Minimum drop-tail buffer for a congested link: BSCL (004 Fig. 4).

    Parameters
    ----------
    capacity_bps : array_like
        Link capacity C in bits per second (> 0).
    bottlenecked_share : array_like
        C_e/C, the share of the capacity used by the LBP flows, in (0, 1] (dimensionless);
        004 uses 0.9 for 10 % non-LBP traffic.
    bottlenecked_flows : array_like
        Number N_b of LBP flows (>= 1; a time average may be non-integer).
    packet_bytes : array_like
        Maximum segment size M of the LBP flows in bytes (> 0).
    max_loss : array_like
        Loss-rate bound p̂ in (0, 1), typically 0.01.
    effective_rtt_s : array_like, optional
        T_e in seconds (> 0). Give this or ``rtts_s``, not both.
    rtts_s : array_like, optional
        RTTs of the LBP flows (or a sample of them) in seconds; T_e is their harmonic mean.
    sync_factor : array_like, optional
        Loss synchronization factor α > 0 (dimensionless), 0.55 by default.
    max_queueing_delay_s : array_like, optional
        Maximum queueing delay d̂ in seconds (> 0) for the feasibility check.
    loss_burst_packets : array_like, optional
        Measured mean loss burst L̄ in packets (> 0), used instead of α·N_b in q; the crossover
        then uses α = L̄/N_b.

    Returns
    -------
    BSCLResult
        Buffer in bytes and packets, both terms, the governing constraint, Ñ_b, delay
        feasibility and the intermediate quantities. Array inputs broadcast.

    Raises
    ------
    models.errors.ParameterError
        If an argument is outside its range (the message names it and the bound), or if not
        exactly one of ``effective_rtt_s`` and ``rtts_s`` is given.

    Notes
    -----
    ``B = max{B_ρ, B_p}`` (004 eq. 26, Fig. 4), with

    - ``B_ρ = (q·C_e·T_e − 2·M·N_b·(1 − q)) / (2 − q)`` (eq. 16),
    - ``B_p = K_p·N_b·M − C_e·T_e`` (eqs. 21, 23), ``K_p = 0.87/√p̂`` (eq. 22),
    - ``q = 1 − (1 − 1/N_b)^(α·N_b)`` (eqs. 13, 17), ``T_e = N_b/Σ(1/T_i)`` (eq. 12).

    For N_b < 5, B_ρ is replaced by ``C·T_e`` (004 §VII: the probabilistic model misses the
    near-deterministic synchronization of a few flows; the paper writes C, not C_e). The result
    is clipped at 0. The queueing-delay bound needs ``B <= C·d̂`` (eq. 24); the smallest bound
    that can be met is ``B/C`` (eq. 25). When it cannot be met the buffer is still the one that
    meets the utilization and loss targets, as 004 §V does, and ``delay_feasible`` is False.

    Assumptions:

    - the LBP flows carry most (80-90 %) of the link's traffic; non-LBP traffic adds no buffer;
    - drop-tail, output-queued link with a byte-addressed buffer;
    - TCP flows in congestion avoidance obeying the square-root law (loss below a few %);
    - the mean loss burst is α·N_b (eq. 17), valid for N_b from about 5 to a few hundred;
    - the RTTs exclude queueing at this link;
    - utilization target ≈ 100 % (004 uses 98 %).

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §III-§V eqs. 11-26, Fig. 4, §VII.
    """
    if (effective_rtt_s is None) == (rtts_s is None):
        raise ParameterError(
            "effective_rtt_s",
            "given alone (exactly one of effective_rtt_s and rtts_s)",
            "effective_rtt_s: give exactly one of effective_rtt_s and rtts_s",
        )
    if rtts_s is not None:
        effective_rtt_s = harmonic_mean_rtt_s(rtts_s)
    capacity = _arr(checks.positive("capacity_bps", capacity_bps))
    fraction = _arr(
        checks.in_range("bottlenecked_share", bottlenecked_share, 0.0, 1.0, low_inclusive=False)
    )
    flows = _arr(checks.at_least("bottlenecked_flows", bottlenecked_flows, 1.0))
    mss = _arr(checks.positive("packet_bytes", packet_bytes))
    rtt = _arr(checks.positive("effective_rtt_s", effective_rtt_s))
    alpha = _arr(checks.positive("sync_factor", sync_factor))
    kp = _arr(kp_packets(max_loss))
    if loss_burst_packets is not None:
        burst = _arr(checks.positive("loss_burst_packets", loss_burst_packets))
        alpha = burst / flows
    delay = None
    if max_queueing_delay_s is not None:
        delay = _arr(checks.positive("max_queueing_delay_s", max_queueing_delay_s))

    capacity, fraction, flows, mss, rtt, alpha, kp = np.broadcast_arrays(
        capacity, fraction, flows, mss, rtt, alpha, kp
    )
    lbp_capacity = capacity * fraction
    in_flight = lbp_capacity / BITS_PER_BYTE * rtt
    q = _q(flows, alpha * flows)
    b_rho = _b_rho(q, in_flight, flows, mss)
    b_p = _b_p(kp, in_flight, flows, mss)

    few = flows < FEW_FLOWS_THRESHOLD
    bdp_bytes = capacity / BITS_PER_BYTE * rtt
    utilization_term = np.where(few, bdp_bytes, b_rho)
    loss_governs = b_p > utilization_term
    buffer_bytes = np.maximum(np.maximum(utilization_term, b_p), 0.0)
    governing = np.where(loss_governs, LOSS, UTILIZATION)

    crossover = _crossover(in_flight, mss, kp, alpha)
    min_delay = buffer_bytes / (capacity / BITS_PER_BYTE)
    feasible: BoolOrArray | None = None
    if delay is not None:
        feasible = _b(np.asarray(min_delay <= delay))

    return BSCLResult(
        buffer_bytes=checks.float_or_array(buffer_bytes),
        buffer_packets=checks.float_or_array(buffer_bytes / mss),
        b_rho_bytes=checks.float_or_array(b_rho),
        b_p_bytes=checks.float_or_array(b_p),
        governing_constraint=_s(governing),
        crossover_flows=checks.float_or_array(np.asarray(crossover, dtype=np.float64)),
        delay_feasible=feasible,
        min_feasible_delay_s=checks.float_or_array(min_delay),
        effective_rtt_s=checks.float_or_array(rtt),
        loss_sync_q=checks.float_or_array(q),
        kp_packets=checks.float_or_array(kp),
        few_flows_correction=_b(np.asarray(few)),
    )
