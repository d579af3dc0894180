"""CoDel, "Controlled Delay Active Queue Management" (K. Nichols, V. Jacobson, A. McGregor,
J. Iyengar, RFC 8289, January 2018), at the bottleneck FIFO; the buffer stays the hard limit.

CoDel drops at dequeue, which moves every later packet's departure earlier, so with CoDel the
FIFO's departures are heap events (``Event.DEPART``) as with fair queueing, not the implicit
departures of ``fifo.py``: the ring ``qf`` holds the waiting packets, the packet in
transmission is in the ``SERVICE_*`` globals. A packet is *dequeued* when the link is free
to start sending it; its sojourn time is the time from its arrival to then (the simulator's
queueing delay, ``queue_delay_mean_s``).

The algorithm is the annotated pseudocode of RFC 8289 §5 (read in the RFC's text: §5.5
"Dequeue Routine", §5.6 "Helper Routines" for ``dodequeue`` and ``control_law``), which says
of its re-entry rule "this is the Linux version"; it is also checked against Linux's
``include/net/codel_impl.h`` (read: torvalds/linux at 02d8f11, ``codel_should_drop`` and
``codel_dequeue``):

- ``dodequeue`` (:func:`_dodequeue`, :func:`codel_ok_to_signal`): if the sojourn time is below
  TARGET, or the bytes left in the queue are at most one MTU (here one full packet, the
  scenario's ``packet_bytes + header_bytes``), ``first_above_time = 0``; else the first time
  it is above, ``first_above_time = now + INTERVAL``, and once ``now >= first_above_time``
  the packet is OK to drop (§5.6 as written; Linux tests ``now > first_above_time``, one
  clock tick apart). §5.3's ``maxpacket`` is 512 bytes there with "SHOULD use interface MTU";
  §4.1: "CoDel makes another check before dropping to see if at least an MTU worth of bytes
  remains in the buffer";
- ``dequeue`` (:func:`codel_dequeue`): in the dropping state, leave it when the packet is not
  OK to drop; while ``now >= drop_next`` and still dropping, drop, ``count += 1``, dequeue the
  next and schedule ``drop_next = control_law(drop_next, count)``. Not dropping and OK to drop:
  drop, dequeue the next, enter the dropping state, and re-use the count of the last cycle if
  the state was left recently: ``delta = count - lastcount``; ``count = delta`` if
  ``delta > 1`` and ``now - drop_next < 16·INTERVAL``, else 1; then
  ``drop_next = control_law(now, count)`` and ``lastcount = count``;
- ``control_law(t, count) = t + INTERVAL / sqrt(count)`` (§5.6, exact; Linux approximates
  1/sqrt(count) by Newton steps). §3.3: "The 'next drop time' is decreased in inverse
  proportion to the square root of the number of drops since the drop state was entered".
- Packets arriving at a full buffer are dropped and not counted by CoDel (§5.4: "these drops
  are not counted towards CoDel's computations").

TARGET and INTERVAL are the scenario's ``codel_target_s`` and ``codel_interval_s`` (RFC 8289
§4.3, "TARGET SHOULD be set to 5 ms for normal Internet traffic"; §4.2, "INTERVAL SHOULD have
a value of 100 ms"; §5.3's constants). Signalling a packet goes through
:func:`aqm.aqm_signal`: an ECN-capable packet is marked CE and sent, any other is dropped.
RFC 8289 leaves marking to the implementer (§1: "while this document refers to dropping
packets when indicated by CoDel, it may be reasonable to ECN-mark packets instead"; its
pseudocode only drops); the marking follows Linux's ``codel_impl.h``: the mark takes the
drop's place and the dequeue returns that packet; in the dropping state the next signal is
scheduled by the control law as after a drop.
"""

from __future__ import annotations

import math

from validation.simulator.core.aqm import aqm_signal
from validation.simulator.core.counters import (
    accepted,
    account_occupancy,
    drop,
    end_service,
)
from validation.simulator.core.ecn import mark_on_arrival
from validation.simulator.core.heap import heap_push
from validation.simulator.core.jit import jit
from validation.simulator.layout import (
    EPOCH_BITS,
    Event,
    GlobalFloat,
    GlobalInt,
    QueueField,
)

QUEUE = len(QueueField)
#: RFC 8289 §5.5 (the Linux re-use rule): the last cycle's count is re-used within 16 intervals.
REUSE_INTERVALS = 16.0


@jit
def codel_ok_to_signal(sp, t, sojourn_s, backlog_bytes):
    """RFC 8289 ``dodequeue``'s test: has the sojourn time been above TARGET for INTERVAL?

    ``backlog_bytes`` are the bytes left in the queue once the packet is taken out.
    """
    g = sp[0].g
    if sojourn_s < g[GlobalFloat.CODEL_TARGET_S] or backlog_bytes <= g[GlobalFloat.WIRE_BYTES]:
        g[GlobalFloat.CODEL_FIRST_ABOVE_S] = 0.0
        return False
    if g[GlobalFloat.CODEL_FIRST_ABOVE_S] == 0.0:
        g[GlobalFloat.CODEL_FIRST_ABOVE_S] = t + g[GlobalFloat.CODEL_INTERVAL_S]
        return False
    return t >= g[GlobalFloat.CODEL_FIRST_ABOVE_S]


