"""Tiny buffers: ``O(log W_max)`` packets for non-bursty traffic (000 ch. 3, Thm 1, App. A)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from models import checks
from models.checks import FloatOrArray
from models.rule_of_thumb import bdp_packets

#: Windows above this many packets are squared in log space (``W_max²`` would overflow).
_LARGE_WINDOW = 1e100
_MAX = float(np.finfo(np.float64).max)
#: Natural log of a safe upper limit for a float result (``e^709 < 1.8e308``).
_LOG_MAX = 709.0


def _check_load(load: Any) -> npt.NDArray[np.float64]:
    checks.in_range("load", load, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    return np.asarray(load, dtype=np.float64)


def tiny_buffers_load(
    flows: Any,
    max_window_packets: Any,
    capacity_bps: Any,
    rtt_s: Any,
    packet_bytes: Any = 1500.0,
) -> FloatOrArray:
    """Peak offered load ``ρ = N·W_max / (C·RTT)`` of ``N`` flows at their largest window.

    Parameters
    ----------
    flows : float or array_like
        Number ``N`` of long-lived flows (>= 1).
    max_window_packets : float or array_like
        Largest congestion window ``W_max`` in packets (>= 1).
    capacity_bps : float or array_like
        Bottleneck capacity ``C`` in bits per second (> 0).
    rtt_s : float or array_like
        Round-trip time in seconds (> 0).
    packet_bytes : float or array_like, default 1500
        Packet size in bytes (> 0).

    Returns
    -------
    float or ndarray
        ``ρ``, dimensionless: the fraction of the link the flows fill when every window is at
        ``W_max``. Not checked against 1 here; the sizing functions require ``ρ < 1``. A load
        beyond the float range is returned as the largest float.

    Notes
    -----
    The link capacity is ``C ≥ (1/ρ)·N·W_max/RTT`` (000 §3.3), i.e. ``ρ = N·W_max/(C·RTT)``
    with ``C·RTT`` counted in packets.

    Assumptions:

    - every flow has the same RTT (000 §3.3; different RTTs give the same result);
    - all packets have the size ``packet_bytes``.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §3.3; App. A (first paragraph).
    """
    checks.at_least("flows", flows, 1.0)
    checks.at_least("max_window_packets", max_window_packets, 1.0)
    pipe = np.asarray(bdp_packets(capacity_bps, rtt_s, packet_bytes), dtype=np.float64)
    n = np.asarray(flows, dtype=np.float64)
    w = np.asarray(max_window_packets, dtype=np.float64)
    # N·W/pipe, sized in logs first so that nothing overflows: the product directly when it
    # fits, through its logarithm when only the quotient fits, else the largest float.
    positive = pipe > 0.0
    log_pipe = np.where(positive, np.log(np.where(positive, pipe, 1.0)), -np.inf)
    log_window = np.log(n) + np.log(w)
    log_load = log_window - log_pipe
    fits = log_load < _LOG_MAX
    direct = fits & (log_window < _LOG_MAX)
    load = np.where(direct, n, 1.0) * np.where(direct, w, 1.0) / np.where(direct, pipe, 1.0)
    via_logs = np.exp(np.where(fits, log_load, 0.0))
    return checks.float_or_array(np.where(direct, load, np.where(fits, via_logs, _MAX)))


def tiny_buffer_packets(max_window_packets: Any, load: Any, min_utilization: Any) -> FloatOrArray:
    """Buffer that Theorem 1 says suffices: ``B = log_{1/ρ}(W_max² / (2(1−θ)))`` packets.

    Parameters
    ----------
    max_window_packets : float or array_like
        Largest congestion window ``W_max`` in packets (>= 1).
    load : float or array_like
        Peak load ``ρ = N·W_max/(C·RTT)`` in (0, 1), dimensionless (see
        :func:`tiny_buffers_load`).
    min_utilization : float or array_like
        Effective utilization ``θ`` in [0, 1), dimensionless: achieved throughput divided by
        the peak throughput ``ρ·C``.

    Returns
    -------
    float or ndarray
        The exact, un-rounded bound in packets (round it up for a real buffer); 0 when the
        logarithm is negative (any buffer suffices).

    Notes
    -----
    App. A eq. A.13: ``B ≥ log_{1/ρ}(W_max² / (2(1−θ)))``, which is ``O(log W_max)``. (Eq. 3.1
    of §3.3 prints "≤"; the proof in App. A ends with "≥", a sufficient size.) It follows from
    the drop probability ``ρ^B`` of the dominating Poisson system (Lemma 6) and the throughput
    lost per drop, at most ``W_max²/2`` packets (eq. A.7), through eq. A.12
    ``ρ^B < 2(1−θ)/W_max²``. Computed as ``ln(W_max²/(2(1−θ)))/(−ln ρ)``, in logs for
    windows above ``1e100`` packets, so that no input makes it overflow.

    Assumptions:

    - each flow sends as a Poisson process at rate ``W(t)/RTT`` (locally Poisson, not bursty);
    - the link is over-provisioned: ``ρ = N·W_max/(C·RTT) < 1``;
    - windows are capped at ``W_max``; flows follow AIMD in congestion avoidance;
    - all packets have the same size (M/D/1 dominating queue);
    - drop-tail output queue of ``B`` packets;
    - the same RTT for every flow.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §3.3, Theorem 1, eq. 3.1; App. A, eqs. A.7-A.13.
    """
    checks.at_least("max_window_packets", max_window_packets, 1.0)
    rho = _check_load(load)
    checks.in_range("min_utilization", min_utilization, 0.0, 1.0, high_inclusive=False)
    window = np.asarray(max_window_packets, dtype=np.float64)
    theta = np.asarray(min_utilization, dtype=np.float64)
    large = window > _LARGE_WINDOW
    small_window = np.where(large, 1.0, window)
    log_need = np.where(
        large,
        2.0 * np.log(window) - np.log(2.0 * (1.0 - theta)),
        np.log(small_window**2 / (2.0 * (1.0 - theta))),
    )
    buffer = log_need / -np.log(rho)
    return checks.float_or_array(np.maximum(buffer, 0.0))


def tiny_buffers_utilization_bound(
    buffer_packets: Any, max_window_packets: Any, load: Any
) -> FloatOrArray:
    """Effective utilization guaranteed by Theorem 1 for a buffer: ``θ ≥ 1 − ρ^B·W_max²/2``.

    Parameters
    ----------
    buffer_packets : float or array_like
        Buffer size ``B`` in packets (>= 0).
    max_window_packets : float or array_like
        Largest congestion window ``W_max`` in packets (>= 1).
    load : float or array_like
        Peak load ``ρ`` in (0, 1), dimensionless.

    Returns
    -------
    float or ndarray
        Lower bound on ``θ`` (throughput over ``ρ·C``), dimensionless, clipped to [0, 1].

    Notes
    -----
    The inverse of eq. A.13, read from eq. A.12 ``ρ^B < 2(1−θ)/W_max²``:
    ``θ ≥ 1 − ρ^B·W_max²/2``. :func:`tiny_buffer_packets` of the result gives back ``B``
    whenever the bound lies in (0, 1).

    Assumptions:

    - the assumptions of :func:`tiny_buffer_packets` (locally Poisson sources, ``ρ < 1``,
      windows capped at ``W_max``, drop-tail queue).

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), App. A, eqs. A.7-A.13.
    """
    checks.non_negative("buffer_packets", buffer_packets)
    checks.at_least("max_window_packets", max_window_packets, 1.0)
    rho = _check_load(load)
    window = np.asarray(max_window_packets, dtype=np.float64)
    buffer = np.asarray(buffer_packets, dtype=np.float64)
    large = window > _LARGE_WINDOW
    small_window = np.where(large, 1.0, window)
    lost = rho**buffer * small_window**2 / 2.0
    # Huge windows: ρ^B·W²/2 in logs, capped at e (anything above 1 gives θ = 0 anyway).
    # (B is capped at 1e300 there: ρ^B is 0 beyond it for any double ρ < 1.)
    log_rho_b = np.minimum(buffer, 1e300) * np.log(rho)
    log_lost = np.minimum(log_rho_b + 2.0 * np.log(window) - np.log(2.0), 1.0)
    lost = np.where(large, np.exp(log_lost), lost)
    return checks.float_or_array(np.clip(1.0 - lost, 0.0, 1.0))
