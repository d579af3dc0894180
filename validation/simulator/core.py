"""Compiled event loop of the simulator (numba): the model of ``reference.py`` on flat arrays.

The state lives in arrays that the Python driver (``engine.py``) allocates: per-flow floats
(``ff``, ``NF`` a row) and integers (``fi``, ``NI`` a row), one byte of SACK/retransmission/
out-of-order flags per flow and window slot (``rg``), global scalars (``g``, ``gi``), a binary
heap of events in three arrays (time, key = kind << 56 | sequence number, payload), the nodes
of the per-flow event lists, the bottleneck buffer and the counters. No Python object is
touched per event.

``run_chunk`` turns the arrays into raw data pointers and the helpers index them by hand
(row-major: ``ff[f * NF + F_CWND]``). Numba would otherwise pass each array to each helper as
a structure of 7-9 words and update its reference count atomically on every call, which cost
more than half of the run time. The arrays are owned by the driver and outlive the call.

Differences of structure (not of model) from the reference:

- the reference keeps every event in one heap. Here a flow's packet arrivals at the
  bottleneck, and its deliveries to the receiver, are scheduled in non-decreasing time order
  (the access link and the FIFO keep a flow's packets in order, and the propagation delay is
  constant), so only the earliest of each flow's arrivals and the earliest of its deliveries
  are in the heap; the others wait in that flow's list and enter the heap when their
  predecessor leaves it, with the time and key they were scheduled with. Events therefore run
  in exactly the order of the reference's heap (time, then kind, then sequence number), and
  the heap holds about two entries per flow instead of every packet in flight;
- in drop-tail FIFO mode a packet's departure time is known when it is accepted, so departures
  are not heap events; they are taken from a ring of accepted packets when the clock passes
  them (before any event at the same time, as the reference's departure events are). With fair
  queueing departures are events.

``run_chunk`` advances the clock to ``t_stop`` and returns a status; it also returns early when
it needs more random numbers, a larger heap or list pool, or room in the trace buffers, so that
the Python driver can refill them, report progress and cancel between chunks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from validation.simulator.parameters import (
    BURST_BINS,
    EPOCHS,
    INITIAL_SSTHRESH,
    K_ARRIVAL,
    K_DELACK,
    K_DELIVER,
    K_DEPART,
    K_FLOW,
    K_OPEN,
    K_PACE,
    K_RTO,
    K_SAMPLE,
    MAX_RTO_S,
)

#: Compilation options. Cached on disk. No bounds checks: the helpers index raw pointers, and
#: the sample path is checked against the reference implementation. Division by zero follows
#: numpy (inf/nan) instead of testing every division; no divisor here can be zero. No
#: fastmath: it would reorder floating-point arithmetic and break the exact agreement with the
#: reference implementation.
jit = njit(cache=True, boundscheck=False, error_model="numpy")


# run_chunk status codes
S_STOPPED = 0
S_NEED_RANDOM = 1
S_HEAP_FULL = 2
S_TRACE_FULL = 3
S_SAMPLES_FULL = 4
S_DONE = 5
S_NODES_FULL = 6

#: Free heap entries needed before an event (one event schedules at most a few there).
HEAP_MARGIN = 64

INF = np.inf

# per-flow floats
F_RTT = 0
F_CWND = 1
F_SSTHRESH = 2
F_SRTT = 3
F_RTTVAR = 4
F_RTO = 5
F_RTT_TIME = 6
F_RTO_EXPIRY = 7
F_RTO_EVENT = 8
F_NEXT_SEND = 9
F_ACCESS_FREE = 10
NF = 11

# per-flow integers: TCP state (reset when a transfer starts) ...
I_ACTIVE = 0
I_EPOCH = 1
I_SIZE = 2
I_SND_UNA = 3
I_SND_NXT = 4
I_HIGH_TX = 5
I_DUPACKS = 6
I_RECOVERY = 7
I_RECOVER = 8
I_RTO_RECOVER = 9
I_LOST_LIMIT = 10
I_HIGH_SACKED = 11
I_REXMIT_PTR = 12
I_RTT_SEQ = 13
I_PACE_PENDING = 14
I_RCV_NXT = 15
I_DELACK_COUNT = 16
I_DELACK_GEN = 17
I_OOO = 18
NI_TCP = 19
# ... and the flow's two event lists (deliveries, then arrivals): first waiting node, last
# waiting node (-1: none), events scheduled (the one in the heap included)
I_LISTS = 19
L_HEAD = 0
L_TAIL = 1
L_COUNT = 2
NI = 25

# flags of a window slot in rg
R_SACKED = 1
R_REXMIT = 2
R_OOO = 4

# global floats: parameters
G_C = 0
G_WARM = 1
G_END = 2
G_ACC_TX = 3
G_WIRE_BYTES = 4
G_LIMIT_BYTES = 5
G_OPEN_RATE = 6
G_DELACK_TO = 7
G_MIN_RTO = 8
G_INIT_RTO = 9
G_INTERVAL = 10
G_SAMPLE_INT = 11
G_DELAY_BIN = 12
G_FLOW_RATE = 13
G_FLOW_MEAN = 14
G_PARETO = 15
G_INIT_CWND = 16
# global floats: state
G_LAST_CHANGE = 20
G_QBYTES = 21
G_LAST_DEP = 22
G_BUSY = 23
G_DSUM = 24
G_DSUMSQ = 25
G_SVC_SIZE = 26
G_SVC_ARR = 27
G_SVC_DEP = 28
NG = 32

# global integers: parameters
GI_N = 0
GI_B = 1
GI_WMAX = 2
GI_WMASK = 3
GI_SACK = 4
GI_DACK = 5
GI_PACING = 6
GI_TRAFFIC = 7
GI_SIZEDIST = 8
GI_OPEN_PERIODIC = 9
GI_OPEN_EXP = 10
GI_FQ = 11
GI_BYTEMODE = 12
GI_TRACE = 13
GI_TRACED = 14
GI_OCC_BINS = 15
GI_DELAY_BINS = 16
GI_INTERVALS = 17
GI_QMASK = 18
GI_FQMASK = 19
# global integers: state
GI_SEQ = 30
GI_HN = 31
GI_RPOS = 32
GI_QHEAD = 33
GI_QCOUNT = 34
GI_DROPRUN = 35
GI_ARR = 36
GI_DROPS = 37
GI_ARR_TOTAL = 38
GI_TIMEOUTS = 39
GI_DCOUNT = 40
GI_SENT = 41
GI_DELIVERED = 42
GI_DROPPED_TCP = 43
GI_COMPLETED = 44
GI_BLOCKED = 45
GI_TRN = 46
GI_SN = 47
GI_SVC = 48  # FQ: 1 while a packet is in transmission
GI_SVC_FLOW = 49
GI_SVC_EPOCH = 50
GI_SVC_SEQ = 51
GI_ACT_HEAD = 52
GI_ACT_COUNT = 53
GI_IN_FLIGHT = 54
GI_FREE = 55  # first free node of the event lists (-1: none)
GI_NFREE = 56  # free nodes
NGI = 64

SEQ_MASK = (1 << 32) - 1
KEY_SHIFT = 56
# fields of a packet in the FIFO ring qf (QF a packet)
Q_DEP = 0
Q_TX = 1
Q_ARR = 2
Q_FLOW = 3
Q_SIZE = 4
QF = 5
# fields of a list node in nx (3 a node; its time is in nt)
N_KEY = 0
N_PAYLOAD = 1
N_NEXT = 2


def _data_pointer(typingctx, arr):  # type: ignore[no-untyped-def]
    """The data pointer of a C-contiguous array; the caller keeps the array alive."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        raise TypingError("_ptr needs a C-contiguous array")
    sig = types.CPointer(arr.dtype)(arr)  # type: ignore[no-untyped-call]

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return sig, codegen


