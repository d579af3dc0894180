"""What the bottleneck counts: occupancy, departures, drops, the packet trace."""

from __future__ import annotations

import numpy as np

from validation.simulator.core.heap import push_packet
from validation.simulator.core.jit import jit
from validation.simulator.layout import (
    FLOW_FLOATS,
    FLOW_INTS,
    Event,
    FlowCount,
    FlowFloat,
    FlowInt,
    GlobalFloat,
    GlobalInt,
    TraceInt,
)
from validation.simulator.parameters import BURST_BINS

TRACE = len(TraceInt)
COUNTS = len(FlowCount)


@jit
def account_occupancy(sp, t):
    """Add the time since the last change to the bin of the current queue length."""
    s = sp[0]
    g, gi = s.g, s.gi
    lo = max(g[GlobalFloat.LAST_CHANGE_S], g[GlobalFloat.WARMUP_S])
    hi = min(t, g[GlobalFloat.END_S])
    if hi > lo:
        k = min(gi[GlobalInt.QUEUE_PACKETS], gi[GlobalInt.OCCUPANCY_BINS] - 1)
        s.occ[k] += hi - lo
    g[GlobalFloat.LAST_CHANGE_S] = t


@jit
def account_departure(sp, t, tx, size, t_arr, flow):
    """Count a departure at t of ``size`` bytes of ``flow`` sent in ``tx`` s, arrived at t_arr."""
    s = sp[0]
    g, gi = s.g, s.gi
    warm = g[GlobalFloat.WARMUP_S]
    lo = max(t - tx, warm)
    hi = min(t, g[GlobalFloat.END_S])
    if hi > lo:
        g[GlobalFloat.BUSY_S] += hi - lo
    if warm <= t < g[GlobalFloat.END_S]:
        k = min(int((t - warm) / g[GlobalFloat.INTERVAL_S]), gi[GlobalInt.INTERVALS] - 1)
        s.ibits[k] += size * 8.0
        s.fc[COUNTS * flow + FlowCount.DEPARTED_BYTES] += size
    if t_arr >= warm:
        wait = t - tx - t_arr
        gi[GlobalInt.DELAY_COUNT] += 1
        g[GlobalFloat.DELAY_SUM_S] += wait
        g[GlobalFloat.DELAY_SUMSQ_S2] += wait * wait
        bin_ = min(int(wait / g[GlobalFloat.DELAY_BIN_S] + 1e-6), gi[GlobalInt.DELAY_BINS] - 1)
        s.dhist[bin_] += 1.0


@jit
def record(sp, t, flow, size, dropped):
    """Append a row to the packet trace."""
    s = sp[0]
    k = s.gi[GlobalInt.TRACE_ROWS]
    s.trt[k] = t
    s.tri[TRACE * k + TraceInt.FLOW] = flow
    s.tri[TRACE * k + TraceInt.BYTES] = np.int64(np.round(size))
    s.tri[TRACE * k + TraceInt.DROPPED] = dropped
    if flow < s.gi[GlobalInt.FLOWS]:
        s.tri[TRACE * k + TraceInt.EPOCH] = s.fi[flow * FLOW_INTS + FlowInt.EPOCH]
    s.gi[GlobalInt.TRACE_ROWS] = k + 1


@jit
def room_for(sp, size):
    """Whether the FIFO's hard limit admits a packet of ``size`` bytes: the buffer in packets,
    or in bytes in byte mode (and the ring not full)."""
    s = sp[0]
    gi = s.gi
    count = gi[GlobalInt.QUEUE_PACKETS]
    if gi[GlobalInt.BYTE_MODE] != 0:
        fits = s.g[GlobalFloat.QUEUE_BYTES] + size <= s.g[GlobalFloat.LIMIT_BYTES]
        return fits and count <= gi[GlobalInt.QUEUE_MASK]
    return count < gi[GlobalInt.BUFFER_PACKETS]


@jit
def accepted(sp, t):
    """A packet was accepted: close the run of drops before it."""
    s = sp[0]
    gi = s.gi
    run = gi[GlobalInt.DROP_RUN]
    if run > 0:
        if t >= s.g[GlobalFloat.WARMUP_S]:
            s.bhist[min(run, BURST_BINS) - 1] += 1
        gi[GlobalInt.DROP_RUN] = 0


@jit
def drop(sp, t, flow, size):
    """Count a packet of ``flow`` dropped at t."""
    s = sp[0]
    gi = s.gi
    if t >= s.g[GlobalFloat.WARMUP_S]:
        gi[GlobalInt.DROPS] += 1
        s.fc[COUNTS * flow + FlowCount.DROPS] += 1.0
    if flow < gi[GlobalInt.FLOWS]:
        gi[GlobalInt.DROPPED_TCP] += 1
    gi[GlobalInt.DROP_RUN] += 1
    if gi[GlobalInt.TRACE] != 0:
        record(sp, t, flow, size, 1)


@jit
def end_service(sp, t):
    """The packet in transmission leaves a port whose departures are events (fair queueing,
    CoDel): count it, schedule its delivery half an RTT later; the caller starts the next."""
    s = sp[0]
    g, gi = s.g, s.gi
    f = gi[GlobalInt.SERVICE_FLOW]
    size = g[GlobalFloat.SERVICE_BYTES]
    account_occupancy(sp, t)
    gi[GlobalInt.QUEUE_PACKETS] -= 1
    g[GlobalFloat.QUEUE_BYTES] -= size
    tx = size * 8.0 / g[GlobalFloat.CAPACITY_BPS]
    account_departure(sp, t, tx, size, g[GlobalFloat.SERVICE_ARRIVAL_S], f)
    if gi[GlobalInt.TRACE] != 0:
        record(sp, t, f, size, 0)
    if f < gi[GlobalInt.FLOWS]:
        rtt = s.ff[f * FLOW_FLOATS + FlowFloat.RTT_S]
        epoch = gi[GlobalInt.SERVICE_EPOCH]
        push_packet(sp, t + 0.5 * rtt, Event.DELIVER, f, epoch, gi[GlobalInt.SERVICE_SEQ])
    gi[GlobalInt.IN_SERVICE] = 0
