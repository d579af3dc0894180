"""Scenario validation: bad input is refused before any simulation starts (issue 4 checks)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.validation.hosts import classic_scenario
from validation.simulator import Scenario, estimate_packets, simulate


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"capacity_bps": -1e6}, "capacity_bps"),
        ({"capacity_bps": 0.0}, "capacity_bps"),
        ({"access_bps": -5e6}, "access_bps"),
        ({"rtt_s": float("nan")}, "rtt_s"),
        ({"rtt_jitter_s": 0.2}, "rtt_jitter_s"),
        ({"flows": 0}, "flows"),
        ({"warmup_s": 60.0}, "warmup_s"),
        ({"warmup_s": 70.0}, "warmup_s"),
        ({"max_window_packets": 0}, "max_window_packets"),
        ({"delayed_ack": 0}, "delayed_ack"),
        ({"recovery": "tahoe"}, "recovery"),
        ({"ca_increase": "per_byte"}, "ca_increase"),
        ({"background_load": 1.0}, "background_load"),
        ({"traffic": "poisson_flows"}, "flow_arrival_rate_per_s"),
        ({"discipline": "red"}, "discipline"),
    ],
)
def test_bad_scenarios_name_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Scenario(**changes).validate(10)  # type: ignore[arg-type]


@pytest.mark.parametrize("buffer_packets", [0, -3, 2.5])
def test_buffer_below_one_packet_is_refused(buffer_packets: float) -> None:
    with pytest.raises(ValueError, match="buffer_packets"):
        simulate(Scenario(), buffer_packets, 1)  # type: ignore[arg-type]


def test_packet_budget_is_enforced_before_running() -> None:
    # 10 Gb/s of 1000-byte packets for an hour is ~4.5e9 packets, over a 1e8 budget.
    big = classic_scenario(capacity_bps=10e9, flows=10_000, duration_s=3600.0, packet_budget=10**8)
    assert estimate_packets(big) > 10**8
    with pytest.raises(ValueError, match="packet_budget"):
        simulate(big, 100, 1)


def test_estimate_is_capped_by_the_line_rate() -> None:
    # 100 Mb/s of 1000-byte packets is 12,500 packets/s; the estimate allows 10 % for drops.
    sc = classic_scenario(capacity_bps=100e6, flows=1000, max_window_packets=64, duration_s=10.0)
    assert 125_000 <= estimate_packets(sc) <= 137_501  # rounded up


@settings(max_examples=40, deadline=None)
@given(
    duration=st.floats(0.5, 1e4),
    flows=st.integers(1, 5000),
    capacity=st.floats(1e5, 1e11),
)
def test_estimate_grows_with_duration(duration: float, flows: int, capacity: float) -> None:
    sc = Scenario(capacity_bps=capacity, flows=flows, duration_s=duration, warmup_s=0.0)
    longer = sc.replace(duration_s=2 * duration)
    assert estimate_packets(longer) >= estimate_packets(sc)


def test_round_trip_through_dict() -> None:
    sc = Scenario(flows=7, pacing=True, recovery="newreno")
    assert Scenario.from_dict(sc.to_dict()) == sc
    with pytest.raises(ValueError, match="unknown"):
        Scenario.from_dict({"bogus": 1})