_ptr: Any = intrinsic(_data_pointer)


# ------------------------------------------------------------------------------------ heap
@jit
def _sift_down(ht, hk, hp, n, t, key, payload):  # type: ignore[no-untyped-def]
    """Put (t, key, payload) at the root of the heap of n entries and sift it down."""
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and (ht[c + 1] < ht[c] or (ht[c + 1] == ht[c] and hk[c + 1] < hk[c])):
            c += 1
        if t < ht[c] or (t == ht[c] and key < hk[c]):
            break
        ht[i] = ht[c]
        hk[i] = hk[c]
        hp[i] = hp[c]
        i = c
    ht[i] = t
    hk[i] = key
    hp[i] = payload


@jit
def _heap_insert(ht, hk, hp, gi, t, key, payload):  # type: ignore[no-untyped-def]
    n = gi[GI_HN]
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
    gi[GI_HN] = n + 1


@jit
def _key(gi, kind):  # type: ignore[no-untyped-def]
    key = (np.int64(kind) << KEY_SHIFT) | gi[GI_SEQ]
    gi[GI_SEQ] += 1
    return key


@jit
def _payload(flow, epoch, arg):  # type: ignore[no-untyped-def]
    return ((np.int64(flow) + 1) << 40) | (np.int64(epoch) << 32) | (np.int64(arg) & SEQ_MASK)


@jit
def heap_push(ht, hk, hp, gi, t, kind, flow, epoch, arg):  # type: ignore[no-untyped-def]
    """Schedule an event that is not a packet arrival or delivery."""
    _heap_insert(ht, hk, hp, gi, t, _key(gi, kind), _payload(flow, epoch, arg))


@jit
def push_packet(ht, hk, hp, fi, nt, nx, gi, t, kind, flow, epoch, arg):  # type: ignore[no-untyped-def]
    """Schedule a packet arrival (K_ARRIVAL) or delivery (K_DELIVER) of a TCP flow.

    The event enters the heap if the flow has no event of this kind scheduled; otherwise it
    waits at the end of the flow's list (its time is not below the list's last one).
    """
    key = _key(gi, kind)
    payload = _payload(flow, epoch, arg)
    b = flow * NI + I_LISTS + 3 * (kind - K_DELIVER)
    if fi[b + L_COUNT] == 0:
        _heap_insert(ht, hk, hp, gi, t, key, payload)
    else:
        node = gi[GI_FREE]
        gi[GI_FREE] = nx[3 * node + N_NEXT]
        gi[GI_NFREE] -= 1
        nt[node] = t
        nx[3 * node + N_KEY] = key
        nx[3 * node + N_PAYLOAD] = payload
        nx[3 * node + N_NEXT] = -1
        if fi[b + L_HEAD] < 0:
            fi[b + L_HEAD] = node
        else:
            nx[3 * fi[b + L_TAIL] + N_NEXT] = node
        fi[b + L_TAIL] = node
    fi[b + L_COUNT] += 1


@jit
def heap_pop(ht, hk, hp, fi, nt, nx, gi):  # type: ignore[no-untyped-def]
    """Remove the root (the caller has read it); its flow's next packet event replaces it."""
    kind = hk[0] >> KEY_SHIFT
    if kind == K_ARRIVAL or kind == K_DELIVER:
        b = ((hp[0] >> 40) - 1) * NI + I_LISTS + 3 * (kind - K_DELIVER)
        fi[b + L_COUNT] -= 1
        node = fi[b + L_HEAD]
        if node >= 0:
            fi[b + L_HEAD] = nx[3 * node + N_NEXT]
            _sift_down(
                ht, hk, hp, gi[GI_HN], nt[node], nx[3 * node + N_KEY], nx[3 * node + N_PAYLOAD]
            )
            nx[3 * node + N_NEXT] = gi[GI_FREE]
            gi[GI_FREE] = node
            gi[GI_NFREE] += 1
            return
    n = gi[GI_HN] - 1
    gi[GI_HN] = n
    if n > 0:
        _sift_down(ht, hk, hp, n, ht[n], hk[n], hp[n])


# ------------------------------------------------------------------------------ randomness
@jit
def _uniform(rand, gi):  # type: ignore[no-untyped-def]
    u = rand[gi[GI_RPOS]]
    gi[GI_RPOS] += 1
    return u


