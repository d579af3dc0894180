"""The DualQ Coupled AQM, DualPI2 (K. De Schepper, B. Briscoe, G. White, RFC 9332, January
2023, §2.4-2.5 and Appendix A), as Linux runs it by default, at the bottleneck FIFO of
``dequeue_fifo.py``, for one class of traffic per run: the buffer stays the hard limit (a full
buffer drops first, as Linux's ``dualpi2_enqueue_skb``).

Read in Linux's ``net/sched/sch_dualpi2.c`` (torvalds/linux at 92b9c2b), whose defaults are
taken here (``dualpi2_reset_default``): PI2 target 15 ms, Tupdate 16 ms, alpha 0.16 Hz,
beta 3.2 Hz, coupling factor k = 2, ``drop_early`` off ("Drop dequeue"), ``drop_overload``
on, the L4S step threshold 1 ms of sojourn time (``step_in_packets`` false), applied to every
L4S packet (``min_qlen_step = 0``).

- The base probability p' (Linux ``calculate_probability``, run by the ``dualpi2_timer``
  every Tupdate; RFC 9332 Appendix A.1 ``dualpi2_update``): ``p' += alpha·(qdelay −
  target) + beta·(qdelay − prev_qdelay)``, clamped to [0, 1] (with ``drop_overload`` no cap
  at 1/k); ``prev_qdelay = qdelay``. The queueing delay is the sojourn time so far of the
  packet at the head of the queue (``get_queue_delays``: now minus ``c_head_ts``, the head's
  enqueue time, which ``dequeue_packet`` moves to the next packet's; 0 when the queue is
  empty), as RFC 9332 §2.5.2 allows ("the sojourn time of the head packet").
- Every decision is made at dequeue (``dualpi2_qdisc_dequeue``: ``must_drop`` when
  ``drop_early`` is off, then ``do_step_aqm``); a dropped packet is freed and the next one
  dequeued (``drop_and_retry``), as here in one call of :func:`dualq_dequeue`.
- ``must_drop``: nothing while the port holds less than two full packets besides the packet
  dequeued (``sch->qstats.backlog < 2 * psched_mtu``, the backlog after ``dequeue_packet``
  took that packet off). Classic packets (not ECN-capable, or ECT(0): Reno, CUBIC, BBR
  senders): dropped, or marked CE when ECN-capable, with probability p_C = (p')²
  (``dualpi2_classic_marking``, two rolls of p'; here one uniform against (p')², the same
  law); on overload (k·p' > 1) dropped even when ECN-capable. L4S packets (ECT(1): here DCTCP
  senders; ``dualpi2_scalable_marking``): marked with the coupled probability p_CL = k·p'
  (RFC 9332 §2.4, equation (1)); on overload dropped with (p')², and otherwise marked.
- ``do_step_aqm``, L4S packets only: marked when their sojourn time exceeds 1 ms. This step is
  Linux's default native L4S AQM; RFC 9332 Appendix A.1's pseudocode uses a ramp instead
  (``laqm``: minTh = 800 µs, range = 400 µs), whose middle is the step's 1 ms. The step is
  taken here because it is what a Linux box runs unless told otherwise.

What differs from Linux, and why: one class per run (``Scenario.validate`` refuses a mix).
The Classic and L4S queues and their weighted round-robin scheduler (``dequeue_packet``,
C-queue weight 10 %) are not modelled: with one class only one queue ever holds packets, so
the port is this single FIFO and the other queue's head delay is 0.

The probability updates are run lazily, before the next arrival or dequeue, for every update
time up to it: between those events the waiting queue and its head do not change, so the
head's sojourn time at a past update time is exact. An update due at the very time of an
arrival or a dequeue runs before it.
"""

from __future__ import annotations

from validation.simulator.core.aqm import signal_taken, take_head
from validation.simulator.core.heap import uniform
from validation.simulator.core.jit import jit
from validation.simulator.layout import GlobalFloat, GlobalInt, QueueField

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
#: Linux ``dualpi2_reset_default``: "q->step_thresh = 1 * NSEC_PER_MSEC;
#: q->step_in_packets = false;" (``do_step_aqm`` marks when the sojourn time is above it).
STEP_THRESH_S = 0.001

