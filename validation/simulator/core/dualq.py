"""The DualQ Coupled AQM, DualPI2 (K. De Schepper, B. Briscoe, G. White, RFC 9332, January
2023, §2.4-2.5 and Appendix A), at the bottleneck FIFO, for one class of traffic per run: the
buffer stays the hard limit (a full buffer drops first, as Linux's ``dualpi2_enqueue_skb``).

Read beside Linux's ``net/sched/sch_dualpi2.c`` (torvalds/linux at 92b9c2b), whose defaults
are taken here (``dualpi2_reset_default``): PI2 target 15 ms, Tupdate 16 ms, alpha 0.16 Hz,
beta 3.2 Hz, coupling factor k = 2.

- The base probability p' (RFC 9332 Appendix A.1, ``dualpi2_update``; Linux
  ``calculate_probability``): every Tupdate, ``p' += alpha·(qdelay − target) +
  beta·(qdelay − prev_qdelay)``, clamped to [0, 1] (Linux's default ``drop_overload``: no cap
  at 1/k); ``prev_qdelay = qdelay``.
- Classic packets (not ECN-capable, or ECT(0): Reno, CUBIC, BBR senders): dropped, or marked
  CE when ECN-capable, with probability p_C = (p')² (Linux ``dualpi2_classic_marking``, two
  rolls of p'; here one uniform against (p')², the same law); on overload (k·p' > 1) dropped
  even when ECN-capable.
- L4S packets (ECT(1): here DCTCP senders): marked with p_L = max(p'_L, p_CL), the native
  ramp p'_L of their own queueing delay (RFC 9332 Appendix A.1, ``laqm``: 0 below minTh =
  800 µs, rising linearly over range = 400 µs to 1) and the coupled p_CL = k·p' (RFC 9332
  §2.4, equation (1)); on overload (k·p' > 1) dropped with (p')² instead (Linux
  ``dualpi2_scalable_marking`` with ``drop_overload``). Linux's default native AQM is a step
  at 1 ms (``step_thresh``), the middle of the RFC's ramp; the RFC's ramp is taken here.
- No drop or mark from p' while the port holds less than two full packets (Linux
  ``must_drop``: ``backlog < 2 * psched_mtu``).

What differs from Linux, and why:

- One class per run (``Scenario.validate`` refuses a mix): the Classic and L4S queues and
  their weighted round-robin scheduler (``dequeue_packet``) are not modelled; with one class
  only one of them ever holds packets, so the port is this single FIFO.
- Decisions at enqueue, Linux's ``drop_early`` option (``must_drop`` called from
  ``dualpi2_enqueue_skb``); its default decides at dequeue. The native ramp is evaluated on
  the arriving packet's own queueing delay, which this FIFO knows at enqueue exactly (the
  time until its transmission starts): the sojourn time Linux's ``do_step_aqm`` measures at
  dequeue.
- The queueing delay p' is updated from is the time the link needs to send what the port
  holds (as the simulator's PIE, ``pie.py``; RFC 8033 §4.3), not the sojourn time so far of
  the packet at the head (Linux ``get_queue_delays``): in a steady queue they agree; while the
  queue grows the head's sojourn lags, so Linux's p' rises somewhat later than here.

The updates are run lazily, at the next arrival, for every update time up to it, as PIE's:
the FIFO's backlog only changes at an accepted arrival, so the delay at a past update time is
exact.
"""

from __future__ import annotations

from validation.simulator.core.heap import uniform
from validation.simulator.core.jit import jit
from validation.simulator.layout import GlobalFloat, GlobalInt

#: Linux ``sch_dualpi2.c``, ``dualpi2_reset_default``: "q->pi2_target = 15 * NSEC_PER_MSEC",
#: "q->pi2_tupdate = 16 * NSEC_PER_MSEC", alpha "~0.16 Hz * 256" (41/256), beta "~3.20 Hz *
#: 256" (819/256), "q->coupling_factor = 2; /* window fairness for equal RTTs */". RFC 9332
#: Appendix A.1 gives the same target and k (its Tupdate and gains are derived from RTT_max =
#: 100 ms: 15 ms, 0.15 Hz and 3 Hz).
TARGET_S = 0.015
TUPDATE_S = 0.016
ALPHA_PER_S = 41.0 / 256.0
BETA_PER_S = 819.0 / 256.0
COUPLING = 2.0
#: RFC 9332 Appendix A.1: the L4S ramp, "minTh = 800 us", "range = 400 us".
MIN_TH_S = 0.0008
RANGE_S = 0.0004

#: What the AQM does to an arriving packet (:func:`dualq_action`).
PASS = 0
SIGNAL = 1  # mark CE if ECN-capable, else drop
DROP = 2  # drop even if ECN-capable (overload)


@jit
def pi2_step(prob, qdelay, old):
    """One PI2 update of the base probability p' (RFC 9332 Appendix A.1), clamped to [0, 1]."""
    prob += ALPHA_PER_S * (qdelay - TARGET_S) + BETA_PER_S * (qdelay - old)
    return min(max(prob, 0.0), 1.0)


@jit
def l4s_ramp(qdelay):
    """The native L4S AQM's marking probability at this queueing delay (RFC 9332 ``laqm``)."""
    if qdelay >= MIN_TH_S + RANGE_S:
        return 1.0
    if qdelay > MIN_TH_S:
        return (qdelay - MIN_TH_S) / RANGE_S
    return 0.0


@jit
def signal_probability(prob, scalable, qdelay, backlog_bytes, wire_bytes):
    """(probability, action) for an arriving packet: p' is ``prob``; ``scalable`` is 1 for an
    L4S packet; ``qdelay`` is the time until its transmission would start."""
    coupled = backlog_bytes >= 2.0 * wire_bytes
    overload = COUPLING * prob > 1.0
    if scalable != 0 and not overload:
        p = COUPLING * prob if coupled else 0.0
        return max(p, l4s_ramp(qdelay)), SIGNAL
    p = prob * prob if coupled else 0.0
    return p, DROP if overload else SIGNAL


@jit
def dualq_update(sp, t):
    """Run every p' update due at or before t."""
    g = sp[0].g
    while g[GlobalFloat.DUALQ_NEXT_UPDATE_S] <= t:
        u = g[GlobalFloat.DUALQ_NEXT_UPDATE_S]
        qdelay = max(g[GlobalFloat.LAST_DEPARTURE_S] - u, 0.0)
        g[GlobalFloat.DUALQ_PROB] = pi2_step(
            g[GlobalFloat.DUALQ_PROB], qdelay, g[GlobalFloat.DUALQ_QDELAY_OLD_S]
        )
        g[GlobalFloat.DUALQ_QDELAY_OLD_S] = qdelay
        g[GlobalFloat.DUALQ_NEXT_UPDATE_S] = u + TUPDATE_S


@jit
def dualq_action(sp, t):
    """PASS, SIGNAL or DROP for a packet the buffer has room for, arriving at t (one uniform
    of the run's stream is drawn when the probability is above 0)."""
    s = sp[0]
    g = s.g
    dualq_update(sp, t)
    p, action = signal_probability(
        g[GlobalFloat.DUALQ_PROB],
        s.gi[GlobalInt.DUALQ_SCALABLE],
        max(g[GlobalFloat.LAST_DEPARTURE_S] - t, 0.0),
        g[GlobalFloat.QUEUE_BYTES],
        g[GlobalFloat.WIRE_BYTES],
    )
    if p > 0.0 and uniform(sp) < p:
        return action
    return PASS