@jit
def _exp(rand, gi, mean):  # type: ignore[no-untyped-def]
    return -np.log(1.0 - _uniform(rand, gi)) * mean


# ------------------------------------------------------------------------------ bottleneck
@jit
def _account_occupancy(g, gi, occ, t):  # type: ignore[no-untyped-def]
    lo = max(g[G_LAST_CHANGE], g[G_WARM])
    hi = min(t, g[G_END])
    if hi > lo:
        k = min(gi[GI_QCOUNT], gi[GI_OCC_BINS] - 1)
        occ[k] += hi - lo
    g[G_LAST_CHANGE] = t


@jit
def _account_departure(g, gi, dhist, ibits, t, tx, size, t_arr):  # type: ignore[no-untyped-def]
    warm = g[G_WARM]
    lo = max(t - tx, warm)
    hi = min(t, g[G_END])
    if hi > lo:
        g[G_BUSY] += hi - lo
    if warm <= t < g[G_END]:
        k = min(int((t - warm) / g[G_INTERVAL]), gi[GI_INTERVALS] - 1)
        ibits[k] += size * 8.0
    if t_arr >= warm:
        wait = t - tx - t_arr
        gi[GI_DCOUNT] += 1
        g[G_DSUM] += wait
        g[G_DSUMSQ] += wait * wait
        dhist[min(int(wait / g[G_DELAY_BIN] + 1e-6), gi[GI_DELAY_BINS] - 1)] += 1.0


@jit
def _record(trt, tri, gi, t, flow, size, dropped):  # type: ignore[no-untyped-def]
    k = gi[GI_TRN]
    trt[k] = t
    tri[3 * k] = flow
    tri[3 * k + 1] = np.int64(np.round(size))
    tri[3 * k + 2] = dropped
    gi[GI_TRN] = k + 1


@jit
def fifo_advance(g, gi, qf, occ, dhist, ibits, trt, tri, t):  # type: ignore[no-untyped-def]
    """Take from the FIFO every packet whose departure time is <= t."""
    qmask = gi[GI_QMASK]
    while gi[GI_QCOUNT] > 0:
        h = gi[GI_QHEAD]
        q = QF * h
        dep = qf[q + Q_DEP]
        if dep > t:
            break
        _account_occupancy(g, gi, occ, dep)
        gi[GI_QCOUNT] -= 1
        size = qf[q + Q_SIZE]
        g[G_QBYTES] -= size
        _account_departure(g, gi, dhist, ibits, dep, qf[q + Q_TX], size, qf[q + Q_ARR])
        if gi[GI_TRACE] != 0:
            _record(trt, tri, gi, dep, np.int64(qf[q + Q_FLOW]), size, 0)
        gi[GI_QHEAD] = (h + 1) & qmask


@jit
def _accepted(g, gi, bhist, t):  # type: ignore[no-untyped-def]
    run = gi[GI_DROPRUN]
    if run > 0:
        if t >= g[G_WARM]:
            bhist[min(run, BURST_BINS) - 1] += 1
        gi[GI_DROPRUN] = 0


@jit
def _drop(g, gi, trt, tri, t, flow, size):  # type: ignore[no-untyped-def]
    if t >= g[G_WARM]:
        gi[GI_DROPS] += 1
    if flow < gi[GI_N]:
        gi[GI_DROPPED_TCP] += 1
    gi[GI_DROPRUN] += 1
    if gi[GI_TRACE] != 0:
        _record(trt, tri, gi, t, flow, size, 1)


# ------------------------------------------------------------------------------- fair queue
# fqq[(flow * slots + slot) * 4 + k]: k = 0 epoch, 1 seq, 2 size, 3 arrival time (a ring of
# slots = GI_FQMASK + 1 per flow); fqi[3 * flow + k]: k = 0 ring head, 1 packets,
# 2 visited this round; fqf[2 * flow + k]: k = 0 bytes queued, 1 deficit; fqa: a ring of the
# n + 1 flows with packets (DRR active list).
@jit
def _fq_next(g, gi, fqq, fqi, fqf, fqa):  # type: ignore[no-untyped-def]
    """DRR: choose the next packet; returns its flow or -1 (fields left in G/GI service)."""
    quantum = g[G_WIRE_BYTES]
    fqmask = gi[GI_FQMASK]
    slots = fqmask + 1
    m = gi[GI_N] + 1
    while gi[GI_ACT_COUNT] > 0:
        ah = gi[GI_ACT_HEAD]
        f = fqa[ah]
        if fqi[3 * f + 2] == 0:
            fqf[2 * f + 1] += quantum
            fqi[3 * f + 2] = 1
        h = fqi[3 * f]
        p = (f * slots + h) * 4
        if fqq[p + 2] <= fqf[2 * f + 1]:
            size = fqq[p + 2]
            gi[GI_SVC_EPOCH] = np.int64(fqq[p])
            gi[GI_SVC_SEQ] = np.int64(fqq[p + 1])
            g[G_SVC_SIZE] = size
            g[G_SVC_ARR] = fqq[p + 3]
            fqi[3 * f] = (h + 1) & fqmask
            fqi[3 * f + 1] -= 1
            fqf[2 * f] -= size
            fqf[2 * f + 1] -= size
            if fqi[3 * f + 1] == 0:
                fqf[2 * f + 1] = 0.0
                fqi[3 * f + 2] = 0
                gi[GI_ACT_HEAD] = (ah + 1) % m
                gi[GI_ACT_COUNT] -= 1
            elif fqq[(f * slots + fqi[3 * f]) * 4 + 2] > fqf[2 * f + 1]:
                fqi[3 * f + 2] = 0
                gi[GI_ACT_HEAD] = (ah + 1) % m
                fqa[(ah + gi[GI_ACT_COUNT]) % m] = f
            return f
        fqi[3 * f + 2] = 0
        gi[GI_ACT_HEAD] = (ah + 1) % m
        fqa[(ah + gi[GI_ACT_COUNT]) % m] = f
    return -1


