"""Checks of the thesis' experiments (000 ch. 4): Tables 4.1-4.2, the Sprint testbed, Level 3.

The testbed of 000 §4.2 is a 1 Gb/s link with an RTT of 50 ms (15 + U[0, 20] ms each way),
15 Mb/s server access links, 16 KB advertised windows and 1500-byte packets. The quick suite
divides C and the number of users by :data:`QUICK_SCALE` and keeps each user's window, RTT and
access rate (provenance.toml, `scaling`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from models.queues import md1b_loss_bound, md1b_queue
from models.tcp_queue import tcp_mm1b_fixed_point
from validation.datasets import Row
from validation.harness.plan import Check, Suite, difference, scaled, single
from validation.simulator import Scenario
from validation.simulator.fields import SizeDistribution, Traffic

#: C and N are divided by this in the quick suite.
QUICK_SCALE = 10
#: Bytes per packet on the testbed (Gigabit Ethernet frames).
PACKET_BYTES = 1500
#: The testbed's maximum throughput after headers, Mb/s (000 §4.2.2: 'about 950Mb/s').
MAX_THROUGHPUT_MBPS = 950.0
#: 1 MB downloads of 1500-byte packets.
ONE_MB_PACKETS = math.ceil(1024 * 1024 / PACKET_BYTES)


def window_packets(window_kb: float) -> int:
    """An advertised window in KB as whole 1500-byte packets (at least one)."""
    return max(int(window_kb * 1024 // PACKET_BYTES), 1)


def testbed(
    suite: Suite,
    *,
    users: int,
    window: int,
    access_bps: float = 15e6,
    traffic: Traffic = "closed_loop",
    sizes: SizeDistribution = "fixed",
    size_packets: float = ONE_MB_PACKETS,
    shape: float = 1.5,
) -> tuple[Scenario, int]:
    """The Sprint testbed scenario and the scale it was divided by."""
    scale = 1 if suite.full_scale else QUICK_SCALE
    scenario = Scenario(
        capacity_bps=1e9 / scale,
        flows=max(round(users / scale), 1),
        rtt_s=0.05,
        rtt_jitter_s=0.02,
        access_bps=access_bps,
        max_window_packets=window,
        packet_bytes=PACKET_BYTES,
        header_bytes=0,  # 1500-byte frames; the 950 Mb/s maximum accounts for headers
        traffic=traffic,
        flow_size_distribution=sizes,
        flow_size_packets=size_packets,
        pareto_shape=shape,
        start_spread_s=5.0,
        duration_s=suite.duration_s,
        warmup_s=suite.warmup_s,
    )
    return scenario, scale


#: E[1/RTT] of RTTs uniform in 30-70 ms (15 + U[0, 20] ms each way), 1/s: ln(70/30) / 0.04 s.
MEAN_INVERSE_RTT_PER_S = math.log(70 / 30) / 0.04


def potential_load(users: int, window: int, access_bps: float = 15e6) -> float:
    """Offered load of users who always send a full window (000 §4.2.2's 'potential load').

    Each user sends at most ``min(window / RTT, access rate)``; summed over the RTTs' spread
    and divided by 1 Gb/s. Queueing delay lowers it once the link is busy.
    """
    per_user_bps = min(window * 8 * PACKET_BYTES * MEAN_INVERSE_RTT_PER_S, access_bps)
    return users * per_user_bps / 1e9


def load_note(users: int, window: int, access_bps: float = 15e6) -> str:
    """Why the simulated testbed runs hotter than the paper's (a measured-cause note)."""
    load = potential_load(users, window, access_bps)
    return (
        f"Potential load {load:.2f}: {users} users × min({window} packets / RTT, "
        f"{access_bps / 1e6:g} Mb/s), RTTs 30-70 ms. The simulated users start each file the "
        "moment the last one ends and send a full window at once (initial window 10), so they "
        "offer this much; the paper chose 600 users of 16 KB windows so that 'the effective "
        "load of the system is about 100%', i.e. its users (FTP downloads with connection "
        "set-up per file, not described further) offered about two thirds of what the same "
        "windows offer here: where the rows disagree, the simulation is above the paper "
        "(fuller queue, more drops)."
    )


#: Measured (full suite, seeds of the rows) where a window of an odd number of packets waits
#: for the receiver's delayed ACK; the 200 ms figures are from before the default became 40 ms.
ODD_WINDOW_NOTE = (
    "The window is an odd number of packets: each round trip ends with the last packet's "
    "acknowledgement held by the receiver's delayed-ACK timer (every 2 segments, at most 40 ms, "
    "Linux's minimum), so the round trip is 40 ms longer. Measured in the full suite at zero "
    "loss and without timeouts: utilization 0.638 with 5-packet windows (600 users), 0.644 with "
    "1-packet windows (4800 users), which is what one packet per RTT + 40 ms gives (4800 × "
    "12,000 bit × E[1/(RTT + 40.8 ms)] over RTTs of 30-70 ms = 0.645 Gb/s). With a 200 ms "
    "timer, which raced the 200 ms minimum retransmission timeout: 0.597 and 0.235 with about "
    "16,700 spurious timeouts per run; with an ACK for every packet (2 replications) the "
    "1-packet windows fill the link (0.9999) at 3.2-3.3% loss. The paper does not state the "
    "testbed's ACK policy; the simulator's defaults (today's Linux hosts) are kept."
)


def _window_note(window: int) -> str:
    return ODD_WINDOW_NOTE + " " if window % 2 == 1 and window <= 5 else ""


def _scale_note(scale: int) -> str:
    if scale == 1:
        return "Simulated at the paper's scale."
    return (
        f"Quick suite: C and the number of users divided by {scale}, each user's window, RTT "
        "and access rate kept (provenance.toml)."
    )


def _tcp_model(users: int, window: int, buffer_packets: int, capacity_bps: float = 1e9) -> float:
    point = tcp_mm1b_fixed_point(users, window, capacity_bps, 0.05, buffer_packets, PACKET_BYTES)
    return float(point.load * (1.0 - point.loss_probability))  # carried load


TCP_MODEL = "TCP equation + M/M/1/B fixed point (000 §3.6 eqs. 3.2-3.3)"

TABLE_4_1_QUICK = {"w64_n150", "w32_n300", "w16_n600", "w8_n1200", "w2_n4800"}
TABLE_4_1_TRENDS = {
    "trend_rise": (("w16_n600", 16, 600), ("w64_n150", 64, 150)),
    "trend_fall": (("w8_n1200", 8, 1200), ("w2_n4800", 2, 4800)),
}


TREND_NOTES = {
    "trend_fall": (
        "The simulated fall comes from the 1-packet windows' delayed ACK, held 40 ms each "
        "round trip (see the row w2_n4800: zero loss, no timeouts), not from the 'very high "
        "drop rate' the paper gives as its cause; the rows themselves disagree (w2_n4800 "
        "below the paper's 764.9 Mb/s). Measured fall 0.3505 (0.348 before the sender's window "
        "took whole segments only). With the old 200 ms timer the fall was larger (0.758 "
        "instead of 0.348) and came from about 16,700 spurious timeouts per run."
    ),
}


def table_4_1(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """000 Table 4.1: persistent flows at fixed potential load, B = 85."""
    checks = []
    for row in rows:
        if row.row in TABLE_4_1_TRENDS:
            variants = {}
            for key, trend_kb, users in TABLE_4_1_TRENDS[row.row]:
                scenario, scale = testbed(suite, users=users, window=window_packets(trend_kb))
                variants[key] = (scenario, 85)  # the same runs as the row named key
            first, second = TABLE_4_1_TRENDS[row.row]
            checks.append(
                Check(
                    row,
                    variants,
                    difference(first[0], second[0], "utilization"),
                    note=(TREND_NOTES.get(row.row, "") + " " + _scale_note(scale)).strip(),
                    seed_key="table",
                )
            )
            continue
        if not suite.full_scale and row.row not in TABLE_4_1_QUICK:
            continue
        window_kb, flows = row.number("window_kb"), int(row.number("flows"))
        if window_kb * 1024 < PACKET_BYTES:
            checks.append(
                Check(
                    row,
                    not_reproducible=(
                        f"a {window_kb:g} KB window is smaller than one {PACKET_BYTES}-byte "
                        "packet; the simulator's windows are whole packets (at least one), so "
                        "the stall the paper measured (0.1 Mb/s) cannot be set up."
                    ),
                )
            )
            continue
        window = window_packets(window_kb)
        scenario, scale = testbed(suite, users=flows, window=window)
        checks.append(
            Check(
                row,
                {"run": (scenario, 85)},
                scaled("run", "utilization", MAX_THROUGHPUT_MBPS),
                model=MAX_THROUGHPUT_MBPS * _tcp_model(flows, window, 85),
                model_name=TCP_MODEL,
                note=(
                    f"Window {window} packets. {_window_note(window)}"
                    f"{load_note(flows, window)} {_scale_note(scale)}"
                ),
                seed_key="table",
            )
        )
    return checks


#: Measured cause of the short-file rows' low throughput (full suite, 600 users, seeds of the
#: rows); the 200 ms figures are from before the default became 40 ms.
SHORT_FILE_NOTE = (
    "A file of an odd number of packets ends with its last acknowledgement held by the "
    "receiver's delayed-ACK timer (at most 40 ms, Linux's minimum), and the user's next file "
    "waits for it: the 10 KB (7-packet) users carry 0.537 at zero loss and without timeouts "
    "in the full suite. With a 200 ms timer, which raced the sender's 200 ms minimum "
    "retransmission timeout, they timed out about 95,000 times per run (0.223); with an ACK "
    "for every packet they carry 0.921-0.930 (2 replications) at 0.15% loss. The paper "
    "does not state the testbed's ACK policy, so the simulator's defaults are kept. "
)
TABLE_4_2_QUICK = {"1mb_throughput", "1mb_drops", "10kb_throughput", "10kb_drops"}


def table_4_2(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """000 Table 4.2: 600 closed-loop users, B = 85, five file-size patterns."""
    checks = []
    for row in rows:
        if not suite.full_scale and row.row not in TABLE_4_2_QUICK:
            continue
        # The dataset's names are the simulator's (Scenario.validate refuses any other).
        sizes = cast(SizeDistribution, row.params["size_distribution"])
        mean_packets = row.number("mean_kb") * 1024 / PACKET_BYTES
        if sizes == "fixed":
            mean_packets = float(math.ceil(mean_packets))
        scenario, scale = testbed(
            suite,
            users=int(row.number("users")),
            window=window_packets(16),
            sizes=sizes,
            size_packets=mean_packets,
            shape=2.0,
        )
        checks.append(
            Check(
                row,
                {"run": (scenario, int(row.number("buffer_packets")))},
                single("run", row.quantity),
                note=(
                    f"Mean file {mean_packets:.4g} packets ({sizes}). "
                    f"{SHORT_FILE_NOTE if mean_packets < 100 else ''}"
                    f"{load_note(int(row.number('users')), window_packets(16))} "
                    f"{_scale_note(scale)}"
                ),
                seed_key=row.params["flow_size"],
            )
        )
    return checks


#: The quick suite's Sprint rows: only buffers in the tiny-buffer range (000 §4.2.2: "192, 63,
#: and 50 packets, which is in the range of tiny buffers model"), whose size in packets does
#: not scale with C. A buffer of 922-8500 packets kept while C is divided by 10 would be 10
#: times larger against the bandwidth-delay product (2.2 instead of 0.22 BDP at 922 packets),
#: which is no longer the row's experiment: those rows are left to the full suite.
SPRINT_QUICK = {
    "thr_b192",
    "thr_b50",
    "delay_b50",
    "drops_b50",
    "access_16",
}


DELAY_NOTE = " Delays are given in the paper's 1 Gb/s packet times (simulated delay / scale)."


def sprint(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """000 §4.2.2 Figs. 4.11-4.16 as the text states them."""
    checks = []
    for row in rows:
        if not suite.full_scale and row.row not in SPRINT_QUICK:
            continue
        buffer_packets = int(row.number("buffer_packets"))
        users = int(row.number("users"))
        access_bps = row.number("access_mbps") * 1e6
        scenario, scale = testbed(
            suite, users=users, window=window_packets(16), access_bps=access_bps
        )
        key = f"b{buffer_packets}_u{users}_a{access_bps:g}"
        if row.quantity == "queue_delay_mean_s":
            # A queue of k packets waits k·(packet time) at the simulated rate; at the paper's
            # 1 Gb/s the same queue waits 1/scale as long.
            measure = scaled("run", "queue_delay_mean_s", 1.0 / scale)
        else:
            measure = single("run", row.quantity)
        model, model_name = math.nan, ""
        if row.quantity == "loss_rate":
            model = float(md1b_queue(1.0, buffer_packets).loss_probability)
            model_name = (
                "M/D/1/B loss at load 1.0 (000 App. A Lemma 6; 000 §4.2.2 compares with it)"
            )
        elif row.quantity == "utilization" and row.params["figure"] == "4.11":
            model = _tcp_model(users, window_packets(16), buffer_packets)
            model_name = TCP_MODEL
        checks.append(
            Check(
                row,
                {"run": (scenario, buffer_packets)},
                measure,
                model=model,
                model_name=model_name,
                note=" ".join(
                    (
                        load_note(users, window_packets(16), access_bps),
                        _scale_note(scale) + (DELAY_NOTE if "delay" in row.quantity else ""),
                    )
                ),
                seed_key=key,
            )
        )
    return checks


#: Largest buffer for which the exact M/D/1/B chain is solved (larger: the bound ρ^B).
EXACT_MD1B_LIMIT = 3000


def level3(rows: Sequence[Row], suite: Suite) -> list[Check]:
    """000 §4.1.2: Level 3 backbone drops; compared with the M/D/1/B model only."""
    checks = []
    for row in rows:
        load, buffer_packets = row.number("load"), int(row.number("buffer_packets"))
        if buffer_packets <= EXACT_MD1B_LIMIT:
            loss = float(md1b_queue(load, buffer_packets).loss_probability)
            name = f"M/D/1/B loss at load {load:g} (000 App. A Lemma 6)"
        else:  # the exact chain has B states; the bound is already far below one drop
            loss = float(md1b_loss_bound(load, buffer_packets))
            name = f"M/D/1/B loss bound ρ^B at load {load:g} (000 App. A Lemma 6)"
        checks.append(
            Check(
                row,
                model=loss,
                model_name=name,
                not_reproducible=(
                    "live backbone traffic of about 10,000 flows whose RTTs, access rates and "
                    "sizes the paper does not give; no simulator scenario reproduces it "
                    "faithfully (provenance.toml)"
                ),
            )
        )
    return checks
