"""Compiled event loop of the simulator (numba): the model of ``reference.py`` on arrays.

Everything lives in preallocated arrays: per-flow state (``FF`` floats, ``FI`` integers),
per-flow SACK/retransmission/out-of-order rings (``RG``), global scalars (``G``, ``GI``), a binary
heap of events in three arrays (time, key = kind << 56 | sequence number, payload), the
bottleneck buffer and the counters. No Python object is touched per event.

Differences of structure (not of model) from the reference: in drop-tail FIFO mode a packet's
departure time is known when it is accepted, so departures are not heap events; they are
taken from a ring of accepted packets when the clock passes them (before any event at the same
time, as the reference's departure events are). With fair queueing departures are events.

``run_chunk`` advances the clock to ``t_stop`` and returns a status; it also returns early when
it needs more random numbers, a larger heap, or room in the trace buffers, so that the Python
driver can refill them, report progress and cancel between chunks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# event kinds (as in parameters.py)
K_DEPART = 0
K_DELIVER = 1
K_ARRIVAL = 2
K_RTO = 3
K_DELACK = 4
K_PACE = 5
K_OPEN = 6
K_FLOW = 7
K_SAMPLE = 8

# run_chunk status codes
S_STOPPED = 0
S_NEED_RANDOM = 1
S_HEAP_FULL = 2
S_TRACE_FULL = 3
S_SAMPLES_FULL = 4
S_DONE = 5

INF = np.inf
MAX_RTO_S = 60.0
INITIAL_SSTHRESH = 1e9
EPOCHS = 256
BURST_BINS = 64

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

# per-flow integers
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
NI = 19

# rings
R_SACKED = 0
R_REXMIT = 1
R_OOO = 2

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
GI_OPEN_LOOP = 20
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
NGI = 64

SEQ_MASK = (1 << 32) - 1
KEY_SHIFT = 56


# ------------------------------------------------------------------------------------ heap
@njit(cache=True, inline="always")
def _less(ht, hk, i, j):  # type: ignore[no-untyped-def]
    return ht[i] < ht[j] or (ht[i] == ht[j] and hk[i] < hk[j])


@njit(cache=True)
def heap_push(ht, hk, hp, gi, t, kind, flow, epoch, arg):  # type: ignore[no-untyped-def]
    n = gi[GI_HN]
    key = (np.int64(kind) << KEY_SHIFT) | gi[GI_SEQ]
    gi[GI_SEQ] += 1
    payload = ((np.int64(flow) + 1) << 40) | (np.int64(epoch) << 32) | (np.int64(arg) & SEQ_MASK)
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


@njit(cache=True)
def heap_pop(ht, hk, hp, gi):  # type: ignore[no-untyped-def]
    """Remove the root; the caller has read it."""
    n = gi[GI_HN] - 1
    gi[GI_HN] = n
    if n == 0:
        return
    t = ht[n]
    key = hk[n]
    payload = hp[n]
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


# ------------------------------------------------------------------------------ randomness
@njit(cache=True)
def _uniform(rand, gi):  # type: ignore[no-untyped-def]
    u = rand[gi[GI_RPOS]]
    gi[GI_RPOS] += 1
    return u


@njit(cache=True)
def _exp(rand, gi, mean):  # type: ignore[no-untyped-def]
    return -np.log(1.0 - _uniform(rand, gi)) * mean


# ------------------------------------------------------------------------------ bottleneck
@njit(cache=True)
def _account_occupancy(g, gi, occ, t):  # type: ignore[no-untyped-def]
    lo = max(g[G_LAST_CHANGE], g[G_WARM])
    hi = min(t, g[G_END])
    if hi > lo:
        k = min(gi[GI_QCOUNT], gi[GI_OCC_BINS] - 1)
        occ[k] += hi - lo
    g[G_LAST_CHANGE] = t


@njit(cache=True)
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


@njit(cache=True)
def _record(trt, tri, gi, t, flow, size, dropped):  # type: ignore[no-untyped-def]
    k = gi[GI_TRN]
    trt[k] = t
    tri[k, 0] = flow
    tri[k, 1] = np.int64(np.round(size))
    tri[k, 2] = dropped
    gi[GI_TRN] = k + 1


@njit(cache=True)
def fifo_advance(g, gi, qf, occ, dhist, ibits, trt, tri, t):  # type: ignore[no-untyped-def]
    """Take from the FIFO every packet whose departure time is <= t."""
    qmask = gi[GI_QMASK]
    while gi[GI_QCOUNT] > 0:
        h = gi[GI_QHEAD]
        dep = qf[0, h]
        if dep > t:
            break
        _account_occupancy(g, gi, occ, dep)
        gi[GI_QCOUNT] -= 1
        size = qf[4, h]
        g[G_QBYTES] -= size
        _account_departure(g, gi, dhist, ibits, dep, qf[1, h], size, qf[2, h])
        if gi[GI_TRACE] != 0:
            _record(trt, tri, gi, dep, np.int64(qf[3, h]), size, 0)
        gi[GI_QHEAD] = (h + 1) & qmask


@njit(cache=True)
def _accepted(g, gi, bhist, t):  # type: ignore[no-untyped-def]
    run = gi[GI_DROPRUN]
    if run > 0:
        if t >= g[G_WARM]:
            bhist[min(run, BURST_BINS) - 1] += 1
        gi[GI_DROPRUN] = 0


@njit(cache=True)
def _drop(g, gi, trt, tri, t, flow, size):  # type: ignore[no-untyped-def]
    if t >= g[G_WARM]:
        gi[GI_DROPS] += 1
    if flow < gi[GI_N]:
        gi[GI_DROPPED_TCP] += 1
    gi[GI_DROPRUN] += 1
    if gi[GI_TRACE] != 0:
        _record(trt, tri, gi, t, flow, size, 1)


# ------------------------------------------------------------------------------- fair queue
@njit(cache=True)
def _fq_next(g, gi, fqq, fqi, fqf, fqa):  # type: ignore[no-untyped-def]
    """DRR: choose the next packet; returns its flow or -1 (fields left in G/GI service)."""
    quantum = g[G_WIRE_BYTES]
    fqmask = gi[GI_FQMASK]
    m = fqa.shape[0]
    while gi[GI_ACT_COUNT] > 0:
        ah = gi[GI_ACT_HEAD]
        f = fqa[ah]
        if fqi[f, 2] == 0:
            fqf[f, 1] += quantum
            fqi[f, 2] = 1
        h = fqi[f, 0]
        if fqq[f, h, 2] <= fqf[f, 1]:
            size = fqq[f, h, 2]
            gi[GI_SVC_EPOCH] = np.int64(fqq[f, h, 0])
            gi[GI_SVC_SEQ] = np.int64(fqq[f, h, 1])
            g[G_SVC_SIZE] = size
            g[G_SVC_ARR] = fqq[f, h, 3]
            fqi[f, 0] = (h + 1) & fqmask
            fqi[f, 1] -= 1
            fqf[f, 0] -= size
            fqf[f, 1] -= size
            if fqi[f, 1] == 0:
                fqf[f, 1] = 0.0
                fqi[f, 2] = 0
                gi[GI_ACT_HEAD] = (ah + 1) % m
                gi[GI_ACT_COUNT] -= 1
            elif fqq[f, fqi[f, 0], 2] > fqf[f, 1]:
                fqi[f, 2] = 0
                gi[GI_ACT_HEAD] = (ah + 1) % m
                fqa[(ah + gi[GI_ACT_COUNT]) % m] = f
            return f
        fqi[f, 2] = 0
        gi[GI_ACT_HEAD] = (ah + 1) % m
        fqa[(ah + gi[GI_ACT_COUNT]) % m] = f
    return -1


@njit(cache=True)
def _fq_start(g, gi, fqq, fqi, fqf, fqa, ht, hk, hp, t):  # type: ignore[no-untyped-def]
    f = _fq_next(g, gi, fqq, fqi, fqf, fqa)
    if f >= 0:
        gi[GI_SVC] = 1
        gi[GI_SVC_FLOW] = f
        dep = t + g[G_SVC_SIZE] * 8.0 / g[G_C]
        g[G_SVC_DEP] = dep
        heap_push(ht, hk, hp, gi, dep, K_DEPART, f, 0, 0)


@njit(cache=True)
def _fq_remove_active(gi, fqa, victim):  # type: ignore[no-untyped-def]
    m = fqa.shape[0]
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
@njit(cache=True)
def _arm_rto(ff, ht, hk, hp, gi, t, f):  # type: ignore[no-untyped-def]
    expiry = t + ff[f, F_RTO]
    ff[f, F_RTO_EXPIRY] = expiry
    if expiry < ff[f, F_RTO_EVENT]:
        ff[f, F_RTO_EVENT] = expiry
        heap_push(ht, hk, hp, gi, expiry, K_RTO, f, 0, 0)


@njit(cache=True)
def _transmit(ff, fi, rg, g, gi, ht, hk, hp, t, f, seg):  # type: ignore[no-untyped-def]
    wmask = gi[GI_WMASK]
    if seg < fi[f, I_HIGH_TX]:
        rg[R_REXMIT, f, seg & wmask] = 1
        fi[f, I_RTT_SEQ] = -1
    else:
        fi[f, I_HIGH_TX] = seg + 1
        if fi[f, I_RTT_SEQ] < 0:
            fi[f, I_RTT_SEQ] = seg
            ff[f, F_RTT_TIME] = t
    if seg == fi[f, I_SND_NXT]:
        fi[f, I_SND_NXT] += 1
    gi[GI_SENT] += 1
    free = max(t, ff[f, F_ACCESS_FREE]) + g[G_ACC_TX]
    ff[f, F_ACCESS_FREE] = free
    heap_push(ht, hk, hp, gi, free + 0.5 * ff[f, F_RTT], K_ARRIVAL, f, fi[f, I_EPOCH], seg)
    if ff[f, F_RTO_EXPIRY] == INF:
        _arm_rto(ff, ht, hk, hp, gi, t, f)
    if gi[GI_PACING] != 0:
        srtt = ff[f, F_SRTT] if ff[f, F_SRTT] > 0 else ff[f, F_RTT]
        ff[f, F_NEXT_SEND] = t + srtt / min(ff[f, F_CWND], float(gi[GI_WMAX]))


@njit(cache=True)
def _pipe(fi, rg, gi, f):  # type: ignore[no-untyped-def]
    wmask = gi[GI_WMASK]
    count = 0
    lost_limit = fi[f, I_LOST_LIMIT]
    for s in range(fi[f, I_SND_UNA], fi[f, I_HIGH_TX]):
        j = s & wmask
        if rg[R_SACKED, f, j] != 0:
            continue
        if s >= lost_limit:
            count += 1
        if rg[R_REXMIT, f, j] != 0:
            count += 1
    return count


@njit(cache=True)
def _next_hole(fi, rg, gi, f):  # type: ignore[no-untyped-def]
    wmask = gi[GI_WMASK]
    s = max(fi[f, I_REXMIT_PTR], fi[f, I_SND_UNA])
    lost_limit = fi[f, I_LOST_LIMIT]
    while s < lost_limit and (rg[R_SACKED, f, s & wmask] != 0 or rg[R_REXMIT, f, s & wmask] != 0):
        s += 1
    fi[f, I_REXMIT_PTR] = s
    return s if s < lost_limit else -1


@njit(cache=True)
def try_send(ff, fi, rg, g, gi, ht, hk, hp, t, f):  # type: ignore[no-untyped-def]
    wmax = gi[GI_WMAX]
    while fi[f, I_ACTIVE] != 0:
        seg = -1
        una = fi[f, I_SND_UNA]
        nxt = fi[f, I_SND_NXT]
        if gi[GI_SACK] != 0 and fi[f, I_RECOVERY] > 0:
            if _pipe(fi, rg, gi, f) >= ff[f, F_CWND]:
                return
            seg = _next_hole(fi, rg, gi, f)
            if seg < 0 and nxt - una < wmax:
                seg = nxt
        elif nxt - una < min(ff[f, F_CWND], float(wmax)):
            seg = nxt
        size = fi[f, I_SIZE]
        if seg < 0 or (size >= 0 and seg >= size):
            return
        if gi[GI_PACING] != 0 and t < ff[f, F_NEXT_SEND]:
            if fi[f, I_PACE_PENDING] == 0:
                fi[f, I_PACE_PENDING] = 1
                heap_push(ht, hk, hp, gi, ff[f, F_NEXT_SEND], K_PACE, f, 0, 0)
            return
        _transmit(ff, fi, rg, g, gi, ht, hk, hp, t, f, seg)


@njit(cache=True)
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


@njit(cache=True)
def start_flow(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f):  # type: ignore[no-untyped-def]
    epoch = (fi[f, I_EPOCH] + 1) % EPOCHS
    delack_gen = fi[f, I_DELACK_GEN] + 1
    pace_pending = fi[f, I_PACE_PENDING]
    for k in range(NI):
        fi[f, k] = 0
    fi[f, I_EPOCH] = epoch
    fi[f, I_DELACK_GEN] = delack_gen
    fi[f, I_PACE_PENDING] = pace_pending
    fi[f, I_RECOVER] = -1
    fi[f, I_RTO_RECOVER] = -1
    fi[f, I_RTT_SEQ] = -1
    fi[f, I_ACTIVE] = 1
    fi[f, I_SIZE] = _draw_size(g, gi, rand)
    rg[:, f, :] = 0
    ff[f, F_CWND] = g[G_INIT_CWND]
    ff[f, F_SSTHRESH] = INITIAL_SSTHRESH
    ff[f, F_SRTT] = 0.0
    ff[f, F_RTTVAR] = 0.0
    ff[f, F_RTO] = g[G_INIT_RTO]
    ff[f, F_RTT_TIME] = 0.0
    ff[f, F_RTO_EXPIRY] = INF
    ff[f, F_NEXT_SEND] = t
    try_send(ff, fi, rg, g, gi, ht, hk, hp, t, f)


@njit(cache=True)
def _rto_fire(ff, fi, rg, g, gi, ht, hk, hp, t, f):  # type: ignore[no-untyped-def]
    if t != ff[f, F_RTO_EVENT]:
        return
    ff[f, F_RTO_EVENT] = INF
    expiry = ff[f, F_RTO_EXPIRY]
    if expiry == INF:
        return
    if t < expiry:
        ff[f, F_RTO_EVENT] = expiry
        heap_push(ht, hk, hp, gi, expiry, K_RTO, f, 0, 0)
        return
    ff[f, F_RTO_EXPIRY] = INF
    una = fi[f, I_SND_UNA]
    high = fi[f, I_HIGH_TX]
    if fi[f, I_ACTIVE] == 0 or una >= high:
        return
    if t >= g[G_WARM]:
        gi[GI_TIMEOUTS] += 1
    ff[f, F_SSTHRESH] = max((high - una) / 2.0, 2.0)
    ff[f, F_CWND] = 1.0
    ff[f, F_RTO] = min(2.0 * ff[f, F_RTO], MAX_RTO_S)
    fi[f, I_DUPACKS] = 0
    fi[f, I_RTT_SEQ] = -1
    fi[f, I_RECOVER] = high - 1
    fi[f, I_RTO_RECOVER] = high - 1
    wmask = gi[GI_WMASK]
    for s in range(una, high):
        rg[R_REXMIT, f, s & wmask] = 0
    fi[f, I_REXMIT_PTR] = una
    if gi[GI_SACK] != 0:
        fi[f, I_RECOVERY] = 2
        fi[f, I_LOST_LIMIT] = high
    else:
        fi[f, I_RECOVERY] = 0
        fi[f, I_SND_NXT] = una
    ff[f, F_NEXT_SEND] = t
    try_send(ff, fi, rg, g, gi, ht, hk, hp, t, f)
    if ff[f, F_RTO_EXPIRY] == INF:
        _arm_rto(ff, ht, hk, hp, gi, t, f)


@njit(cache=True)
def _rtt_sample(ff, g, f, r):  # type: ignore[no-untyped-def]
    if ff[f, F_SRTT] == 0.0:
        ff[f, F_SRTT] = r
        ff[f, F_RTTVAR] = r / 2.0
    else:
        ff[f, F_RTTVAR] = 0.75 * ff[f, F_RTTVAR] + 0.25 * abs(ff[f, F_SRTT] - r)
        ff[f, F_SRTT] = 0.875 * ff[f, F_SRTT] + 0.125 * r
    ff[f, F_RTO] = min(max(g[G_MIN_RTO], ff[f, F_SRTT] + 4.0 * ff[f, F_RTTVAR]), MAX_RTO_S)


@njit(cache=True)
def on_ack(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f, cum, sack_seq):  # type: ignore[no-untyped-def]
    wmask = gi[GI_WMASK]
    sack = gi[GI_SACK] != 0
    if sack_seq >= cum:
        rg[R_SACKED, f, sack_seq & wmask] = 1
        if sack_seq + 1 > fi[f, I_HIGH_SACKED]:
            fi[f, I_HIGH_SACKED] = sack_seq + 1
    una = fi[f, I_SND_UNA]
    if cum > una:
        newly = cum - una
        for s in range(una, cum):
            rg[R_SACKED, f, s & wmask] = 0
            rg[R_REXMIT, f, s & wmask] = 0
        fi[f, I_SND_UNA] = cum
        if fi[f, I_SND_NXT] < cum:
            fi[f, I_SND_NXT] = cum
        fi[f, I_DUPACKS] = 0
        if fi[f, I_RTT_SEQ] >= 0 and cum > fi[f, I_RTT_SEQ]:
            _rtt_sample(ff, g, f, t - ff[f, F_RTT_TIME])
            fi[f, I_RTT_SEQ] = -1
        exited = False
        if fi[f, I_RECOVERY] > 0 and cum > fi[f, I_RECOVER]:
            if fi[f, I_RECOVERY] == 1:
                ff[f, F_CWND] = ff[f, F_SSTHRESH]
            fi[f, I_RECOVERY] = 0
            exited = True
        if fi[f, I_RECOVERY] == 1:
            if not sack:
                ff[f, F_CWND] = max(ff[f, F_CWND] - newly + 1.0, 1.0)
                _transmit(ff, fi, rg, g, gi, ht, hk, hp, t, f, cum)
        elif not exited:
            if ff[f, F_CWND] < ff[f, F_SSTHRESH]:
                ff[f, F_CWND] += newly
            else:
                ff[f, F_CWND] += newly / ff[f, F_CWND]
        size = fi[f, I_SIZE]
        if size >= 0 and cum >= size:
            _complete(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f)
            return
        if cum < fi[f, I_HIGH_TX]:
            _arm_rto(ff, ht, hk, hp, gi, t, f)
        else:
            ff[f, F_RTO_EXPIRY] = INF
    elif cum == una and una < fi[f, I_HIGH_TX] and (sack_seq >= 0 or not sack):
        fi[f, I_DUPACKS] += 1
        if fi[f, I_RECOVERY] == 0 and fi[f, I_DUPACKS] == 3 and cum > fi[f, I_RTO_RECOVER]:
            ff[f, F_SSTHRESH] = max((fi[f, I_HIGH_TX] - una) / 2.0, 2.0)
            fi[f, I_RECOVER] = fi[f, I_HIGH_TX] - 1
            fi[f, I_RECOVERY] = 1
            fi[f, I_RTT_SEQ] = -1
            if sack:
                ff[f, F_CWND] = ff[f, F_SSTHRESH]
                fi[f, I_LOST_LIMIT] = fi[f, I_HIGH_SACKED]
                fi[f, I_REXMIT_PTR] = una
            else:
                ff[f, F_CWND] = ff[f, F_SSTHRESH] + 3.0
                _transmit(ff, fi, rg, g, gi, ht, hk, hp, t, f, una)
        elif fi[f, I_RECOVERY] == 1 and not sack:
            ff[f, F_CWND] += 1.0
    if sack and fi[f, I_RECOVERY] == 1 and fi[f, I_HIGH_SACKED] > fi[f, I_LOST_LIMIT]:
        fi[f, I_LOST_LIMIT] = fi[f, I_HIGH_SACKED]
    try_send(ff, fi, rg, g, gi, ht, hk, hp, t, f)


@njit(cache=True)
def _complete(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f):  # type: ignore[no-untyped-def]
    if t >= g[G_WARM]:
        gi[GI_COMPLETED] += 1
    fi[f, I_ACTIVE] = 0
    ff[f, F_RTO_EXPIRY] = INF
    if gi[GI_TRAFFIC] == 1:
        start_flow(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f)


# ---------------------------------------------------------------------------- receiver
@njit(cache=True)
def _send_ack(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f, sack_seq):  # type: ignore[no-untyped-def]
    fi[f, I_DELACK_COUNT] = 0
    fi[f, I_DELACK_GEN] += 1
    on_ack(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f, fi[f, I_RCV_NXT], sack_seq)


@njit(cache=True)
def deliver(ff, fi, rg, g, gi, ht, hk, hp, rand, deliv, t, f, epoch, seq):  # type: ignore[no-untyped-def]
    gi[GI_DELIVERED] += 1
    if epoch != fi[f, I_EPOCH] or fi[f, I_ACTIVE] == 0:
        return
    wmask = gi[GI_WMASK]
    rcv = fi[f, I_RCV_NXT]
    if seq == rcv:
        rcv += 1
        while fi[f, I_OOO] > 0 and rg[R_OOO, f, rcv & wmask] != 0:
            rg[R_OOO, f, rcv & wmask] = 0
            fi[f, I_OOO] -= 1
            rcv += 1
        fi[f, I_RCV_NXT] = rcv
        advanced = rcv - seq
        if t >= g[G_WARM]:
            deliv[f] += advanced
        if advanced > 1 or fi[f, I_OOO] > 0:
            _send_ack(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f, -1)
            return
        fi[f, I_DELACK_COUNT] += 1
        if fi[f, I_DELACK_COUNT] >= gi[GI_DACK]:
            _send_ack(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f, -1)
        elif fi[f, I_DELACK_COUNT] == 1:
            heap_push(ht, hk, hp, gi, t + g[G_DELACK_TO], K_DELACK, f, 0, fi[f, I_DELACK_GEN])
    elif seq > rcv:
        if rg[R_OOO, f, seq & wmask] == 0:
            rg[R_OOO, f, seq & wmask] = 1
            fi[f, I_OOO] += 1
        _send_ack(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f, seq)
    else:
        _send_ack(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f, -2)


# ---------------------------------------------------------------------------- arrivals
@njit(cache=True)
def arrive(  # type: ignore[no-untyped-def]
    ff, g, gi, ht, hk, hp, rand, qf, fqq, fqi, fqf, fqa, occ, bhist, trt, tri, t, f, epoch, seq
):
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
    j = (gi[GI_QHEAD] + count) & qmask
    qf[0, j] = dep
    qf[1, j] = tx
    qf[2, j] = t
    qf[3, j] = f
    qf[4, j] = size
    gi[GI_QCOUNT] = count + 1
    g[G_QBYTES] += size
    if f < gi[GI_N]:
        heap_push(ht, hk, hp, gi, dep + 0.5 * ff[f, F_RTT], K_DELIVER, f, epoch, seq)


@njit(cache=True)
def _fq_arrive(  # type: ignore[no-untyped-def]
    g, gi, ht, hk, hp, fqq, fqi, fqf, fqa, bhist, trt, tri, t, f, epoch, seq, size
):
    fqmask = gi[GI_FQMASK]
    m = fqa.shape[0]
    if fqi[f, 1] == 0:
        fqa[(gi[GI_ACT_HEAD] + gi[GI_ACT_COUNT]) % m] = f
        gi[GI_ACT_COUNT] += 1
    j = (fqi[f, 0] + fqi[f, 1]) & fqmask
    fqq[f, j, 0] = epoch
    fqq[f, j, 1] = seq
    fqq[f, j, 2] = size
    fqq[f, j, 3] = t
    fqi[f, 1] += 1
    fqf[f, 0] += size
    gi[GI_QCOUNT] += 1
    g[G_QBYTES] += size
    if gi[GI_BYTEMODE] != 0:
        over = g[G_QBYTES] > g[G_LIMIT_BYTES]
    else:
        over = gi[GI_QCOUNT] > gi[GI_B]
    if over or fqi[f, 1] > fqmask:
        victim = f
        for k in range(fqf.shape[0]):
            if fqf[k, 0] > fqf[victim, 0]:
                victim = k
        fqi[victim, 1] -= 1
        jt = (fqi[victim, 0] + fqi[victim, 1]) & fqmask
        vsize = fqq[victim, jt, 2]
        fqf[victim, 0] -= vsize
        gi[GI_QCOUNT] -= 1
        g[G_QBYTES] -= vsize
        if fqi[victim, 1] == 0:
            _fq_remove_active(gi, fqa, victim)
            fqf[victim, 1] = 0.0
            fqi[victim, 2] = 0
        _drop(g, gi, trt, tri, t, victim, vsize)
        if victim == f:
            return
    _accepted(g, gi, bhist, t)
    if gi[GI_SVC] == 0:
        _fq_start(g, gi, fqq, fqi, fqf, fqa, ht, hk, hp, t)


@njit(cache=True)
def _fq_depart(  # type: ignore[no-untyped-def]
    ff, g, gi, ht, hk, hp, fqq, fqi, fqf, fqa, occ, dhist, ibits, trt, tri, t
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
        heap_push(
            ht, hk, hp, gi, t + 0.5 * ff[f, F_RTT], K_DELIVER, f, gi[GI_SVC_EPOCH], gi[GI_SVC_SEQ]
        )
    gi[GI_SVC] = 0
    _fq_start(g, gi, fqq, fqi, fqf, fqa, ht, hk, hp, t)


# ---------------------------------------------------------------------------- main loop
@njit(cache=True)
def init_events(ff, fi, g, gi, ht, hk, hp, rand, start_s):  # type: ignore[no-untyped-def]
    n = gi[GI_N]
    traffic = gi[GI_TRAFFIC]
    for f in range(n):
        ff[f, F_RTO_EVENT] = INF
        ff[f, F_RTO_EXPIRY] = INF
    if n > 0 and traffic != 2:
        for f in range(n):
            heap_push(ht, hk, hp, gi, start_s[f], K_FLOW, f, 0, 0)
    if traffic == 2:
        heap_push(ht, hk, hp, gi, _exp(rand, gi, 1.0 / g[G_FLOW_RATE]), K_FLOW, -1, 0, 0)
    if g[G_OPEN_RATE] > 0:
        first = 0.0 if gi[GI_OPEN_PERIODIC] != 0 else _exp(rand, gi, 1.0 / g[G_OPEN_RATE])
        heap_push(ht, hk, hp, gi, first, K_OPEN, n, 0, 0)
    if gi[GI_TRACE] != 0:
        heap_push(ht, hk, hp, gi, 0.0, K_SAMPLE, 0, 0, 0)


@njit(cache=True)
def run_chunk(  # type: ignore[no-untyped-def]
    t_stop,
    ff,
    fi,
    rg,
    g,
    gi,
    ht,
    hk,
    hp,
    rand,
    qf,
    fqq,
    fqi,
    fqf,
    fqa,
    occ,
    dhist,
    bhist,
    ibits,
    deliv,
    trt,
    tri,
    st,
    sq,
    scw,
):
    """Process events with time <= min(t_stop, end); return a status code."""
    end = g[G_END]
    limit = min(t_stop, end)
    n = gi[GI_N]
    heap_margin = 2 * (gi[GI_WMASK] + 1) + 16
    trace_margin = 2 * (gi[GI_QMASK] + 1) + 16
    fq = gi[GI_FQ] != 0
    while True:
        if gi[GI_HN] == 0:
            return S_DONE
        t = ht[0]
        if t > end:
            return S_DONE
        if t > limit:
            return S_STOPPED
        if gi[GI_RPOS] + 8 > rand.shape[0]:
            return S_NEED_RANDOM
        if gi[GI_HN] + heap_margin > ht.shape[0]:
            return S_HEAP_FULL
        if gi[GI_TRACE] != 0:
            if gi[GI_TRN] + trace_margin > trt.shape[0]:
                return S_TRACE_FULL
            if gi[GI_SN] + 2 > st.shape[0]:
                return S_SAMPLES_FULL
        kind = hk[0] >> KEY_SHIFT
        payload = hp[0]
        heap_pop(ht, hk, hp, gi)
        f = (payload >> 40) - 1
        epoch = (payload >> 32) & 255
        arg = payload & SEQ_MASK
        if not fq and (kind == K_ARRIVAL or kind == K_OPEN or kind == K_SAMPLE):
            fifo_advance(g, gi, qf, occ, dhist, ibits, trt, tri, t)
        if kind == K_DELIVER:
            deliver(ff, fi, rg, g, gi, ht, hk, hp, rand, deliv, t, f, epoch, arg)
        elif kind == K_ARRIVAL:
            arrive(
                ff, g, gi, ht, hk, hp, rand, qf, fqq, fqi, fqf, fqa, occ, bhist, trt, tri, t, f,
                epoch, arg,
            )  # fmt: skip
        elif kind == K_DEPART:
            _fq_depart(ff, g, gi, ht, hk, hp, fqq, fqi, fqf, fqa, occ, dhist, ibits, trt, tri, t)
        elif kind == K_RTO:
            _rto_fire(ff, fi, rg, g, gi, ht, hk, hp, t, f)
        elif kind == K_DELACK:
            if arg == (fi[f, I_DELACK_GEN] & SEQ_MASK) and fi[f, I_DELACK_COUNT] > 0:
                _send_ack(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f, -1)
        elif kind == K_PACE:
            fi[f, I_PACE_PENDING] = 0
            try_send(ff, fi, rg, g, gi, ht, hk, hp, t, f)
        elif kind == K_OPEN:
            if gi[GI_OPEN_PERIODIC] != 0:
                gap = 1.0 / g[G_OPEN_RATE]
            else:
                gap = _exp(rand, gi, 1.0 / g[G_OPEN_RATE])
            arrive(
                ff, g, gi, ht, hk, hp, rand, qf, fqq, fqi, fqf, fqa, occ, bhist, trt, tri, t, n,
                0, 0,
            )  # fmt: skip
            heap_push(ht, hk, hp, gi, t + gap, K_OPEN, n, 0, 0)
        elif kind == K_FLOW:
            if f >= 0:
                start_flow(ff, fi, rg, g, gi, ht, hk, hp, rand, t, f)
            else:
                heap_push(
                    ht, hk, hp, gi, t + _exp(rand, gi, 1.0 / g[G_FLOW_RATE]), K_FLOW, -1, 0, 0
                )
                free = -1
                for k in range(n):
                    if fi[k, I_ACTIVE] == 0:
                        free = k
                        break
                if free >= 0:
                    start_flow(ff, fi, rg, g, gi, ht, hk, hp, rand, t, free)
                else:
                    gi[GI_BLOCKED] += 1
        elif kind == K_SAMPLE:
            k = gi[GI_SN]
            st[k] = t
            sq[k] = gi[GI_QCOUNT]
            for j in range(scw.shape[1]):
                scw[k, j] = ff[j, F_CWND]
            gi[GI_SN] = k + 1
            heap_push(ht, hk, hp, gi, t + g[G_SAMPLE_INT], K_SAMPLE, 0, 0, 0)


@njit(cache=True)
def finish(ff, g, gi, ht, hk, hp, qf, fqi, occ, dhist, ibits, trt, tri):  # type: ignore[no-untyped-def]
    """Close the books at the end time: flush departures, count packets in flight."""
    end = g[G_END]
    fq = gi[GI_FQ] != 0
    if not fq:
        fifo_advance(g, gi, qf, occ, dhist, ibits, trt, tri, end)
    _account_occupancy(g, gi, occ, end)
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
        lo = max(qf[0, h] - qf[1, h], warm)
        if end > lo:
            g[G_BUSY] += end - lo
    for i in range(gi[GI_HN]):
        kind = hk[i] >> KEY_SHIFT
        f = (hp[i] >> 40) - 1
        if (kind == K_ARRIVAL or kind == K_DELIVER) and 0 <= f < n:
            in_flight += 1
    if fq:
        if gi[GI_SVC] != 0 and gi[GI_SVC_FLOW] < n:
            in_flight += 1
        for f in range(n):
            in_flight += fqi[f, 1]
    gi[GI_IN_FLIGHT] = in_flight
