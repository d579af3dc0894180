"""TCP throughput by the Mathis square-root law, the loss rate it implies, and FPQ buffering.

Units: ``packet_bytes`` in bytes, ``capacity_bps`` in bits per second, ``rtt_s`` in seconds; loss
rates are dimensionless probabilities.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from models import checks
from models.rule_of_thumb import BITS_PER_BYTE

FloatOrArray = float | npt.NDArray[np.float64]

MATHIS_CONSTANT = 0.87
"""Dimensionless constant of the square-root law as 004 uses it (≈ sqrt(3/4), delayed ACKs)."""

FPQ_PACKETS_PER_FLOW = 6.0
"""Packets of buffer per flow in Morris's Flow-Proportional Queueing (004 §IV.A)."""


def mathis_throughput_bps(packet_bytes: Any, rtt_s: Any, loss_rate: Any) -> FloatOrArray:
    """Steady-state throughput of one TCP flow in congestion avoidance (square-root law).

    Parameters
    ----------
    packet_bytes : array_like
        Maximum segment size M in bytes (> 0).
    rtt_s : array_like
        The flow's average round-trip time T in seconds (> 0).
    loss_rate : array_like
        Loss rate p the flow sees, a dimensionless probability in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        Throughput ``R`` in bits per second (broadcast over the arguments).

    Notes
    -----
    ``R = 0.87·M / (T·√p)`` (bytes/s; multiplied by 8 here for bits/s) — 004 §II eq. 2, after
    Mathis, Semke and Mahdavi (004 ref. [11]).

    Assumptions:

    - the flow is in congestion avoidance, limited only by loss (no window or sender limit);
    - losses are recovered by fast retransmit, without timeouts (p below about 2-5 %);
    - one window halving per loss event;
    - T is the flow's average RTT including queueing.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §II eq. 2.
    """
    mss = np.asarray(checks.positive("packet_bytes", packet_bytes), dtype=np.float64)
    rtt = np.asarray(checks.positive("rtt_s", rtt_s), dtype=np.float64)
    p = np.asarray(checks.probability("loss_rate", loss_rate), dtype=np.float64)
    rate_bytes_per_s = MATHIS_CONSTANT * mss / (rtt * np.sqrt(p))
    return checks.float_or_array(np.asarray(rate_bytes_per_s * BITS_PER_BYTE, dtype=np.float64))


def loss_rate_for_flows(
    bottlenecked_flows: Any, capacity_bps: Any, rtt_s: Any, packet_bytes: Any
) -> FloatOrArray:
    """Loss rate at which N_b homogeneous square-root-law flows exactly fill a link.

    Parameters
    ----------
    bottlenecked_flows : array_like
        Number N_b of persistent TCP flows bottlenecked at the link (>= 1).
    capacity_bps : array_like
        Link capacity C in bits per second (> 0).
    rtt_s : array_like
        Round-trip time T of the flows in seconds (> 0).
    packet_bytes : array_like
        Segment size M in bytes (> 0).

    Returns
    -------
    float or numpy.ndarray
        Dimensionless loss rate ``p``, clipped to at most 1.

    Notes
    -----
    ``p = N_b² · (0.87 / W)²`` with ``W = C·T/M`` the bandwidth-delay product in packets — 004
    §IV eq. 18, written there as ``N_b²(0.87/(CT))²`` with C in packets per second. It follows
    from eq. 2 with ``N_b·R = C``.

    Assumptions:

    - the N_b flows are homogeneous (same RTT T and segment size M) and saturate the link;
    - the link is buffered well enough for them to saturate it;
    - the square-root law (eq. 2) holds: above about 3-5 % loss, timeouts make p grow roughly
      linearly in N_b instead (004 §IV, after Morris), so large results are outside the model.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §IV eq. 18.
    """
    flows = np.asarray(checks.at_least("bottlenecked_flows", bottlenecked_flows, 1.0), float)
    capacity = np.asarray(checks.positive("capacity_bps", capacity_bps), dtype=np.float64)
    rtt = np.asarray(checks.positive("rtt_s", rtt_s), dtype=np.float64)
    mss = np.asarray(checks.positive("packet_bytes", packet_bytes), dtype=np.float64)
    window_packets = capacity * rtt / (BITS_PER_BYTE * mss)
    p = (flows * MATHIS_CONSTANT / window_packets) ** 2
    return checks.float_or_array(np.asarray(np.minimum(p, 1.0), dtype=np.float64))


