"""This link's queueing delay, read from the flows that a slower link before it paces.

An RTT sample taken by a packet spacing (the first round or a restart's slow start: H. Jiang,
C. Dovrolis, "Passive estimation of TCP round-trip times", ACM CCR 32(3), 2002, [21] of 004
§VI) is the RTT plus the wait w of its second flight's first packet at this link; BSCL's RTT
excludes that wait (004 §III.A: T_e "does not include any queueing delays in the target
link"; §VI takes the RTTs "before the latter builds up any queueing at the target link"). A
flow that starts into a standing queue keeps it in its sample, by up to the full buffer's
delay B/C. This module reconstructs w(t) from the flows bottlenecked elsewhere (RBP, 004 §VI)
that a slower access link paces (004 §VII's RBP flows sit behind such links): while that
link is backlogged, the flow's k-th packet of a backlogged *stretch* reaches this link at
a0 + k·P, P being one packet's transmission time there. Neither a0 nor P is in the trace, but
a trace with the link's drop events bounds every arrival a_k (a FIFO link; d_k the packet's
departure, τ its transmission here, Q = B/C):

- a_k <= d_k − τ (no negative wait) and a_k >= d_k − τ − Q (no wait beyond a full buffer);
- a_k >= the start of the link's busy period that the packet left in (the link was idle
  before it and held nothing from before; a packet that began a busy period arrived at
  d_k − τ);
- a drop at t_D (any flow's; it is timed at its arrival) found the buffer full, about Q of
  work ahead of it: a packet that left before t_D + Q − 2τ arrived before t_D (2τ: whether the
  full buffer counts the packet in service);
- the flow's own drop is timed at its arrival: a_k = t_D. It is put after the flow's packets
  that left before t_D + Q (they arrived before it).

Each bound is linear in (a0, P), so the stretch's feasible (a0, P) is a convex polygon, kept
per flow and clipped packet by packet (memory per flow, not per packet). When the stretch
ends, P is the middle of the polygon's range of P and a0 the middle of its range of a0 at that
P, and a packet's wait is d_k − τ − (a0 + k·P), kept in [0, Q]. Drops and idle instants pin
(a0, P) down; without them a queue that grows steadily could not be told from a longer P
(a stretch's lowest waits alone, taken as 0, give a P off by the queue's growth rate).

A stretch ends where the flow's arrivals jump by more than Q plus its typical spacing (the
median of its first ``PERIOD_SPACINGS`` spacings; its access link went idle). A stretch
shorter than ``MIN_STRETCH`` packets, or with no feasible (a0, P) (a break the rule missed,
a flow that no slower link paces), gives no wait. The wait at a sample's time is each flow's
waits interpolated between its departures around it (within one stretch); the estimator
takes the median over the RBP flows (:func:`sample_waits`), so that a flow classed RBP that
no slower link paces is outvoted.

On 004 §VII's mix (``studies/trace_queue_estimated.py``, 198 simulated traces) the P of
1680 of 1682 RBP flows came within 0.1 % of the access link's, and the spacing samples less
these waits were within [21]'s max(10 %, 5 ms) of the true RTT for 110 of the 111 LBP flows
timed by a spacing (studies/results/trace_queue_estimated.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import njit

from validation.traces.kernel import busy_start
from validation.traces.records import BoolArray, FloatArray, TraceReader

#: RBP flows followed at most (the estimator takes those that sent most): the state of the
#: samples grows with samples x followed flows.
MAX_FOLLOWED = 64
#: Packets a stretch needs to give waits.
MIN_STRETCH = 20
#: Spacings whose median is the flow's typical spacing (the stretch rule's).
PERIOD_SPACINGS = 64
#: Vertices a flow's polygon may have (a stretch whose polygon would need more gives no wait).
MAX_VERTICES = 64
#: Slack of every bound, s (a drop's equality holds to it).
SLACK_S = 1e-7
#: Drop times kept for the FIFO bound (those of the last Q seconds are the ones used).
DROP_RING = 1 << 16
#: The flow's own drops that may wait to be placed (beyond, its stretch gives no wait).
PENDING = 16
#: The largest P a polygon starts with, s.
MAX_PERIOD_S = 100.0

# Per-flow float state columns.
_BASE, _PREV_Y, _P0, _DEP_K, _DEP_Y, _DEP_T, _STRETCH_F = range(7)
_FLOATS = 7
# Per-flow int state columns.
_N, _DEAD, _NV, _NPEND, _NSPACING, _STRETCH, _QPTR, _DEP_STRETCH = range(8)
_INTS = 8


@njit(cache=True)
def _clip(px, py, nv, a, b, c, ox, oy):
    """Clip the convex polygon (px, py)[:nv] to a·x + b·y <= c; the vertices into (ox, oy).
    Returns their number (-1: more than the arrays hold)."""
    out = 0
    for i in range(nv):
        j = (i + 1) % nv
        si = a * px[i] + b * py[i] - c
        sj = a * px[j] + b * py[j] - c
        if si <= 0.0:
            if out >= ox.size:
                return -1
            ox[out] = px[i]
            oy[out] = py[i]
            out += 1
        if (si < 0.0 < sj) or (sj < 0.0 < si):
            if out >= ox.size:
                return -1
            r = si / (si - sj)
            ox[out] = px[i] + r * (px[j] - px[i])
            oy[out] = py[i] + r * (py[j] - py[i])
            out += 1
    return out


@njit(cache=True)
def _solve(px, py, nv):
    """(a0, P): P the middle of the polygon's P range, a0 the middle of its a0 range there."""
    p_low, p_high = py[0], py[0]
    for i in range(1, nv):
        p_low = min(p_low, py[i])
        p_high = max(p_high, py[i])
    p = 0.5 * (p_low + p_high)
    a_low, a_high = np.inf, -np.inf
    for i in range(nv):
        j = (i + 1) % nv
        if py[i] == p:
            a_low = min(a_low, px[i])
            a_high = max(a_high, px[i])
        if (py[i] - p) * (py[j] - p) < 0.0:
            x = px[i] + (p - py[i]) * (px[j] - px[i]) / (py[j] - py[i])
            a_low = min(a_low, x)
            a_high = max(a_high, x)
    return 0.5 * (a_low + a_high), p