@jit
def _dodequeue(sp, t):
    """Take the oldest waiting packet: (its ring offset or -1 when empty, OK to drop)."""
    s = sp[0]
    g, gi, qf = s.g, s.gi, s.qf
    if gi[GlobalInt.QUEUE_PACKETS] == 0:  # nothing in transmission: all of them wait
        g[GlobalFloat.CODEL_FIRST_ABOVE_S] = 0.0
        return -1, False
    h = gi[GlobalInt.QUEUE_HEAD]
    gi[GlobalInt.QUEUE_HEAD] = (h + 1) & gi[GlobalInt.QUEUE_MASK]
    q = QUEUE * h
    backlog = g[GlobalFloat.QUEUE_BYTES] - qf[q + QueueField.BYTES]
    return q, codel_ok_to_signal(sp, t, t - qf[q + QueueField.ARRIVAL_S], backlog)


@jit
def _signal(sp, t, q):
    """Signal the dequeued packet at ring offset q; True when it was dropped (it leaves),
    False when it was marked CE (its tag carries the mark to the receiver)."""
    s = sp[0]
    size = s.qf[q + QueueField.BYTES]
    signal = aqm_signal(sp, t, int(s.qf[q + QueueField.FLOW]), size, True)
    if signal < 0:
        account_occupancy(sp, t)
        s.gi[GlobalInt.QUEUE_PACKETS] -= 1
        s.g[GlobalFloat.QUEUE_BYTES] -= size
        return True
    s.qf[q + QueueField.EPOCH] = int(s.qf[q + QueueField.EPOCH]) | (signal << EPOCH_BITS)
    return False


@jit
def codel_dequeue(sp, t):
    """RFC 8289 ``dequeue`` at t (the link is free): the ring offset of the packet to send
    (-1: none), after the drops the control law calls for."""
    s = sp[0]
    g, gi = s.g, s.gi
    interval = g[GlobalFloat.CODEL_INTERVAL_S]
    q, ok = _dodequeue(sp, t)
    if gi[GlobalInt.CODEL_DROPPING] != 0:
        if not ok:
            gi[GlobalInt.CODEL_DROPPING] = 0
        while gi[GlobalInt.CODEL_DROPPING] != 0 and t >= g[GlobalFloat.CODEL_DROP_NEXT_S]:
            gi[GlobalInt.CODEL_COUNT] += 1
            count = gi[GlobalInt.CODEL_COUNT]
            if not _signal(sp, t, q):  # marked: it is sent; the next signal per the law
                g[GlobalFloat.CODEL_DROP_NEXT_S] += interval / math.sqrt(count)
                return q
            q, ok = _dodequeue(sp, t)
            if not ok:
                gi[GlobalInt.CODEL_DROPPING] = 0
            else:
                g[GlobalFloat.CODEL_DROP_NEXT_S] += interval / math.sqrt(count)
    elif ok:
        if _signal(sp, t, q):
            q, ok = _dodequeue(sp, t)
        gi[GlobalInt.CODEL_DROPPING] = 1
        delta = gi[GlobalInt.CODEL_COUNT] - gi[GlobalInt.CODEL_LASTCOUNT]
        count = 1
        if delta > 1 and t - g[GlobalFloat.CODEL_DROP_NEXT_S] < REUSE_INTERVALS * interval:
            count = delta
        gi[GlobalInt.CODEL_COUNT] = count
        g[GlobalFloat.CODEL_DROP_NEXT_S] = t + interval / math.sqrt(count)
        gi[GlobalInt.CODEL_LASTCOUNT] = count
    return q


@jit
def _start(sp, t):
    """The link is free at t: dequeue (CoDel) and start sending; the departure is an event."""
    s = sp[0]
    q = codel_dequeue(sp, t)
    if q < 0:
        return
    g, gi, qf = s.g, s.gi, s.qf
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
def codel_arrive(sp, t, f, epoch, seq, size, flags):
    """Queue the packet (or drop it at the full buffer); start sending if the link is free.

    As on the drop-tail FIFO, an accepted ECN-capable packet may also be marked CE by the
    port's threshold (``ecn.mark_on_arrival``); its ``flags`` travel with it in its tag.
    """
    s = sp[0]
    g, gi, qf = s.g, s.gi, s.qf
    qmask = gi[GlobalInt.QUEUE_MASK]
    count = gi[GlobalInt.QUEUE_PACKETS]
    if gi[GlobalInt.BYTE_MODE] != 0:
        accept = g[GlobalFloat.QUEUE_BYTES] + size <= g[GlobalFloat.LIMIT_BYTES] and count <= qmask
    else:
        accept = count < gi[GlobalInt.BUFFER_PACKETS]
    if not accept:
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
def codel_depart(sp, t):
    """The packet in transmission leaves: count it, schedule its delivery, send the next."""
    end_service(sp, t)
    _start(sp, t)
