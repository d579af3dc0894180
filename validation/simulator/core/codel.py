"""CoDel, "Controlled Delay Active Queue Management" (K. Nichols, V. Jacobson, A. McGregor,
J. Iyengar, RFC 8289, January 2018), at the bottleneck FIFO; the buffer stays the hard limit.

CoDel drops at dequeue, which moves every later packet's departure earlier, so with CoDel the
FIFO's departures are heap events (``Event.DEPART``), the FIFO of ``dequeue_fifo.py``, not the
implicit departures of ``fifo.py``. A packet is *dequeued* when the link is free to start
sending it; its sojourn time is the time from its arrival to then (the simulator's queueing
delay, ``queue_delay_mean_s``).

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

from validation.simulator.core.aqm import signal_taken, take_head
from validation.simulator.core.jit import jit
from validation.simulator.layout import GlobalFloat, GlobalInt, QueueField

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
    q = take_head(sp)
    if q < 0:
        s.g[GlobalFloat.CODEL_FIRST_ABOVE_S] = 0.0
        return -1, False
    backlog = s.g[GlobalFloat.QUEUE_BYTES] - s.qf[q + QueueField.BYTES]
    return q, codel_ok_to_signal(sp, t, t - s.qf[q + QueueField.ARRIVAL_S], backlog)


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
            if not signal_taken(sp, t, q, True):  # marked: it is sent; the next signal per the law
                g[GlobalFloat.CODEL_DROP_NEXT_S] += interval / math.sqrt(count)
                return q
            q, ok = _dodequeue(sp, t)
            if not ok:
                gi[GlobalInt.CODEL_DROPPING] = 0
            else:
                g[GlobalFloat.CODEL_DROP_NEXT_S] += interval / math.sqrt(count)
    elif ok:
        if signal_taken(sp, t, q, True):
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
