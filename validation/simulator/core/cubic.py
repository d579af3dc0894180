"""CUBIC congestion control (RFC 9438, "CUBIC for Fast and Long-Distance Networks", 2023).

Section numbers were checked against the text of draft-ietf-tcpm-rfc8312bis as it went to the
RFC Editor (the authors' repository NTAP/rfc8312bis at d662250, January 2023: the draft that
became RFC 9438, same section structure); its equations are anchored eq1-eq4 there, and the
RFC renders them as numbered figures, so they are named here by their formula.

Only congestion avoidance and the reduction differ from Reno; slow start, loss detection,
fast retransmit and recovery (SACK or NewReno) and the retransmission timer are the sender's
(``sender.py``): RFC 9438 §4.2 "does not make any changes to the TCP Fast Recovery and Fast
Retransmit algorithms". HyStart++ (§4.10, SHOULD) is not modelled: standard slow start, which
§4.10 allows ("MAY use the Reno TCP slow start algorithm").

- §4.6, multiplicative decrease: ``ssthresh = cwnd · β_cubic`` (at least 2 packets),
  β_cubic = 0.7 ("SHOULD be set to 0.7"), and ``W_max`` is the window before the reduction
  (``cwnd``). The RFC writes ``flight_size · β_cubic`` and notes that "some implementations of
  CUBIC currently use cwnd instead of flight_size" (Linux's tcp_cubic does); cwnd is used here
  because after a timeout the SACK sender's ``high_tx - snd_una`` still counts the window sent
  before it, and 0.7 of that stale flight set ssthresh above BDP + B: one flow at 20 Mb/s,
  50 ms, B >= 0.6 BDP then timed out again and again (0.53-0.58 utilization, 20% loss) where
  cwnd gives 1.0 and no timeout. The RFC's floor on an ECE reduction is 1 packet; here 2.
- §4.7, fast convergence: if the window before the reduction is below the last ``W_max``,
  ``W_max = cwnd · (1 + β_cubic) / 2``;
- §4.2: the epoch starts at the first ACK in congestion avoidance after a reduction
  (``t_epoch``, ``cwnd_epoch``), ``K = cbrt((W_max - cwnd_epoch) / C)`` (0 if
  ``cwnd_epoch >= W_max``, which then becomes ``cwnd_epoch``), C = 0.4 (§5.1: "C SHOULD be
  set to 0.4"), and ``W_cubic(t) = C·(t - K)³ + W_max`` with t in seconds since ``t_epoch``;
- §4.3, Reno-friendly region: ``W_est`` starts at ``cwnd_epoch`` and grows by
  ``α_cubic · segments_acked / cwnd`` per ACK, ``α_cubic = 3(1 - β_cubic)/(1 + β_cubic)``;
  once ``W_est >= cwnd_prior``, "the cwnd at the time of most recently setting ssthresh", α is
  1 ("the sender SHOULD set α_cubic to 1"). ``cwnd_prior`` is ``ssthresh / β_cubic`` here
  (every ssthresh of a CUBIC flow is ``β_cubic · cwnd``; only the 2-packet floor, cwnd below
  2.86, breaks the identity). Before this revision the switch was at ``W_max``, which fast
  convergence lowers to 0.85 ``cwnd_prior``. If ``W_cubic(t) < W_est``, ``cwnd = W_est``;
  ``segments_acked`` is what the group's ``ca_increase`` counts (the segments newly
  acknowledged, or 1 per ACK with "per_ack", as Reno's increase in ``sender.py``);
- §4.4-4.5, concave and convex regions: otherwise ``target = W_cubic(t + RTT)`` clamped to
  ``[cwnd, 1.5·cwnd]`` and ``cwnd += (target - cwnd) / cwnd`` per ACK, RTT the smoothed RTT
  (the propagation delay before the first sample);
- §4.8, timeout: ``ssthresh`` as in §4.6; the sender then sets ``cwnd = 1``, and "during the
  first congestion avoidance stage after a timeout ... K is set to 0, and W_max is set to the
  congestion window size at the beginning of the current congestion avoidance stage"
  (``sender.py`` clears ``W_max`` so that the next epoch does so; Linux's ``bictcp_reset`` on
  entering the loss state has the same effect). Before this revision the epoch after a
  timeout grew back towards the ``W_max`` of §4.6-4.7 with K > 0.
"""

