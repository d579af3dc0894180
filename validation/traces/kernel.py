"""The per-packet pass of the estimators, compiled with numba: per-flow state in arrays.

One call advances every flow's state over a batch of packets in time order. The state of flow
``i`` is row ``i`` of two arrays (:data:`FLOAT_FIELDS` and :data:`INT_FIELDS` name the
columns), so memory grows with the number of flows, never with the length of the trace.

Per flow it measures (004 §VI):

- the first-round spacing (H. Jiang, C. Dovrolis, CCR 2002, [21] of 004): the flow's first
  flight of packets passes as a burst, the second one a round-trip time later; the spacing of
  their first packets is an RTT sample taken when the flow starts, less ``queue_s`` then
  (the second flight waited in this queue; the RTT of BSCL excludes it, 004 §III.A), and
  ``queue_max_s``, the most that queueing can be: the time since the link's current busy
  period began (:func:`_busy_queue_max`; a restart sample has its own,
  ``restart_queue_max_s``). A gap
  closes the first flight when it is longer than ``GAP_FACTOR`` times the longest gap inside
  the flight, than ``GAP_FACTOR`` times the packet's transmission time at the link and than
  ``GAP_MIN_S``. A burst leaves the link back to back, one transmission time apart (1.2 ms
  for 1500 bytes at 10 Mbit/s): that spacing is inside the flight, whatever ``GAP_MIN_S``
  says (without it, the flight's second packet closed a one-packet first flight on links
  below 12 Mbit/s, and the "RTT sample" was one transmission time). The transmission time
  needs the capacity: where it is not given, only ``GAP_MIN_S`` and the flight's own gaps
  count;
- drops in the first flight: the second flight then follows a retransmission (after a
  timeout, or a lone packet's delayed acknowledgement), not the first flight's
  acknowledgements, and the spacing is no RTT sample;
- after a drop in the first flight, an RTT sample from the slow start that restarts the flow
  (the ``restart_*`` columns, :func:`_restart_flights`): a sender whose first flight was
  lost waits out a retransmission timeout and starts again from one segment ("upon a
  timeout ... cwnd MUST be set to no more than the loss window, LW, which equals 1
  full-sized segment", RFC 5681 §3.1; the timer, RFC 6298 §5), i.e. it runs a new slow
  start, whose flights [21]'s first-round spacing times as at the flow's start: the shorter
  spacing of the first departures of its second and third flights or third and fourth (the
  first is the lone retransmission, whose acknowledgement may wait for the receiver's
  delayed-ACK timer: RFC 5681 §4.2, "an ACK SHOULD be generated for at least every second
  full-sized segment, and MUST be generated within 500 ms"). ``restart_queue_s`` is the
  queueing correction of the first round (``queue_s`` at the later flight's first
  departure);
- in those flights, an upper bound of the RTT (``restart_bound_s``, the shortest such
  spacing): a lone departure L more than R + Q + D after the flow's latest departure, or
  with none before it (R the flow's first-round spacing as measured, no shorter than its
  RTT; Q the full buffer's delay; D ``ACK_DELAY_MAX_S``), and the flow's next departure A.
  Every acknowledgement of a packet that left before L reached the sender before L was
  sent (dropped packets are acknowledged by nobody), so A was sent on an
  acknowledgement of L (or a later timeout) and left at least one RTT after L, when no
  slower link upstream queues the flow (:func:`_restart_flights`);
- whether the start looks like TCP's slow start: the packets of the first flight and of the
  round after it, and the drops among them (in a capture, which has no drop events, the
  losses whose holes the capture saw in them, counted when the retransmission passes; a
  window-based flow whose second flight is no larger than its first, with no loss, is held
  by its window, not by congestion);
- how many of the flow's departures directly follow one of its own at the link (a flow
  paced by a slower link upstream almost never leaves back to back);
- the flow's loss-free stretches after the warm-up (from its end, or a loss of the flow
  here, to the next loss): the longest one's length less its longest silence (a
  retransmission timeout, backed off or not, is one such silence) and its departures, and
  the same of the stretch still open;
- rounds of one RTT (the handshake RTT where the capture saw it, otherwise the first-round
  spacing, plus ``queue_s`` at the round's start) and the packets sent in each; a **rate
  reduction** is a pair of rounds with fewer than ``REDUCTION_RATIO`` times the packets of
  the pair before it, when that pair had at least ``MIN_PEAK_PACKETS`` packets a round
  (smaller windows cannot show a halving). Pairs of rounds, not single rounds, because a
  round that is not aligned with the flow's bursts catches one burst more or less. The two
  pairs after a reduction are not tested again (one window halving lowers several rounds);
- a reduction is **explained** by a loss at the link when the flow's latest loss here fell
  less than ``EXPLAIN_ROUNDS`` rounds before the reduced round began (the sender learns of a
  drop about one RTT after it and halves then), otherwise **unexplained** (004 §VI: "If a rate
  reduction of flow X is not preceded in the recent past by a packet loss by that flow at the
  target link, we infer that the window reduction must have been a consequence of a packet
  loss in some other link").
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Float columns of the per-flow state.
FLOAT_FIELDS = (
    "first_s",
    "last_s",
    "flight_start_s",
    "flight_gap_s",
    "first_round_rtt_s",
    "round_rtt_s",
    "round_start_s",
    "last_loss_s",
    "bytes_measured",
    "queue_at_rtt_s",
    "rtt_sample_at_s",
    "raw_rtt_s",
    "first_gap_s",
    "stretch_silence_s",
    "stretch_start_s",
    "longest_stretch_s",
    "restart_start_s",
    "restart_gap_s",
    "restart_silence_s",
    "restart_start_queue_s",
    "restart_last_s",
    "restart_raw_s",
    "restart_at_s",
    "restart_queue_s",
    "restart_b_start_s",
    "restart_b_queue_s",
    "restart_a_start_s",
    "restart_lone_silence_s",
    "restart_b_silence_s",
    "restart_a_silence_s",
    "restart_taint_until_s",
    "restart_bound_s",
    "restart_start_queue_max_s",
    "restart_b_queue_max_s",
    "restart_queue_max_s",
    "restart_quiet_s",
    "queue_max_s",
    "flight2_end_s",
)
#: Integer columns of the per-flow state.
INT_FIELDS = (
    "packets",
    "flight_phase",
    "round_count",
    "prev1",
    "prev2",
    "prev3",
    "rounds",
    "explained",
    "unexplained",
    "skip_next",
    "drops_measured",
    "packets_measured",
    "max_size_bytes",
    "tested",
    "covered",
    "flight1_packets",
    "flight2_packets",
    "back_to_back",
    "start_drops",
    "first_flight_drops",
    "stretch_packets",
    "longest_stretch_packets",
    "restart_state",
    "restart_packets",
    "restart_dirty",
    "restart_b_packets",
    "restart_a_packets",
    "restart_lone_packets",
)
F = {name: i for i, name in enumerate(FLOAT_FIELDS)}
I = {name: i for i, name in enumerate(INT_FIELDS)}  # noqa: E741

GAP_MIN_S = 1e-3
#: The longest a receiver holds an acknowledgement, s: Linux's TCP_DELACK_MAX (HZ/5,
#: include/net/tcp.h; ns-2's DelAck sink 100 ms). RFC 5681 §4.2 and RFC 1122 §4.2.3.2 allow
#: up to 500 ms; a longer D only weakens the bound of ``estimate._window_still``.
ACK_DELAY_MAX_S = 0.2
GAP_FACTOR = 4.0
REDUCTION_RATIO = 0.7
MIN_PEAK_PACKETS = 4
EXPLAIN_ROUNDS = 4.0
ROUND_QUEUE_SHARE = 1.0
QUEUE_RECENT_S = 1.0

_FIRST, _LAST, _FL_START, _FL_GAP, _RTT1, _RTTR, _RSTART, _LLOSS, _BYTES, _QRTT = range(10)
_TSAMPLE, _RAW, _GAP1, _SILENCE, _SSTART, _SLONG = 10, 11, 12, 13, 14, 15
(_PK, _PHASE, _RCOUNT, _P1, _P2, _P3, _ROUNDS, _EXPL, _UNEXPL, _SKIP, _DROPS, _PKM, _MAXSZ) = range(
    13
)
_TESTED, _COVERED, _N1, _N2, _B2B, _SDROPS, _FDROPS, _SPK, _SLONGPK = range(13, 22)
# The restart columns, in the order of FLOAT_FIELDS and INT_FIELDS (named there).
(
    _RS_START,
    _RS_GAP,
    _RS_SIL,
    _RS_SQ,
    _RS_LASTANY,
    _RS_RAW,
    _RS_AT,
    _RS_Q,
    _RS_B_START,
    _RS_B_Q,
    _RS_A_START,
    _RS_L_SIL,
    _RS_B_SIL,
    _RS_A_SIL,
    _RS_TAINT,
    _RS_BOUND,
    _RS_SQMAX,
    _RS_B_QMAX,
    _RS_QMAX,
    _RS_QUIET,
) = (F[name] for name in FLOAT_FIELDS if name.startswith("restart_"))
_RS_STATE, _RS_N, _RS_DIRTY, _RS_B_N, _RS_A_N, _RS_L_N = (
    I[name] for name in INT_FIELDS if name.startswith("restart_")
)
_QMAX = F["queue_max_s"]
_FL2_END = F["flight2_end_s"]
#: Timestamp error allowed when a gap between two departures is read as the link going idle,
#: s: two timestamps of a capture at microsecond resolution (libpcap's default) are each off
#: by less than 1 µs.
IDLE_SLACK_S = 2e-6
#: An RTT sample less the queueing delay put in it is kept at no less than this share of the
#: sample as measured (a queue estimate never takes a sample to 0).
MIN_RTT_SHARE = 0.1


def new_state(flows: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed state for ``flows`` rows (times NaN where not yet seen)."""
    fs = np.full((flows, len(FLOAT_FIELDS)), np.nan)
    fs[:, _BYTES] = 0.0
    fs[:, _LLOSS] = -np.inf
    fs[:, _QRTT] = 0.0
    fs[:, _SILENCE] = 0.0
    fs[:, _SLONG] = 0.0
    return fs, np.zeros((flows, len(INT_FIELDS)), dtype=np.int64)


