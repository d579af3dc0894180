"""004 §VII's mix, simulated at B = C·T_avg, written as CSV and estimated back: the set-up the
trace tests on the paper's traffic share."""

from __future__ import annotations

from pathlib import Path

from validation.harness.bscl import CAPACITY_BPS as MIX_CAPACITY_BPS
from validation.harness.bscl import RTT_S as MIX_RTT_S
from validation.harness.bscl import mix_scenario
from validation.simulator import Scenario
from validation.traces import TraceEstimates, estimate_trace, open_trace
from validation.traces.synthetic import SimulatedTrace, simulated_trace, write_csv


def estimated_mix(
    flows: int, share: float, *, full: bool, seed: int, tmp_path: Path
) -> tuple[Scenario, int, SimulatedTrace, TraceEstimates]:
    """The harness's ``mix_scenario`` with ``flows`` LBP flows and LBP share ``share``, at
    B = C·T_avg (004 §VII's first run), its trace written as CSV and estimated given C, B and
    the warm-up: (scenario, buffer in packets, the simulated trace and its truth, estimates)."""
    sc = mix_scenario(flows, share, full=full)
    buffer_packets = int(MIX_CAPACITY_BPS * MIX_RTT_S / (8 * sc.wire_bytes))
    sim = simulated_trace(sc, buffer_packets, seed=seed, lbp_groups=("LBP",))
    path = tmp_path / "t.csv"
    write_csv(sim.trace, path)
    est = estimate_trace(
        open_trace(path),
        capacity_bps=MIX_CAPACITY_BPS,
        warmup_s=sc.warmup_s,
        buffer_bytes=buffer_packets * sc.wire_bytes,
    )
    return sc, buffer_packets, sim, est


#: A slow target link (below the 12 Mbit/s under which a trace without C is read twice).
SLOW_CAPACITY_BPS = 10e6


def slow_mix_csv(
    flows: int, share: float, *, seed: int, tmp_path: Path
) -> tuple[Scenario, int, SimulatedTrace, Path]:
    """004 §VII's mix (60 s) on a 10 Mbit/s target link at B = C·T_avg, written as CSV:
    (scenario, buffer in packets, the simulated trace and its truth, the CSV's path)."""
    sc = mix_scenario(flows, share, full=False, capacity_bps=SLOW_CAPACITY_BPS)
    buffer_packets = int(SLOW_CAPACITY_BPS * MIX_RTT_S / (8 * sc.wire_bytes))
    sim = simulated_trace(sc, buffer_packets, seed=seed, lbp_groups=("LBP",))
    path = tmp_path / "slow.csv"
    write_csv(sim.trace, path)
    return sc, buffer_packets, sim, path
