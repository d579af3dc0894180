"""The event loop: first events, ``run_chunk`` (events up to a time), ``finish``.

``run_chunk`` advances the clock to ``t_stop`` and returns a :class:`Status`; it also returns
early when it needs more random numbers, a larger heap or list pool, or room in the trace
buffers, so that the Python driver can refill them, report progress and cancel between chunks.
"""

from __future__ import annotations

from validation.simulator.core.counters import account_occupancy
from validation.simulator.core.dequeue_fifo import dequeue_fifo_depart
from validation.simulator.core.fair_queue import FQI, fq_depart
from validation.simulator.core.fifo import QUEUE, fifo_advance
from validation.simulator.core.heap import (
    delack_fired,
    exponential,
    heap_push,
    heap_settle,
    heap_take,
    next_in_timers,
    take_timer,
)
from validation.simulator.core.jit import address, jit, pointers
from validation.simulator.core.port import arrive
from validation.simulator.core.receiver import deliver, send_ack
from validation.simulator.core.sender import deferred_pace, rto_fire, start_flow, try_send
from validation.simulator.layout import (
    ARG_MASK,
    EPOCH_SHIFT,
    EPOCHS,
    FLAG_MASK,
    FLAGS_SHIFT,
    FLOW_FLOATS,
    FLOW_INTS,
    FLOW_SHIFT,
    GROUP_FLOATS,
    GROUP_INTS,
    KEY_SHIFT,
    Aqm,
    Event,
    EventList,
    FlowFloat,
    FlowInt,
    FqInt,
    GlobalFloat,
    GlobalInt,
    GroupFloat,
    GroupInt,
    QueueField,
    Status,
    Traffic,
)

#: Free heap entries needed before an event (one event schedules at most a few there).
HEAP_MARGIN = 64

INF = float("inf")


@jit
def init_events(arrays, start_s):
    """Schedule the first events: flow starts, open-loop packets, samples."""
    sp = address(pointers(arrays))
    s = sp[0]
    g, gi = s.g, s.gi
    n = gi[GlobalInt.FLOWS]
    for f in range(n):
        s.ff[f * FLOW_FLOATS + FlowFloat.RTO_EVENT_S] = INF
        s.ff[f * FLOW_FLOATS + FlowFloat.RTO_EXPIRY_S] = INF
    for f in range(n):  # persistent flows and closed-loop users start at their start times
        traffic = s.gg[s.fi[f * FLOW_INTS + FlowInt.GROUP] * GROUP_INTS + GroupInt.TRAFFIC]
        if traffic != Traffic.POISSON_FLOWS:
            heap_push(sp, start_s[f], Event.FLOW, f, 0, 0)
    for group in range(gi[GlobalInt.GROUPS]):  # Poisson groups: the first arrival
        if s.gg[group * GROUP_INTS + GroupInt.TRAFFIC] == Traffic.POISSON_FLOWS:
            rate = s.gf[group * GROUP_FLOATS + GroupFloat.FLOW_RATE_PER_S]
            heap_push(sp, exponential(sp, 1.0 / rate), Event.FLOW, -1 - group, 0, 0)
    rate = g[GlobalFloat.OPEN_RATE_PER_S]
    if rate > 0:
        first = 0.0 if gi[GlobalInt.OPEN_PERIODIC] != 0 else exponential(sp, 1.0 / rate)
        heap_push(sp, first, Event.OPEN, n, 0, 0)
    if gi[GlobalInt.TRACE] != 0:
        heap_push(sp, 0.0, Event.SAMPLE, 0, 0, 0)


@jit
def run_chunk(t_stop, arrays):
    """Process events with time <= min(t_stop, end); return a :class:`Status`.

    The arrays must stay alive during the call (the driver owns them).
    """
    return _run_chunk(
        t_stop,
        arrays.ht.shape[0],
        arrays.rand.shape[0],
        arrays.trt.shape[0],
        arrays.st.shape[0],
        address(pointers(arrays)),
    )