@jit
def _fq_start(g, gi, fqq, fqi, fqf, fqa, ht, hk, hp, t):  # type: ignore[no-untyped-def]
    f = _fq_next(g, gi, fqq, fqi, fqf, fqa)
    if f >= 0:
        gi[GI_SVC] = 1
        gi[GI_SVC_FLOW] = f
        dep = t + g[G_SVC_SIZE] * 8.0 / g[G_C]
        g[G_SVC_DEP] = dep
        heap_push(ht, hk, hp, gi, dep, K_DEPART, f, 0, 0)


@jit
def _fq_remove_active(gi, fqa, victim):  # type: ignore[no-untyped-def]
    m = gi[GI_N] + 1
    head = gi[GI_ACT_HEAD]
    count = gi[GI_ACT_COUNT]
    pos = -1
    for k in range(count):
        if fqa[(head + k) % m] == victim:
            pos = k
            break
    for k in range(pos, count - 1):
        fqa[(head + k) % m] = fqa[(head + k + 1) % m]
    gi[GI_ACT_COUNT] = count - 1


# ------------------------------------------------------------------------------ TCP sender
@jit
def _arm_rto(ff, ht, hk, hp, gi, t, f):  # type: ignore[no-untyped-def]
    a = f * NF
    expiry = t + ff[a + F_RTO]
    ff[a + F_RTO_EXPIRY] = expiry
    if expiry < ff[a + F_RTO_EVENT]:
        ff[a + F_RTO_EVENT] = expiry
        heap_push(ht, hk, hp, gi, expiry, K_RTO, f, 0, 0)


@jit
def _transmit(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f, seg):  # type: ignore[no-untyped-def]
    a = f * NF
    b = f * NI
    wmask = gi[GI_WMASK]
    if seg < fi[b + I_HIGH_TX]:
        j = f * (wmask + 1) + (seg & wmask)
        rg[j] = rg[j] | R_REXMIT
        fi[b + I_RTT_SEQ] = -1
    else:
        fi[b + I_HIGH_TX] = seg + 1
        if fi[b + I_RTT_SEQ] < 0:
            fi[b + I_RTT_SEQ] = seg
            ff[a + F_RTT_TIME] = t
    if seg == fi[b + I_SND_NXT]:
        fi[b + I_SND_NXT] += 1
    gi[GI_SENT] += 1
    free = max(t, ff[a + F_ACCESS_FREE]) + g[G_ACC_TX]
    ff[a + F_ACCESS_FREE] = free
    push_packet(
        ht, hk, hp, fi, nt, nx, gi, free + 0.5 * ff[a + F_RTT], K_ARRIVAL, f,
        fi[b + I_EPOCH], seg,
    )  # fmt: skip
    if ff[a + F_RTO_EXPIRY] == INF:
        _arm_rto(ff, ht, hk, hp, gi, t, f)
    if gi[GI_PACING] != 0:
        srtt = ff[a + F_SRTT] if ff[a + F_SRTT] > 0 else ff[a + F_RTT]
        ff[a + F_NEXT_SEND] = t + srtt / min(ff[a + F_CWND], float(gi[GI_WMAX]))


@jit
def _pipe(fi, rg, gi, f):  # type: ignore[no-untyped-def]
    b = f * NI
    wmask = gi[GI_WMASK]
    row = f * (wmask + 1)
    count = 0
    lost_limit = fi[b + I_LOST_LIMIT]
    for s in range(fi[b + I_SND_UNA], fi[b + I_HIGH_TX]):
        flags = rg[row + (s & wmask)]
        if flags & R_SACKED:
            continue
        if s >= lost_limit:
            count += 1
        if flags & R_REXMIT:
            count += 1
    return count


@jit
def _next_hole(fi, rg, gi, f):  # type: ignore[no-untyped-def]
    b = f * NI
    wmask = gi[GI_WMASK]
    row = f * (wmask + 1)
    s = max(fi[b + I_REXMIT_PTR], fi[b + I_SND_UNA])
    lost_limit = fi[b + I_LOST_LIMIT]
    while s < lost_limit and (rg[row + (s & wmask)] & (R_SACKED | R_REXMIT)) != 0:
        s += 1
    fi[b + I_REXMIT_PTR] = s
    return s if s < lost_limit else -1


@jit
def try_send(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f):  # type: ignore[no-untyped-def]
    a = f * NF
    b = f * NI
    wmax = gi[GI_WMAX]
    while fi[b + I_ACTIVE] != 0:
        seg = -1
        una = fi[b + I_SND_UNA]
        nxt = fi[b + I_SND_NXT]
        if gi[GI_SACK] != 0 and fi[b + I_RECOVERY] > 0:
            if _pipe(fi, rg, gi, f) >= ff[a + F_CWND]:
                return
            seg = _next_hole(fi, rg, gi, f)
            if seg < 0 and nxt - una < wmax:
                seg = nxt
        elif nxt - una < min(ff[a + F_CWND], float(wmax)):
            seg = nxt
        size = fi[b + I_SIZE]
        if seg < 0 or (size >= 0 and seg >= size):
            return
        if gi[GI_PACING] != 0 and t < ff[a + F_NEXT_SEND]:
            if fi[b + I_PACE_PENDING] == 0:
                fi[b + I_PACE_PENDING] = 1
                heap_push(ht, hk, hp, gi, ff[a + F_NEXT_SEND], K_PACE, f, 0, 0)
            return
        _transmit(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f, seg)


@jit
def _draw_size(g, gi, rand):  # type: ignore[no-untyped-def]
    if gi[GI_TRAFFIC] == 0:
        return np.int64(-1)
    mean = g[G_FLOW_MEAN]
    dist = gi[GI_SIZEDIST]
    if dist == 0:
        return np.int64(max(np.round(mean), 1.0))
    u = _uniform(rand, gi)
    if dist == 1:
        return np.int64(1 + int(u * (2.0 * mean - 1.0)))
    shape = g[G_PARETO]
    scale = mean * (shape - 1.0) / shape
    return np.int64(max(np.ceil(scale * (1.0 - u) ** (-1.0 / shape)), 1.0))


