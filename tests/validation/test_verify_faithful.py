"""A check says what it could not represent, and simulates both ends of an assumed access rate.

No simulation runs here: the plans are built as the check builds them, and the ends' verdicts
are assembled from runs whose figures the test sets (a fake batch runner), so that what is
asserted is the check's logic, not a sample path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from models.recommend import LinkScenario, Targets, recommend
from tests.validation.fixed_runs import fixed_runner
from validation.limitations import MAX_SIMULATED_WINDOW, MIN_MEASURED_RTTS
from validation.size_search import search_with
from validation.verify import (
    ACCESS_FAST_FACTOR,
    Plan,
    plan,
    run_batches,
    slow_label,
)

TARGETS = Targets(min_utilization=0.9, max_loss=0.01, max_queueing_delay_s=1.0)


def _plan(link: LinkScenario, size: tuple[str, int] = ("rule_of_thumb", 100)) -> Plan:
    return plan(link, None, TARGETS, replications=3, seed=1, size=size)


def _about(limitations: Sequence[str], words: str) -> list[str]:
    return [text for text in limitations if words in text]


def test_a_geo_link_says_how_few_round_trips_were_measured() -> None:
    # A GEO satellite link: 600 ms RTT, 50 Mb/s of 1500 B packets (4,167 packets/s, not
    # scaled), 20 flows. The check measures min(20 s, 2e6 / 4,167 = 480 s) = 20 s after the
    # warm-up: 20 / 0.6 = 33 round trips.
    link = LinkScenario(capacity_bps=50e6, rtts_s=(0.6,), flows=20, congestion_control="reno")
    p = _plan(link)
    assert p.scenario is not None
    (measured,) = _about(p.not_represented, "round trips")
    assert (
        "the measurement spans 20 s, only 33 round trips of the longest flow (600 ms)" in measured
    )
    assert f"fewer than {MIN_MEASURED_RTTS}" in measured
    # A 20 ms link gets 20 / 0.02 = 1,000 round trips: no such limitation.
    short = LinkScenario(capacity_bps=50e6, rtts_s=(0.02,), flows=20, congestion_control="reno")
    assert not _about(_plan(short).not_represented, "round trips")


def test_the_scaling_is_stated_with_what_it_changes() -> None:
    # 10 Gb/s of 1000 B packets = 1.25 M packets/s -> k = 50,000 / 1.25 M = 0.04: 1,000 flows
    # become 40 on 400 Mb/s. sqrt(N)'s buffer scales by k^0.5, so delays are converted back by
    # k^(1 - 0.5).
    link = LinkScenario(
        capacity_bps=10e9, rtts_s=(0.1,), flows=1000, packet_bytes=1000, congestion_control="reno"
    )
    (scaled,) = _about(_plan(link, ("sqrt_n", 2000)).not_represented, "scaled down")
    assert "scaled down by 0.04" in scaled
    assert "10 Gb/s with 1,000 flows became 400 Mb/s with 40" in scaled
    assert "40 simulated flows stand for 1,000" in scaled
    assert "converted back to the user's link (x 0.04^0.5)" in scaled
    # With the rule of thumb (B ∝ k) the delay in seconds is the same: nothing to convert.
    (same,) = _about(_plan(link).not_represented, "scaled down")
    assert "converted back" not in same
    # A link simulated at its own size is not said to be scaled.
    small = LinkScenario(capacity_bps=10e6, rtts_s=(0.1,), flows=10, congestion_control="reno")
    assert not _about(_plan(small).not_represented, "scaled down")


def test_traffic_and_senders_not_modelled_are_listed() -> None:
    base = {"capacity_bps": 10e6, "rtts_s": (0.05,), "flows": 20, "congestion_control": "reno"}
    plain = _plan(LinkScenario(**base)).not_represented
    # A link simulated as given: nothing listed.
    assert plain == (), plain
    cases = {
        "Poisson packet arrivals": {"bottlenecked_flows": 10, "bottlenecked_share": 0.6},
        "uniform range 20-80 ms": {"rtts_s": (0.02, 0.05, 0.08)},
        "the 32 incast senders": {"incast_senders": 32},
        "input queues": {"input_queued": True, "speedup": 2.0, "ports": 8},
        "largest rate of one flow": {"peak_rate_bps": 1e6},
        f"capped at {MAX_SIMULATED_WINDOW:,}": {"max_window_packets": 100_000},
        "offered load ρ = 0.7 is not simulated": {"load": 0.7},
        "optical buffer": {"medium": "optical"},
        "its Classic queue: the other queue": {"aqm": "dualq"},
        "its L4S queue: the other queue": {"aqm": "dualq", "congestion_control": "dctcp"},
    }
    for words, fields in cases.items():
        listed = _plan(LinkScenario(**{**base, **fields})).not_represented
        assert len(_about(listed, words)) == 1, (words, listed)
    # 40 % of the capacity is background: the sentence says how much.
    share = _plan(LinkScenario(**{**base, "bottlenecked_flows": 10, "bottlenecked_share": 0.6}))
    assert _about(share.not_represented, "the 40% of the capacity")
    # The congestion control not given: one candidate simulated, said as a limitation.
    unknown = {k: v for k, v in base.items() if k != "congestion_control"}
    link = LinkScenario(**unknown)
    rec = recommend(link, TARGETS)
    checked = plan(link, rec, TARGETS, replications=3, seed=1).not_represented
    assert _about(checked, "the congestion control was not given: only")


def test_every_size_is_simulated_at_both_ends_of_an_assumed_access_rate() -> None:
    # 20 flows on 10 Mb/s, access not given: fast end 10 x the port, slow end the port's rate.
    link = LinkScenario(capacity_bps=10e6, rtts_s=(0.05,), flows=20, congestion_control="reno")
    p = _plan(link)
    assert p.scenario is not None and p.slow_scenario is not None
    assert p.scenario.access_bps == ACCESS_FAST_FACTOR * 10e6
    assert p.slow_scenario.access_bps == 10e6
    for label in ("half", "recommended", "double"):
        assert p.scenario_of(label) is p.scenario
        assert p.scenario_of(slow_label(label)) is p.slow_scenario
        assert p.sizes[slow_label(label)] == p.sizes[label]
    # Paced senders too (before, the fast end only).
    paced = _plan(replace(link, paced=True))
    assert paced.slow_scenario is not None and paced.slow_scenario.pacing
    assert set(paced.slow_labels) == {slow_label(k) for k in ("half", "recommended", "double")}
    assert paced.access is not None and "the senders pace" in paced.access.reason
    # An access rate given is simulated as given, at one end only.
    given = _plan(replace(link, access_bps=100e6))
    assert given.slow_scenario is None and not given.slow_labels


@pytest.mark.parametrize(
    ("slow", "fast", "verdict", "governs"),
    [
        (0.5, 0.99, "missed", "the slow end governs"),
        (0.99, 0.5, "missed", "the fast end governs"),
        (0.99, 0.99, "met", "both ends agree"),
    ],
)
def test_the_headline_is_the_worse_end_and_says_which(
    slow: float, fast: float, verdict: str, governs: str
) -> None:
    # Utilization 50 % +- 0.1 point against a 90 % target is missed by any bound; 99 % met.
    link = LinkScenario(capacity_bps=10e6, rtts_s=(0.05,), flows=20, congestion_control="reno")
    p = _plan(link)
    out = run_batches(p, fixed_runner(slow, fast))
    assert out.verdict == verdict
    assert governs in out.reason
    assert [c.verdict for c in out.slow_sizes] == [("met" if slow > 0.9 else "missed")] * 3
    assert [c.verdict for c in out.sizes] == [("met" if fast > 0.9 else "missed")] * 3
    assert out.not_represented == [] and "Not represented" not in out.reason
    data = out.to_dict()
    assert [c["access_bps"] for c in data["slow_sizes"]] == [10e6] * 3


def test_a_search_counts_a_size_only_when_both_ends_meet() -> None:
    # Slow-end runs at 50 %: no size meets the utilization target, whatever the fast end does.
    link = LinkScenario(capacity_bps=10e6, rtts_s=(0.05,), flows=20, congestion_control="reno")
    rec = recommend(link, TARGETS)
    found = search_with(link, rec, TARGETS, fixed_runner(0.5, 0.99), replications=3, seed=1)
    assert found.found_packets is None and found.tried
    assert all(t.slow_access is not None and t.slow_access.verdict == "missed" for t in found.tried)
    assert all(t.check.verdict == "met" for t in found.tried)
    assert found.not_represented == []


def test_how_the_prediction_fared_is_said_for_each_end_when_they_differ() -> None:
    # Fast end at 99 % (within the predicted utilization), slow end at 50 % (far below it,
    # optimistic): the verdict's reason says both, not the fast end's "within" alone.
    link = LinkScenario(capacity_bps=10e6, rtts_s=(0.05,), flows=20, congestion_control="reno")
    out = run_batches(_plan(link), fixed_runner(0.5, 0.99))
    main = next(c for c in out.sizes if c.label == "recommended")
    slow = out.slow("recommended")
    assert slow is not None and (main.prediction, slow.prediction) == ("within", "optimistic")
    assert "prediction was within with fast access, optimistic with slow access" in out.reason
    # Both ends alike: said once.
    same = run_batches(_plan(link), fixed_runner(0.99, 0.99))
    assert "prediction was within there" in same.reason
