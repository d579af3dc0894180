"""The rule of thumb: a buffer of one bandwidth-delay product, and its generalizations.

Also holds the small conversions between packets, bytes and seconds of queueing at line rate
that every sizing rule reports its buffer in.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from models import checks
from models.checks import FloatOrArray

#: Bits per byte.
BITS_PER_BYTE = 8.0


def _as_float(value: Any) -> npt.NDArray[np.float64]:
    return np.asarray(value, dtype=np.float64)


def harmonic_mean_rtt_s(rtts_s: Any) -> float:
    """Effective RTT of flows with heterogeneous round-trip times (harmonic mean).

    Parameters
    ----------
    rtts_s : array_like
        Round-trip times of the flows, in seconds (each > 0).

    Returns
    -------
    float
        ``T_e = N / sum(1 / T_i)`` in seconds.

    Notes
    -----
    ``T_e = N / Σ_i (1/T_i)`` — 004 (Dhamdhere, Jiang, Dovrolis), §III.B, eqs. 11-12: with the
    flows' windows in proportion to their rates, the aggregate window is ``C·T_e``.

    Assumptions:

    - the flows share the link with throughput inversely proportional to their RTT;
    - each RTT includes the flow's propagation and its non-bottleneck queueing delay.

    References
    ----------
    .. [1] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §III.B, eqs. 11-12.
    """
    rtts = np.atleast_1d(np.asarray(checks.positive("rtts_s", rtts_s), dtype=np.float64))
    return float(rtts.size / np.sum(1.0 / rtts))


def bdp_packets(capacity_bps: Any, rtt_s: Any, packet_bytes: Any = 1500.0) -> FloatOrArray:
    """Bandwidth-delay product ``C·RTT`` expressed in packets.

    Parameters
    ----------
    capacity_bps : float or array_like
        Bottleneck link capacity ``C`` in bits per second (> 0).
    rtt_s : float or array_like
        Round-trip time ``RTT = 2T`` in seconds (> 0).
    packet_bytes : float or array_like, default 1500
        Packet size in bytes (> 0).

    Returns
    -------
    float or ndarray
        ``C·RTT / (8·packet_bytes)`` packets (not rounded).

    Notes
    -----
    This is the number ``M = C·RTT`` of packet transmission slots in one round-trip time used
    throughout 000 (e.g. App. B).

    Assumptions:

    - all packets have the size ``packet_bytes``.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §1.2 and App. B.
    """
    checks.positive("capacity_bps", capacity_bps)
    checks.positive("rtt_s", rtt_s)
    checks.positive("packet_bytes", packet_bytes)
    value = _as_float(capacity_bps) * _as_float(rtt_s) / (BITS_PER_BYTE * _as_float(packet_bytes))
    return checks.float_or_array(value)


def bdp_buffer_packets(capacity_bps: Any, rtt_s: Any, packet_bytes: Any = 1500.0) -> FloatOrArray:
    """Rule-of-thumb buffer: one bandwidth-delay product ``B = C·RTT``, in packets.

    Parameters
    ----------
    capacity_bps : float or array_like
        Bottleneck link capacity ``C`` in bits per second (> 0).
    rtt_s : float or array_like
        Round-trip time ``RTT = 2T`` in seconds (> 0); for flows with different RTTs pass the
        harmonic mean, :func:`harmonic_mean_rtt_s`.
    packet_bytes : float or array_like, default 1500
        Packet size in bytes (> 0).

    Returns
    -------
    float or ndarray
        ``C·RTT / (8·packet_bytes)`` packets (not rounded).

    Notes
    -----
    From the window argument of 000 §2.1.2: after a loss the window ``2T·C + B`` halves to
    ``T·C + B/2``, which must still fill the pipe, ``T·C + B/2 ≥ 2T·C``, hence
    ``B ≥ 2T·C = C·RTT`` (eq. 2.1).

    Assumptions:

    - one long-lived TCP Reno flow, or many flows whose losses are synchronized (000 §2.2.1);
    - the flow halves its window on a loss (multiplicative decrease β = 0.5);
    - the goal is 100% utilization of the bottleneck at all times;
    - heterogeneous RTTs enter through their harmonic mean (004 eqs. 11-12).

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §2.1.2, eq. 2.1; §1.3 (worked example).
    .. [2] A. Dhamdhere, H. Jiang, C. Dovrolis, "Buffer Sizing for Congested Internet Links",
       INFOCOM 2005 (seed ``004_cb0749363e88d206.txt``), §III.B, eqs. 11-12.
    """
    return bdp_packets(capacity_bps, rtt_s, packet_bytes)


def md_beta_buffer_packets(
    capacity_bps: Any, rtt_s: Any, packet_bytes: Any = 1500.0, md_beta: Any = 0.5
) -> FloatOrArray:
    """Single-flow buffer for a multiplicative-decrease factor β: ``B = C·RTT·(1−β)/β``.

    Parameters
    ----------
    capacity_bps : float or array_like
        Bottleneck link capacity ``C`` in bits per second (> 0).
    rtt_s : float or array_like
        Round-trip time in seconds (> 0).
    packet_bytes : float or array_like, default 1500
        Packet size in bytes (> 0).
    md_beta : float or array_like, default 0.5
        Multiplicative-decrease factor β in (0, 1), dimensionless: the window after a loss is
        β times the window before it (Reno 0.5, CUBIC 0.7).

    Returns
    -------
    float or ndarray
        ``C·RTT·(1−β)/β`` packets (not rounded); equals :func:`bdp_buffer_packets` for β = 0.5.

    Notes
    -----
    The window argument of 000 §2.1.2 with a general decrease factor: at the loss the window is
    ``C·RTT + B``; after it ``β·(C·RTT + B)`` must still fill the pipe, ``β·(C·RTT + B) ≥ C·RTT``,
    hence ``B ≥ C·RTT·(1−β)/β``. Reno (β = 0.5) gives the rule of thumb; CUBIC
    (β_cubic = 0.7, RFC 9438 §4.6) gives ``3/7 ≈ 0.43`` of it.

    Assumptions:

    - one long-lived flow (or synchronized flows) whose window shrinks by β on each loss;
    - the window grows back without further loss until the buffer is full again;
    - the goal is 100% utilization of the bottleneck at all times.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §2.1.2, eq. 2.1 (the window argument).
    .. [2] L. Xu et al., "CUBIC for Fast and Long-Distance Networks", RFC 9438, 2023, §4.6
       (multiplicative decrease, β_cubic = 0.7).
    """
    checks.in_range("md_beta", md_beta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    bdp = _as_float(bdp_packets(capacity_bps, rtt_s, packet_bytes))
    beta = _as_float(md_beta)
    return checks.float_or_array(bdp * (1.0 - beta) / beta)


def packets_to_bytes(buffer_packets: Any, packet_bytes: Any = 1500.0) -> FloatOrArray:
    """Buffer size in bytes: ``buffer_packets · packet_bytes``.

    Parameters
    ----------
    buffer_packets : float or array_like
        Buffer size in packets (>= 0).
    packet_bytes : float or array_like, default 1500
        Packet size in bytes (> 0).

    Returns
    -------
    float or ndarray
        Bytes.

    Notes
    -----
    Assumptions:

    - all packets have the size ``packet_bytes``.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §1.3 (125,000 packets of 1 KB = 125 MB).
    """
    checks.non_negative("buffer_packets", buffer_packets)
    checks.positive("packet_bytes", packet_bytes)
    return checks.float_or_array(_as_float(buffer_packets) * _as_float(packet_bytes))


def packets_to_seconds(
    buffer_packets: Any, capacity_bps: Any, packet_bytes: Any = 1500.0
) -> FloatOrArray:
    """Time to drain a full buffer at line rate: ``8·buffer_packets·packet_bytes / C``.

    Parameters
    ----------
    buffer_packets : float or array_like
        Buffer size in packets (>= 0).
    capacity_bps : float or array_like
        Line rate in bits per second (> 0).
    packet_bytes : float or array_like, default 1500
        Packet size in bytes (> 0).

    Returns
    -------
    float or ndarray
        The largest queueing delay the buffer adds, in seconds.

    Notes
    -----
    Assumptions:

    - all packets have the size ``packet_bytes``;
    - the port drains at its full line rate.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §4.1 (buffers stated in milliseconds at line rate).
    """
    checks.non_negative("buffer_packets", buffer_packets)
    checks.positive("capacity_bps", capacity_bps)
    checks.positive("packet_bytes", packet_bytes)
    bits = BITS_PER_BYTE * _as_float(buffer_packets) * _as_float(packet_bytes)
    return checks.float_or_array(bits / _as_float(capacity_bps))


def seconds_to_packets(
    buffer_s: Any, capacity_bps: Any, packet_bytes: Any = 1500.0
) -> FloatOrArray:
    """Packets that drain in ``buffer_s`` seconds at line rate: ``buffer_s·C / (8·packet_bytes)``.

    Parameters
    ----------
    buffer_s : float or array_like
        Buffer size as queueing time at line rate, in seconds (>= 0).
    capacity_bps : float or array_like
        Line rate in bits per second (> 0).
    packet_bytes : float or array_like, default 1500
        Packet size in bytes (> 0).

    Returns
    -------
    float or ndarray
        Packets (not rounded); the inverse of :func:`packets_to_seconds`.

    Notes
    -----
    Assumptions:

    - all packets have the size ``packet_bytes``;
    - the port drains at its full line rate.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §4.1 (buffers stated in milliseconds at line rate).
    """
    checks.non_negative("buffer_s", buffer_s)
    checks.positive("capacity_bps", capacity_bps)
    checks.positive("packet_bytes", packet_bytes)
    bits = _as_float(buffer_s) * _as_float(capacity_bps)
    return checks.float_or_array(bits / (BITS_PER_BYTE * _as_float(packet_bytes)))