@jit
def start_flow(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f):  # type: ignore[no-untyped-def]
    a = f * NF
    b = f * NI
    epoch = (fi[b + I_EPOCH] + 1) % EPOCHS
    delack_gen = fi[b + I_DELACK_GEN] + 1
    pace_pending = fi[b + I_PACE_PENDING]
    for k in range(NI_TCP):  # the event lists stay: packets of the last transfer may be out
        fi[b + k] = 0
    fi[b + I_EPOCH] = epoch
    fi[b + I_DELACK_GEN] = delack_gen
    fi[b + I_PACE_PENDING] = pace_pending
    fi[b + I_RECOVER] = -1
    fi[b + I_RTO_RECOVER] = -1
    fi[b + I_RTT_SEQ] = -1
    fi[b + I_ACTIVE] = 1
    fi[b + I_SIZE] = _draw_size(g, gi, rand)
    slots = gi[GI_WMASK] + 1
    for j in range(f * slots, (f + 1) * slots):
        rg[j] = 0
    ff[a + F_CWND] = g[G_INIT_CWND]
    ff[a + F_SSTHRESH] = INITIAL_SSTHRESH
    ff[a + F_SRTT] = 0.0
    ff[a + F_RTTVAR] = 0.0
    ff[a + F_RTO] = g[G_INIT_RTO]
    ff[a + F_RTT_TIME] = 0.0
    ff[a + F_RTO_EXPIRY] = INF
    ff[a + F_NEXT_SEND] = t
    try_send(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f)


@jit
def _rto_fire(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f):  # type: ignore[no-untyped-def]
    a = f * NF
    b = f * NI
    if t != ff[a + F_RTO_EVENT]:
        return
    ff[a + F_RTO_EVENT] = INF
    expiry = ff[a + F_RTO_EXPIRY]
    if expiry == INF:
        return
    if t < expiry:
        ff[a + F_RTO_EVENT] = expiry
        heap_push(ht, hk, hp, gi, expiry, K_RTO, f, 0, 0)
        return
    ff[a + F_RTO_EXPIRY] = INF
    una = fi[b + I_SND_UNA]
    high = fi[b + I_HIGH_TX]
    if fi[b + I_ACTIVE] == 0 or una >= high:
        return
    if t >= g[G_WARM]:
        gi[GI_TIMEOUTS] += 1
    ff[a + F_SSTHRESH] = max((high - una) / 2.0, 2.0)
    ff[a + F_CWND] = 1.0
    ff[a + F_RTO] = min(2.0 * ff[a + F_RTO], MAX_RTO_S)
    fi[b + I_DUPACKS] = 0
    fi[b + I_RTT_SEQ] = -1
    fi[b + I_RECOVER] = high - 1
    fi[b + I_RTO_RECOVER] = high - 1
    wmask = gi[GI_WMASK]
    row = f * (wmask + 1)
    for s in range(una, high):
        j = row + (s & wmask)
        rg[j] = rg[j] & ~R_REXMIT
    fi[b + I_REXMIT_PTR] = una
    if gi[GI_SACK] != 0:
        fi[b + I_RECOVERY] = 2
        fi[b + I_LOST_LIMIT] = high
    else:
        fi[b + I_RECOVERY] = 0
        fi[b + I_SND_NXT] = una
    ff[a + F_NEXT_SEND] = t
    try_send(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f)
    if ff[a + F_RTO_EXPIRY] == INF:
        _arm_rto(ff, ht, hk, hp, gi, t, f)


@jit
def _rtt_sample(ff, g, f, r):  # type: ignore[no-untyped-def]
    a = f * NF
    if ff[a + F_SRTT] == 0.0:
        ff[a + F_SRTT] = r
        ff[a + F_RTTVAR] = r / 2.0
    else:
        ff[a + F_RTTVAR] = 0.75 * ff[a + F_RTTVAR] + 0.25 * abs(ff[a + F_SRTT] - r)
        ff[a + F_SRTT] = 0.875 * ff[a + F_SRTT] + 0.125 * r
    ff[a + F_RTO] = min(max(g[G_MIN_RTO], ff[a + F_SRTT] + 4.0 * ff[a + F_RTTVAR]), MAX_RTO_S)


@jit
def on_ack(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f, cum, sack_seq):  # type: ignore[no-untyped-def]
    a = f * NF
    b = f * NI
    wmask = gi[GI_WMASK]
    row = f * (wmask + 1)
    sack = gi[GI_SACK] != 0
    if sack_seq >= cum:
        j = row + (sack_seq & wmask)
        rg[j] = rg[j] | R_SACKED
        if sack_seq + 1 > fi[b + I_HIGH_SACKED]:
            fi[b + I_HIGH_SACKED] = sack_seq + 1
    una = fi[b + I_SND_UNA]
    if cum > una:
        newly = cum - una
        for s in range(una, cum):
            j = row + (s & wmask)
            rg[j] = rg[j] & ~(R_SACKED | R_REXMIT)
        fi[b + I_SND_UNA] = cum
        if fi[b + I_SND_NXT] < cum:
            fi[b + I_SND_NXT] = cum
        fi[b + I_DUPACKS] = 0
        if fi[b + I_RTT_SEQ] >= 0 and cum > fi[b + I_RTT_SEQ]:
            _rtt_sample(ff, g, f, t - ff[a + F_RTT_TIME])
            fi[b + I_RTT_SEQ] = -1
        exited = False
        if fi[b + I_RECOVERY] > 0 and cum > fi[b + I_RECOVER]:
            if fi[b + I_RECOVERY] == 1:
                ff[a + F_CWND] = ff[a + F_SSTHRESH]
            fi[b + I_RECOVERY] = 0
            exited = True
        if fi[b + I_RECOVERY] == 1:
            if not sack:
                ff[a + F_CWND] = max(ff[a + F_CWND] - newly + 1.0, 1.0)
                _transmit(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f, cum)
        elif not exited:
            if ff[a + F_CWND] < ff[a + F_SSTHRESH]:  # at most one packet per ACK (RFC 5681)
                ff[a + F_CWND] += min(newly, 1)
            else:
                ff[a + F_CWND] += newly / ff[a + F_CWND]
        size = fi[b + I_SIZE]
        if size >= 0 and cum >= size:
            _complete(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f)
            return
        if cum < fi[b + I_HIGH_TX]:
            _arm_rto(ff, ht, hk, hp, gi, t, f)
        else:
            ff[a + F_RTO_EXPIRY] = INF
    elif cum == una and una < fi[b + I_HIGH_TX] and (sack_seq >= 0 or not sack):
        fi[b + I_DUPACKS] += 1
        if fi[b + I_RECOVERY] == 0 and fi[b + I_DUPACKS] == 3 and cum > fi[b + I_RTO_RECOVER]:
            ff[a + F_SSTHRESH] = max((fi[b + I_HIGH_TX] - una) / 2.0, 2.0)
            fi[b + I_RECOVER] = fi[b + I_HIGH_TX] - 1
            fi[b + I_RECOVERY] = 1
            fi[b + I_RTT_SEQ] = -1
            if sack:
                ff[a + F_CWND] = ff[a + F_SSTHRESH]
                fi[b + I_LOST_LIMIT] = fi[b + I_HIGH_SACKED]
                fi[b + I_REXMIT_PTR] = una
            else:
                ff[a + F_CWND] = ff[a + F_SSTHRESH] + 3.0
            # the first missing packet goes out at once, whatever the pipe (RFC 6675 step 4.3;
            # RFC 6582 step 2); later ones wait for pipe < cwnd with SACK
            _transmit(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f, una)
        elif fi[b + I_RECOVERY] == 1 and not sack:
            ff[a + F_CWND] += 1.0
    if sack and fi[b + I_RECOVERY] == 1 and fi[b + I_HIGH_SACKED] > fi[b + I_LOST_LIMIT]:
        fi[b + I_LOST_LIMIT] = fi[b + I_HIGH_SACKED]
    try_send(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f)


