"""The drop-tail FIFO at the bottleneck.

A packet's departure time is known when it is accepted, so departures are not heap events:
they are taken from a ring of accepted packets (``qf``) when the clock passes them, before any
event at the same time (as the reference's departure events are).
"""

from __future__ import annotations

from validation.simulator.core.aqm import aqm_signal
from validation.simulator.core.counters import (
    accepted,
    account_departure,
    account_occupancy,
    drop,
    record,
    room_for,
)
from validation.simulator.core.ecn import mark_on_arrival
from validation.simulator.core.heap import push_packet
from validation.simulator.core.jit import jit
from validation.simulator.core.pie import PIE_MARK_ECN_MAX_PROB, pie_ok_to_signal
from validation.simulator.layout import (
    EPOCH_BITS,
    FLOW_FLOATS,
    Aqm,
    Event,
    FlowFloat,
    GlobalFloat,
    GlobalInt,
    QueueField,
)

QUEUE = len(QueueField)


@jit
def fifo_advance(sp, t):
    """Take from the FIFO every packet whose departure time is <= t."""
    s = sp[0]
    g, gi, qf = s.g, s.gi, s.qf
    qmask = gi[GlobalInt.QUEUE_MASK]
    while gi[GlobalInt.QUEUE_PACKETS] > 0:
        h = gi[GlobalInt.QUEUE_HEAD]
        q = QUEUE * h
        dep = qf[q + QueueField.DEPARTURE_S]
        if dep > t:
            break
        account_occupancy(sp, dep)
        gi[GlobalInt.QUEUE_PACKETS] -= 1
        size = qf[q + QueueField.BYTES]
        g[GlobalFloat.QUEUE_BYTES] -= size
        flow = int(qf[q + QueueField.FLOW])
        t_arr = qf[q + QueueField.ARRIVAL_S]
        account_departure(sp, dep, qf[q + QueueField.TX_S], size, t_arr, flow)
        if gi[GlobalInt.TRACE] != 0:
            record(sp, dep, flow, size, 0)
        gi[GlobalInt.QUEUE_HEAD] = (h + 1) & qmask


@jit
def fifo_arrive(sp, t, f, epoch, seq, size, flags):
    """Accept the packet (and schedule its delivery) or drop it at the full buffer.

    An accepted ECN-capable packet may be marked CE (``ecn.mark_on_arrival``); ``flags`` travel
    with it to the receiver.
    """
    s = sp[0]
    g, gi, qf = s.g, s.gi, s.qf
    qmask = gi[GlobalInt.QUEUE_MASK]
    count = gi[GlobalInt.QUEUE_PACKETS]
    if not room_for(sp, size):
        drop(sp, t, f, size)
        return
    if gi[GlobalInt.AQM] == Aqm.PIE and pie_ok_to_signal(sp, t):
        may_mark = g[GlobalFloat.PIE_DROP_PROB] <= PIE_MARK_ECN_MAX_PROB  # RFC 8033 §5.1
        signal = aqm_signal(sp, t, f, size, may_mark)
        if signal < 0:
            return
        flags |= signal
    accepted(sp, t)
    flags |= mark_on_arrival(sp, t, f, count, g[GlobalFloat.QUEUE_BYTES])
    tx = size * 8.0 / g[GlobalFloat.CAPACITY_BPS]
    dep = max(t, g[GlobalFloat.LAST_DEPARTURE_S]) + tx
    g[GlobalFloat.LAST_DEPARTURE_S] = dep
    q = QUEUE * ((gi[GlobalInt.QUEUE_HEAD] + count) & qmask)
    qf[q + QueueField.DEPARTURE_S] = dep
    qf[q + QueueField.TX_S] = tx
    qf[q + QueueField.ARRIVAL_S] = t
    qf[q + QueueField.FLOW] = f
    qf[q + QueueField.BYTES] = size
    gi[GlobalInt.QUEUE_PACKETS] = count + 1
    g[GlobalFloat.QUEUE_BYTES] += size
    if f < gi[GlobalInt.FLOWS]:
        rtt = s.ff[f * FLOW_FLOATS + FlowFloat.RTT_S]
        tag = epoch | (flags << EPOCH_BITS)
        push_packet(sp, dep + 0.5 * rtt, Event.DELIVER, f, tag, seq)