@njit(cache=True)
def _close(r, rf, ri, px, py, q_time, rec, waits, full_s):
    """End flow ``r``'s stretch: the waits at the sample times recorded in it."""
    stretch = ri[r, _STRETCH]
    ok = ri[r, _N] >= MIN_STRETCH and ri[r, _DEAD] == 0 and ri[r, _NV] >= 1
    a0, p = 0.0, 0.0
    if ok:
        a0, p = _solve(px[r], py[r], ri[r, _NV])
    for q in range(q_time.size):
        if rec[q, r, 6] != stretch:
            continue
        rec[q, r, 6] = -1.0
        if not ok:
            continue
        w1 = min(max(rec[q, r, 1] - (a0 + rec[q, r, 0] * p), 0.0), full_s)
        w2 = min(max(rec[q, r, 4] - (a0 + rec[q, r, 3] * p), 0.0), full_s)
        t1, t2 = rec[q, r, 2], rec[q, r, 5]
        waits[q, r] = w2 if t2 <= t1 else w1 + (w2 - w1) * (q_time[q] - t1) / (t2 - t1)
    ri[r, _STRETCH] += 1


@njit(cache=True)
def _point(r, y, lo, hi, t_dep, rf, ri, px, py, tx, ty, spacings, q_time, rec, waits, full_s):
    """One packet (its arrival bounds lo <= a <= hi, and y the latest it can be) of flow ``r``,
    ``t_dep`` its departure (NaN: a drop)."""
    if ri[r, _N] > 0:
        spacing = y - rf[r, _PREV_Y]
        m = ri[r, _NSPACING]
        if m < PERIOD_SPACINGS:
            spacings[r, m] = spacing
            ri[r, _NSPACING] = m + 1
            rf[r, _P0] = np.median(spacings[r, : m + 1])
        if spacing > rf[r, _P0] + full_s:
            _close(r, rf, ri, px, py, q_time, rec, waits, full_s)
            ri[r, _N] = 0
    if ri[r, _N] == 0:
        rf[r, _BASE] = y
        ri[r, _DEAD] = 0
        # a0 in [-2Q - 1, 1] s and P in [0, MAX_PERIOD_S], to be clipped
        px[r, 0], py[r, 0] = -2.0 * full_s - 1.0, 0.0
        px[r, 1], py[r, 1] = 1.0, 0.0
        px[r, 2], py[r, 2] = 1.0, MAX_PERIOD_S
        px[r, 3], py[r, 3] = -2.0 * full_s - 1.0, MAX_PERIOD_S
        ri[r, _NV] = 4
    k = float(ri[r, _N])
    base = rf[r, _BASE]
    if ri[r, _DEAD] == 0:
        nv = _clip(px[r], py[r], ri[r, _NV], 1.0, k, hi - base + SLACK_S, tx, ty)
        if nv >= 3:
            nv = _clip(tx, ty, nv, -1.0, -k, -(lo - base - SLACK_S), px[r], py[r])
        if nv < 3:
            ri[r, _DEAD] = 1
        else:
            ri[r, _NV] = nv
    ri[r, _N] += 1
    rf[r, _PREV_Y] = y
    if t_dep != t_dep:
        return
    # The samples taken between the flow's previous departure and this one.
    while ri[r, _QPTR] < q_time.size and q_time[ri[r, _QPTR]] <= t_dep:
        q = ri[r, _QPTR]
        ri[r, _QPTR] += 1
        same = ri[r, _DEP_STRETCH] == ri[r, _STRETCH] and rf[r, _DEP_T] == rf[r, _DEP_T]
        if not same and q_time[q] < t_dep:
            continue
        rec[q, r, 0] = k if not same else rf[r, _DEP_K]
        rec[q, r, 1] = y - base if not same else rf[r, _DEP_Y]
        rec[q, r, 2] = t_dep if not same else rf[r, _DEP_T]
        rec[q, r, 3] = k
        rec[q, r, 4] = y - base
        rec[q, r, 5] = t_dep
        rec[q, r, 6] = float(ri[r, _STRETCH])
    rf[r, _DEP_K] = k
    rf[r, _DEP_Y] = y - base
    rf[r, _DEP_T] = t_dep
    ri[r, _DEP_STRETCH] = ri[r, _STRETCH]


