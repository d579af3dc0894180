"""The bottleneck FIFO whose AQM decides at dequeue: CoDel (``codel.py``) and DualPI2 as Linux
runs it by default (``dualq.py``).

A drop at dequeue moves every later packet's departure earlier, so here departures are heap
events (``Event.DEPART``) as with fair queueing, not the implicit departures of ``fifo.py``:
the ring ``qf`` holds the waiting packets (``QUEUE_HEAD`` is the oldest), the packet in
transmission is in the ``SERVICE_*`` globals. A packet is *dequeued* when the link is free to
start sending it.
"""

from __future__ import annotations

from validation.simulator.core.codel import codel_dequeue
from validation.simulator.core.counters import accepted, drop, end_service, room_for
from validation.simulator.core.dualq import dualq_dequeue, dualq_update
from validation.simulator.core.ecn import mark_on_arrival
from validation.simulator.core.heap import heap_push
from validation.simulator.core.jit import jit
from validation.simulator.layout import (
    EPOCH_BITS,
    Aqm,
    Event,
    GlobalFloat,
    GlobalInt,
    QueueField,
)

QUEUE = len(QueueField)


@jit
def _start(sp, t):
    """The link is free at t: dequeue (the AQM's drops first) and start sending."""
    s = sp[0]
    g, gi, qf = s.g, s.gi, s.qf
    if gi[GlobalInt.AQM] == Aqm.DUALQ:
        q = dualq_dequeue(sp, t)
    else:
        q = codel_dequeue(sp, t)
    if q < 0:
        return
    f = int(qf[q + QueueField.FLOW])
    size = qf[q + QueueField.BYTES]
    gi[GlobalInt.IN_SERVICE] = 1
    gi[GlobalInt.SERVICE_FLOW] = f
    gi[GlobalInt.SERVICE_EPOCH] = int(qf[q + QueueField.EPOCH])
    gi[GlobalInt.SERVICE_SEQ] = int(qf[q + QueueField.SEQ])
    g[GlobalFloat.SERVICE_BYTES] = size
    g[GlobalFloat.SERVICE_ARRIVAL_S] = qf[q + QueueField.ARRIVAL_S]
    dep = t + size * 8.0 / g[GlobalFloat.CAPACITY_BPS]
    g[GlobalFloat.SERVICE_DEPARTURE_S] = dep
    heap_push(sp, dep, Event.DEPART, f, 0, 0)


@jit
def dequeue_fifo_arrive(sp, t, f, epoch, seq, size, flags):
    """Queue the packet (or drop it at the full buffer); start sending if the link is free.

    DualPI2's probability updates due by t are run first: they read the waiting queue's head
    as it was before this arrival. As on the drop-tail FIFO, an accepted ECN-capable packet
    may also be marked CE by the port's threshold (``ecn.mark_on_arrival``); its ``flags``
    travel with it in its tag.
    """
    s = sp[0]
    g, gi, qf = s.g, s.gi, s.qf
    if gi[GlobalInt.AQM] == Aqm.DUALQ:
        dualq_update(sp, t)
    qmask = gi[GlobalInt.QUEUE_MASK]
    count = gi[GlobalInt.QUEUE_PACKETS]
    if not room_for(sp, size):
        drop(sp, t, f, size)
        return
    accepted(sp, t)
    flags |= mark_on_arrival(sp, t, f, count, g[GlobalFloat.QUEUE_BYTES])
    waiting = count - gi[GlobalInt.IN_SERVICE]
    q = QUEUE * ((gi[GlobalInt.QUEUE_HEAD] + waiting) & qmask)
    qf[q + QueueField.ARRIVAL_S] = t
    qf[q + QueueField.FLOW] = f
    qf[q + QueueField.BYTES] = size
    qf[q + QueueField.EPOCH] = epoch | (flags << EPOCH_BITS)  # the tag DELIVER carries
    qf[q + QueueField.SEQ] = seq
    gi[GlobalInt.QUEUE_PACKETS] = count + 1
    g[GlobalFloat.QUEUE_BYTES] += size
    if gi[GlobalInt.IN_SERVICE] == 0:
        _start(sp, t)


@jit
def dequeue_fifo_depart(sp, t):
    """The packet in transmission leaves: count it, schedule its delivery, send the next."""
    end_service(sp, t)
    _start(sp, t)
