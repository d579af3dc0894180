"""Per-flow RTTs from the drops of a CSV trace: the round trip without this link's queue.

The first-round spacing of H. Jiang and C. Dovrolis ("Passive estimation of TCP round-trip
times", ACM CCR 32(3), 2002; [21] of 004 §VI) times a packet and the packet its
acknowledgement releases, both as they *leave* the link: the second one has waited in the
link's queue, so the spacing is the RTT plus that queueing delay, which BSCL's RTT excludes
(004 §III.A: "the RTT term of (3) does not include any queueing delays in the target link").
A drop event of the CSV format is timed at the dropped packet's *arrival* at the link. When
the dropped packet was released by the acknowledgement of an earlier departure of its flow,
the time from that departure to the drop is one round trip through the rest of the path,
with no queueing here. Which earlier departure released it is not known, but the lag to the
right one is the same for every drop of the flow (the path's propagation delay), whereas the
lags to the other departures vary: the lag on which most of a flow's drops agree is its RTT.

For each flow with drops, the lags from its first drop to the flow's departures in the
preceding ``MAX_LAG_S`` are the candidates (at most ``CANDIDATES``, the latest); each later
drop adds a vote to every candidate within ``TOLERANCE_S`` of one of its own lags. If after
``RESEED_DROPS`` drops fewer than ``MIN_AGREEMENT`` of them agree on any candidate (the seed
drop was not released by an acknowledgement, e.g. a packet of the initial window or a
retransmission after a timeout), the candidates are taken again from the next drop. A flow's
RTT is the candidate with the most votes among those voted for by a drop more than
``MAX_LAG_S`` after the seed, in another loss episode (the drops of one burst repeat one
pattern of lags and can agree by coincidence), when
at least ``MIN_VOTES`` drops agree on it, they are at least ``MIN_AGREEMENT`` of the drops
examined, and no lag ``RUNNER_UP_DISTANCE_S`` or more away has more than ``MAX_RUNNER_UP`` of its
votes; failing that, the same test on the votes of the other episodes' drops alone (a
slow-start overflow's hundreds of drops repeat one burst's pattern and lend rival lags votes
that the later episodes do not). Otherwise (for example a flow whose drops all fall in one
loss episode: a few LBP flows on a large buffer lose only when their slow start overflows it)
the flow gets, when an
RTT sample that includes this link's queue is known (the first-round spacing: the RTT plus
the queue, so no shorter than the RTT), the lag no longer than that sample on which every
drop examined agrees, with at least ``ALL_AGREE_MIN_DROPS`` drops and no lag
``RUNNER_UP_DISTANCE_S`` away within the bound as many votes, or on which at least
``ALL_AGREE_MIN_DROPS`` drops agree by the counts asked of the other episodes' drops
(``MIN_AGREEMENT`` of the drops examined, no rival within the bound over ``MAX_RUNNER_UP`` of
its votes): a drop whose packet a delayed acknowledgement released (the receiver's timer,
"within 500 ms", RFC 5681 §4.2; ns-2's DelAck sink 100 ms) shows the RTT plus that wait, not
the RTT, so not every drop of an episode need agree. The lag is also no shorter than
that sample less the full buffer's delay B/C where the sample is a clean first round (the
queueing in it is at most B/C; a regular burst also matches short lags, a few packets'
spacings, on which every drop of an episode can agree). The second test, weaker than the
first, also wants the candidates to reach back to the bound: a flow that sent
``CANDIDATES`` packets within a shorter lag than the bound (one near the link's rate sends
512 in about 0.1 s at 50 Mbit/s) may have its RTT among none of them, and most of its drops
then agree on a lag of its burst's pattern. Memory: a ring of the link's
latest ``RING`` departures (each linked to its flow's previous one, so that a drop walks its
own flow's departures only) and ``CANDIDATES`` lags for each flow that drops, up to
``MAX_POOL_FLOWS`` flows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Longest round trip looked for, s.
MAX_LAG_S = 1.0
#: Latest departures of the link kept (covers MAX_LAG_S up to RING/MAX_LAG_S packets/s).
RING = 1 << 18
#: Candidate lags kept per flow.
CANDIDATES = 512
#: Lags closer than this count as the same, s: an acknowledgement releases two or three
#: packets back to back, 12 µs apart on a 1 Gbit/s access link (1500-byte packets).
TOLERANCE_S = 3e-5
#: Drops after the seed before the candidates are taken again if too few of them agree.
RESEED_DROPS = 6
#: Drops that must agree on a lag, and the least share of the examined drops they make.
MIN_VOTES = 2
MIN_AGREEMENT = 0.5
#: The most votes another lag may have, as a share of the best's: a flow whose packets leave
#: back to back at the link's rate matches many lags (multiples of a packet's transmission
#: time) and gives no RTT this way.
MAX_RUNNER_UP = 0.5
#: Lags nearer the best than this are not its rivals: the drops of one burst also match
#: the departures next to their own triggers, a packet or a few earlier or later.
RUNNER_UP_DISTANCE_S = 0.01
#: Drops of one loss episode that must all agree on a lag below the flow's queued RTT
#: sample (:meth:`DropRtt.rtts` with ``upper_bound_s``): two drops of one burst can agree on
#: a wrong lag by coincidence, as the drops and departures of a burst repeat one pattern.
ALL_AGREE_MIN_DROPS = 3
#: Flows with drops that get candidates (later ones keep their first-round RTT).
MAX_POOL_FLOWS = 50_000


class DropRtt:
    """The state of the drop-lag RTT estimate, carried from batch to batch."""

    def __init__(self) -> None:
        self.ring_t = np.full(RING, -np.inf)
        self.ring_prev = np.full(RING, -1, dtype=np.int64)  # the flow's previous departure
        self.tail = np.full(1024, -1, dtype=np.int64)  # flow -> its latest departure
        self.head = np.zeros(1, dtype=np.int64)  # next ring slot (departures written so far)
        self.row = np.full(1024, -1, dtype=np.int64)  # flow -> pool row
        self.pool_lag = np.zeros((64, CANDIDATES))
        self.pool_votes = np.zeros((64, CANDIDATES), dtype=np.int64)
        self.pool_voted = np.zeros((64, CANDIDATES))  # 1: a vote from a later round trip
        # votes from drops of other loss episodes than the seed's, and those drops
        self.pool_far = np.zeros((64, CANDIDATES), dtype=np.int64)
        self.pool_far_drops = np.zeros(64, dtype=np.int64)
        self.pool_last = np.zeros(64)  # time of the seed drop
        # per pool row: candidates, drops examined since the seed, rows used (in [0, 0])
        self.pool_n = np.zeros(64, dtype=np.int64)
        self.pool_drops = np.zeros(64, dtype=np.int64)
        self.used = np.zeros(1, dtype=np.int64)

    def _grow(self, flows: int, batch: int) -> None:
        if self.row.size < flows:
            row = np.full(max(flows, 2 * self.row.size), -1, dtype=np.int64)
            row[: self.row.size] = self.row
            self.row = row
            tail = np.full(row.size, -1, dtype=np.int64)
            tail[: self.tail.size] = self.tail
            self.tail = tail
        need = min(int(self.used[0]) + batch, MAX_POOL_FLOWS)
        rows = self.pool_n.size
        if need > rows:
            new = min(max(need, 2 * rows), MAX_POOL_FLOWS)
            self.pool_lag = np.concatenate([self.pool_lag, np.zeros((new - rows, CANDIDATES))])
            self.pool_votes = np.concatenate(
                [self.pool_votes, np.zeros((new - rows, CANDIDATES), dtype=np.int64)]
            )
            self.pool_voted = np.concatenate([self.pool_voted, np.zeros((new - rows, CANDIDATES))])
            self.pool_far = np.concatenate(
                [self.pool_far, np.zeros((new - rows, CANDIDATES), dtype=np.int64)]
            )
            self.pool_far_drops = np.concatenate(
                [self.pool_far_drops, np.zeros(new - rows, dtype=np.int64)]
            )
            self.pool_last = np.concatenate([self.pool_last, np.zeros(new - rows)])
            self.pool_n = np.concatenate([self.pool_n, np.zeros(new - rows, dtype=np.int64)])
            self.pool_drops = np.concatenate(
                [self.pool_drops, np.zeros(new - rows, dtype=np.int64)]
            )

    def advance(
        self, flows: int, time_s: np.ndarray, flow: np.ndarray, dropped: np.ndarray
    ) -> None:
        """Take one batch of packets (time order) into the ring and the votes."""
        self._grow(flows, int(np.count_nonzero(dropped)))
        _advance(
            self.ring_t,
            self.ring_prev,
            self.tail,
            self.head,
            self.row,
            self.pool_lag,
            self.pool_votes,
            self.pool_voted,
            self.pool_far,
            self.pool_far_drops,
            self.pool_last,
            self.pool_n,
            self.pool_drops,
            self.used,
            time_s,
            flow,
            dropped,
        )

    def rtts(
        self,
        flows: int,
        upper_bound_s: np.ndarray | None = None,
        lower_bound_s: np.ndarray | None = None,
    ) -> np.ndarray:
        """Each flow's RTT from its drops, s (NaN where the drops do not agree on one).

        ``upper_bound_s`` (per flow, NaN: none) is an RTT sample that includes this link's
        queue (the first-round spacing or the handshake RTT): the RTT is no longer. With it, a
        flow whose drops all fall in one loss episode gets the lag within the bound on which
        every drop examined agrees (at least ``ALL_AGREE_MIN_DROPS``), when no lag
        ``RUNNER_UP_DISTANCE_S`` or more away within the bound has as many votes, or on which
        at least ``ALL_AGREE_MIN_DROPS`` drops agree by :func:`_agreed`'s counts (a drop a
        delayed acknowledgement released shows a longer lag) and the flow's candidate lags
        reach back to the bound (module docstring).
        ``lower_bound_s`` (per flow, NaN: none) is the least RTT that sample allows: it
        exceeds the RTT by at most the full buffer's delay B/C (the most queueing a packet
        meets here), so lags shorter than the sample less B/C are left out of that rule.
        """
        out = np.full(flows, np.nan)
        for i in np.flatnonzero(self.row[:flows] >= 0):
            r = int(self.row[i])
            n = int(self.pool_n[r])
            if n == 0:
                continue
            lags = self.pool_lag[r, :n]
            # The seed drop votes for its own candidates: count it among the drops.
            examined = int(self.pool_drops[r]) + 1
            votes = np.where(self.pool_voted[r, :n] > 0, self.pool_votes[r, :n], -1)
            best = _agreed(lags, votes, examined, seed_votes=1)
            # Failing that, the same test on the drops of the other loss episodes alone: a
            # slow-start overflow's hundreds of drops repeat one burst's pattern and lend
            # rival lags votes by coincidence, which the other episodes' drops do not.
            far = int(self.pool_far_drops[r])
            if best < 0 and far >= MIN_VOTES:
                best = _agreed(lags, self.pool_far[r, :n], far, seed_votes=0)
            if best >= 0:
                out[i] = float(lags[best])
                continue
            bound = np.nan if upper_bound_s is None else float(upper_bound_s[i])
            if not (np.isfinite(bound) and examined >= ALL_AGREE_MIN_DROPS):
                continue
            within = lags <= bound + TOLERANCE_S
            least = np.nan if lower_bound_s is None else float(lower_bound_s[i])
            if np.isfinite(least):
                within &= lags >= least - TOLERANCE_S
            if not within.any():
                continue
            votes = np.where(within, self.pool_votes[r, :n], -1)
            best = int(np.argmax(votes))
            agree = int(votes[best]) + 1
            others = within & (np.abs(lags - lags[best]) > RUNNER_UP_DISTANCE_S)
            runner_up = int(votes[others].max()) + 1 if others.any() else 0
            if agree == examined and runner_up < agree:
                out[i] = float(lags[best])
                continue
            # Not every drop agrees: one released by a delayed acknowledgement shows the RTT
            # plus the receiver's wait. The lag most of them agree on, without a rival, when
            # the candidates reach back to the bound (else the RTT may be among none of them).
            if n == CANDIDATES and lags[-1] < bound - TOLERANCE_S:
                continue
            best = _agreed(lags, votes, examined, seed_votes=1, least=ALL_AGREE_MIN_DROPS)
            if best >= 0:
                out[i] = float(lags[best])
        return out


def _agreed(
    lags: np.ndarray, votes: np.ndarray, drops: int, seed_votes: int, least: int = MIN_VOTES
) -> int:
    """The candidate on which the drops agree (module docstring), or -1.

    ``votes`` per candidate (-1: left out), ``drops`` the drops examined, ``seed_votes`` 1
    where the seed drop counts among them (it votes for every candidate), else 0; ``least``
    the fewest drops that must agree.
    """
    best = int(np.argmax(votes))
    agree = int(votes[best]) + seed_votes
    others = (np.abs(lags - lags[best]) > RUNNER_UP_DISTANCE_S) & (votes >= 0)
    runner_up = int(votes[others].max()) + seed_votes if others.any() else 0
    if agree >= least and agree >= MIN_AGREEMENT * drops and runner_up <= MAX_RUNNER_UP * agree:
        return best
    return -1


@njit(cache=True)
def _seed(ring_t, ring_prev, tail, head, lag, t, i):
    """The lags from a drop of flow i at t to the flow's departures in the ring, sorted."""
    n = 0
    k = tail[i]
    stop = max(head - ring_t.size, 0)
    while k >= stop and n < lag.size:
        j = k % ring_t.size
        d = t - ring_t[j]
        if d > MAX_LAG_S:
            break
        if d > 0.0:
            lag[n] = d
            n += 1
        k = ring_prev[j]
    lag[:n].sort()
    return n


