"""Per-run parameters shared by the compiled core and the reference implementation.

Both implementations draw every random number from one stream of uniforms produced by a
``numpy.random.Generator`` seeded with the run's seed, in the same order, so that on the same
scenario they simulate the same sample path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from validation.simulator.scenario import FlowGroup, Scenario

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Number of run-length bins of the loss-burst histogram (the last one counts longer runs).
BURST_BINS = 64
#: Largest number of bins of the queueing-delay histogram.
MAX_DELAY_BINS = 1 << 20
#: Upper bound of the retransmission timeout, s (RFC 6298 (2.5) allows 60 s).
MAX_RTO_S = 60.0
#: Initial slow-start threshold, packets (in effect unbounded).
INITIAL_SSTHRESH = 1e9


@dataclass
class RunParameters:
    """Everything a run needs besides the scenario's plain fields."""

    scenario: Scenario
    buffer_packets: int
    seed: int
    flows: int  # TCP flow slots, all groups
    groups: tuple[FlowGroup, ...]  # () in open-loop mode
    group_of: IntArray  # group of each flow slot (slots are numbered group after group)
    first_flow: IntArray  # first slot of each group, and the number of slots at the end
    rtt_s: FloatArray  # two-way propagation delay of each slot
    start_s: FloatArray  # start time of each slot (persistent and closed-loop traffic)
    wire_bits: float
    payload_bits: float
    tx_s: float  # bottleneck transmission time of a full packet
    access_tx_s: FloatArray  # transmission time of a full packet on each group's access link
    limit_bytes: float  # byte-mode limit (inf in packet mode)
    open_rate_per_s: float  # open-loop or background packet rate (0: none)
    open_periodic: bool
    open_exponential: bool
    delay_bin_s: float
    delay_bins: int
    intervals: int
    occupancy_bins: int
    generator: np.random.Generator


def make_parameters(scenario: Scenario, buffer_packets: int, seed: int) -> RunParameters:
    """Validate and derive the run's parameters; draw the flows' RTTs and start times."""
    scenario.validate(buffer_packets)
    generator = np.random.default_rng(seed)
    groups = () if scenario.traffic == "open_loop" else scenario.flow_groups
    counts = [int(g.flows) for g in groups]
    flows = sum(counts)
    first_flow = np.concatenate(([0], np.cumsum(counts, dtype=np.int64))).astype(np.int64)
    group_of = np.repeat(np.arange(len(groups), dtype=np.int64), counts)
    # One draw of each kind for all flows, group after group: with one group, the draws of
    # the scenario's own fields before there were groups.
    spread = generator.random(flows)
    rtt_mean_s = np.array([g.rtt_s for g in groups], dtype=np.float64)[group_of]
    rtt_jitter_s = np.array([g.rtt_jitter_s or 0.0 for g in groups], dtype=np.float64)[group_of]
    rtt_s = rtt_mean_s + rtt_jitter_s * (2.0 * spread - 1.0)
    start_spread_s = np.array([g.start_spread_s for g in groups], dtype=np.float64)[group_of]
    start_s = start_spread_s * generator.random(flows)
    wire_bits = 8.0 * scenario.wire_bytes
    tx_s = wire_bits / scenario.capacity_bps
    if scenario.traffic == "open_loop":
        open_rate = scenario.open_loop_load * scenario.capacity_bps / wire_bits
        periodic = scenario.open_loop_arrivals == "periodic"
        exponential = scenario.open_loop_sizes == "exponential"
    else:
        open_rate = scenario.background_load * scenario.capacity_bps / wire_bits
        periodic = False
        exponential = False
    delay_bins = min(16 * (buffer_packets + 2), MAX_DELAY_BINS)
    delay_bin_s = max(tx_s / 4.0, 4.0 * (buffer_packets + 2) * tx_s / MAX_DELAY_BINS)
    measured_s = scenario.duration_s - scenario.warmup_s
    intervals = int(np.ceil(measured_s / scenario.interval_s - 1e-9))
    occupancy_bins = buffer_packets + 1 if not scenario.byte_mode else 4 * buffer_packets + 1
    return RunParameters(
        scenario=scenario,
        buffer_packets=int(buffer_packets),
        seed=int(seed),
        flows=flows,
        groups=groups,
        group_of=group_of,
        first_flow=first_flow,
        rtt_s=rtt_s,
        start_s=start_s,
        wire_bits=wire_bits,
        payload_bits=8.0 * scenario.packet_bytes,
        tx_s=tx_s,
        access_tx_s=np.array([wire_bits / g.access_bps for g in groups], dtype=np.float64),
        limit_bytes=float(buffer_packets * scenario.wire_bytes) if scenario.byte_mode else np.inf,
        open_rate_per_s=float(open_rate),
        open_periodic=periodic,
        open_exponential=exponential,
        delay_bin_s=float(delay_bin_s),
        delay_bins=int(delay_bins),
        intervals=max(intervals, 1),
        occupancy_bins=int(occupancy_bins),
        generator=generator,
    )