from __future__ import annotations

from validation.simulator.core.jit import jit
from validation.simulator.layout import FLOW_FLOATS, FlowFloat

#: RFC 9438 §4.6 (β_cubic = 0.7) and §5.1 (C = 0.4) (window in segments, time in seconds).
BETA_CUBIC = 0.7
C_CUBIC = 0.4
#: RFC 9438 §4.3: α_cubic = 3·(1 − β_cubic)/(1 + β_cubic), the additive factor (unnumbered
#: formula) of the W_est update (the draft's eq4).
ALPHA_CUBIC = 3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC)


@jit
def cubic_start(sp, f):
    """A new transfer: no W_max, no epoch."""
    s = sp[0]
    a = f * FLOW_FLOATS
    s.ff[a + FlowFloat.W_MAX_PACKETS] = 0.0
    s.ff[a + FlowFloat.EPOCH_START_S] = -1.0
    s.ff[a + FlowFloat.K_S] = 0.0
    s.ff[a + FlowFloat.W_EST_PACKETS] = 0.0


@jit
def cubic_reduce(sp, f):
    """A congestion event (§4.6-4.7): update W_max, end the epoch; return the new ssthresh."""
    s = sp[0]
    ff = s.ff
    a = f * FLOW_FLOATS
    cwnd = ff[a + FlowFloat.CWND_PACKETS]
    if cwnd < ff[a + FlowFloat.W_MAX_PACKETS]:
        ff[a + FlowFloat.W_MAX_PACKETS] = cwnd * (1.0 + BETA_CUBIC) / 2.0
    else:
        ff[a + FlowFloat.W_MAX_PACKETS] = cwnd
    ff[a + FlowFloat.EPOCH_START_S] = -1.0
    return max(cwnd * BETA_CUBIC, 2.0)


@jit
def cubic_increase(sp, t, f, acked):
    """Congestion avoidance on an ACK of ``acked`` new segments (§4.2-4.5)."""
    s = sp[0]
    ff = s.ff
    a = f * FLOW_FLOATS
    cwnd = ff[a + FlowFloat.CWND_PACKETS]
    if ff[a + FlowFloat.EPOCH_START_S] < 0.0:
        ff[a + FlowFloat.EPOCH_START_S] = t
        w_max = ff[a + FlowFloat.W_MAX_PACKETS]
        if cwnd < w_max:
            ff[a + FlowFloat.K_S] = ((w_max - cwnd) / C_CUBIC) ** (1.0 / 3.0)
        else:
            ff[a + FlowFloat.K_S] = 0.0
            ff[a + FlowFloat.W_MAX_PACKETS] = cwnd
        ff[a + FlowFloat.W_EST_PACKETS] = cwnd
    w_max = ff[a + FlowFloat.W_MAX_PACKETS]
    w_est = ff[a + FlowFloat.W_EST_PACKETS]
    # §4.3: α_cubic until W_est reaches cwnd_prior, the cwnd when ssthresh was last set
    # (ssthresh = β_cubic·cwnd_prior, so cwnd_prior = ssthresh / β_cubic)
    alpha = ALPHA_CUBIC if w_est < ff[a + FlowFloat.SSTHRESH_PACKETS] / BETA_CUBIC else 1.0
    w_est += alpha * acked / cwnd
    ff[a + FlowFloat.W_EST_PACKETS] = w_est
    elapsed = t - ff[a + FlowFloat.EPOCH_START_S]
    k = ff[a + FlowFloat.K_S]
    d = elapsed - k  # products, not ** 3: the same rounding here and in the reference
    w_cubic = C_CUBIC * (d * d * d) + w_max
    if w_cubic < w_est:
        ff[a + FlowFloat.CWND_PACKETS] = w_est
        return
    srtt = ff[a + FlowFloat.SRTT_S]
    rtt = srtt if srtt > 0.0 else ff[a + FlowFloat.RTT_S]
    d = elapsed + rtt - k
    target = C_CUBIC * (d * d * d) + w_max
    target = min(max(target, cwnd), 1.5 * cwnd)
    ff[a + FlowFloat.CWND_PACKETS] = cwnd + (target - cwnd) / cwnd
