"""The sqrt(N) "small buffers" rule for many desynchronized TCP flows (Appenzeller et al.)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from models import checks
from models.checks import FloatOrArray
from models.rule_of_thumb import bdp_packets

#: ``3·√3 / (2·√2)``, the constant of Appenzeller's utilization bound (dimensionless).
APPENZELLER_ERF_CONSTANT = 3.0 * math.sqrt(3.0) / (2.0 * math.sqrt(2.0))

#: ``erf(x)`` is 1 in double precision for ``x`` at or above this.
_ERF_ONE = 6.0


def sqrt_n_buffer_packets(
    capacity_bps: Any, rtt_s: Any, flows: Any, packet_bytes: Any = 1500.0
) -> FloatOrArray:
    """Buffer for ``N`` desynchronized long-lived flows: ``B = C·RTT / √N``, in packets.

    Parameters
    ----------
    capacity_bps : float or array_like
        Bottleneck link capacity ``C`` in bits per second (> 0).
    rtt_s : float or array_like
        Round-trip time ``RTT = 2T`` in seconds (> 0).
    flows : float or array_like
        Number ``N`` of long-lived TCP flows sharing the bottleneck (>= 1).
    packet_bytes : float or array_like, default 1500
        Packet size in bytes (> 0).

    Returns
    -------
    float or ndarray
        ``C·RTT / (8·packet_bytes·√N)`` packets (not rounded); never more than the
        bandwidth-delay product.

    Notes
    -----
    ``B = 2T × C / √N`` (000 §2.2.2, eq. 2.2): the aggregate window of ``N`` independent
    sawtooth processes tends to a Gaussian whose standard deviation shrinks as ``1/√N``, and the
    buffer must absorb its swings.

    Assumptions:

    - many long-lived flows (the central limit theorem applies);
    - the flows are independent and desynchronized (random start times and RTTs);
    - the buffer need is dominated by long-lived flows, not short ones;
    - no other significant, unmodelled reason to buffer packets (000 §1.3);
    - the goal is (close to) 100% utilization.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §2.2.2, eq. 2.2; §1.3 (worked example).
    .. [2] G. Appenzeller, I. Keslassy, N. McKeown, "Sizing Router Buffers", SIGCOMM 2004.
    .. [3] N. McKeown, router-buffer slides (seed ``001_51f8eabcc9180b51.txt``), GSR/OC3 table.
    """
    checks.at_least("flows", flows, 1.0)
    bdp = np.asarray(bdp_packets(capacity_bps, rtt_s, packet_bytes), dtype=np.float64)
    return checks.float_or_array(bdp / np.sqrt(np.asarray(flows, dtype=np.float64)))


def sqrt_n_utilization_lower_bound(
    buffer_packets: Any,
    capacity_bps: Any,
    rtt_s: Any,
    flows: Any,
    packet_bytes: Any = 1500.0,
) -> FloatOrArray:
    """Appenzeller's lower bound on utilization with ``N`` desynchronized flows.

    Parameters
    ----------
    buffer_packets : float or array_like
        Buffer size ``B`` in packets (>= 0).
    capacity_bps : float or array_like
        Bottleneck link capacity ``C`` in bits per second (> 0).
    rtt_s : float or array_like
        Round-trip time ``RTT = 2T`` in seconds (> 0).
    flows : float or array_like
        Number ``N`` of long-lived TCP flows (>= 1).
    packet_bytes : float or array_like, default 1500
        Packet size in bytes (> 0).

    Returns
    -------
    float or ndarray
        Lower bound on the bottleneck utilization, a dimensionless fraction in [0, 1].

    Notes
    -----
    ``U ≥ erf( 3√3/(2√2) · B / (2T·C/√N) )``. The thesis (000 §2.2.2) states only the rule
    ``B = 2T·C/√N`` and refers to Appenzeller et al. for the analysis; the bound comes from
    modelling the aggregate window as Gaussian with the standard deviation of ``N``
    independent sawtooth windows. At ``B = 2T·C/√N`` it gives ``erf(1.837) ≈ 0.991``.

    Assumptions:

    - many long-lived flows, independent and desynchronized;
    - the aggregate congestion window is Gaussian (central limit theorem);
    - every flow is a TCP Reno sawtooth (window halves on a loss);
    - short flows are negligible in the buffer need.

    References
    ----------
    .. [1] G. Appenzeller, I. Keslassy, N. McKeown, "Sizing Router Buffers", SIGCOMM 2004,
       §3 (utilization of the desynchronized long-flow model).
    .. [2] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §2.2.2, eq. 2.2.
    .. [3] N. McKeown, router-buffer slides (seed ``001_51f8eabcc9180b51.txt``), GSR/OC3 table
       (model, ns-2 and router utilization at 0.5x-3x of ``2T·C/√n``).
    """
    checks.non_negative("buffer_packets", buffer_packets)
    rule = sqrt_n_buffer_packets(capacity_bps, rtt_s, flows, packet_bytes)
    return checks.float_or_array(appenzeller_utilization_bound(buffer_packets, rule))


def appenzeller_utilization_bound(buffer_packets: Any, rule_packets: Any) -> Any:
    """Appenzeller's bound ``erf(3√3/(2√2) · B/B_rule)`` for a given sqrt(N) buffer ``B_rule``.

    Parameters
    ----------
    buffer_packets : array_like
        Buffer size ``B`` in packets (>= 0; not checked here).
    rule_packets : array_like
        ``C·RTT/√N`` in packets (>= 0), from :func:`sqrt_n_buffer_packets`.

    Returns
    -------
    ndarray
        The lower bound on utilization, in [0, 1]; what
        :func:`sqrt_n_utilization_lower_bound` returns, for callers that evaluate it at many
        buffers of one link.

    Notes
    -----
    ``erf(x)`` rounds to exactly 1 from ``x = 6`` on, which is decided before dividing, so a
    rule that underflows to 0 (or a huge buffer) cannot overflow the ratio.

    Assumptions:

    - those of :func:`sqrt_n_utilization_lower_bound`.

    References
    ----------
    .. [1] G. Appenzeller, I. Keslassy, N. McKeown, "Sizing Router Buffers", SIGCOMM 2004, §3.
    .. [2] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007
       (seed ``000_9b46cc70677d86b3.txt``), §2.2.2, eq. 2.2.
    """
    from scipy.special import erf  # on first use: importing SciPy is most of the CLI start-up

    buffer = np.asarray(buffer_packets, dtype=np.float64)
    rule = np.asarray(rule_packets, dtype=np.float64)
    saturated = buffer * (APPENZELLER_ERF_CONSTANT / _ERF_ONE) > rule
    ratio = np.where(saturated, 0.0, buffer) / np.where(saturated | (rule <= 0.0), 1.0, rule)
    return np.asarray(
        np.where(saturated, 1.0, erf(APPENZELLER_ERF_CONSTANT * ratio)), dtype=np.float64
    )