@njit(cache=True)
def _reseed(
    ring_t,
    ring_prev,
    tail,
    head,
    pool_lag,
    pool_votes,
    pool_voted,
    pool_far,
    pool_n,
    pool_drops,
    pool_far_drops,
    pool_last,
    r,
    t,
    i,
):
    """Pool ``r`` starts again from drop ``i`` at ``t``: its candidate lags, votes and counts."""
    pool_n[r] = _seed(ring_t, ring_prev, tail, head, pool_lag[r], t, i)
    pool_votes[r, :] = 0
    pool_voted[r, :] = 0.0
    pool_far[r, :] = 0
    pool_drops[r] = 0
    pool_far_drops[r] = 0
    pool_last[r] = t


@njit(cache=True)
def _advance(
    ring_t,
    ring_prev,
    tail,
    head,
    row,
    pool_lag,
    pool_votes,
    pool_voted,
    pool_far,
    pool_far_drops,
    pool_last,
    pool_n,
    pool_drops,
    used,
    time_s,
    flow,
    dropped,
):
    for k in range(time_s.size):
        i = flow[k]
        t = time_s[k]
        if not dropped[k]:
            h = head[0]
            ring_t[h % ring_t.size] = t
            ring_prev[h % ring_t.size] = tail[i]
            tail[i] = h
            head[0] = h + 1
            continue
        r = row[i]
        fresh = r < 0
        if fresh:
            if used[0] >= pool_n.size:
                continue
            r = used[0]
            used[0] += 1
            row[i] = r
        n = pool_n[r]
        if (
            fresh
            or n == 0
            or (
                pool_drops[r] >= RESEED_DROPS
                and pool_votes[r, :n].max() + 1 < MIN_AGREEMENT * (pool_drops[r] + 1)
            )
        ):
            _reseed(
                ring_t,
                ring_prev,
                tail,
                head[0],
                pool_lag,
                pool_votes,
                pool_voted,
                pool_far,
                pool_n,
                pool_drops,
                pool_far_drops,
                pool_last,
                r,
                t,
                i,
            )
            continue
        pool_drops[r] += 1
        far = t - pool_last[r] > MAX_LAG_S
        if far:
            pool_far_drops[r] += 1
        cand = pool_lag[r, :n]
        last = -1
        q = tail[i]
        stop = max(head[0] - ring_t.size, 0)
        while q >= stop:
            j = q % ring_t.size
            d = t - ring_t[j]
            if d > MAX_LAG_S:
                break
            if d > 0.0:
                # Candidates within the tolerance of this lag get one vote per drop.
                lo = np.searchsorted(cand, d - TOLERANCE_S)
                hi = np.searchsorted(cand, d + TOLERANCE_S, side="right")
                for c in range(max(lo, last + 1), hi):
                    pool_votes[r, c] += 1
                    # A vote from another loss episode than the seed's: the drops of one
                    # burst repeat one pattern of lags and may agree by coincidence.
                    if far:
                        pool_voted[r, c] = 1.0
                        pool_far[r, c] += 1
                    last = c
            q = ring_prev[j]
