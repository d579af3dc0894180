"""The drop-lag RTT (validation.traces.drop_rtt) on hand-made departures and drops.

A drop event is timed at the dropped packet's arrival; a packet released by the
acknowledgement of an earlier departure of its flow arrives one round trip (without this
link's queue) after that departure, so every such drop of a flow shows the same lag
(module docstring of :mod:`validation.traces.drop_rtt`).
"""

from __future__ import annotations

import numpy as np

from validation.traces.drop_rtt import ALL_AGREE_MIN_DROPS, DropRtt

RTT_S = 0.3


def _one_burst(drops: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flow 0: 60 departures at random times in 0-0.6 s (seed 7) and ``drops`` drops, each one
    RTT after one of the departures before 0.1 s: one loss episode (all within 0.1 s)."""
    rng = np.random.default_rng(7)
    departures = np.sort(rng.uniform(0.0, 0.6, 60))
    triggers = departures[departures < 0.1][:drops]
    assert triggers.size == drops
    time_s = np.concatenate([departures, triggers + RTT_S])
    dropped = np.concatenate([np.zeros(departures.size, bool), np.ones(drops, bool)])
    order = np.argsort(time_s, kind="stable")
    return time_s[order], np.zeros(time_s.size, dtype=np.int64), dropped[order]


def _rtts(drops: int, bound_s: float | None) -> float:
    state = DropRtt()
    state.advance(1, *_one_burst(drops))
    return float(state.rtts(1, None if bound_s is None else np.array([bound_s]))[0])


def test_one_loss_episode_needs_the_queued_sample_as_a_bound() -> None:
    # Without a second loss episode the drops' agreement may be a coincidence of one burst's
    # pattern: no RTT. With the first-round spacing (RTT plus this link's queue) as an upper
    # bound, the lag every drop agrees on is the RTT; the tolerance is the module's 30 µs.
    assert np.isnan(_rtts(5, None))
    assert abs(_rtts(5, RTT_S + 0.1) - RTT_S) < 3e-5
    # A bound below the RTT leaves no lag every drop agrees on.
    assert np.isnan(_rtts(5, RTT_S - 0.05))


def test_one_loss_episode_needs_enough_drops() -> None:
    # Fewer drops than ALL_AGREE_MIN_DROPS (two drops of one burst can agree by coincidence).
    assert np.isnan(_rtts(ALL_AGREE_MIN_DROPS - 1, RTT_S + 0.1))
    assert abs(_rtts(ALL_AGREE_MIN_DROPS, RTT_S + 0.1) - RTT_S) < 3e-5


def test_a_rival_lag_of_the_first_episode_is_outvoted_by_the_later_ones() -> None:
    """Flow 0: 300 departures at random times in 0-3 s (seed 11). First loss episode: a drop
    one RTT after each departure before 0.1 s, and a departure 0.2 s before each of those
    drops, so that every drop of that episode also shows a lag of 0.2 s (a burst's pattern
    repeated, as the hundreds of drops of a slow-start overflow do). Second episode, more
    than 1 s later: a drop one RTT after each of 4 departures after 1.2 s, the first of them
    also 0.2 s after a departure (one coincidence, as a flow's dense departures give).
    Counted over all drops the rival lag has as many votes as the RTT from the first episode,
    over half the best's, and the flow got no RTT (before the second episode's drops were
    counted apart); those drops give the RTT 4 votes and the rival 1."""
    rng = np.random.default_rng(11)
    departures = np.sort(rng.uniform(0.0, 3.0, 300))
    first = departures[departures < 0.1] + RTT_S
    second = departures[departures > 1.2][:4] + RTT_S
    assert first.size >= 6
    rival = np.concatenate([first, second[:1]]) - 0.2
    time_s = np.concatenate([departures, rival, first, second])
    dropped = np.concatenate(
        [np.zeros(departures.size + rival.size, bool), np.ones(first.size + second.size, bool)]
    )
    order = np.argsort(time_s, kind="stable")
    state = DropRtt()
    state.advance(1, time_s[order], np.zeros(time_s.size, dtype=np.int64), dropped[order])
    assert abs(float(state.rtts(1)[0]) - RTT_S) < 3e-5
    # The first episode alone: its drops agree on both lags, and no RTT is given.
    state = DropRtt()
    keep = time_s[order] < 1.0
    state.advance(
        1, time_s[order][keep], np.zeros(int(keep.sum()), dtype=np.int64), dropped[order][keep]
    )
    assert np.isnan(state.rtts(1)[0])


def test_the_full_buffer_delay_bounds_the_lag_from_below() -> None:
    """One loss episode (5 drops) whose every drop also shows a lag of 12 ms: a departure 12 ms
    before each (a regular burst matches short lags, a few packets' spacings, as in 004
    §VII's mix at N_b = 2, seed 3, 95 %). Under the queued sample 0.4 s both lags have every
    drop: no RTT. That sample holds at most the full buffer's delay (here 0.2 s) of queueing,
    so the RTT is at least 0.2 s, and the lag every drop agrees on above it is the RTT."""
    time_s, _, dropped = _one_burst(5)
    extra = time_s[dropped] - 0.012
    time_s = np.concatenate([time_s, extra])
    dropped = np.concatenate([dropped, np.zeros(extra.size, bool)])
    order = np.argsort(time_s, kind="stable")
    state = DropRtt()
    state.advance(1, time_s[order], np.zeros(time_s.size, dtype=np.int64), dropped[order])
    assert np.isnan(state.rtts(1, np.array([RTT_S + 0.1]))[0])
    rtt = state.rtts(1, np.array([RTT_S + 0.1]), np.array([RTT_S + 0.1 - 0.2]))[0]
    assert abs(rtt - RTT_S) < 3e-5


def test_one_loss_episode_allows_a_drop_a_delayed_ack_released() -> None:
    """One loss episode: 5 drops one RTT after their triggers, and a sixth 0.1 s later than
    one RTT after the first trigger (the receiver held that acknowledgement for its delayed-
    ACK timer, RFC 5681 §4.2; ns-2's DelAck 100 ms, as at 004 §VII's mix, seed 2, N_b = 2,
    95 %, whose drops at 3.8082 s show the RTT plus 100.0 ms). Under the queued sample not
    every drop agrees on the RTT, but 5 of the 6 do and no other lag has half their votes:
    the RTT. Two agreeing drops and the delayed one are too few (ALL_AGREE_MIN_DROPS)."""
    time_s, _, dropped = _one_burst(5)
    delayed = time_s[dropped][0] + 0.1
    times = np.concatenate([time_s, [delayed]])
    drops = np.concatenate([dropped, [True]])
    order = np.argsort(times, kind="stable")
    lags = delayed - times[~drops]
    # The delayed drop has no departure one RTT before it (the tolerance is 30 µs).
    assert np.min(np.abs(lags - RTT_S)) > 3e-5
    state = DropRtt()
    state.advance(1, times[order], np.zeros(times.size, dtype=np.int64), drops[order])
    assert abs(state.rtts(1, np.array([RTT_S + 0.1]))[0] - RTT_S) < 3e-5
    time_s, _, dropped = _one_burst(ALL_AGREE_MIN_DROPS - 1)
    delayed = time_s[dropped][0] + 0.1
    times = np.concatenate([time_s, [delayed]])
    drops = np.concatenate([dropped, [True]])
    order = np.argsort(times, kind="stable")
    state = DropRtt()
    state.advance(1, times[order], np.zeros(times.size, dtype=np.int64), drops[order])
    assert np.isnan(state.rtts(1, np.array([RTT_S + 0.1]))[0])


def test_candidates_that_miss_the_bound_give_no_rtt() -> None:
    """A flow at a regular 4000 packets/s (as one near a 50 Mbit/s link's rate) for 1 s, 5
    drops one RTT (0.3 s) after departures 1 ms apart and a sixth off the departures' grid
    (as a delayed acknowledgement's): its latest CANDIDATES (512) departures before a drop
    span 0.128 s, so the RTT is among none of the lags. Five of the six drops agree on every
    candidate (the flow's spacing repeats); within the bounds 0.12-0.4 s the candidates span
    8 ms, no rival 10 ms away. The candidates do not reach the bound: no RTT (else 0.12 s)."""
    departures = np.arange(4000) * 0.00025
    drops = np.concatenate([departures[2000:2020:4] + RTT_S, [0.81 + 0.0001]])
    times = np.concatenate([departures, drops])
    dropped = np.concatenate([np.zeros(departures.size, bool), np.ones(drops.size, bool)])
    order = np.argsort(times, kind="stable")
    state = DropRtt()
    state.advance(1, times[order], np.zeros(times.size, dtype=np.int64), dropped[order])
    assert np.isnan(state.rtts(1, np.array([0.4]), np.array([0.12]))[0])