@jit
def _run_chunk(t_stop, heap_cap, rand_len, trace_cap, sample_cap, sp):
    s = sp[0]
    g, gi = s.g, s.gi
    end = g[GlobalFloat.END_S]
    limit = min(t_stop, end)
    n = gi[GlobalInt.FLOWS]
    traced = gi[GlobalInt.TRACED_FLOWS]
    node_margin = 2 * (gi[GlobalInt.WINDOW_MASK] + 1) + 16  # one event sends at most 2 windows
    trace_margin = 2 * (gi[GlobalInt.QUEUE_MASK] + 1) + 16
    fq = gi[GlobalInt.FAIR_QUEUEING] != 0
    at_dequeue = gi[GlobalInt.AQM] == Aqm.CODEL or gi[GlobalInt.AQM] == Aqm.DUALQ
    implicit = not fq and not at_dequeue  # departures are not events
    # DualQ may draw a uniform for every packet at the port in one dequeue (core/dualq.py)
    dualq = gi[GlobalInt.AQM] == Aqm.DUALQ
    trace = gi[GlobalInt.TRACE] != 0
    while True:
        timer = next_in_timers(sp)
        if timer:
            t = s.rt[0]
        elif gi[GlobalInt.HEAP_ENTRIES] == 0:
            return Status.DONE
        else:
            t = s.ht[0]
        if t > end:
            return Status.DONE
        if t > limit:
            return Status.STOPPED
        drawn = 8 + gi[GlobalInt.QUEUE_PACKETS] if dualq else 8
        if gi[GlobalInt.RANDOM_POSITION] + drawn > rand_len:
            return Status.NEED_RANDOM
        if max(gi[GlobalInt.HEAP_ENTRIES], gi[GlobalInt.RTO_ENTRIES]) + HEAP_MARGIN > heap_cap:
            return Status.HEAP_FULL
        if gi[GlobalInt.FREE_NODES] < node_margin:
            return Status.NODES_FULL
        if trace:
            if gi[GlobalInt.TRACE_ROWS] + trace_margin > trace_cap:
                return Status.TRACE_FULL
            if gi[GlobalInt.SAMPLE_ROWS] + 2 > sample_cap:
                return Status.SAMPLES_FULL
        if timer:
            kind = Event.RTO
            payload = s.rp[0]
            take_timer(sp)
        else:
            kind = s.hk[0] >> KEY_SHIFT
            payload = s.hp[0]
            heap_take(sp)
        f = (payload >> FLOW_SHIFT) - 1
        epoch = (payload >> EPOCH_SHIFT) & (EPOCHS - 1)
        flags = (payload >> FLAGS_SHIFT) & FLAG_MASK
        arg = payload & ARG_MASK
        if implicit and (kind == Event.ARRIVAL or kind == Event.OPEN or kind == Event.SAMPLE):
            fifo_advance(sp, t)
        if kind == Event.DELIVER:
            deliver(sp, t, f, epoch, arg, flags)
            if s.fi[f * FLOW_INTS + FlowInt.PACE_DEFERRED] != 0:
                deferred_pace(sp, t, f)
        elif kind == Event.ARRIVAL:
            arrive(sp, t, f, epoch, arg, flags)
        elif kind == Event.DEPART:
            if fq:
                fq_depart(sp, t)
            else:
                dequeue_fifo_depart(sp, t)
        elif kind == Event.RTO:
            rto_fire(sp, t, f)
        elif kind == Event.DELACK:
            if delack_fired(sp, f, arg) and s.fi[f * FLOW_INTS + FlowInt.DELACK_COUNT] > 0:
                send_ack(sp, t, f, -1)
        elif kind == Event.PACE:
            s.fi[f * FLOW_INTS + FlowInt.PACE_PENDING] = 0
            try_send(sp, t, f)
        elif kind == Event.OPEN:
            rate = g[GlobalFloat.OPEN_RATE_PER_S]
            if gi[GlobalInt.OPEN_PERIODIC] != 0:
                gap = 1.0 / rate
            else:
                gap = exponential(sp, 1.0 / rate)
            arrive(sp, t, n, 0, 0, 0)
            heap_push(sp, t + gap, Event.OPEN, n, 0, 0)
        elif kind == Event.FLOW:
            if f >= 0:
                start_flow(sp, t, f)
            else:  # a Poisson flow arrival of group -1 - f: the group's first free slot
                group = -1 - f
                rate = s.gf[group * GROUP_FLOATS + GroupFloat.FLOW_RATE_PER_S]
                heap_push(sp, t + exponential(sp, 1.0 / rate), Event.FLOW, f, 0, 0)
                first = s.gg[group * GROUP_INTS + GroupInt.FIRST_FLOW]
                free = -1
                for k in range(first, first + s.gg[group * GROUP_INTS + GroupInt.FLOWS]):
                    if s.fi[k * FLOW_INTS + FlowInt.ACTIVE] == 0:
                        free = k
                        break
                if free >= 0:
                    start_flow(sp, t, free)
                else:
                    gi[GlobalInt.BLOCKED] += 1
        elif kind == Event.SAMPLE:
            k = gi[GlobalInt.SAMPLE_ROWS]
            s.st[k] = t
            s.sq[k] = gi[GlobalInt.QUEUE_PACKETS]
            for j in range(traced):
                s.scw[k * traced + j] = s.ff[j * FLOW_FLOATS + FlowFloat.CWND_PACKETS]
            gi[GlobalInt.SAMPLE_ROWS] = k + 1
            heap_push(sp, t + g[GlobalFloat.SAMPLE_INTERVAL_S], Event.SAMPLE, 0, 0, 0)
        heap_settle(sp)


