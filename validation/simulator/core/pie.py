"""PIE, "Proportional Integral Controller Enhanced" (R. Pan, P. Natarajan, F. Baker, G. White,
RFC 8033, February 2017), at the bottleneck FIFO: a random drop at enqueue with a probability
that a PI controller on the queueing delay updates every T_UPDATE. The buffer stays the hard
limit (a full buffer drops first, as the RFC's enqueue does).

The basic algorithm (RFC 8033 §4 and its pseudocode in Appendix A, both read in the RFC's
text), with the ECN marking of §5.1 (``aqm.py``) and without the other optional elements of
§5 (§5.2 dequeue-rate estimation; §5.3 active/inactive; §5.4 derandomization; §5.5 the cap of
an increment at 2 % once ``drop_prob >= 0.1``):

- §4.1, random drop: no drop while the burst allowance lasts, nor when
  ``qdelay_old < QDELAY_REF/2`` and ``drop_prob < 0.2``, nor when at most two mean packets are
  queued (``queue_.byte_length() <= 2 * MEAN_PKTSIZE``, the mean packet being the scenario's
  full packet); else drop when a uniform ``u < drop_prob`` (one number of the run's stream);
- §4.2, every T_UPDATE: ``p = α·(qdelay − QDELAY_REF) + β·(qdelay − qdelay_old)`` with the
  auto-tuning that divides p by 2048, 512, 128, 32, 8, 2 while ``drop_prob`` is below
  10⁻⁶, 10⁻⁵, 10⁻⁴, 10⁻³, 10⁻², 10⁻¹; ``drop_prob += p``, times 0.98 when both delays are 0,
  clamped to [0, 1]; ``qdelay_old = qdelay``;
- §4.3, the queueing delay: Little's law, "current_qdelay = queue_.byte_length()/
  dequeue_rate". §5.2 estimates the dequeue rate from the time to drain DQ_THRESHOLD bytes;
  here it is known exactly: this port's departure rate while it is busy is the link rate, so
  qdelay is the time the link needs to send what the buffer holds (the packet in transmission
  by its remaining part);
- §4.4, burst tolerance: the allowance ("initialized to MAX_BURST", 150 ms) falls by T_UPDATE
  at each update, and is reset to MAX_BURST when ``drop_prob == 0`` and both the current and
  the previous delay are below QDELAY_REF/2. The RFC checks that reset at each enqueue
  (§4.4 and Appendix A's ``enque``: ``current_qdelay`` then is the latest sample); here it is
  checked at each update, with that update's delay and the one before it, which is where
  Linux's ``sch_pie.c`` checks it (the end of ``pie_calculate_probability``).

Read beside Linux's ``net/sched/sch_pie.c`` (torvalds/linux at 00ac0dc): the same safeguards
of ``pie_drop_early``, the same auto-tuning divisors (its α, β shifts), the burst allowance
restored under the same condition; Linux adds the optional elements left out here (the
accumulated-probability de-randomization, the 2 % cap at drop_prob >= 10 %, +2 % above 250 ms
of delay), measures the delay by timestamps by default, and spends the burst allowance by
dequeue time instead of by T_UPDATE.

The updates are run lazily, at the next arrival, for every update time up to it: the FIFO's
backlog only changes at an accepted arrival, so the delay at a past update time is exact.
"""

from __future__ import annotations

from validation.simulator.core.heap import uniform
from validation.simulator.core.jit import jit
from validation.simulator.layout import GlobalFloat

#: RFC 8033 defaults, Appendix A: "QDELAY_REF. AQM Latency Target (default: 15 milliseconds)",
#: "MAX_BURST ... (default: 150 milliseconds)", "alpha (default: 1/8), beta (default: 1 + 1/4)"
#: in 1/s, "T_UPDATE ... (default: 15 milliseconds)"; §4.2: QDELAY_REF "SHOULD be set to 15
#: milliseconds"; §4.4: MAX_BURST "SHOULD be set to 150 milliseconds".
QDELAY_REF_S = 0.015
T_UPDATE_S = 0.015
MAX_BURST_S = 0.150
ALPHA_PER_S = 0.125
BETA_PER_S = 1.25
#: RFC 8033 §5.1: "if the calculated drop probability exceeds mark_ecnth, PIE reverts to
#: packet-dropping for ECN-capable packets. The variable mark_ecnth SHOULD be set to 0.1 (10%)."
#: An ECN-capable packet is marked while the probability is at most 10 % (Linux's sch_pie.c,
#: ``prob <= MAX_PROB / 10``; §5.1's pseudocode marks only below it, ``drop_prob_ <
#: mark_ecnth``: they differ only at exactly 10 %).
PIE_MARK_ECN_MAX_PROB = 0.1


@jit
def autotune(p, prob):
    """RFC 8033 §4.2: scale the increment p down while the drop probability is small."""
    if prob < 0.000001:
        return p / 2048.0
    if prob < 0.00001:
        return p / 512.0
    if prob < 0.0001:
        return p / 128.0
    if prob < 0.001:
        return p / 32.0
    if prob < 0.01:
        return p / 8.0
    if prob < 0.1:
        return p / 2.0
    return p


@jit
def pie_update(sp, t):
    """Run every drop-probability update due at or before t (RFC 8033 §4.2-4.4)."""
    g = sp[0].g
    while g[GlobalFloat.PIE_NEXT_UPDATE_S] <= t:
        u = g[GlobalFloat.PIE_NEXT_UPDATE_S]
        qdelay = max(g[GlobalFloat.LAST_DEPARTURE_S] - u, 0.0)
        old = g[GlobalFloat.PIE_QDELAY_OLD_S]
        prob = g[GlobalFloat.PIE_DROP_PROB]
        p = ALPHA_PER_S * (qdelay - QDELAY_REF_S) + BETA_PER_S * (qdelay - old)
        prob += autotune(p, prob)
        if qdelay == 0.0 and old == 0.0:
            prob *= 0.98
        prob = min(max(prob, 0.0), 1.0)
        burst = max(g[GlobalFloat.PIE_BURST_ALLOWANCE_S] - T_UPDATE_S, 0.0)
        if prob == 0.0 and qdelay < 0.5 * QDELAY_REF_S and old < 0.5 * QDELAY_REF_S:
            burst = MAX_BURST_S
        g[GlobalFloat.PIE_DROP_PROB] = prob
        g[GlobalFloat.PIE_BURST_ALLOWANCE_S] = burst
        g[GlobalFloat.PIE_QDELAY_OLD_S] = qdelay
        g[GlobalFloat.PIE_NEXT_UPDATE_S] = u + T_UPDATE_S


@jit
def pie_ok_to_signal(sp, t):
    """RFC 8033 §4.1 ``drop_early`` for a packet the buffer has room for, arriving at t."""
    s = sp[0]
    g = s.g
    pie_update(sp, t)
    if g[GlobalFloat.PIE_BURST_ALLOWANCE_S] > 0.0:
        return False
    prob = g[GlobalFloat.PIE_DROP_PROB]
    if g[GlobalFloat.PIE_QDELAY_OLD_S] < 0.5 * QDELAY_REF_S and prob < 0.2:
        return False
    if g[GlobalFloat.QUEUE_BYTES] <= 2.0 * g[GlobalFloat.WIRE_BYTES]:
        return False
    return uniform(sp) < prob
