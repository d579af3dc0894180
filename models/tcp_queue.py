"""TCP throughput equation coupled with an M/M/1/B router queue (000 §3.6)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from models import checks
from models.queues import mm1b_loss_scalar
from models.roots import bracketed_root


@dataclass(frozen=True)
class TcpQueueFixedPoint:
    """Operating point of ``N`` TCP flows through an M/M/1/B bottleneck.

    Attributes
    ----------
    load : float
        Link utilization ``ρ = N·R/C`` at the fixed point (dimensionless).
    loss_probability : float
        M/M/1/B drop probability ``p`` at that load.
    rate_pps : float
        Throughput ``R`` of each flow, in packets per second.
    window_limited : bool
        True when ``R = W_max/τ`` (the flows are held back by their maximum window, not by
        losses).
    peak_load : float
        ``N·W_max/(C·τ)``, the load if every flow sent its full window each RTT (dimensionless).
    capacity_pps : float
        Link capacity ``C`` in packets per second.
    """

    load: float
    loss_probability: float
    rate_pps: float
    window_limited: bool
    peak_load: float
    capacity_pps: float


def tcp_mm1b_fixed_point(
    flows: float,
    max_window_packets: float,
    capacity_bps: float,
    rtt_s: float,
    buffer_packets: float,
    packet_bytes: float = 1500.0,
) -> TcpQueueFixedPoint:
    """Link utilization predicted by the TCP equation with M/M/1/B losses (000 §3.6).

    Parameters
    ----------
    flows : float
        Number of long-lived TCP flows ``N`` (``>= 1``).
    max_window_packets : float
        Maximum window ``W_max`` of each flow, in packets (``>= 1``).
    capacity_bps : float
        Bottleneck capacity in bits per second (``> 0``).
    rtt_s : float
        Round-trip time ``τ`` of every flow, in seconds (``> 0``), held fixed.
    buffer_packets : float
        ``B``, the most packets the bottleneck holds, the one in transmission included
        (``>= 1``; non-integer values interpolate the M/M/1/B formula).
    packet_bytes : float, optional
        Packet size in bytes (``> 0``), default 1500.

    Returns
    -------
    TcpQueueFixedPoint
        The load ``ρ``, loss ``p``, per-flow rate ``R`` and whether the window limits ``R``.

    Notes
    -----
    ``R = min(W_max/τ, (1/τ)·√(3/(2p)))`` (TCP equation, eq. 3.2, capped by the window),
    ``p = ρ^B (1 − ρ)/(1 − ρ^(B+1))`` (eq. 3.3) and ``ρ = N·R/C`` with ``C`` in packets per
    second. ``g(ρ) = ρ − N·R(p(ρ))/C`` is increasing (``p`` rises with ``ρ``, so ``R`` falls),
    negative as ``ρ → 0`` and non-negative at the peak load ``N·W_max/(C·τ)``; its unique root
    is found by bisection (:func:`models.roots.bracketed_root`).

    With ``C ∝ W_max`` (e.g. ``C = N·W_max/(2τ)``) the thesis shows that ``B = β·log W_max``
    keeps ``ρ`` bounded away from 0, while a buffer growing slower than ``log W_max`` (for
    instance a constant one) drives ``ρ → 0``.

    Assumptions:

    - all flows have the same RTT ``τ`` and are in congestion avoidance (TCP equation, no
      timeouts);
    - the bottleneck queue behaves as M/M/1/B (Poisson arrivals, exponential transmission
      times) at the load offered by the flows;
    - every flow sees the same drop probability ``p``;
    - the sending rate ``R`` counts the packets later dropped (offered load ``ρ``).

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007 (seed
       ``000_9b46cc70677d86b3.txt``), §3.6, eqs. 3.2-3.3 and Fig. 3.8.
    """
    n = float(checks.at_least("flows", flows, 1))
    w = float(checks.at_least("max_window_packets", max_window_packets, 1))
    c_bps = float(checks.positive("capacity_bps", capacity_bps))
    tau = float(checks.positive("rtt_s", rtt_s))
    b = float(checks.at_least("buffer_packets", buffer_packets, 1))
    size = float(checks.positive("packet_bytes", packet_bytes))

    capacity_pps = c_bps / (8.0 * size)
    peak_load = n * w / (capacity_pps * tau)

    def rate_pps(rho: float) -> tuple[float, float]:
        p = mm1b_loss_scalar(rho, b)
        if p <= 0.0:
            return w / tau, p
        return min(w / tau, math.sqrt(1.5 / p) / tau), p

    def excess(rho: float) -> float:
        return rho - n * rate_pps(rho)[0] / capacity_pps

    lo = peak_load * 1e-12
    if excess(peak_load) <= 0.0:
        rho = peak_load
    else:
        rho = bracketed_root(excess, lo, peak_load, xtol=lo, rtol=1e-13)
    rate, p = rate_pps(rho)
    return TcpQueueFixedPoint(
        load=rho,
        loss_probability=p,
        rate_pps=rate,
        window_limited=rate >= w / tau,
        peak_load=peak_load,
        capacity_pps=capacity_pps,
    )


def tcp_mm1b_load_reaches(
    flows: float,
    max_window_packets: float,
    capacity_bps: float,
    rtt_s: float,
    buffer_packets: float,
    load: float,
    packet_bytes: float = 1500.0,
) -> bool:
    """Whether the fixed point of :func:`tcp_mm1b_fixed_point` carries at least ``load``.

    Parameters
    ----------
    flows, max_window_packets, capacity_bps, rtt_s, buffer_packets, packet_bytes
        As for :func:`tcp_mm1b_fixed_point` (same checks).
    load : float
        The load ``x`` to reach (dimensionless, ``>= 0``).

    Returns
    -------
    bool
        ``ρ >= x`` for the fixed point's load ``ρ``, decided without solving for it:
        ``g(ρ) = ρ − N·R(p(ρ))/C`` is increasing (see :func:`tcp_mm1b_fixed_point`), so its root
        lies at or above ``x`` exactly when ``g(x) <= 0`` (or when ``x`` is at or below the peak
        load and ``g`` is not positive there, the window-limited case).

    Notes
    -----
    A search for the smallest buffer reaching a load asks only this question, at many sizes;
    one evaluation of ``g`` answers it where the fixed point takes a root-finding.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007 (seed
       ``000_9b46cc70677d86b3.txt``), §3.6, eqs. 3.2-3.3.
    """
    n = float(checks.at_least("flows", flows, 1))
    w = float(checks.at_least("max_window_packets", max_window_packets, 1))
    c_bps = float(checks.positive("capacity_bps", capacity_bps))
    tau = float(checks.positive("rtt_s", rtt_s))
    b = float(checks.at_least("buffer_packets", buffer_packets, 1))
    size = float(checks.positive("packet_bytes", packet_bytes))
    x = float(checks.non_negative("load", load))
    capacity_pps = c_bps / (8.0 * size)
    peak_load = n * w / (capacity_pps * tau)
    if x > peak_load:
        return False

    def excess(rho: float) -> float:
        p = mm1b_loss_scalar(rho, b)
        rate = w / tau if p <= 0.0 else min(w / tau, math.sqrt(1.5 / p) / tau)
        return rho - n * rate / capacity_pps

    return excess(peak_load) <= 0.0 or excess(x) <= 0.0
