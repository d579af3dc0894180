"""The congested link whose simulated trace the trace tests read (no tests here).

A 10 Mbit/s link with 8 persistent Reno flows and 10 % background load, 100 ms ± 60 ms: its
trace holds a BSCL size, so a trace check (``verify``) runs the simulator on it for a few
seconds. One definition for the CLI, API, job-death and restart tests.
"""

from __future__ import annotations

from pathlib import Path

from validation.simulator import Scenario
from validation.traces.synthetic import simulated_trace, write_csv

CONGESTED_10M = Scenario(
    capacity_bps=10e6,
    flows=8,
    rtt_s=0.1,
    rtt_jitter_s=0.06,
    packet_bytes=1448,
    header_bytes=52,
    max_window_packets=10_000,
    delayed_ack=2,
    initial_window_packets=10,
    duration_s=30.0,
    warmup_s=4.0,
    start_spread_s=4.0,
    background_load=0.1,
)


def write_congested_trace(path: Path) -> Path:
    """The link's trace (80 flows' worth of records, seed 3), written as CSV to ``path``."""
    write_csv(simulated_trace(CONGESTED_10M, 80, seed=3).trace, path)
    return path
