"""A packet reaches the bottleneck port: count it and hand it to the FIFO (with CoDel or DualQ,
which decide at dequeue: the FIFO of ``dequeue_fifo.py``) or fair queueing; and how long a
packet arriving now would wait there (``queue_wait_s``, BBR's first RTprop)."""

from __future__ import annotations

from validation.simulator.core.counters import COUNTS, account_occupancy
from validation.simulator.core.dequeue_fifo import dequeue_fifo_arrive
from validation.simulator.core.fair_queue import fq_arrive
from validation.simulator.core.fifo import fifo_arrive
from validation.simulator.core.heap import exponential
from validation.simulator.core.jit import jit
from validation.simulator.layout import EPOCH_BITS, Aqm, FlowCount, GlobalFloat, GlobalInt


@jit
def arrive(sp, t, f, epoch, seq, flags):
    """A packet of flow ``f`` (``FLOWS``: background or open loop) arrives at time t.

    ``flags`` are the packet's CE_FLAG and CWR_FLAG bits and its copy number (``layout.py``).
    """
    s = sp[0]
    g, gi = s.g, s.gi
    account_occupancy(sp, t)
    gi[GlobalInt.ARRIVALS_TOTAL] += 1
    if t >= g[GlobalFloat.WARMUP_S]:
        gi[GlobalInt.ARRIVALS] += 1
        s.fc[COUNTS * f + FlowCount.ARRIVALS] += 1.0
    size = g[GlobalFloat.WIRE_BYTES]
    if gi[GlobalInt.OPEN_EXPONENTIAL] != 0:
        size = exponential(sp, g[GlobalFloat.WIRE_BYTES])
    if gi[GlobalInt.FAIR_QUEUEING] != 0:
        fq_arrive(sp, t, f, epoch | (flags << EPOCH_BITS), seq, size)  # the tag DELIVER carries
    elif gi[GlobalInt.AQM] == Aqm.CODEL or gi[GlobalInt.AQM] == Aqm.DUALQ:
        dequeue_fifo_arrive(sp, t, f, epoch, seq, size, flags)
    else:
        fifo_arrive(sp, t, f, epoch, seq, size, flags)


@jit
def queue_wait_s(sp, t):
    """The wait a packet arriving at time t would have at the bottleneck before its
    transmission starts: until the last accepted packet's departure with the FIFO (and PIE),
    the bytes queued over the rate with CoDel or DualQ (drops they will make at dequeue not
    foreseen), none with fair queueing (a new flow's queue is served at once). ``bbr.py``
    adds it to a new transfer's first RTT: the SYN's wait."""
    s = sp[0]
    g, gi = s.g, s.gi
    if gi[GlobalInt.FAIR_QUEUEING] != 0:
        return 0.0
    if gi[GlobalInt.AQM] == Aqm.CODEL or gi[GlobalInt.AQM] == Aqm.DUALQ:
        return g[GlobalFloat.QUEUE_BYTES] * 8.0 / g[GlobalFloat.CAPACITY_BPS]
    return max(g[GlobalFloat.LAST_DEPARTURE_S] - t, 0.0)