@njit(cache=True)
def _flush(r, until, rf, ri, px, py, tx, ty, spacings, pending, q_time, rec, waits, full_s):
    """Place flow ``r``'s own drops whose time plus Q is no later than ``until``."""
    n = ri[r, _NPEND]
    used = 0
    while used < n and pending[r, used] + full_s <= until:
        t = pending[r, used]
        _point(r, t, t, t, np.nan, rf, ri, px, py, tx, ty, spacings, q_time, rec, waits, full_s)
        used += 1
    for i in range(used, n):
        pending[r, i - used] = pending[r, i]
    ri[r, _NPEND] = n - used


@njit(cache=True)
def advance(
    time_s,
    flow,
    size_bytes,
    dropped,
    slot,
    per_byte,
    full_s,
    link,
    ring,
    rf,
    ri,
    px,
    py,
    tx,
    ty,
    spacings,
    pending,
    q_time,
    rec,
    waits,
):
    """One batch of the trace (time order). ``slot[f]`` is flow f's row in the state (-1: not
    followed); ``link`` holds the latest departure's time and size, the busy period's start
    and the number of drops seen (``ring`` keeps their times)."""
    for n in range(time_s.size):
        t = time_s[n]
        size = float(size_bytes[n])
        r = slot[flow[n]]
        if dropped[n]:
            ring[int(link[3]) % ring.size] = t
            link[3] += 1.0
            if r >= 0:
                if ri[r, _NPEND] >= PENDING:
                    ri[r, _DEAD] = 1
                else:
                    pending[r, ri[r, _NPEND]] = t
                    ri[r, _NPEND] += 1
            continue
        link[2] = busy_start(t, size, per_byte, link[0], link[1], link[2])
        link[0] = t
        link[1] = size
        if r < 0:
            continue
        _flush(r, t, rf, ri, px, py, tx, ty, spacings, pending, q_time, rec, waits, full_s)
        tau = per_byte * size
        y = t - tau
        lo = max(y - full_s, link[2])
        hi = y
        # The earliest drop at or after t - Q + 2τ (drops up to t are in the ring).
        seen = int(link[3])
        first = max(seen - ring.size, 0)
        edge = t - full_s + 2.0 * tau
        low, high = first, seen
        while low < high:
            mid = (low + high) // 2
            if ring[mid % ring.size] < edge:
                low = mid + 1
            else:
                high = mid
        if low < seen:
            hi = min(hi, ring[low % ring.size])
        _point(r, y, lo, hi, t, rf, ri, px, py, tx, ty, spacings, q_time, rec, waits, full_s)


