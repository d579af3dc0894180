"""Checks of the thesis' chapter-3 simulation claims (000 §3.4-3.6, Figs. 3.1-3.8)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from models.pacing import paced_utilization_bound
from models.tcp_queue import tcp_mm1b_fixed_point
from validation.datasets import Row
from validation.harness.ns2 import NS2_DELACK_INTERVAL_S
from validation.harness.plan import Check, Suite, difference, single
from validation.simulator import Scenario

#: Rows the quick suite runs (those at 100 Mb/s or less of simulated capacity).
QUICK = {
    "f31_reno_b100",
    "f31_reno_b10",
    "f31_paced_b10",
    "f32_reno_n20_b50",
    "f32_paced_n20_b10",
    "f34_paced_n10",
    "f34_reno_n10",
    "f35_paced_n100_b10",
    "f35_paced_n40_b50",
    "f38_w10_b5",
}
#: Simulated time and warm-up of the full suite, s (the paper: 1000 s, the first 200 s ignored).
FULL_DURATION_S = 100.0
FULL_WARMUP_S = 20.0
PACKET_BYTES = 1000
TCP_MODEL = "TCP equation + M/M/1/B fixed point, carried load (000 §3.6 eqs. 3.2-3.3)"

#: What the full suite measured where a row stays apart from the paper (read with the reason).
RENO_NOTE = (
    "The paper's ns-2 Reno has no SACK; the simulator's nearest is NewReno, which repairs "
    "several losses of one window in one recovery where Reno without partial ACKs falls back "
    "to a timeout after the second. Measured in the full suite (NewReno, ns-2's 100 ms "
    "delayed-ACK interval, a window of whole segments as RFC 5681 §2 and ns-2 have it): 0.287 "
    "(10 flows) and 0.285 (100 flows) at 1.75% and 1.68% loss; while a fractional window let "
    "one segment more out, 0.282 and 0.283 at 2.2% and 2.1% loss, and before that, with "
    "receivers holding an ACK 200 ms, 0.34 and 0.32 with SACK recovery, 0.28 and 0.27 with "
    "NewReno, at about 2.3% loss. The rest of the gap to 'around 20%' is the recovery Reno "
    "lacks, not a scenario error."
)
NOTES = {
    "f34_reno_n10": RENO_NOTE,
    "f34_reno_n100": RENO_NOTE,
    "f35_paced_n40_b50": (
        "Peak load 40 × 32 × 8000 bit / 0.1 s / 100 Mb/s = 1.02: the simulated paced flows "
        "fill the link with no loss and no timeout (measured), so the utilization is about "
        "0.99. The paper's 80-90% needs its paced flows to lose packets at 50 packets of "
        "buffer; its footnote says ns-2's Paced TCP 'is not accurate and needs some "
        "modifications' without saying which, so the difference is not traced to the scenario."
    ),
    "f36_load_gain_n100": (
        "The measured mean gain is negative (full suite, ns-2's 100 ms delayed-ACK interval: "
        "utilization 0.858 at offered load 1.5 with 37 timeouts per run, 0.970 at 1.0 with 21; "
        "0.850 and 0.980 with 36 and 18 while a fractional window let one segment more out; "
        "with a 200 ms interval before that 0.850 and 0.953, about 37 timeouts per run in "
        "both); the 99% interval is about ±0.08-0.1 wide, so whether it reaches 0 turns on the "
        "replication spread. The simulator does not show the paper's increase."
    ),
}


def scenario_of(row: Row, suite: Suite, capacity_mbps: float | None = None) -> Scenario:
    """The row's scenario (000 ch. 3 ns-2 set-up; RTT jitter ± 20 ms assumed).

    Packets are 1000 bytes on the wire, headers included: "the size of packets is 1,000 bytes,
    thus the maximum offered load is 100Mb/s with 40 flows" (000 §3.4: 40 × 32 × 8000 bit /
    0.1 s = 102.4 Mb/s only without extra header bytes). "TCP Reno" is ns-2's Reno agent,
    which has no SACK: the simulator's NewReno recovery (RFC 6582, no SACK) is the nearest.
    """
    full = suite.full_scale
    return Scenario(
        capacity_bps=(capacity_mbps or row.number("capacity_mbps")) * 1e6,
        flows=int(row.number("flows")),
        rtt_s=row.number("rtt_ms") / 1e3,
        rtt_jitter_s=0.02,
        access_bps=row.number("access_mbps") * 1e6,
        max_window_packets=int(row.number("max_window_packets")),
        packet_bytes=PACKET_BYTES,
        header_bytes=0,  # ns-2's 1000-byte packets are the whole packet (provenance.toml)
        recovery="newreno",  # ns-2's TCP Reno has no SACK; NewReno is the nearest here
        delayed_ack_timeout_s=NS2_DELACK_INTERVAL_S,
        pacing=row.flag("pacing"),
        start_spread_s=5.0,
        duration_s=FULL_DURATION_S if full else suite.duration_s,
        warmup_s=FULL_WARMUP_S if full else suite.warmup_s,
    )


def _model(row: Row) -> tuple[float, str]:
    flows, window = int(row.number("flows")), int(row.number("max_window_packets"))
    capacity_bps, rtt_s = row.number("capacity_mbps") * 1e6, row.number("rtt_ms") / 1e3
    buffer_packets = int(row.number("buffer_packets"))
    peak_load = flows * window * 8 * PACKET_BYTES / (capacity_bps * rtt_s)
    paced = row.flag("pacing") or row.number("access_mbps") * 1e6 < capacity_bps
    if paced and peak_load < 1.0:  # Theorem 2 holds for an over-provisioned link only
        access_bps = row.number("access_mbps") * 1e6
        bound = paced_utilization_bound(
            flows, window, capacity_bps, rtt_s, access_bps, PACKET_BYTES, buffer_packets
        )
        return float(bound), "paced-traffic utilization bound (000 Thm 2, App. B)"
    point = tcp_mm1b_fixed_point(flows, window, capacity_bps, rtt_s, buffer_packets, PACKET_BYTES)
    return float(
        point.load * (1 - point.loss_probability)
    ), "TCP equation + M/M/1/B fixed point (000 §3.6 eqs. 3.2-3.3)"


def chapter3(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """One check per claim; Fig. 3.6's row is the gain from offered load 1.0 to 1.5."""
    checks = []
    for row in rows:
        if not suite.full_scale and row.row not in QUICK:
            continue
        buffer_packets = int(row.number("buffer_packets"))
        note = "" if suite.full_scale else "Quick suite: 30 s runs (8 s warm-up)."
        note = " ".join(part for part in (NOTES.get(row.row, ""), note) if part)
        if row.quantity == "utilization_gain":
            access_total_mbps = row.number("flows") * row.number("access_mbps")
            variants = {
                "load 1.5": (scenario_of(row, suite), buffer_packets),
                "load 1.0": (scenario_of(row, suite, access_total_mbps), buffer_packets),
            }
            measure = difference("load 1.5", "load 1.0", "utilization")
            checks.append(Check(row, variants, measure, note=note))
            continue
        model, model_name = _model(row)
        checks.append(
            Check(
                row,
                {"run": (scenario_of(row, suite), buffer_packets)},
                single("run", "utilization"),
                model=model if math.isfinite(model) else math.nan,
                model_name=model_name,
                note=note,
            )
        )
    return checks