@jit
def _complete(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f):  # type: ignore[no-untyped-def]
    if t >= g[G_WARM]:
        gi[GI_COMPLETED] += 1
    fi[f * NI + I_ACTIVE] = 0
    ff[f * NF + F_RTO_EXPIRY] = INF
    if gi[GI_TRAFFIC] == 1:
        start_flow(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f)


# ---------------------------------------------------------------------------- receiver
@jit
def _send_ack(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f, sack_seq):  # type: ignore[no-untyped-def]
    b = f * NI
    fi[b + I_DELACK_COUNT] = 0
    fi[b + I_DELACK_GEN] += 1
    on_ack(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f, fi[b + I_RCV_NXT], sack_seq)


@jit
def deliver(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, deliv, t, f, epoch, seq):  # type: ignore[no-untyped-def]
    b = f * NI
    gi[GI_DELIVERED] += 1
    if epoch != fi[b + I_EPOCH] or fi[b + I_ACTIVE] == 0:
        return
    wmask = gi[GI_WMASK]
    row = f * (wmask + 1)
    rcv = fi[b + I_RCV_NXT]
    if seq == rcv:
        rcv += 1
        while fi[b + I_OOO] > 0 and rg[row + (rcv & wmask)] & R_OOO:
            j = row + (rcv & wmask)
            rg[j] = rg[j] & ~R_OOO
            fi[b + I_OOO] -= 1
            rcv += 1
        fi[b + I_RCV_NXT] = rcv
        advanced = rcv - seq
        if t >= g[G_WARM]:
            deliv[f] += advanced
        if advanced > 1 or fi[b + I_OOO] > 0:
            _send_ack(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f, -1)
            return
        fi[b + I_DELACK_COUNT] += 1
        if fi[b + I_DELACK_COUNT] >= gi[GI_DACK]:
            _send_ack(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f, -1)
        elif fi[b + I_DELACK_COUNT] == 1:
            heap_push(ht, hk, hp, gi, t + g[G_DELACK_TO], K_DELACK, f, 0, fi[b + I_DELACK_GEN])
    elif seq > rcv:
        j = row + (seq & wmask)
        if (rg[j] & R_OOO) == 0:
            rg[j] = rg[j] | R_OOO
            fi[b + I_OOO] += 1
        _send_ack(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f, seq)
    else:
        _send_ack(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f, -2)


# ---------------------------------------------------------------------------- arrivals
@jit
def arrive(  # type: ignore[no-untyped-def]
    ff, fi, g, gi, ht, hk, hp, nt, nx, rand, qf, fqq, fqi, fqf, fqa, occ, bhist, trt, tri, t, f,
    epoch, seq,
):  # fmt: skip
    _account_occupancy(g, gi, occ, t)
    gi[GI_ARR_TOTAL] += 1
    if t >= g[G_WARM]:
        gi[GI_ARR] += 1
    size = g[G_WIRE_BYTES]
    if gi[GI_OPEN_EXP] != 0:
        size = _exp(rand, gi, g[G_WIRE_BYTES])
    if gi[GI_FQ] != 0:
        _fq_arrive(g, gi, ht, hk, hp, fqq, fqi, fqf, fqa, bhist, trt, tri, t, f, epoch, seq, size)
        return
    qmask = gi[GI_QMASK]
    count = gi[GI_QCOUNT]
    if gi[GI_BYTEMODE] != 0:
        accept = g[G_QBYTES] + size <= g[G_LIMIT_BYTES] and count <= qmask
    else:
        accept = count < gi[GI_B]
    if not accept:
        _drop(g, gi, trt, tri, t, f, size)
        return
    _accepted(g, gi, bhist, t)
    tx = size * 8.0 / g[G_C]
    dep = max(t, g[G_LAST_DEP]) + tx
    g[G_LAST_DEP] = dep
    q = QF * ((gi[GI_QHEAD] + count) & qmask)
    qf[q + Q_DEP] = dep
    qf[q + Q_TX] = tx
    qf[q + Q_ARR] = t
    qf[q + Q_FLOW] = f
    qf[q + Q_SIZE] = size
    gi[GI_QCOUNT] = count + 1
    g[G_QBYTES] += size
    if f < gi[GI_N]:
        push_packet(
            ht, hk, hp, fi, nt, nx, gi, dep + 0.5 * ff[f * NF + F_RTT], K_DELIVER, f, epoch, seq
        )