def new_link(capacity_bps: float | None) -> np.ndarray:
    """The link-wide state :func:`advance` carries from batch to batch (see there)."""
    per_byte = 8.0 / capacity_bps if capacity_bps else 0.0
    return np.array([-np.inf, np.inf, -1.0, per_byte, -np.inf, 0.0, np.nan])


@njit(cache=True)
def _busy_queue_max(t: float, size: float, link: np.ndarray) -> float:
    """The most a packet departing at ``t`` can have waited here, s (NaN: no bound).

    A FIFO link that was idle at some instant holds no packet that arrived before it, so the
    packet arrived after the start of the link's current busy period: its wait and
    transmission are at most ``t`` less the first departure of that period plus that
    departure's transmission time (``link[6]``). A busy period is a run of departures each
    no more than its own or the previous packet's transmission time (and ``IDLE_SLACK_S``)
    after the one before. It needs the capacity (``link[3]``)."""
    if not link[3] > 0.0:
        return np.nan
    link[6] = busy_start(t, size, link[3], link[4], link[5], link[6])
    link[4] = t
    link[5] = size
    waited: float = t - link[6]
    return waited


@njit(cache=True)
def busy_start(
    t: float, size: float, per_byte: float, last_s: float, last_size: float, start_s: float
) -> float:
    """The start of the link's busy period that a departure at ``t`` of ``size`` bytes ends
    in: ``start_s``, the current one's, when it leaves no more than its own or the previous
    departure's (at ``last_s``, ``last_size`` bytes) transmission time after that one (and
    ``IDLE_SLACK_S``); else its own transmission's start (the link was idle before it)."""
    if t - last_s <= per_byte * max(size, last_size) + IDLE_SLACK_S:
        return start_s
    return t - per_byte * size