#: What PI2 does to the packet taken at the head (:func:`signal_probability`).
PASS = 0
SIGNAL = 1  # mark CE if ECN-capable, else drop
DROP = 2  # drop even if ECN-capable (overload)

QUEUE = len(QueueField)


@jit
def pi2_step(prob, qdelay, old):
    """One PI2 update of the base probability p' (RFC 9332 Appendix A.1), clamped to [0, 1]."""
    prob += ALPHA_PER_S * (qdelay - TARGET_S) + BETA_PER_S * (qdelay - old)
    return min(max(prob, 0.0), 1.0)


@jit
def signal_probability(prob, scalable, backlog_bytes, wire_bytes):
    """Linux ``must_drop`` for a dequeued packet: (probability, action taken with it, action
    otherwise). p' is ``prob``; ``scalable`` is 1 for an L4S packet; ``backlog_bytes`` are the
    bytes left at the port once the packet is taken off."""
    if backlog_bytes < 2.0 * wire_bytes:
        return 0.0, PASS, PASS
    overload = COUPLING * prob > 1.0
    if scalable != 0:
        if overload:  # dualpi2_scalable_marking with drop_overload: drop, else mark
            return prob * prob, DROP, SIGNAL
        return COUPLING * prob, SIGNAL, PASS
    return prob * prob, DROP if overload else SIGNAL, PASS


@jit
def step_marks(sojourn_s):
    """Linux ``do_step_aqm`` with its defaults: an L4S packet is marked above 1 ms."""
    return sojourn_s > STEP_THRESH_S


@jit
def dualq_update(sp, t):
    """Run every p' update due at or before t, from the head's sojourn time."""
    s = sp[0]
    g, gi = s.g, s.gi
    waiting = gi[GlobalInt.QUEUE_PACKETS] - gi[GlobalInt.IN_SERVICE]
    head_arrival = 0.0
    if waiting > 0:
        head_arrival = s.qf[QUEUE * gi[GlobalInt.QUEUE_HEAD] + QueueField.ARRIVAL_S]
    while g[GlobalFloat.DUALQ_NEXT_UPDATE_S] <= t:
        u = g[GlobalFloat.DUALQ_NEXT_UPDATE_S]
        qdelay = u - head_arrival if waiting > 0 else 0.0
        g[GlobalFloat.DUALQ_PROB] = pi2_step(
            g[GlobalFloat.DUALQ_PROB], qdelay, g[GlobalFloat.DUALQ_QDELAY_OLD_S]
        )
        g[GlobalFloat.DUALQ_QDELAY_OLD_S] = qdelay
        g[GlobalFloat.DUALQ_NEXT_UPDATE_S] = u + TUPDATE_S


@jit
def dualq_dequeue(sp, t):
    """Linux ``dualpi2_qdisc_dequeue`` at t (the link is free): the ring offset of the packet
    to send (-1: none), after the drops of the packets before it. One uniform of the run's
    stream is drawn for each packet whose probability is above 0."""
    s = sp[0]
    g, qf = s.g, s.qf
    dualq_update(sp, t)
    scalable = s.gi[GlobalInt.DUALQ_SCALABLE]
    while True:
        q = take_head(sp)
        if q < 0:
            return -1
        backlog = g[GlobalFloat.QUEUE_BYTES] - qf[q + QueueField.BYTES]
        p, hit, miss = signal_probability(
            g[GlobalFloat.DUALQ_PROB], scalable, backlog, g[GlobalFloat.WIRE_BYTES]
        )
        action = miss
        if p > 0.0 and uniform(sp) < p:
            action = hit
        if action == DROP:
            signal_taken(sp, t, q, False)
            continue
        if action == SIGNAL:
            if signal_taken(sp, t, q, True):  # not ECN-capable: dropped
                continue
        elif scalable != 0 and step_marks(t - qf[q + QueueField.ARRIVAL_S]):
            if signal_taken(sp, t, q, True):
                continue
        return q
