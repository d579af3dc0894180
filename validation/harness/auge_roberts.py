"""Checks of Augé-Roberts' single-bottlenecked-flow results (002 §IV; 003 §4.2, §5)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from models.queues import mm1b_loss_probability
from validation.datasets import Row
from validation.harness.ns2 import NS2_DELACK_INTERVAL_S
from validation.harness.plan import Check, Measure, Measures, Suite, ratio, single
from validation.simulator import Scenario

#: 003 Fig. 3's base set-up: C = 50 Mb/s, RTT = 100 ms, 1000-byte packets.
CAPACITY_BPS = 50e6
RTT_S = 0.1
PACKET_BYTES = 1000


#: Why the single-flow rows use SACK although the papers' ns-2 flows are NewReno.
RECOVERY_NOTE = (
    "SACK recovery instead of the papers' NewReno: from a cold start, NewReno's slow-start "
    "overshoot on an empty link loses hundreds of packets and recovers one per RTT (measured "
    "with NewReno over 60 s at B = 1: utilization 0.0), a transient the papers' plots leave out."
)


def base(suite: Suite, **changes: object) -> Scenario:
    """003 Fig. 3's set-up with ``changes``; SACK recovery (see :data:`RECOVERY_NOTE`)."""
    full = suite.full_scale
    values: dict[str, object] = {
        "capacity_bps": CAPACITY_BPS,
        "flows": 1,
        "rtt_s": RTT_S,
        "access_bps": 1e9,
        "max_window_packets": 65_536,
        "packet_bytes": PACKET_BYTES,
        "header_bytes": 0,  # "1000 bytes packets" (003 Fig. 3) on the wire
        "recovery": "sack",
        "delayed_ack_timeout_s": NS2_DELACK_INTERVAL_S,  # the papers' ns2
        "start_spread_s": 0.0,
        "duration_s": 100.0 if full else 30.0,
        "warmup_s": 20.0 if full else 8.0,
    }
    values.update(changes)
    return Scenario.from_dict(values)


def phi(variant: str, background_load: float) -> Measure:
    """φ: goodput of the bottlenecked flows as a fraction of the residual capacity C(1 − ρ_b)."""

    def measure(runs: Measures) -> float:
        run: Mapping[str, float] = runs[variant]
        return run["goodput_bps"] / (run["capacity_bps"] * (1.0 - background_load))

    return measure


def sawtooth_utilization(bdp_packets: float, buffer_packets: float) -> float:
    """Utilization of one Reno flow whose window saws from (P + B)/2 to P + B (P = C·RTT).

    The link is busy at rate min(W, P)/P while the window W grows linearly between the halving
    points (000 §2.1's single-flow argument, 004 §III); the mean over one tooth.
    """
    windows = np.linspace((bdp_packets + buffer_packets) / 2, bdp_packets + buffer_packets, 10_001)
    return float(np.mean(np.minimum(windows, bdp_packets) / bdp_packets))


def auge_roberts(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """One check per row; the pacing rows are the ratio of paced to unpaced goodput."""
    checks = []
    for row in rows:
        rho_b = row.number("background_load")
        buffer_packets = int(row.number("buffer_packets"))
        flows = int(row.number("bottlenecked_flows"))
        access_bps = row.number("access_mbps") * 1e6
        if row.quantity == "loss_rate":
            scenario = base(
                suite,
                traffic="open_loop",
                open_loop_load=rho_b,
                open_loop_sizes="exponential",
                flows=1,
            )
            checks.append(
                Check(
                    row,
                    {"run": (scenario, buffer_packets)},
                    single("run", "loss_rate"),
                    model=float(mm1b_loss_probability(rho_b, buffer_packets)),
                    model_name="M/M/1/B loss (000 eq. 3.3; 003 §4.1-4.2)",
                    note="Open-loop Poisson packets with exponential sizes.",
                )
            )
            continue
        scenario = base(
            suite,
            flows=flows,
            background_load=rho_b,
            access_bps=access_bps,
            pacing=row.flag("pacing"),
        )
        if row.quantity == "paced_throughput_ratio":
            variants = {
                "paced": (scenario, buffer_packets),
                "unpaced": (scenario.replace(pacing=False), buffer_packets),
            }
            checks.append(
                Check(row, variants, ratio("paced", "unpaced", "goodput_bps"), note=RECOVERY_NOTE)
            )
            continue
        model, model_name, judge_on, note = math.nan, "", "simulation", RECOVERY_NOTE
        if rho_b == 0.0 and flows == 1:
            bdp = CAPACITY_BPS * RTT_S / (8 * PACKET_BYTES)
            model = sawtooth_utilization(bdp, buffer_packets)
            model_name = "single-flow sawtooth, window between (C·RTT + B)/2 and C·RTT + B"
            judge_on = "model"
            note = (
                "The paper states an expectation ('should acquire', 'we would expect'), judged on "
                "the sawtooth model. The simulated flow's 1 Gb/s access link sends each window "
                "as a burst at 20× the link rate, which overflows so small a buffer: the "
                "sawtooth argument assumes the buffer absorbs the window's excess."
            )
        if row.quantity == "phi" and access_bps < CAPACITY_BPS:
            model = min(flows * access_bps / (CAPACITY_BPS * (1 - rho_b)), 1.0)
            model_name = "peak-rate φ(i) = min(i·p / (C(1 − ρ_b)), 1) (003 §5.2)"
        measure = phi("run", rho_b) if row.quantity == "phi" else single("run", row.quantity)
        checks.append(
            Check(
                row,
                {"run": (scenario, buffer_packets)},
                measure,
                model=model,
                model_name=model_name,
                judge_on=judge_on,
                note=note,
            )
        )
    return checks