@njit(cache=True)
def less_queue(raw_s, queue_s):
    """RTT sample(s) ``raw_s`` less the queueing delay ``queue_s`` in them, kept at no less
    than ``MIN_RTT_SHARE`` of the sample (scalars or arrays)."""
    return np.maximum(raw_s - queue_s, MIN_RTT_SHARE * raw_s)


@njit(cache=True)
def _queue_s(t: float, last_drop_s: float, queue_full_s: float) -> float:
    return queue_full_s if t - last_drop_s < QUEUE_RECENT_S * queue_full_s else 0.0


@njit(cache=True)
def _close_rounds(
    fs: np.ndarray,
    fi: np.ndarray,
    i: int,
    t: float,
    warm_s: float,
    last_drop_s: float,
    queue_full_s: float,
) -> None:
    """Close every round of flow ``i`` that ended before ``t``."""
    r = fs[i, _RTTR] + ROUND_QUEUE_SHARE * queue_full_s
    while t >= fs[i, _RSTART] + r:
        start = fs[i, _RSTART]
        count = fi[i, _RCOUNT]
        recent = count + fi[i, _P1]
        before = fi[i, _P2] + fi[i, _P3]
        if start >= warm_s:
            fi[i, _ROUNDS] += 1
            if fi[i, _SKIP] > 0:
                fi[i, _SKIP] -= 1
            elif before >= 2 * MIN_PEAK_PACKETS:
                covered = fs[i, _LLOSS] >= start - EXPLAIN_ROUNDS * r
                fi[i, _TESTED] += 1
                if covered:
                    fi[i, _COVERED] += 1
                if recent < REDUCTION_RATIO * before:
                    if covered:
                        fi[i, _EXPL] += 1
                    else:
                        fi[i, _UNEXPL] += 1
                    fi[i, _SKIP] = 2
        fi[i, _P3] = fi[i, _P2]
        fi[i, _P2] = fi[i, _P1]
        fi[i, _P1] = count
        fi[i, _RCOUNT] = 0
        fs[i, _RSTART] = start + r
        if count == 0 and fi[i, _P2] == 0:
            # Idle for two rounds or more: restart the rounds at the next packet.
            fs[i, _RSTART] = t
            break


