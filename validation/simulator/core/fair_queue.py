"""Per-flow fair queueing at the bottleneck: deficit round robin, drop from the longest queue.

Each flow (and the background, flow ``FLOWS``) has a ring of packets in ``fqq`` (``FQ_MASK + 1``
slots), its integers in ``fqi`` (:class:`FqInt`) and floats in ``fqf`` (:class:`FqFloat`);
``fqa`` is the ring of the flows with packets (DRR active list). Departures are heap events.
002 §V.B; M. Shreedhar and G. Varghese, "Efficient fair queueing using deficit round robin",
SIGCOMM 1995.
"""

from __future__ import annotations

import numpy as np

from validation.simulator.core.counters import (
    accepted,
    drop,
    end_service,
)
from validation.simulator.core.heap import heap_push
from validation.simulator.core.jit import jit
from validation.simulator.layout import (
    Event,
    FqFloat,
    FqInt,
    FqPacket,
    GlobalFloat,
    GlobalInt,
)

PACKET = len(FqPacket)
FQI = len(FqInt)
FQF = len(FqFloat)


@jit
def _fq_next(sp):
    """DRR: choose the next packet; returns its flow or -1 (its fields go to the SERVICE_*)."""
    s = sp[0]
    g, gi, fqq, fqi, fqf, fqa = s.g, s.gi, s.fqq, s.fqi, s.fqf, s.fqa
    quantum = g[GlobalFloat.WIRE_BYTES]
    fqmask = gi[GlobalInt.FQ_MASK]
    slots = fqmask + 1
    m = gi[GlobalInt.FLOWS] + 1
    while gi[GlobalInt.ACTIVE_COUNT] > 0:
        ah = gi[GlobalInt.ACTIVE_HEAD]
        f = fqa[ah]
        ri = FQI * f
        rf = FQF * f
        if fqi[ri + FqInt.VISITED] == 0:
            fqf[rf + FqFloat.DEFICIT_BYTES] += quantum
            fqi[ri + FqInt.VISITED] = 1
        h = fqi[ri + FqInt.HEAD]
        p = (f * slots + h) * PACKET
        if fqq[p + FqPacket.BYTES] <= fqf[rf + FqFloat.DEFICIT_BYTES]:
            size = fqq[p + FqPacket.BYTES]
            gi[GlobalInt.SERVICE_EPOCH] = np.int64(fqq[p + FqPacket.EPOCH])
            gi[GlobalInt.SERVICE_SEQ] = np.int64(fqq[p + FqPacket.SEQ])
            g[GlobalFloat.SERVICE_BYTES] = size
            g[GlobalFloat.SERVICE_ARRIVAL_S] = fqq[p + FqPacket.ARRIVAL_S]
            fqi[ri + FqInt.HEAD] = (h + 1) & fqmask
            fqi[ri + FqInt.PACKETS] -= 1
            fqf[rf + FqFloat.QUEUED_BYTES] -= size
            fqf[rf + FqFloat.DEFICIT_BYTES] -= size
            if fqi[ri + FqInt.PACKETS] == 0:
                fqf[rf + FqFloat.DEFICIT_BYTES] = 0.0
                fqi[ri + FqInt.VISITED] = 0
                gi[GlobalInt.ACTIVE_HEAD] = (ah + 1) % m
                gi[GlobalInt.ACTIVE_COUNT] -= 1
            else:
                head = (f * slots + fqi[ri + FqInt.HEAD]) * PACKET
                if fqq[head + FqPacket.BYTES] > fqf[rf + FqFloat.DEFICIT_BYTES]:
                    fqi[ri + FqInt.VISITED] = 0
                    gi[GlobalInt.ACTIVE_HEAD] = (ah + 1) % m
                    fqa[(ah + gi[GlobalInt.ACTIVE_COUNT]) % m] = f
            return f
        fqi[ri + FqInt.VISITED] = 0
        gi[GlobalInt.ACTIVE_HEAD] = (ah + 1) % m
        fqa[(ah + gi[GlobalInt.ACTIVE_COUNT]) % m] = f
    return -1