@njit(cache=True)
def finish(rf, ri, px, py, tx, ty, spacings, pending, q_time, rec, waits, full_s):
    """Place the drops still waiting and end every flow's stretch."""
    for r in range(ri.shape[0]):
        _flush(r, np.inf, rf, ri, px, py, tx, ty, spacings, pending, q_time, rec, waits, full_s)
        _close(r, rf, ri, px, py, q_time, rec, waits, full_s)


def paced_waits(
    reader: TraceReader,
    paced: BoolArray,
    sample_at_s: FloatArray,
    capacity_bps: float,
    queue_full_s: float,
    progress: Callable[[float], None] | None = None,
) -> FloatArray:
    """Each paced flow's reconstructed wait here at each sample time (rows: samples, columns:
    the flows of ``paced`` in order; NaN where its stretches do not cover it): one reading of
    ``reader`` (a trace with the link's drop events; see the module). ``progress``, when
    given, is called with the fraction of the file read, from 0 to 1."""
    followed = np.flatnonzero(paced)
    samples = sample_at_s.size
    order = np.argsort(sample_at_s, kind="stable")
    q_time = np.ascontiguousarray(sample_at_s[order], dtype=np.float64)
    rows = followed.size
    rf = np.full((rows, _FLOATS), np.nan)
    ri = np.zeros((rows, _INTS), dtype=np.int64)
    px = np.zeros((rows, MAX_VERTICES))
    py = np.zeros((rows, MAX_VERTICES))
    tx = np.zeros(MAX_VERTICES)
    ty = np.zeros(MAX_VERTICES)
    spacings = np.zeros((rows, PERIOD_SPACINGS))
    pending = np.zeros((rows, PENDING))
    rec = np.full((samples, rows, 7), np.nan)
    waits = np.full((samples, rows), np.nan)
    link = np.array([-np.inf, 0.0, -np.inf, 0.0])
    ring = np.full(DROP_RING, np.nan)
    per_byte = 8.0 / capacity_bps
    slot = np.full(0, -1, dtype=np.int64)
    if progress is not None:
        progress(0.0)
    for batch in reader.batches():
        if len(batch) == 0:
            continue
        flows = len(reader.flows)
        if slot.size < flows:
            slot = np.full(flows, -1, dtype=np.int64)
            inside = followed[followed < flows]
            slot[inside] = np.searchsorted(followed, inside)
        advance(
            batch.time_s,
            batch.flow,
            batch.size_bytes,
            batch.dropped,
            slot,
            per_byte,
            queue_full_s,
            link,
            ring,
            rf,
            ri,
            px,
            py,
            tx,
            ty,
            spacings,
            pending,
            q_time,
            rec,
            waits,
        )
        if progress is not None and reader.total_bytes > 0:
            progress(min(reader.bytes_read / reader.total_bytes, 1.0))
    if progress is not None:
        progress(1.0)
    finish(rf, ri, px, py, tx, ty, spacings, pending, q_time, rec, waits, queue_full_s)
    out = np.full((samples, rows), np.nan)
    out[order] = waits
    return out


def median_wait(waits: FloatArray) -> FloatArray:
    """Per sample, the median of the flows' waits that cover it (NaN where none does)."""
    out = np.full(waits.shape[0], math.nan)
    for q in range(waits.shape[0]):
        found = waits[q][np.isfinite(waits[q])]
        if found.size:
            out[q] = float(np.median(found))
    return out