@njit(cache=True)
def _restart_flights(
    fs: np.ndarray,
    fi: np.ndarray,
    i: int,
    t: float,
    dropped: bool,
    transmission_s: float,
    last_drop_s: float,
    queue_full_s: float,
    queue_max_s: float,
) -> None:
    """One packet of flow ``i`` into the flights that follow a loss in its first flight.

    The flights are cut as the first one is (a gap over ``GAP_FACTOR`` times the longest
    inside the flight, ``GAP_FACTOR`` transmission times and ``GAP_MIN_S``); a flight counts
    its packets when it is *clean*, none otherwise. A drop (timed at the packet's arrival)
    taints the flight in progress and a flight whose first departure comes within the full
    buffer's delay ``queue_full_s`` after it (the dropped packet may be one of its own, which
    arrived while its first packet waited in the queue).

    A slow start from one segment after a retransmission timeout (RFC 5681 §3.1) shows as a
    lone packet L (the retransmission) after a silence longer than ``ACK_DELAY_MAX_S`` (no
    delayed acknowledgement waits that long, RFC 5681 §4.2; the timeout does, at least
    200 ms in Linux, 1 s by RFC 6298 §2.4), then flights A, B and C that grow (two packets or
    more, each larger than the one before: each was clocked by the acknowledgements of the
    one before, RFC 5681 §3.1's slow start). The spacings of their first departures, A to B
    and B to C, are each the RTT plus this link's queue as met by B and C; the sample is the
    shorter (the less queueing), when L's silence is longer than both (a timeout is longer
    than the smoothed RTT that such spacings make, RFC 6298 §2.2-2.3). A window cut in two
    by other flows' packets at the link gives spacings of a few milliseconds; the growth
    over three flights after a long silence rules them out.

    C may also be as large as B, not larger: with an ACK for every second full-sized segment
    (RFC 5681 §4.2) and one segment of growth per ACK (RFC 5681 §3.1), a slow start from A = 2
    runs 2, 3, 3: B's three packets draw one prompt ACK, which releases three (two
    acknowledged, one of growth), and the third's ACK waits for the receiver's timer (004
    §VII's mix, seed 20, N_b 2, C_e 80 %: flights of 1, 2, 3 and 3 packets 231.5, 131.8 and
    132.1 ms apart, then 2 packets 99 ms after C; the flow had no RTT sample without this).
    Such a C is taken when the two spacings agree within a factor of two (each is the RTT
    plus this link's queue as met by B and C), which a cut window, a few milliseconds beside
    about an RTT, does not give.

    An upper bound of the RTT needs less: a clean lone packet L more than R + Q + D after the
    flow's latest departure here, or with none before it (drops leave no acknowledgement
    behind) (R the flow's first-round spacing as measured, ``raw_rtt_s``: the second flight
    left on an acknowledgement of the first, or after a timeout, so R is no shorter than the
    RTT; Q = ``queue_full_s``; D = ``ACK_DELAY_MAX_S``), and the first departure of the next
    flight A. A packet P that left the link before L is acknowledged at the sender
    by P's departure + (the RTT's part from this link to the sender) + at most D, and L was
    sent at L's departure less (the RTT's part from the sender to this link) less at most Q
    of queueing here (and nothing more, when no slower link before this one queues the
    flow's packets: behind one, L and a packet sent with it leave one transmission time of
    that link apart, and :func:`estimate._window_still` leaves such flows' bound out): with
    more than R + Q + D between them, every such acknowledgement arrived before L was sent.
    With one segment in flight (RFC 5681 §3.1's loss window), A was sent on the
    acknowledgement of L (or a
    later timeout, longer still: RFC 6298 §5.5), so it left at least one RTT after L. The
    shortest such spacing is kept (``restart_bound_s``); it is no RTT sample (the queue at
    A's departure and a delayed ACK, RFC 5681 §4.2, are in it), only a bound.
    """
    if dropped:
        # The dropped packet is of the flight in progress or, having waited at most the full
        # buffer's delay less than its flight's first packet, of a flight that leaves by then.
        if fi[i, _RS_N] > 0:
            fi[i, _RS_DIRTY] = 1
        fs[i, _RS_TAINT] = t + queue_full_s
        fs[i, _RS_LASTANY] = t
        return
    silence = t - fs[i, _RS_LASTANY]
    fs[i, _RS_LASTANY] = t
    if fi[i, _RS_N] > 0:
        gap = t - fs[i, _LAST]
        inside = max(fs[i, _RS_GAP], transmission_s)
        if not (gap > GAP_MIN_S and gap > GAP_FACTOR * inside):
            fi[i, _RS_N] += 1
            if gap > fs[i, _RS_GAP]:
                fs[i, _RS_GAP] = gap
            return
        # The current flight C closes; B, A and L are the three before it.
        count = 0 if fi[i, _RS_DIRTY] else fi[i, _RS_N]
        # A clean lone flight more than R + Q + D after the flow's latest departure (or with
        # none before it): t is at least one RTT after it.
        if count == 1 and fs[i, _RS_QUIET] > fs[i, _RAW] + queue_full_s + ACK_DELAY_MAX_S:
            spacing = t - fs[i, _RS_START]
            if not spacing >= fs[i, _RS_BOUND]:
                fs[i, _RS_BOUND] = spacing
        ab = fs[i, _RS_B_START] - fs[i, _RS_A_START]
        bc = fs[i, _RS_START] - fs[i, _RS_B_START]
        # C as large as B, the two spacings within a factor of two: a slow start whose
        # delayed ACKs hold part of the window (see the docstring), not a cut window.
        level = count == fi[i, _RS_B_N] and 2.0 * min(ab, bc) > max(ab, bc)
        if (
            fi[i, _RS_L_N] == 1
            and fs[i, _RS_L_SIL] > ACK_DELAY_MAX_S
            and fi[i, _RS_A_N] >= 2
            and fi[i, _RS_B_N] > fi[i, _RS_A_N]
            and (count > fi[i, _RS_B_N] or level)
            and fs[i, _RS_L_SIL] > max(ab, bc)
        ):
            if ab <= bc:
                fs[i, _RS_RAW] = ab
                fs[i, _RS_AT] = fs[i, _RS_B_START]
                fs[i, _RS_Q] = fs[i, _RS_B_Q]
                fs[i, _RS_QMAX] = fs[i, _RS_B_QMAX]
            else:
                fs[i, _RS_RAW] = bc
                fs[i, _RS_AT] = fs[i, _RS_START]
                fs[i, _RS_Q] = fs[i, _RS_SQ]
                fs[i, _RS_QMAX] = fs[i, _RS_SQMAX]
            fi[i, _RS_STATE] = 2
            return
        fi[i, _RS_L_N] = fi[i, _RS_A_N]
        fs[i, _RS_L_SIL] = fs[i, _RS_A_SIL]
        fi[i, _RS_A_N] = fi[i, _RS_B_N]
        fs[i, _RS_A_START] = fs[i, _RS_B_START]
        fs[i, _RS_A_SIL] = fs[i, _RS_B_SIL]
        fi[i, _RS_B_N] = count
        fs[i, _RS_B_START] = fs[i, _RS_START]
        fs[i, _RS_B_Q] = fs[i, _RS_SQ]
        fs[i, _RS_B_QMAX] = fs[i, _RS_SQMAX]
        fs[i, _RS_B_SIL] = fs[i, _RS_SIL]
    # A new flight begins at this departure.
    fi[i, _RS_DIRTY] = 1 if t <= fs[i, _RS_TAINT] else 0
    fs[i, _RS_START] = t
    fs[i, _RS_GAP] = 0.0
    fs[i, _RS_SIL] = silence
    # The time since the flow's latest departure here (drops leave no ACK behind): none, and
    # no ACK can be on its way.
    fs[i, _RS_QUIET] = t - fs[i, _LAST] if fs[i, _LAST] == fs[i, _LAST] else np.inf
    fs[i, _RS_SQ] = _queue_s(t, last_drop_s, queue_full_s)
    fs[i, _RS_SQMAX] = queue_max_s
    fi[i, _RS_N] = 1