@jit
def _fq_arrive(  # type: ignore[no-untyped-def]
    g, gi, ht, hk, hp, fqq, fqi, fqf, fqa, bhist, trt, tri, t, f, epoch, seq, size
):
    fqmask = gi[GI_FQMASK]
    slots = fqmask + 1
    m = gi[GI_N] + 1
    if fqi[3 * f + 1] == 0:
        fqa[(gi[GI_ACT_HEAD] + gi[GI_ACT_COUNT]) % m] = f
        gi[GI_ACT_COUNT] += 1
    p = (f * slots + ((fqi[3 * f] + fqi[3 * f + 1]) & fqmask)) * 4
    fqq[p] = epoch
    fqq[p + 1] = seq
    fqq[p + 2] = size
    fqq[p + 3] = t
    fqi[3 * f + 1] += 1
    fqf[2 * f] += size
    gi[GI_QCOUNT] += 1
    g[G_QBYTES] += size
    if gi[GI_BYTEMODE] != 0:
        over = g[G_QBYTES] > g[G_LIMIT_BYTES]
    else:
        over = gi[GI_QCOUNT] > gi[GI_B]
    if over or fqi[3 * f + 1] > fqmask:
        victim = f
        for k in range(m):
            if fqf[2 * k] > fqf[2 * victim]:
                victim = k
        fqi[3 * victim + 1] -= 1
        pt = (victim * slots + ((fqi[3 * victim] + fqi[3 * victim + 1]) & fqmask)) * 4
        vsize = fqq[pt + 2]
        fqf[2 * victim] -= vsize
        gi[GI_QCOUNT] -= 1
        g[G_QBYTES] -= vsize
        if fqi[3 * victim + 1] == 0:
            _fq_remove_active(gi, fqa, victim)
            fqf[2 * victim + 1] = 0.0
            fqi[3 * victim + 2] = 0
        _drop(g, gi, trt, tri, t, victim, vsize)
        if victim == f:
            return
    _accepted(g, gi, bhist, t)
    if gi[GI_SVC] == 0:
        _fq_start(g, gi, fqq, fqi, fqf, fqa, ht, hk, hp, t)


@jit
def _fq_depart(  # type: ignore[no-untyped-def]
    ff, fi, g, gi, ht, hk, hp, nt, nx, fqq, fqi, fqf, fqa, occ, dhist, ibits, trt, tri, t
):
    f = gi[GI_SVC_FLOW]
    size = g[G_SVC_SIZE]
    _account_occupancy(g, gi, occ, t)
    gi[GI_QCOUNT] -= 1
    g[G_QBYTES] -= size
    _account_departure(g, gi, dhist, ibits, t, size * 8.0 / g[G_C], size, g[G_SVC_ARR])
    if gi[GI_TRACE] != 0:
        _record(trt, tri, gi, t, f, size, 0)
    if f < gi[GI_N]:
        push_packet(
            ht, hk, hp, fi, nt, nx, gi, t + 0.5 * ff[f * NF + F_RTT], K_DELIVER, f,
            gi[GI_SVC_EPOCH], gi[GI_SVC_SEQ],
        )  # fmt: skip
    gi[GI_SVC] = 0
    _fq_start(g, gi, fqq, fqi, fqf, fqa, ht, hk, hp, t)


# ---------------------------------------------------------------------------- main loop
@jit
def init_events(ff, g, gi, ht, hk, hp, rand, start_s):  # type: ignore[no-untyped-def]
    """Schedule the first events: flow starts, open-loop packets, samples."""
    n = gi[GI_N]
    traffic = gi[GI_TRAFFIC]
    for f in range(n):
        ff[f, F_RTO_EVENT] = INF
        ff[f, F_RTO_EXPIRY] = INF
    pht, phk, php, pgi = _ptr(ht), _ptr(hk), _ptr(hp), _ptr(gi)
    if n > 0 and traffic != 2:
        for f in range(n):
            heap_push(pht, phk, php, pgi, start_s[f], K_FLOW, f, 0, 0)
    if traffic == 2:
        first_flow = _exp(_ptr(rand), pgi, 1.0 / g[G_FLOW_RATE])
        heap_push(pht, phk, php, pgi, first_flow, K_FLOW, -1, 0, 0)
    if g[G_OPEN_RATE] > 0:
        first = 0.0 if gi[GI_OPEN_PERIODIC] != 0 else _exp(_ptr(rand), pgi, 1.0 / g[G_OPEN_RATE])
        heap_push(pht, phk, php, pgi, first, K_OPEN, n, 0, 0)
    if gi[GI_TRACE] != 0:
        heap_push(pht, phk, php, pgi, 0.0, K_SAMPLE, 0, 0, 0)


@jit
def run_chunk(  # type: ignore[no-untyped-def]
    t_stop, ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, qf, fqq, fqi, fqf, fqa, occ, dhist,
    bhist, ibits, deliv, trt, tri, st, sq, scw,
):  # fmt: skip
    """Process events with time <= min(t_stop, end); return a status code.

    The arrays must be C-contiguous and stay alive during the call (the driver owns them).
    """
    return _run_chunk(
        t_stop, ht.shape[0], rand.shape[0], trt.shape[0], st.shape[0], _ptr(ff), _ptr(fi),
        _ptr(rg), _ptr(g), _ptr(gi), _ptr(ht), _ptr(hk), _ptr(hp), _ptr(nt), _ptr(nx),
        _ptr(rand), _ptr(qf), _ptr(fqq), _ptr(fqi), _ptr(fqf), _ptr(fqa), _ptr(occ),
        _ptr(dhist), _ptr(bhist), _ptr(ibits), _ptr(deliv), _ptr(trt), _ptr(tri), _ptr(st),
        _ptr(sq), _ptr(scw),
    )  # fmt: skip


