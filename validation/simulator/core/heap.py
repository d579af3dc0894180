"""The event heap and the per-flow event lists; the stream of uniform random numbers.

The heap is three arrays (time, key = kind << KEY_SHIFT | sequence number, payload) ordered by
time, then key: at equal times events run in the order of their kinds, then in the order they
were scheduled, as in the reference's heap.

A flow's packet arrivals at the bottleneck, and its deliveries to the receiver, are scheduled
in non-decreasing time order (the access link and the FIFO keep a flow's packets in order, and
the propagation delay is constant), so only the earliest of each flow's arrivals and the
earliest of its deliveries are in the heap; the others wait in that flow's list (nodes in
``nt``/``nx``) and enter the heap when their predecessor leaves it, with the time and key they
were scheduled with. Events therefore run in exactly the order of the reference's heap, and the
heap holds about two entries per flow instead of every packet in flight. Likewise a flow has at
most one delayed-ACK timer in the heap (``push_delack``).

Retransmission timers wait in a heap of their own (``rt``/``rk``/``rp``, ``push_rto``) with
the keys they would have had in the event heap; the loop runs whichever root comes first
(``next_in_timers``), so events keep the reference's order. A flow's timer lies an RTO ahead
(200 ms or more), under every packet event: in the event heap it added a level to the sifts
that a paced sender's events, one pacing gap ahead, run through (about 120 entries instead of
80 with 40 flows; BBR on Fig. 3.1 1.03x, one-BDP Reno 1.02x: benchmarks/simulator_speed.py).
"""

from __future__ import annotations

import numpy as np

from validation.simulator.core.jit import jit
from validation.simulator.layout import (
    ARG_MASK,
    EPOCH_SHIFT,
    FLOW_INTS,
    FLOW_SHIFT,
    KEY_SHIFT,
    Event,
    EventList,
    FlowDue,
    FlowInt,
    GlobalInt,
    NodeField,
)

NODE = len(NodeField)
DUE = len(FlowDue)
LIST = len(EventList)
assert FlowInt.ARRIVAL_LIST == FlowInt.DELIVER_LIST + LIST * (Event.ARRIVAL - Event.DELIVER)


@jit
def _sift(ht, hk, hp, n, t, key, payload):
    """Put (t, key, payload) at the root of the heap (ht, hk, hp) of n entries and sift it
    down."""
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n:
            ta = ht[c]
            tb = ht[c + 1]
            # The earlier child. Which one it is no branch predictor can guess, so it is
            # chosen by arithmetic on the times; equal times are rare, and that branch is
            # predicted (with a branch on the times, BBR on Fig. 3.1 ran at 0.87 of this and
            # unpaced Reno at 0.93: benchmarks/simulator_speed.py).
            if tb == ta:
                c += hk[c + 1] < hk[c]
            else:
                c += tb < ta
        tc = ht[c]
        if t < tc or (t == tc and key < hk[c]):
            break
        ht[i] = tc
        hk[i] = hk[c]
        hp[i] = hp[c]
        i = c
    ht[i] = t
    hk[i] = key
    hp[i] = payload


@jit
def _sift_up(ht, hk, hp, n, t, key, payload):
    """Insert (t, key, payload) into the heap (ht, hk, hp) of n entries."""
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if ht[parent] < t or (ht[parent] == t and hk[parent] < key):
            break
        ht[i] = ht[parent]
        hk[i] = hk[parent]
        hp[i] = hp[parent]
        i = parent
    ht[i] = t
    hk[i] = key
    hp[i] = payload


@jit
def _sift_down(sp, n, t, key, payload):
    """Put (t, key, payload) at the root of the event heap of n entries and sift it down."""
    s = sp[0]
    _sift(s.ht, s.hk, s.hp, n, t, key, payload)


@jit
def _heap_insert(sp, t, key, payload):
    s = sp[0]
    if s.gi[GlobalInt.ROOT_TAKEN] != 0:  # the new event takes the place of the one being run
        s.gi[GlobalInt.ROOT_TAKEN] = 0
        _sift_down(sp, s.gi[GlobalInt.HEAP_ENTRIES], t, key, payload)
        return
    n = s.gi[GlobalInt.HEAP_ENTRIES]
    _sift_up(s.ht, s.hk, s.hp, n, t, key, payload)
    s.gi[GlobalInt.HEAP_ENTRIES] = n + 1


