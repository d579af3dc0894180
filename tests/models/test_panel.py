"""A panel of real links: the engine's recommendation for each, and why an expert would sign it.

Every size is computed by hand in the comment from the paper's or RFC's formula; the test
checks the engine's number, the rule it names and the words of its reason. README's "A panel
of real links" table shows the same eleven links.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from models.recommend import LinkScenario, Recommendation, Targets, recommend


@dataclass(frozen=True)
class Link:
    name: str
    scenario: LinkScenario
    targets: Targets
    rule: str
    buffer_packets: int
    reason_quotes: tuple[str, ...]


PANEL = [
    # 1. Backbone carrying many short flows at a known load. 50,000 flows behind 100 Mb/s
    # access links (peak 0.01·C) at ρ = 0.6: the peak rates never add up to C, the link is
    # transparent and ρ^B <= ε sizes it: ⌈ln 0.01/ln 0.6⌉ = ⌈9.02⌉ = 10 packets (003 §4.2:
    # "a buffer of 20 packets limits admissible load to ρ = .79 for ε = .01"). The Level 3
    # backbone ran without a drop with a few ms of buffer (000 §4.1.2).
    Link(
        "backbone, many short flows",
        LinkScenario(capacity_bps=10e9, rtts_s=(0.1,), flows=50_000, access_bps=100e6, load=0.6),
        Targets(),
        "transparent",
        10,
        ("Transparent regime at load ρ = 0.6", "ρ^B <= ε sizes it (003 §4.2)"),
    ),
    # 2. Congested enterprise edge: 1 Gb/s uplink, RTTs 20/30/80 ms (T_e = 3/(1/0.02 + 1/0.03
    # + 1/0.08) = 31.3 ms), 60 long-lived flows bottlenecked here carrying 90%, p̂ = 1% given.
    # C_e·T_e = 0.9·1e9·0.0313/12,000 = 2,348 packets; q = 1 − (59/60)^33 = 0.426;
    # B_ρ = (0.426·2,348 − 2·60·0.574)/1.574 = 591.0; B_p = 8.7·60 − 2,348 < 0: 592 packets
    # (004 Fig. 4, eqs. 16, 23). An expert signs BSCL where the flows are known to be
    # bottlenecked here: "BSCL manages to keep the target link saturated without letting the
    # loss rate exceed a given bound" (004 §VIII).
    Link(
        "congested enterprise edge",
        LinkScenario(
            capacity_bps=1e9,
            rtts_s=(0.02, 0.03, 0.08),
            flows=2000,
            bottlenecked_flows=60,
            bottlenecked_share=0.9,
        ),
        Targets(max_loss=0.01),
        "bscl",
        592,
        ("N_b = 60 flows are bottlenecked here", "004 Fig. 4"),
    ),
    # 3. Home uplink: 20 Mb/s, 40 ms, 4 CUBIC flows, CoDel. Few flows synchronize, so the
    # single-flow rule with CUBIC's β = 0.7: B = C·RTT·(1−β)/β = 66.7·0.3/0.7 = 28.6 -> 29
    # packets (RFC 9438 §4.6; Spang, Arslan, McKeown 2021 generalize the BDP rule to β). CoDel
    # keeps the standing queue at its 5 ms TARGET = 8.3 packets (RFC 8289 §4.3). The hard limit
    # above it must outlast CoDel's reaction at start-up: TARGET + INTERVAL = 105 ms before its
    # first drop, plus the RTT for the drop to reach a sender in slow start, which adds a packet
    # per packet sent: C·(R + T_e) = 20e6·0.145/12,000 = 241.7 -> 242 packets (was 29, where
    # tail drops outnumbered CoDel's at start-up: tests/validation/test_aqm_limit.py).
    Link(
        "home uplink with CoDel",
        LinkScenario(
            capacity_bps=20e6, rtts_s=(0.04,), flows=4, congestion_control="cubic", aqm="codel"
        ),
        Targets(),
        "aqm_limit",
        242,
        ("β = 0.7", "RFC 9438 §4.6", "Raised to 242 packets as the hard limit, from 29"),
    ),
    # 4. Datacenter leaf, DCTCP, fan-in of 40 senders: 10 Gb/s, 100 µs RTT: BDP = 83.3
    # packets; K > C·RTT/7 = 11.9 packets (Alizadeh et al. SIGCOMM 2010 §3.4) plus the burst of
    # 40 senders × IW 10 = 400 packets: 411.9 -> 412 packets, 4.9 RTTs, above the BDP because
    # the user gave the fan-in (a drop in the burst costs the query a 200 ms RTO).
    Link(
        "datacenter leaf, DCTCP, incast",
        LinkScenario(
            capacity_bps=10e9,
            rtts_s=(100e-6,),
            flows=40,
            congestion_control="dctcp",
            incast_senders=40,
        ),
        Targets(),
        "dctcp",
        412,
        ("K > C·RTT/7", "absorbing the fan-in burst you gave (40 senders × 10 packets)"),
    ),
    # 5. Optical core with paced hosts: 40 Gb/s, 100 ms, 5,000 flows, W_max = 64 KB = 43.7
    # packets: ρ = 0.655, S = M/W_max = 333,333/43.7 = 7,629 (000 §3.4, App. B). The paced
    # bound gives 17 packets, within an all-optical buffer's "few dozen packets" (000 §3.1).
    Link(
        "optical core, paced hosts",
        LinkScenario(
            capacity_bps=40e9,
            rtts_s=(0.1,),
            flows=5000,
            max_window_packets=65536 / 1500,
            paced=True,
            medium="optical",
        ),
        Targets(),
        "paced",
        17,
        ("window-limited", "paced-traffic bound needs only 17 packets"),
    ),
    # 6. A link with a measured loss target: 100 Mb/s, 100 ms, N_b = 100 Reno flows measured
    # from a trace, SLA loss 0.1%: K_p = 0.87/√0.001 = 27.5 packets per flow; B_p = 27.51·100 −
    # 833.3 = 1,917.9 -> 1,918 packets = 230 ms (004 eqs. 22-23), above C·T_e because the user
    # gave the loss target, and the reason prices it.
    Link(
        "measured loss target (0.1%)",
        LinkScenario(
            capacity_bps=100e6,
            rtts_s=(0.1,),
            flows=500,
            bottlenecked_flows=100,
            congestion_control="reno",
        ),
        Targets(max_loss=0.001),
        "bscl",
        1918,
        ("your target (loss <= 0.001) requires it", "230 ms of queueing"),
    ),
    # 7. Geostationary satellite: 50 Mb/s, 600 ms RTT, 8 CUBIC flows: BDP = 2,500 packets;
    # with N_b unknown and 8 flows the single-flow rule, CUBIC: 2,500·0.3/0.7 = 1,071.4 ->
    # 1,072 packets = 257 ms, less than one RTT (RFC 9438 §4.6).
    Link(
        "satellite (GEO)",
        LinkScenario(capacity_bps=50e6, rtts_s=(0.6,), flows=8, congestion_control="cubic"),
        Targets(),
        "md_beta",
        1072,
        ("N_b not given", "single-flow rule"),
    ),
    # 7b. The same link with the congestion control not given: an unknown, never CUBIC by
    # default. Reno needs the whole BDP, C·T = 2,500 packets (000 §2.1), CUBIC 1,072: the
    # answer is Reno's, the larger, which keeps the port busy whichever of the two the hosts
    # run (a CUBIC-sized buffer leaves it idle after Reno halves its window), and both sizes
    # are stated. 2,500 packets is one RTT of queueing, within the default delay target.
    Link(
        "satellite (GEO), congestion control not given",
        LinkScenario(capacity_bps=50e6, rtts_s=(0.6,), flows=8),
        Targets(),
        "rule_of_thumb",
        2500,
        ("Congestion control not given", "Reno 2,500 packets; CUBIC 1,072 packets"),
    ),
    # 8. Shared-buffer switch port: 100 Gb/s, 20 µs, DCTCP, 100-way fan-in: K = 166.7/7 =
    # 23.8 packets + 100 × 10 = 1,000: 1,023.8 -> 1,024 packets (1.5 MB) that the port's
    # dynamic share of the shared buffer must hold when the burst arrives.
    Link(
        "shared-buffer switch port",
        LinkScenario(
            capacity_bps=100e9,
            rtts_s=(20e-6,),
            flows=100,
            congestion_control="dctcp",
            incast_senders=100,
        ),
        Targets(),
        "dctcp",
        1024,
        ("the port's share of a shared switch buffer holds this much",),
    ),
    # 9. CIOQ router port, 000 §5.1's setup: 40 Gb/s, 1000-B packets, 32 ports, speedup 2, 500
    # flows on 100 Mb/s access links, W_max 64: window-limited (ρ = 500·64/500,000 = 0.064),
    # S = 400; the paced bound gives 3 packets per output and, with speedup 2, about 2 packets
    # per VOQ, 64 per input (000 §5.1 Thm 3, Lemma 1).
    Link(
        "CIOQ router port",
        LinkScenario(
            capacity_bps=40e9,
            rtts_s=(0.1,),
            flows=500,
            access_bps=100e6,
            max_window_packets=64,
            packet_bytes=1000,
            input_queued=True,
            ports=32,
            speedup=2,
        ),
        Targets(),
        "paced",
        3,
        ("window-limited",),
    ),
    # 10. BBR bottleneck: 1 Gb/s, 50 ms, 20 BBR flows: ProbeBW's 1.25 gain queues 0.25·C·T_e
    # = 0.25·4,166.7 = 1,041.7 -> 1,042 packets (Cardwell et al. 2016); with N_b unknown the
    # loss is not sized.
    Link(
        "BBR bottleneck",
        LinkScenario(capacity_bps=1e9, rtts_s=(0.05,), flows=20, congestion_control="bbr"),
        Targets(),
        "bbr",
        1042,
        ("ProbeBW phase sends 1.25×",),
    ),
    # 11. The thesis link (000 §3.2: 10 Gb/s, 100 ms, 1000 flows, W_max 64 KB of 1 KB packets,
    # ρ = 0.512) with neither pacing nor the access rate given (README's example). The tiny
    # buffers' 15 packets need non-bursty arrivals: "if flows can send at the same rate as the
    # bottleneck link, then there is no pacing of traffic whatsoever and our simulations
    # indicate that constant throughput is not achievable with log-sized buffers" (000 §3.4).
    # Not assumed: sqrt(N) sizes it, C·T/√N = 125,000/√1000 = 3,952.8 -> 3,953 packets
    # (000 §2.2.2), above the ~50 packets unpaced Reno needed for its maximum utilization at
    # a peak load of 0.52 in 000 Fig. 3.2; the 15 packets are the what-if of confirmed pacing.
    Link(
        "thesis link, pacing unknown",
        LinkScenario(
            capacity_bps=10e9,
            rtts_s=(0.1,),
            flows=1000,
            packet_bytes=1000,
            max_window_packets=64,
        ),
        Targets(),
        "sqrt_n",
        3953,
        ("window-limited", "paced senders or access links much slower than the port"),
    ),
]


def _run(link: Link) -> Recommendation:
    return recommend(link.scenario, link.targets)


@pytest.mark.parametrize("link", PANEL, ids=[link.name for link in PANEL])
def test_panel_link(link: Link) -> None:
    rec = _run(link)
    best = rec.recommended
    assert best.rule == link.rule
    assert best.buffer_packets == link.buffer_packets
    for quote in link.reason_quotes:
        assert quote in best.reason, quote
    assert rec.feasible
    # Defaults never push past C·T_e; only the user's inputs (loss target, fan-in) may.
    bdp = math.ceil(rec.inputs.bdp_packets - 1e-9)
    user_push = link.targets.max_loss is not None or link.scenario.incast_senders is not None
    # An AQM's hard limit holds the senders' start-up, not the standing queue (the AQM's).
    user_push = user_push or link.scenario.aqm != "none"
    assert best.buffer_packets <= bdp or user_push


def test_panel_side_advice() -> None:
    by_name = {link.name: _run(link) for link in PANEL}
    home = by_name["home uplink with CoDel"]
    codel = next(r for r in home.rules if r.rule == "aqm")
    # 5 ms at 20 Mb/s: 0.005/(8·1500/20e6) = 8.33 -> 9 packets (RFC 8289 TARGET).
    assert codel.buffer_packets == 9 and "RFC 8289" in codel.reference
    optical = by_name["optical core, paced hosts"]
    assert optical.optical is not None and optical.optical.fifo_capacity_packets >= 17
    cioq = by_name["CIOQ router port"].cioq
    assert cioq is not None and cioq.emulates_output_queueing
    assert cioq.voq_packets_per_input == 2.0 and cioq.input_buffer_packets == 64.0
    leaf = by_name["datacenter leaf, DCTCP, incast"]
    dctcp = next(r for r in leaf.rules if r.rule == "dctcp")
    assert "K = C·RTT/7 = 11.9" in (dctcp.note or "")
    thesis = by_name["thesis link, pacing unknown"]
    (tiny,) = [w for w in thesis.what_if if w.rule == "tiny_buffers"]
    # 000 §3.3: "if W_max = 64 packets, ρ = 0.5, and we want an effective utilization of 90%,
    # we need a buffer size of 15 packets"; here ρ = 0.512: log_{1/0.512}(64²/0.2) = 14.8 -> 15.
    assert tiny.input == "paced" and tiny.buffer_packets == 15
    satellite = by_name["satellite (GEO)"]
    worst = next(w for w in satellite.what_if if w.input == "bottlenecked_flows")
    assert worst.buffer_packets is not None and worst.buffer_packets > 0