@jit
def _run_chunk(  # type: ignore[no-untyped-def]
    t_stop, heap_cap, rand_len, trace_cap, sample_cap, ff, fi, rg, g, gi, ht, hk, hp, nt, nx,
    rand, qf, fqq, fqi, fqf, fqa, occ, dhist, bhist, ibits, deliv, trt, tri, st, sq, scw,
):  # fmt: skip
    end = g[G_END]
    limit = min(t_stop, end)
    n = gi[GI_N]
    traced = gi[GI_TRACED]
    node_margin = 2 * (gi[GI_WMASK] + 1) + 16  # one event sends at most two windows
    trace_margin = 2 * (gi[GI_QMASK] + 1) + 16
    fq = gi[GI_FQ] != 0
    trace = gi[GI_TRACE] != 0
    while True:
        if gi[GI_HN] == 0:
            return S_DONE
        t = ht[0]
        if t > end:
            return S_DONE
        if t > limit:
            return S_STOPPED
        if gi[GI_RPOS] + 8 > rand_len:
            return S_NEED_RANDOM
        if gi[GI_HN] + HEAP_MARGIN > heap_cap:
            return S_HEAP_FULL
        if gi[GI_NFREE] < node_margin:
            return S_NODES_FULL
        if trace:
            if gi[GI_TRN] + trace_margin > trace_cap:
                return S_TRACE_FULL
            if gi[GI_SN] + 2 > sample_cap:
                return S_SAMPLES_FULL
        kind = hk[0] >> KEY_SHIFT
        payload = hp[0]
        heap_pop(ht, hk, hp, fi, nt, nx, gi)
        f = (payload >> 40) - 1
        epoch = (payload >> 32) & 255
        arg = payload & SEQ_MASK
        if not fq and (kind == K_ARRIVAL or kind == K_OPEN or kind == K_SAMPLE):
            fifo_advance(g, gi, qf, occ, dhist, ibits, trt, tri, t)
        if kind == K_DELIVER:
            deliver(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, deliv, t, f, epoch, arg)
        elif kind == K_ARRIVAL:
            arrive(
                ff, fi, g, gi, ht, hk, hp, nt, nx, rand, qf, fqq, fqi, fqf, fqa, occ, bhist, trt,
                tri, t, f, epoch, arg,
            )  # fmt: skip
        elif kind == K_DEPART:
            _fq_depart(
                ff, fi, g, gi, ht, hk, hp, nt, nx, fqq, fqi, fqf, fqa, occ, dhist, ibits, trt,
                tri, t,
            )  # fmt: skip
        elif kind == K_RTO:
            _rto_fire(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f)
        elif kind == K_DELACK:
            b = f * NI
            if arg == (fi[b + I_DELACK_GEN] & SEQ_MASK) and fi[b + I_DELACK_COUNT] > 0:
                _send_ack(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f, -1)
        elif kind == K_PACE:
            fi[f * NI + I_PACE_PENDING] = 0
            try_send(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, t, f)
        elif kind == K_OPEN:
            if gi[GI_OPEN_PERIODIC] != 0:
                gap = 1.0 / g[G_OPEN_RATE]
            else:
                gap = _exp(rand, gi, 1.0 / g[G_OPEN_RATE])
            arrive(
                ff, fi, g, gi, ht, hk, hp, nt, nx, rand, qf, fqq, fqi, fqf, fqa, occ, bhist, trt,
                tri, t, n, 0, 0,
            )  # fmt: skip
            heap_push(ht, hk, hp, gi, t + gap, K_OPEN, n, 0, 0)
        elif kind == K_FLOW:
            if f >= 0:
                start_flow(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, f)
            else:
                next_flow = t + _exp(rand, gi, 1.0 / g[G_FLOW_RATE])
                heap_push(ht, hk, hp, gi, next_flow, K_FLOW, -1, 0, 0)
                free = -1
                for k in range(n):
                    if fi[k * NI + I_ACTIVE] == 0:
                        free = k
                        break
                if free >= 0:
                    start_flow(ff, fi, rg, g, gi, ht, hk, hp, nt, nx, rand, t, free)
                else:
                    gi[GI_BLOCKED] += 1
        elif kind == K_SAMPLE:
            k = gi[GI_SN]
            st[k] = t
            sq[k] = gi[GI_QCOUNT]
            for j in range(traced):
                scw[k * traced + j] = ff[j * NF + F_CWND]
            gi[GI_SN] = k + 1
            heap_push(ht, hk, hp, gi, t + g[G_SAMPLE_INT], K_SAMPLE, 0, 0, 0)


@jit
def finish(g, gi, fi, qf, fqi, occ, dhist, ibits, trt, tri):  # type: ignore[no-untyped-def]
    """Close the books at the end time: flush departures, count packets in flight."""
    end = g[G_END]
    fq = gi[GI_FQ] != 0
    if not fq:
        fifo_advance(
            _ptr(g), _ptr(gi), _ptr(qf), _ptr(occ), _ptr(dhist), _ptr(ibits), _ptr(trt),
            _ptr(tri), end,
        )  # fmt: skip
    _account_occupancy(_ptr(g), _ptr(gi), _ptr(occ), end)
    n = gi[GI_N]
    warm = g[G_WARM]
    in_flight = 0
    if fq:
        if gi[GI_SVC] != 0:
            lo = max(g[G_SVC_DEP] - g[G_SVC_SIZE] * 8.0 / g[G_C], warm)
            if end > lo:
                g[G_BUSY] += end - lo
    elif gi[GI_QCOUNT] > 0:
        h = gi[GI_QHEAD]
        lo = max(qf[h, Q_DEP] - qf[h, Q_TX], warm)
        if end > lo:
            g[G_BUSY] += end - lo
    for f in range(n):  # scheduled arrivals and deliveries of the TCP flows
        in_flight += fi[f, I_LISTS + L_COUNT] + fi[f, I_LISTS + 3 + L_COUNT]
    if fq:
        if gi[GI_SVC] != 0 and gi[GI_SVC_FLOW] < n:
            in_flight += 1
        for f in range(n):
            in_flight += fqi[f, 1]
    gi[GI_IN_FLIGHT] = in_flight
