"""The smallest size found by simulation (``bufsize recommend --search``): the bisection on a fake
runner whose threshold is known, and one real search on a README link."""

from __future__ import annotations

import pytest
from rich.console import Console

from app.cli.verify import render_search
from models.recommend import LinkScenario, Targets, recommend
from validation.size_search import RESOLUTION, bracket, search, search_with
from validation.verify import BatchRunner, Plan

# 000 Fig. 3.1's link (the README's `bufsize verify` example): 100 Mb/s, 100 ms, 40 CUBIC flows.
LINK = LinkScenario(capacity_bps=100e6, rtts_s=(0.1,), flows=40, access_bps=1e9)


def _run(threshold: int) -> BatchRunner:
    """A runner whose utilization is 0.999 at or above ``threshold`` simulated packets, 0.5
    below; every run the same, so each size is decided by its first batch."""

    def run(p: Plan, labels: list[str], batch: int) -> list[dict[str, float]]:
        out = []
        for task in p.tasks(labels, batch):
            util = 0.999 if task.buffer_packets >= threshold else 0.5
            out.append(
                {
                    "utilization": util,
                    "loss_rate": 0.0,
                    "queue_delay_mean_s": 0.001,
                    "queue_delay_p99_s": 0.002,
                }
            )
        return out

    return run


@pytest.mark.parametrize("threshold", [1, 37, 400, 1200])
def test_the_bisection_finds_the_threshold_within_its_resolution(threshold: int) -> None:
    rec = recommend(LINK)
    low, high = bracket(rec)
    assert low <= rec.recommended.buffer_packets <= high
    found = search_with(LINK, rec, Targets(), _run(threshold), replications=3, seed=1)
    assert found.found_packets is not None and found.found_packets >= threshold
    tried = {t.buffer_packets: t for t in found.tried}
    assert tried[found.found_packets].meets_targets
    if threshold == 1:
        assert found.found_packets == 1 and found.smaller_packets is None
    else:
        # The size one step smaller was tried and misses; the two are within the resolution.
        assert found.smaller_packets is not None and found.smaller_packets < threshold
        assert not tried[found.smaller_packets].meets_targets
        assert tried[found.smaller_packets].check.verdict == "missed"
        close = found.found_packets <= found.smaller_packets * (1 + RESOLUTION)
        assert close or found.found_packets - found.smaller_packets <= 1
    assert all(t.check.replications == 3 for t in found.tried)  # decided by the first batch
    assert [t.buffer_packets for t in found.tried] == sorted(tried)


def test_nothing_found_when_even_the_grown_bracket_misses() -> None:
    rec = recommend(LINK)
    found = search_with(LINK, rec, Targets(), _run(10**9), replications=3, seed=1)
    assert found.found_packets is None and "no size up to" in found.reason
    assert len(found.tried) == 3  # the bracket's top, doubled twice


@pytest.mark.slow
def test_a_search_on_the_readme_link_meets_every_target_and_one_step_smaller_does_not() -> None:
    # The README's `bufsize verify` link (000 Fig. 3.1: 100 Mb/s, 100 ms, 40 CUBIC flows; the
    # senders on 1 Gb/s access links), three runs per size and no extra batch (to keep the
    # test short). The size found has every target met by its one-sided 99 % bounds; the size
    # one step smaller, tried, does not; the output shows both.
    rec = recommend(LINK)
    found = search(LINK, rec, replications=3, max_replications=3, seed=1, workers=2)
    assert found.found_packets is not None and found.smaller_packets is not None
    tried = {t.buffer_packets: t for t in found.tried}
    best, smaller = tried[found.found_packets], tried[found.smaller_packets]
    assert best.check.verdict == "met" and all(t.outcome == "met" for t in best.check.targets)
    assert smaller.check.verdict in ("missed", "undecided")
    console = Console(record=True, width=200)
    render_search(found, console)
    text = console.export_text()
    assert f"{found.found_packets:,} packets meet every target" in text
    assert f"{found.found_packets:,} (" in text and " found" in text
    assert f"{found.smaller_packets:,} (" in text and "one step smaller" in text