@jit
def _key(sp, kind):
    s = sp[0]
    key = (np.int64(kind) << KEY_SHIFT) | s.gi[GlobalInt.SEQUENCE]
    s.gi[GlobalInt.SEQUENCE] += 1
    return key


@jit
def _payload(flow, epoch, arg):
    return (
        ((np.int64(flow) + 1) << FLOW_SHIFT)
        | (np.int64(epoch) << EPOCH_SHIFT)
        | (np.int64(arg) & ARG_MASK)
    )


@jit
def heap_push(sp, t, kind, flow, epoch, arg):
    """Schedule an event that is not a packet arrival or delivery."""
    _heap_insert(sp, t, _key(sp, kind), _payload(flow, epoch, arg))


@jit
def push_rto(sp, t, flow):
    """Schedule an RTO event of ``flow`` at t, in the timers' heap (``rt``/``rk``/``rp``) with
    the key it would have had in the event heap; ``next_in_timers`` says which heap's root
    runs first."""
    s = sp[0]
    key = _key(sp, Event.RTO)
    n = s.gi[GlobalInt.RTO_ENTRIES]
    _sift_up(s.rt, s.rk, s.rp, n, t, key, _payload(flow, 0, 0))
    s.gi[GlobalInt.RTO_ENTRIES] = n + 1


@jit
def next_in_timers(sp):
    """Whether the next event is the timers' heap's root (else the event heap's; one of the
    two holds an entry)."""
    s = sp[0]
    if s.gi[GlobalInt.RTO_ENTRIES] == 0:
        return False
    if s.gi[GlobalInt.HEAP_ENTRIES] == 0:
        return True
    return s.rt[0] < s.ht[0] or (s.rt[0] == s.ht[0] and s.rk[0] < s.hk[0])


@jit
def take_timer(sp):
    """Remove the timers' heap's root (the caller has read it) to run it."""
    s = sp[0]
    n = s.gi[GlobalInt.RTO_ENTRIES] - 1
    s.gi[GlobalInt.RTO_ENTRIES] = n
    if n > 0:
        _sift(s.rt, s.rk, s.rp, n, s.rt[n], s.rk[n], s.rp[n])


@jit
def push_delack(sp, t, flow, gen):
    """Start the delayed-ACK timer of ``flow`` (generation ``gen``) to expire at t.

    The reference schedules a DELACK event for every timer started; most are stale when they
    run (the ACK went out with the next segment) and do nothing. Here a flow has at most one
    DELACK event in the heap: a timer started while an earlier one is still there only takes
    its key (the one the reference's event would have had) and waits in ``fd``/``fi``; when
    the earlier event runs stale, ``delack_fired`` puts the current timer in the heap with its
    own time and key. A flow's timers expire in the order they were started (a fixed timeout
    a flow), so the current timer is never due before the earlier event: events run in the
    reference's order, and the heap does not hold a stale timer for every pair of segments.
    """
    s = sp[0]
    b = flow * FLOW_INTS
    key = _key(sp, Event.DELACK)
    s.fi[b + FlowInt.DELACK_KEY] = key
    if s.fi[b + FlowInt.DELACK_QUEUED] == 0:
        s.fi[b + FlowInt.DELACK_QUEUED] = 1
        _heap_insert(sp, t, key, _payload(flow, 0, gen))


@jit
def delack_fired(sp, flow, gen):
    """The flow's DELACK event of generation ``gen`` (the payload's argument) was popped:
    True if it is the current timer; if it is stale and a timer of the current generation
    was started since (``DELACK_COUNT`` > 0), that timer enters the heap (``push_delack``)."""
    s = sp[0]
    b = flow * FLOW_INTS
    s.fi[b + FlowInt.DELACK_QUEUED] = 0
    current = s.fi[b + FlowInt.DELACK_GEN]
    if gen == (current & ARG_MASK):
        return True
    if s.fi[b + FlowInt.DELACK_COUNT] > 0:
        s.fi[b + FlowInt.DELACK_QUEUED] = 1
        due = s.fd[flow * DUE + FlowDue.DELACK_S]
        _heap_insert(sp, due, s.fi[b + FlowInt.DELACK_KEY], _payload(flow, 0, current))
    return False