@njit(cache=True)
def advance(
    fs: np.ndarray,
    fi: np.ndarray,
    handshake_rtt_s: np.ndarray,
    time_s: np.ndarray,
    flow: np.ndarray,
    size_bytes: np.ndarray,
    dropped: np.ndarray,
    loss_time_s: np.ndarray,
    hole_s: np.ndarray,
    warm_s: float,
    queue_full_s: float,
    link: np.ndarray,
) -> None:
    """Advance the per-flow state over one batch of packets (see the module docstring).

    ``link[0]`` carries the time of the latest loss at the link from batch to batch (in a
    capture, the latest hole: ``hole_s``, a drop known when the next segment passes, before
    the retransmission confirms it),
    ``link[1]`` the time of the first, ``link[2]`` the flow of the latest departure (-1: none),
    ``link[4]`` and ``link[5]`` the latest departure's time and size, ``link[6]`` the start
    of the link's current busy period (:func:`_busy_queue_max`),
    ``link[3]`` the link's transmission time per byte, 8 / C, when the capacity is given (0
    otherwise: the first flight then closes at any gap over ``GAP_MIN_S`` and four times its
    longest, as before; the smallest spacing of departures is no safe stand-in, since a
    trace may begin with a flow's first flight and its second, an RTT apart; where it
    matters, ``estimate.estimate_trace`` reads the trace again with the busiest second's rate)
    (:func:`new_link`).
    """
    for k in range(time_s.size):
        i = flow[k]
        t = time_s[k]
        lt = loss_time_s[k]
        if lt == lt and lt > link[0]:
            link[0] = lt
        if hole_s[k] > link[0]:
            link[0] = hole_s[k]
        if lt == lt and lt < link[1]:
            link[1] = lt
        per_byte = link[3]
        qmax = np.nan if dropped[k] else _busy_queue_max(t, float(size_bytes[k]), link)
        fi[i, _PK] += 1
        if fi[i, _PK] == 1:
            fs[i, _FIRST] = t
            fs[i, _FL_START] = t
            fs[i, _FL_GAP] = 0.0
            fi[i, _PHASE] = 1
            fi[i, _N1] = 0 if dropped[k] else 1
        elif fi[i, _PHASE] == 2 and not dropped[k]:
            # The second flight ends one RTT sample after the first began or at a gap of half
            # the one that ended the first flight (the queue may have shrunk since the
            # sample: a window-held flow's third flight then comes early).
            gap = t - fs[i, _LAST]
            early = gap > GAP_MIN_S and gap > 0.5 * fs[i, _GAP1]
            if not early and t < fs[i, _FL_START] + 2.0 * fs[i, _RTT1] + 2.0 * fs[i, _QRTT]:
                fi[i, _N2] += 1
            else:
                fi[i, _PHASE] = 3
                fs[i, _FL2_END] = t
        elif fi[i, _PHASE] == 1 and not dropped[k]:
            gap = t - fs[i, _LAST]
            inside = max(fs[i, _FL_GAP], per_byte * size_bytes[k])
            if gap > GAP_MIN_S and gap > GAP_FACTOR * inside:
                queue = _queue_s(t, link[0], queue_full_s)
                fs[i, _QRTT] = queue
                fs[i, _QMAX] = qmax
                fs[i, _TSAMPLE] = t
                fs[i, _RAW] = t - fs[i, _FL_START]
                fs[i, _GAP1] = gap
                fs[i, _RTT1] = less_queue(t - fs[i, _FL_START], queue)
                fi[i, _PHASE] = 2
                fi[i, _N2] = 1
            else:
                fi[i, _N1] += 1
                if gap > fs[i, _FL_GAP]:
                    fs[i, _FL_GAP] = gap
        if dropped[k] and fi[i, _PHASE] <= 2:
            fi[i, _SDROPS] += 1
            if fi[i, _PHASE] == 1:
                fi[i, _FDROPS] += 1
                if fi[i, _RS_STATE] == 0:
                    fi[i, _RS_STATE] = 1
        elif lt == lt and not dropped[k] and (fi[i, _PHASE] <= 2 or lt < fs[i, _FL2_END]):
            # A capture learns of a loss when the retransmission fills the hole: one that
            # fell in the first two flights was a drop there too.
            fi[i, _SDROPS] += 1
        if fi[i, _RS_STATE] == 1:
            _restart_flights(
                fs, fi, i, t, dropped[k], per_byte * size_bytes[k], link[0], queue_full_s, qmax
            )
        if t >= warm_s and fs[i, _SSTART] != fs[i, _SSTART]:
            fs[i, _SSTART] = max(fs[i, _FIRST], warm_s)
        if lt == lt and lt >= warm_s:
            # A loss after the warm-up closes the flow's loss-free stretch: keep the longest
            # one (less its longest silence) and its departures.
            span = lt - fs[i, _SSTART] - fs[i, _SILENCE]
            if span > fs[i, _SLONG]:
                fs[i, _SLONG] = span
                fi[i, _SLONGPK] = fi[i, _SPK]
            fs[i, _SSTART] = lt
            fs[i, _SILENCE] = 0.0
            fi[i, _SPK] = 0
        if not dropped[k]:
            if t >= warm_s:
                # The longest silence of the stretch (from its start or a departure).
                since = fs[i, _SSTART]
                if fs[i, _LAST] == fs[i, _LAST]:
                    since = max(since, fs[i, _LAST])
                if t - since > fs[i, _SILENCE]:
                    fs[i, _SILENCE] = t - since
                fi[i, _SPK] += 1
            fs[i, _LAST] = t
            if t >= warm_s and link[2] == i:
                fi[i, _B2B] += 1
            link[2] = i
        if lt == lt and lt > fs[i, _LLOSS]:
            fs[i, _LLOSS] = lt
        # Rounds start once an RTT is known: the handshake's, else the first-round spacing.
        if fs[i, _RTTR] != fs[i, _RTTR]:
            h = handshake_rtt_s[i]
            if h == h and h > 0.0:
                queue = _queue_s(t, link[0], queue_full_s)
                fs[i, _QRTT] = queue
                fs[i, _TSAMPLE] = t
                fs[i, _RAW] = h
                fs[i, _RTTR] = less_queue(h, queue)
                fs[i, _RSTART] = t
            elif fi[i, _PHASE] == 2:
                fs[i, _RTTR] = fs[i, _RTT1]
                fs[i, _RSTART] = t
        if fs[i, _RTTR] == fs[i, _RTTR]:
            _close_rounds(fs, fi, i, t, warm_s, link[0], queue_full_s)
            if not dropped[k]:
                fi[i, _RCOUNT] += 1
        if t >= warm_s:
            if dropped[k]:
                fi[i, _DROPS] += 1
            else:
                fi[i, _PKM] += 1
                fs[i, _BYTES] += size_bytes[k]
        if size_bytes[k] > fi[i, _MAXSZ]:
            fi[i, _MAXSZ] = size_bytes[k]
