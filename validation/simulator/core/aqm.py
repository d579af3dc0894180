"""Where an AQM's congestion signal becomes a drop or an ECN mark: one place.

CoDel (``codel.py``) and PIE (``pie.py``) decide *that* a packet is to carry the congestion
signal; :func:`aqm_signal` decides *how*: through ``ecn.mark_or_drop``, an ECN-capable packet
(its group's ``EcnMode`` is not OFF) is marked CE and kept, any other dropped. CoDel: RFC 8289
§1, read, "it may be reasonable to ECN-mark packets instead" (its pseudocode, §5, only drops),
and Linux's ``codel_impl.h``, which marks instead of dropping. PIE: RFC 8033 §5.1, read, "PIE
MAY support ECN by marking (rather than dropping) ECN-capable packets" until the drop
probability exceeds ``mark_ecnth`` = 10 %, which the caller passes as ``may_mark`` (at most
10 %, as Linux's ``sch_pie.c``). DualQ (``dualq.py``): RFC 9332 Appendix A.1, an ECN-capable
packet is marked, any other dropped, except on overload, where ``may_mark`` is False (Linux's
``sch_dualpi2.c``, ``dualpi2_classic_marking``).

Also here, for the AQMs that decide at dequeue (CoDel, DualQ; their FIFO is
``dequeue_fifo.py``): :func:`take_head` takes the oldest waiting packet out of the ring and
:func:`signal_taken` signals it.
"""

from __future__ import annotations

from validation.simulator.core.counters import COUNTS, account_occupancy, drop
from validation.simulator.core.ecn import mark_or_drop
from validation.simulator.core.jit import jit
from validation.simulator.layout import EPOCH_BITS, FlowCount, GlobalFloat, GlobalInt, QueueField

QUEUE = len(QueueField)


@jit
def aqm_signal(sp, t, flow, size, may_mark):
    """Signal congestion on a packet of ``flow`` at t: CE_FLAG when it is marked (the caller
    keeps it), -1 when it is dropped (counted as a drop and, apart, as an AQM drop).

    The caller has taken the packet out of the queue (CoDel) or not let it in yet (PIE).
    """
    s = sp[0]
    signal = mark_or_drop(sp, t, flow, size) if may_mark else -1
    if signal < 0:
        if not may_mark:
            drop(sp, t, flow, size)
        if t >= s.g[GlobalFloat.WARMUP_S]:
            s.gi[GlobalInt.AQM_DROPS] += 1
            s.fc[COUNTS * flow + FlowCount.AQM_DROPS] += 1.0
    return signal


@jit
def take_head(sp):
    """Take the oldest waiting packet out of the ring ``qf`` of a FIFO whose departures are
    events (the link is free): its offset in ``qf``, or -1 when none waits."""
    gi = sp[0].gi
    if gi[GlobalInt.QUEUE_PACKETS] == 0:  # nothing in transmission: all of them wait
        return -1
    h = gi[GlobalInt.QUEUE_HEAD]
    gi[GlobalInt.QUEUE_HEAD] = (h + 1) & gi[GlobalInt.QUEUE_MASK]
    return QUEUE * h


@jit
def signal_taken(sp, t, q, may_mark):
    """Signal the packet taken at ring offset q (:func:`aqm_signal`): True when it was dropped
    (it leaves the port), False when it was marked CE (its tag carries the mark)."""
    s = sp[0]
    size = s.qf[q + QueueField.BYTES]
    signal = aqm_signal(sp, t, int(s.qf[q + QueueField.FLOW]), size, may_mark)
    if signal < 0:
        account_occupancy(sp, t)
        s.gi[GlobalInt.QUEUE_PACKETS] -= 1
        s.g[GlobalFloat.QUEUE_BYTES] -= size
        return True
    s.qf[q + QueueField.EPOCH] = int(s.qf[q + QueueField.EPOCH]) | (signal << EPOCH_BITS)
    return False