@jit
def _fq_start(sp, t):
    """Start transmitting the next packet, if any (its departure is a heap event)."""
    s = sp[0]
    f = _fq_next(sp)
    if f >= 0:
        g, gi = s.g, s.gi
        gi[GlobalInt.IN_SERVICE] = 1
        gi[GlobalInt.SERVICE_FLOW] = f
        dep = t + g[GlobalFloat.SERVICE_BYTES] * 8.0 / g[GlobalFloat.CAPACITY_BPS]
        g[GlobalFloat.SERVICE_DEPARTURE_S] = dep
        heap_push(sp, dep, Event.DEPART, f, 0, 0)


@jit
def _fq_remove_active(sp, victim):
    s = sp[0]
    gi, fqa = s.gi, s.fqa
    m = gi[GlobalInt.FLOWS] + 1
    head = gi[GlobalInt.ACTIVE_HEAD]
    count = gi[GlobalInt.ACTIVE_COUNT]
    pos = -1
    for k in range(count):
        if fqa[(head + k) % m] == victim:
            pos = k
            break
    for k in range(pos, count - 1):
        fqa[(head + k) % m] = fqa[(head + k + 1) % m]
    gi[GlobalInt.ACTIVE_COUNT] = count - 1


@jit
def fq_arrive(sp, t, f, epoch, seq, size):
    """Queue the packet; if the buffer overflows, drop the last packet of the longest queue."""
    s = sp[0]
    g, gi, fqq, fqi, fqf, fqa = s.g, s.gi, s.fqq, s.fqi, s.fqf, s.fqa
    fqmask = gi[GlobalInt.FQ_MASK]
    slots = fqmask + 1
    m = gi[GlobalInt.FLOWS] + 1
    ri = FQI * f
    if fqi[ri + FqInt.PACKETS] == 0:
        fqa[(gi[GlobalInt.ACTIVE_HEAD] + gi[GlobalInt.ACTIVE_COUNT]) % m] = f
        gi[GlobalInt.ACTIVE_COUNT] += 1
    p = (f * slots + ((fqi[ri + FqInt.HEAD] + fqi[ri + FqInt.PACKETS]) & fqmask)) * PACKET
    fqq[p + FqPacket.EPOCH] = epoch
    fqq[p + FqPacket.SEQ] = seq
    fqq[p + FqPacket.BYTES] = size
    fqq[p + FqPacket.ARRIVAL_S] = t
    fqi[ri + FqInt.PACKETS] += 1
    fqf[FQF * f + FqFloat.QUEUED_BYTES] += size
    gi[GlobalInt.QUEUE_PACKETS] += 1
    g[GlobalFloat.QUEUE_BYTES] += size
    if gi[GlobalInt.BYTE_MODE] != 0:
        over = g[GlobalFloat.QUEUE_BYTES] > g[GlobalFloat.LIMIT_BYTES]
    else:
        over = gi[GlobalInt.QUEUE_PACKETS] > gi[GlobalInt.BUFFER_PACKETS]
    if over or fqi[ri + FqInt.PACKETS] > fqmask:
        victim = f  # ties go to the arriving flow
        for k in range(m):
            if fqf[FQF * k + FqFloat.QUEUED_BYTES] > fqf[FQF * victim + FqFloat.QUEUED_BYTES]:
                victim = k
        rv = FQI * victim
        fqi[rv + FqInt.PACKETS] -= 1
        last = (fqi[rv + FqInt.HEAD] + fqi[rv + FqInt.PACKETS]) & fqmask
        vsize = fqq[(victim * slots + last) * PACKET + FqPacket.BYTES]
        fqf[FQF * victim + FqFloat.QUEUED_BYTES] -= vsize
        gi[GlobalInt.QUEUE_PACKETS] -= 1
        g[GlobalFloat.QUEUE_BYTES] -= vsize
        if fqi[rv + FqInt.PACKETS] == 0:
            _fq_remove_active(sp, victim)
            fqf[FQF * victim + FqFloat.DEFICIT_BYTES] = 0.0
            fqi[rv + FqInt.VISITED] = 0
        drop(sp, t, victim, vsize)
        if victim == f:
            return
    accepted(sp, t)
    if gi[GlobalInt.IN_SERVICE] == 0:
        _fq_start(sp, t)


@jit
def fq_depart(sp, t):
    """The packet in transmission leaves: count it, schedule its delivery, send the next."""
    end_service(sp, t)
    _fq_start(sp, t)