@jit
def _list_base(flow, kind):
    """Index in fi of the flow's list of ``kind`` (Event.DELIVER or Event.ARRIVAL)."""
    return flow * FLOW_INTS + FlowInt.DELIVER_LIST + LIST * (kind - Event.DELIVER)


@jit
def push_packet(sp, t, kind, flow, epoch, arg):
    """Schedule a packet arrival (Event.ARRIVAL) or delivery (Event.DELIVER) of a TCP flow.

    The event enters the heap if the flow has no event of this kind scheduled; otherwise it
    waits at the end of the flow's list (its time is not below the list's last one).
    """
    s = sp[0]
    fi, nx, gi = s.fi, s.nx, s.gi
    key = _key(sp, kind)
    payload = _payload(flow, epoch, arg)
    b = _list_base(flow, kind)
    if fi[b + EventList.COUNT] == 0:
        _heap_insert(sp, t, key, payload)
        if kind == Event.DELIVER:
            s.fd[flow * DUE + FlowDue.DELIVER_S] = t
    else:
        node = gi[GlobalInt.FREE_NODE]
        gi[GlobalInt.FREE_NODE] = nx[NODE * node + NodeField.NEXT]
        gi[GlobalInt.FREE_NODES] -= 1
        s.nt[node] = t
        nx[NODE * node + NodeField.KEY] = key
        nx[NODE * node + NodeField.PAYLOAD] = payload
        nx[NODE * node + NodeField.NEXT] = -1
        if fi[b + EventList.HEAD] < 0:
            fi[b + EventList.HEAD] = node
        else:
            nx[NODE * fi[b + EventList.TAIL] + NodeField.NEXT] = node
        fi[b + EventList.TAIL] = node
    fi[b + EventList.COUNT] += 1


@jit
def heap_take(sp):
    """Take the root (the caller has read it) to run it: its flow's next packet event
    replaces it; else it stays, marked ROOT_TAKEN, until the first event the run schedules
    replaces it (one sift from the root instead of a pop's and an insertion's) or
    ``heap_settle`` removes it after the run. Events still leave in the same order: the
    heap holds the same entries at every ``heap_take``, and (time, key) orders them
    strictly (every key holds a new sequence number)."""
    s = sp[0]
    fi, nx, gi = s.fi, s.nx, s.gi
    kind = s.hk[0] >> KEY_SHIFT
    if kind == Event.ARRIVAL or kind == Event.DELIVER:
        flow = (s.hp[0] >> FLOW_SHIFT) - 1
        b = _list_base(flow, kind)
        fi[b + EventList.COUNT] -= 1
        node = fi[b + EventList.HEAD]
        if node >= 0:
            fi[b + EventList.HEAD] = nx[NODE * node + NodeField.NEXT]
            if kind == Event.DELIVER:
                s.fd[flow * DUE + FlowDue.DELIVER_S] = s.nt[node]
            _sift_down(
                sp,
                gi[GlobalInt.HEAP_ENTRIES],
                s.nt[node],
                nx[NODE * node + NodeField.KEY],
                nx[NODE * node + NodeField.PAYLOAD],
            )
            nx[NODE * node + NodeField.NEXT] = gi[GlobalInt.FREE_NODE]
            gi[GlobalInt.FREE_NODE] = node
            gi[GlobalInt.FREE_NODES] += 1
            return
    gi[GlobalInt.ROOT_TAKEN] = 1


@jit
def heap_settle(sp):
    """After an event has run: remove its root if no event it scheduled has replaced it."""
    s = sp[0]
    gi = s.gi
    if gi[GlobalInt.ROOT_TAKEN] == 0:
        return
    gi[GlobalInt.ROOT_TAKEN] = 0
    n = gi[GlobalInt.HEAP_ENTRIES] - 1
    gi[GlobalInt.HEAP_ENTRIES] = n
    if n > 0:
        _sift_down(sp, n, s.ht[n], s.hk[n], s.hp[n])


@jit
def uniform(sp):
    """The next uniform in [0, 1) of the run's stream."""
    s = sp[0]
    u = s.rand[s.gi[GlobalInt.RANDOM_POSITION]]
    s.gi[GlobalInt.RANDOM_POSITION] += 1
    return u


@jit
def exponential(sp, mean):
    """An exponential variate of the given mean (inversion of the next uniform)."""
    return -np.log(1.0 - uniform(sp)) * mean
