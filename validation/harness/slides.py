"""Checks of the slides' OC3 table (001, 'Model vs. ns2 vs. Physical Router')."""

from __future__ import annotations

from collections.abc import Sequence

from models.sqrt_n import appenzeller_utilization_bound, sqrt_n_buffer_packets
from validation.datasets import Row
from validation.harness.ns2 import NS2_DELACK_INTERVAL_S
from validation.harness.plan import Check, Suite, single
from validation.simulator import Scenario

#: OC3 line rate, bit/s.
OC3_BPS = 155.52e6
PACKET_BYTES = 1500
RTT_S = 0.1
#: Run length (simulated s, warm-up s) and replications per suite.
RUNS = {"quick": (30.0, 8.0), "full": (120.0, 20.0)}
SPREAD_NOTE = (
    " The verdict is on RTTs in 100 ± 20 ms; the 'rtt 20-180 ms' figures show how much the "
    "unstated RTT spread moves the utilization at this buffer."
)
QUICK = {"n100_x0.5", "n100_x1", "n400_x0.5", "n400_x1"}


def oc3_scenario(flows: int, duration_s: float, warmup_s: float) -> Scenario:
    """OC3, ~100 ms RTT (uniform 80-120 ms assumed), long-lived flows with unlimited windows.

    The receivers hold an ACK at most ns-2's 100 ms, as the slide's ns2 column's would.
    """
    return Scenario(
        capacity_bps=OC3_BPS,
        flows=flows,
        rtt_s=RTT_S,
        rtt_jitter_s=0.02,
        access_bps=1e9,
        max_window_packets=65_536,
        packet_bytes=PACKET_BYTES,
        delayed_ack_timeout_s=NS2_DELACK_INTERVAL_S,  # the ns2 column's simulator
        start_spread_s=5.0,
        duration_s=duration_s,
        warmup_s=warmup_s,
    )


def oc3(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """Simulated utilization at the slide's buffer sizes; the ns2 column is the paper value."""
    duration_s, warmup_s = RUNS[suite.name]
    checks = []
    for row in rows:
        if not suite.full_scale and row.row not in QUICK:
            continue
        flows, buffer_packets = int(row.number("flows")), int(row.number("buffer_packets"))
        rule = float(sqrt_n_buffer_packets(OC3_BPS, RTT_S, flows, PACKET_BYTES))
        scenario = oc3_scenario(flows, duration_s, warmup_s)
        variants = {"run": (scenario, buffer_packets)}
        note = f"{duration_s:g} s runs ({warmup_s:g} s warm-up)."
        if row.number("multiple") <= 0.5:
            # The slide states only '~100ms RTT'; at the smallest buffer the result depends
            # on how far the flows' RTTs spread (synchronization), so a second variant with
            # RTTs in 100 ± 80 ms is measured beside it and shown in the reason.
            variants["rtt 20-180 ms"] = (scenario.replace(rtt_jitter_s=0.08), buffer_packets)
            note += SPREAD_NOTE
        checks.append(
            Check(
                row,
                variants,
                single("run", "utilization"),
                model=float(appenzeller_utilization_bound(buffer_packets, rule)),
                model_name=(
                    "Appenzeller's lower bound erf(3√3/(2√2)·B/(2TC/√n)) (000 §2.2.2 eq. 2.2); "
                    f"the slide's own model column: {row.number('model'):.1%}, router: "
                    f"{row.number('router'):.1%}"
                ),
                note=note,
            )
        )
    return checks