def max_flows_for_loss_rate(
    max_loss: Any, capacity_bps: Any, rtt_s: Any, packet_bytes: Any
) -> FloatOrArray:
    """Most bottlenecked flows a link can carry while keeping the loss rate at or below p̂.

    Parameters
    ----------
    max_loss : array_like
        Loss-rate bound p̂, a dimensionless probability in (0, 1).
    capacity_bps, rtt_s, packet_bytes : array_like
        As in :func:`loss_rate_for_flows`.

    Returns
    -------
    float or numpy.ndarray
        ``N_b = √p̂ · C·T / 0.87`` flows (real-valued, not rounded).

    Notes
    -----
    The inverse of eq. 18: "given an upper bound p̂ on the loss rate, the number of persistent TCP
    flows should be less than √p̂·CT/0.87" (004 §IV), C·T in packets.

    Assumptions:

    - those of :func:`loss_rate_for_flows`;
    - the buffer adds no queueing delay to T (the admission-control reading of eq. 18).

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §IV, after eq. 18.
    """
    p_max = np.asarray(checks.probability("max_loss", max_loss), dtype=np.float64)
    capacity = np.asarray(checks.positive("capacity_bps", capacity_bps), dtype=np.float64)
    rtt = np.asarray(checks.positive("rtt_s", rtt_s), dtype=np.float64)
    mss = np.asarray(checks.positive("packet_bytes", packet_bytes), dtype=np.float64)
    window_packets = capacity * rtt / (BITS_PER_BYTE * mss)
    return checks.float_or_array(
        np.asarray(np.sqrt(p_max) * window_packets / MATHIS_CONSTANT, dtype=np.float64)
    )


def loss_limited_queueing_delay_s(
    bottlenecked_flows: Any,
    capacity_bps: Any,
    base_rtt_s: Any,
    packet_bytes: Any,
    max_loss: Any,
) -> FloatOrArray:
    """Queueing delay the link must add so that N_b flows see a loss rate of at most p̂.

    Parameters
    ----------
    bottlenecked_flows : array_like
        Number N_b of flows bottlenecked at the link (>= 1).
    capacity_bps : array_like
        Link capacity C in bits per second (> 0).
    base_rtt_s : array_like
        T_p, every delay on the flows' path except queueing at this link, in seconds (> 0).
    packet_bytes : array_like
        Segment size M in bytes (> 0).
    max_loss : array_like
        Loss-rate bound p̂ in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        ``T̂_q`` in seconds, clipped at 0 (no queueing is needed when the path alone suffices).

    Notes
    -----
    ``T̂_q = 0.87·N_b / (C·√p̂) − T_p`` with C in packets per second — 004 §IV.A eqs. 19-20; the
    queueing delay must grow in proportion to N_b to hold the loss rate constant (FPQ).

    Assumptions:

    - homogeneous flows, ``T = T_p + T_q`` (eq. 19);
    - the square-root law (eq. 2) and eq. 18 hold.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §IV.A eqs. 19-20.
    """
    flows = np.asarray(checks.at_least("bottlenecked_flows", bottlenecked_flows, 1.0), float)
    capacity = np.asarray(checks.positive("capacity_bps", capacity_bps), dtype=np.float64)
    base_rtt = np.asarray(checks.positive("base_rtt_s", base_rtt_s), dtype=np.float64)
    mss = np.asarray(checks.positive("packet_bytes", packet_bytes), dtype=np.float64)
    p_max = np.asarray(checks.probability("max_loss", max_loss), dtype=np.float64)
    capacity_pps = capacity / (BITS_PER_BYTE * mss)
    delay = MATHIS_CONSTANT * flows / (capacity_pps * np.sqrt(p_max)) - base_rtt
    return checks.float_or_array(np.asarray(np.maximum(delay, 0.0), dtype=np.float64))


def fpq_buffer_packets(
    bottlenecked_flows: Any, packets_per_flow: Any = FPQ_PACKETS_PER_FLOW
) -> FloatOrArray:
    """Flow-Proportional Queueing: a fixed number of buffered packets per flow.

    Parameters
    ----------
    bottlenecked_flows : array_like
        Number of flows (>= 1). Morris counts every *active* TCP flow; 004 argues that only
        flows bottlenecked at the link should be counted.
    packets_per_flow : array_like, optional
        Packets per flow (> 0); FPQ uses 6.

    Returns
    -------
    float or numpy.ndarray
        ``B = packets_per_flow · N`` packets.

    Notes
    -----
    ``B = K·N`` with ``K = 6`` packets — Morris's FPQ (R. Morris, "Scalable TCP Congestion
    Control", INFOCOM 2000, Fig. 5), as described in 004 §IV.A: "FPQ sets K_p to 6 packets, and
    it does not take into account the term CT_p". It is eq. 21 without the in-flight term; 6
    packets matches ``K_p = 0.87/√p̂`` at p̂ ≈ 2 % (eq. 22).

    Assumptions:

    - each flow needs about K packets of window to avoid timeouts, all of it held in this buffer;
    - the packets in flight on the path (C·T_p) are ignored, which overestimates B;
    - the flows are counted by an estimator of active flows.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §IV.A eqs. 21-22.
    .. [2] R. Morris, "Scalable TCP Congestion Control", IEEE INFOCOM 2000 (004 ref. [6]).
    """
    flows = np.asarray(checks.at_least("bottlenecked_flows", bottlenecked_flows, 1.0), float)
    per_flow = np.asarray(checks.positive("packets_per_flow", packets_per_flow), dtype=np.float64)
    return checks.float_or_array(np.asarray(per_flow * flows, dtype=np.float64))
