"""Traces and replication seeds: what the packet trace's columns mean, traces of replications."""

from __future__ import annotations

import numpy as np
import pytest

from tests.validation.hosts import classic_scenario
from validation.simulator import (
    DEFAULT_PACKET_BUDGET,
    Scenario,
    replicate,
    replication_seeds,
    simulate,
)
from validation.simulator.scenario import DEFAULT_PACKET_BUDGET as BUDGET_IN_SCENARIO

SMALL = classic_scenario(
    capacity_bps=10e6,
    flows=3,
    rtt_s=0.04,
    rtt_jitter_s=0.01,
    max_window_packets=16,
    header_bytes=40,
    background_load=0.2,
    duration_s=3.0,
    warmup_s=1.0,
)


def test_departure_time_is_the_end_of_transmission() -> None:
    # Periodic open-loop packets at load 0.5 never queue: packet k arrives at k·2·tx and its
    # last bit leaves tx later (tx = 8 · 1000 B / 10 Mb/s = 0.8 ms); nothing is dropped.
    sc = classic_scenario(
        traffic="open_loop",
        capacity_bps=10e6,
        open_loop_arrivals="periodic",
        open_loop_load=0.5,
        duration_s=0.1,
        warmup_s=0.0,
    )
    trace = simulate(sc, 2, seed=1, trace=True).packet_trace
    assert trace is not None
    tx = 8 * 1000 / 10e6
    expected = tx + 2 * tx * np.arange(trace.time_s.size)
    assert np.allclose(trace.time_s, expected, rtol=0, atol=1e-12)
    assert not trace.dropped.any()
    assert (trace.flow == 0).all()  # open-loop packets: flow == tcp_flows == 0


def test_sizes_are_wire_bytes_and_background_packets_have_flow_equal_to_flows() -> None:
    r = simulate(SMALL, 4, seed=2, trace=True)
    trace = r.packet_trace
    assert trace is not None
    assert (trace.size_bytes == 1000 + 40).all()
    assert set(np.unique(trace.flow).tolist()) == {0, 1, 2, 3}  # 3 TCP slots + background
    assert trace.dropped.any() and (~trace.dropped).any()
    # every departure and drop is one of the run's bottleneck arrivals
    assert trace.time_s.size <= r.bottleneck_packets


def test_replicate_returns_each_runs_trace_and_its_seed() -> None:
    rep = replicate(SMALL, 4, replications=3, seed=9, trace=True)
    seeds = replication_seeds(9, 3)
    assert [run.seed for run in rep.runs] == seeds
    assert len(set(seeds)) == 3
    for run, seed in zip(rep.runs, seeds, strict=True):
        alone = simulate(SMALL, 4, seed=seed, trace=True)
        assert run.packet_trace is not None and alone.packet_trace is not None
        assert run.samples is not None
        assert np.array_equal(run.packet_trace.time_s, alone.packet_trace.time_s)
        assert np.array_equal(run.packet_trace.flow, alone.packet_trace.flow)
    # without trace=True the runs carry no traces (as before)
    assert all(run.packet_trace is None for run in replicate(SMALL, 4, 2, seed=9).runs)


def test_replication_seeds_prefix_and_validation() -> None:
    # SeedSequence.spawn: the first k children do not depend on how many are spawned
    assert replication_seeds(5, 4)[:2] == replication_seeds(5, 2)
    assert all(0 <= s < 2**63 for s in replication_seeds(5, 4))
    with pytest.raises(ValueError, match="replications"):
        replication_seeds(5, 0)
    with pytest.raises(ValueError, match="seed"):
        replication_seeds(-1, 2)


def test_default_packet_budget_is_exported() -> None:
    assert DEFAULT_PACKET_BUDGET == BUDGET_IN_SCENARIO == Scenario().packet_budget
