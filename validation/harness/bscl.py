"""Checks of BSCL's Table I and §VII loss results (004)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from models.mathis import loss_rate_for_flows
from models.sqrt_n import sqrt_n_buffer_packets
from validation.datasets import Row
from validation.harness.plan import Check, Suite, single
from validation.simulator import Scenario

CAPACITY_BPS = 50e6
PACKET_BYTES = 1500
#: RTTs uniform in 217 ± 197 ms: the stated mean and minimum (004 Appendix: 20-534 ms, mean 217).
RTT_S, RTT_JITTER_S = 0.217, 0.197


def table_1(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """The Stanford column recomputed from the row's C·T_avg (a formula, judged on the model)."""
    checks = []
    for row in rows:
        ct_packets, flows = row.number("ct_avg_packets"), row.number("lbp_flows")
        # C·T_avg packets of 1500 B over 1 s is a capacity of ct·12,000 bit/s.
        stanford = float(sqrt_n_buffer_packets(ct_packets * 8 * PACKET_BYTES, 1.0, flows))
        checks.append(
            Check(
                row,
                model=float(math.floor(stanford)),
                model_name="models.sqrt_n: floor(C·T_avg/√N_b) from the row's C·T_avg",
                judge_on="model",
                note=(
                    f"The BSCL column ({row.number('bscl_packets'):g} packets) needs the run's "
                    "T_e and loss-burst length, which the paper does not print."
                ),
            )
        )
    return checks


def loss(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """Loss at 300 LBP flows with each scheme's buffer; non-LBP traffic as Poisson background."""
    full = suite.full_scale
    checks = []
    for row in rows:
        flows, buffer_packets = int(row.number("lbp_flows")), int(row.number("buffer_packets"))
        share = row.number("lbp_share")
        scenario = Scenario(
            capacity_bps=CAPACITY_BPS,
            flows=flows,
            rtt_s=RTT_S,
            rtt_jitter_s=RTT_JITTER_S,
            access_bps=1e9,
            max_window_packets=10_000,
            packet_bytes=PACKET_BYTES,
            recovery="sack",
            delayed_ack=2,
            background_load=1.0 - share,
            start_spread_s=20.0 if full else 6.0,
            duration_s=200.0 if full else 60.0,
            warmup_s=20.0 if full else 10.0,
        )
        # Mathis with the buffer as part of the pipe: p = (0.87·N_b / (C·T + B))² (004 eq. 18
        # with the window (C·T + B)/N_b), for the LBP share of the capacity.
        model = float(
            loss_rate_for_flows(
                flows,
                share * CAPACITY_BPS,
                RTT_S + buffer_packets * 8 * PACKET_BYTES / (share * CAPACITY_BPS),
                PACKET_BYTES,
            )
        )
        checks.append(
            Check(
                row,
                {"run": (scenario, buffer_packets)},
                single("run", "loss_rate"),
                model=model,
                model_name="Mathis loss for N_b flows filling C_e·(T + B/C_e) (004 eqs. 2, 18)",
                note=(
                    "Non-LBP traffic (10% of C) is Poisson background packets until the "
                    "simulator has flow groups: it keeps its load but not its TCP reaction "
                    "(provenance.toml). RTTs uniform in 20-414 ms (mean 217 ms)."
                ),
            )
        )
    return checks
