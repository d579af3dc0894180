"""Checks of BSCL's Table I and §VII loss results (004)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from models.mathis import loss_rate_for_flows
from models.sqrt_n import sqrt_n_buffer_packets
from validation.datasets import Row
from validation.harness.ns2 import NS2_DELACK_INTERVAL_S
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


#: Mean size of 004 §VII's short flows, packets ("an average size of 14 packets").
SHORT_FLOW_PACKETS = 14.0
#: 004 §VII: "The number of RBP flows and window-limited flows is 20 and 10, respectively".
RBP_FLOWS, WINDOW_LIMITED_FLOWS = 20, 10


def groups_supported() -> bool:
    """Whether the simulator takes flow groups (issue 10 item 0)."""
    return "groups" in {f.name for f in dataclasses.fields(Scenario)}


def mix_scenario(flows: int, share: float, full: bool) -> Scenario:
    """004 §VII's traffic mix on the target link, as flow groups.

    "40% of the non-LBP traffic comes from RBP flows, 40% from window-limited flows, and 20%
    from short flows. The offered load from short flows is controlled by their interarrival
    time, while the offered load from RBP flows and window-limited flows is controlled by the
    access link capacity and receiver window, respectively." (004 §VII.) Non-LBP traffic is
    (1 − C_e/C)·C; RBP access rates and the window-limited windows are set from it.
    """
    other_bps = (1.0 - share) * CAPACITY_BPS
    packet_bits = 8.0 * PACKET_BYTES
    tcp: dict[str, Any] = {
        "rtt_s": RTT_S,
        "rtt_jitter_s": RTT_JITTER_S,
        "recovery": "sack",
        "delayed_ack": 2,
        "delayed_ack_timeout_s": NS2_DELACK_INTERVAL_S,  # ns-2's DelAck sink
        "ca_increase": "per_ack",  # ns-2's 1/cwnd per ACK (provenance.toml)
        "start_spread_s": 20.0 if full else 6.0,
    }
    window_limited = max(round(0.4 * other_bps / WINDOW_LIMITED_FLOWS * RTT_S / packet_bits), 1)
    groups = [
        {"name": "LBP", "flows": flows, "max_window_packets": 10_000, **tcp},
        {
            "name": "RBP",
            "flows": RBP_FLOWS,
            "access_bps": 0.4 * other_bps / RBP_FLOWS,
            "max_window_packets": 10_000,
            **tcp,
        },
        {
            "name": "window-limited",
            "flows": WINDOW_LIMITED_FLOWS,
            "max_window_packets": window_limited,
            **tcp,
        },
        {
            "name": "short",
            "flows": 200,  # most concurrent short flows
            "traffic": "poisson_flows",
            "flow_size_distribution": "fixed",
            "flow_size_packets": SHORT_FLOW_PACKETS,
            "flow_arrival_rate_per_s": 0.2 * other_bps / (SHORT_FLOW_PACKETS * packet_bits),
            "max_window_packets": 10_000,
            **tcp,
        },
    ]
    return Scenario.from_dict(
        {
            "capacity_bps": CAPACITY_BPS,
            "packet_bytes": PACKET_BYTES,
            "groups": groups,
            "duration_s": 200.0 if full else 60.0,
            "warmup_s": 20.0 if full else 10.0,
        }
    )


MIX_NOTE = (
    "The simulated mix of 004 §VII: LBP flows, 20 RBP flows behind slow access links, 10 "
    "window-limited flows and Poisson short flows of 14 packets, the non-LBP 10% split 40/40/20. "
    "RTTs uniform in 20-414 ms (mean 217 ms); ns-2's TCP as the paper ran it: 1/cwnd per ACK, "
    "delayed ACKs with ns-2's 100 ms timer. Full suite: loss 1.72% (BSCL), 6.0% (C·T), 12.6% "
    "(Stanford), in the paper's order (with a 200 ms timer 1.65%, 5.7%, 11.7%; with "
    "byte-counting growth 3.0%, 8.5%, 15.0%). Why BSCL's loss is above 1%: the loss counted is "
    "per packet, and an LBP flow loses 1.86 packets per loss event (seeds 1-2 at 2459 packets: "
    "23,561 drops in 12,676 events), mostly the two back-to-back segments a delayed ACK "
    "releases, both finding the buffer full; the loss-event rate, 0.93%, is 1.15x what eq. 2 "
    "(0.87/√p, one loss per window halving, the basis of K_p) gives at the measured queue, "
    "0.80%. The sizes are Table I's, for the paper's RTTs: on this mix BSCL gives 2139 packets "
    "(T_e 130 ms), C·T_avg 873 and C·T_avg/√N_b 50, which lose 1.98%, 4.84% and 12.0% "
    "(seeds 1-4). The window-limited flows' 4-packet windows carry 1.2% of C, not 4%, at "
    "0.58 s of queueing (C_e measured 0.93)."
)
PROXY_NOTE = (
    "Non-LBP traffic (10% of C) is Poisson background packets (this simulator has no flow "
    "groups yet): it keeps its load but not its TCP reaction (provenance.toml). RTTs uniform "
    "in 20-414 ms (mean 217 ms)."
)


def loss(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """Loss at 300 LBP flows with each scheme's buffer, on 004 §VII's mix of flow groups.

    Without flow groups in the simulator, the non-LBP traffic is Poisson background packets.
    """
    full = suite.full_scale
    checks = []
    for row in rows:
        flows, share = int(row.number("lbp_flows")), row.number("lbp_share")
        if groups_supported():
            checks.append(_loss_check(row, mix_scenario(flows, share, full), MIX_NOTE))
            continue
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
            delayed_ack_timeout_s=NS2_DELACK_INTERVAL_S,
            background_load=1.0 - share,
            start_spread_s=20.0 if full else 6.0,
            duration_s=200.0 if full else 60.0,
            warmup_s=20.0 if full else 10.0,
        )
        checks.append(_loss_check(row, scenario, PROXY_NOTE))
    return checks


def _loss_check(row: Row, scenario: Scenario, note: str) -> Check:
    flows, buffer_packets = int(row.number("lbp_flows")), int(row.number("buffer_packets"))
    share = row.number("lbp_share")
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
    return Check(
        row,
        {"run": (scenario, buffer_packets)},
        single("run", "loss_rate"),
        model=model,
        model_name="Mathis loss for N_b flows filling C_e·(T + B/C_e) (004 eqs. 2, 18)",
        note=note,
    )