@jit
def finish(arrays):
    """Close the books at the end time: flush departures, count packets in flight."""
    sp = address(pointers(arrays))
    s = sp[0]
    g, gi = s.g, s.gi
    end = g[GlobalFloat.END_S]
    fq = gi[GlobalInt.FAIR_QUEUEING] != 0
    at_dequeue = gi[GlobalInt.AQM] == Aqm.CODEL or gi[GlobalInt.AQM] == Aqm.DUALQ
    codel = not fq and at_dequeue  # the FIFO of dequeue_fifo.py (CoDel and DualQ)
    if not fq and not codel:
        fifo_advance(sp, end)
    account_occupancy(sp, end)
    n = gi[GlobalInt.FLOWS]
    warm = g[GlobalFloat.WARMUP_S]
    in_flight = 0
    if fq or codel:
        if gi[GlobalInt.IN_SERVICE] != 0:
            tx = g[GlobalFloat.SERVICE_BYTES] * 8.0 / g[GlobalFloat.CAPACITY_BPS]
            lo = max(g[GlobalFloat.SERVICE_DEPARTURE_S] - tx, warm)
            if end > lo:
                g[GlobalFloat.BUSY_S] += end - lo
    elif gi[GlobalInt.QUEUE_PACKETS] > 0:
        q = QUEUE * gi[GlobalInt.QUEUE_HEAD]
        lo = max(s.qf[q + QueueField.DEPARTURE_S] - s.qf[q + QueueField.TX_S], warm)
        if end > lo:
            g[GlobalFloat.BUSY_S] += end - lo
    for f in range(n):  # scheduled arrivals and deliveries of the TCP flows
        b = f * FLOW_INTS
        in_flight += s.fi[b + FlowInt.DELIVER_LIST + EventList.COUNT]
        in_flight += s.fi[b + FlowInt.ARRIVAL_LIST + EventList.COUNT]
    if fq:
        if gi[GlobalInt.IN_SERVICE] != 0 and gi[GlobalInt.SERVICE_FLOW] < n:
            in_flight += 1
        for f in range(n):
            in_flight += s.fqi[f * FQI + FqInt.PACKETS]
    elif codel:  # the packet in transmission and the waiting ones
        if gi[GlobalInt.IN_SERVICE] != 0 and gi[GlobalInt.SERVICE_FLOW] < n:
            in_flight += 1
        qmask = gi[GlobalInt.QUEUE_MASK]
        for k in range(gi[GlobalInt.QUEUE_PACKETS] - gi[GlobalInt.IN_SERVICE]):
            q = QUEUE * ((gi[GlobalInt.QUEUE_HEAD] + k) & qmask)
            if s.qf[q + QueueField.FLOW] < n:
                in_flight += 1
    gi[GlobalInt.IN_FLIGHT] = in_flight
