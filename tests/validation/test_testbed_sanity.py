"""The testbed's rules for drops the machine caused, without the testbed (no root needed)."""

from __future__ import annotations

from validation.testbed.forwarder import BURST_PACKETS
from validation.testbed.sanity import STALL_DROP_SHARE, burst_problem, stall_problem


def test_burst_drops_over_the_share_refuse_the_run_with_the_reason() -> None:
    # 46 of 63 drops (a 4-packet run of one Reno flow at load 8.5) are the machine's.
    reason = burst_problem(63, {"burst_drops": 46})
    assert reason is not None
    assert "46 of the 63 drops" in reason and f"{BURST_PACKETS} or more" in reason


def test_burst_drops_within_the_share_pass() -> None:
    assert STALL_DROP_SHARE == 0.1  # the share the cases below are written for
    assert burst_problem(100, {"burst_drops": 10}) is None  # 10 % of the drops: not over it
    assert burst_problem(100, {"burst_drops": 11}) is not None
    # One drop is never enough to refuse, however few drops the run had.
    assert burst_problem(3, {"burst_drops": 1}) is None
    assert burst_problem(3, {"burst_drops": 2}) is not None
    # Runs stored before the count existed have no burst drops to judge.
    assert burst_problem(50, {"stall_drops": 0}) is None


def test_the_two_rules_are_counted_apart() -> None:
    late = {"stall_drops": 0, "stalls": 0, "burst_drops": 30}
    assert stall_problem(40, late) is None
    assert burst_problem(40, late) is not None
