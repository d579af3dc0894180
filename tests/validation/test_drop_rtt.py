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
