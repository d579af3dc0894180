"""Side by side with ns-3 3.44 on the thesis Fig. 3.1 scenario (issue 4 checks).

The table is the ns-3 run quoted in issue 4 ("Packet simulator"): 40 flows, 100 Mb/s, RTTs
uniform in 80-120 ms, W_max 32 segments of 1000 B payload (1054 B on the wire), 150 s
simulated, the first 30 s discarded, seed 1; ns-3's default TCP: SACK with PRR, delayed ACKs
every 2 segments (held at most 200 ms, DelAckTimeout), initial window 10, minimum RTO 1 s.
Values are utilization / goodput (payload delivered in order, as a fraction of capacity), by
ns-3's B.

ns-3's B counts the packets waiting; the one in transmission is extra, so the same port holds
ns-3's B + 1 packets, which is bufsize's ``buffer_packets`` (docs/glossary.md).

Acceptance (issue 4): mean absolute gap ≤ 5 percentage points over the table for utilization
and for goodput each, and no point more than 12 points off.
"""

from __future__ import annotations

import numpy as np

from validation.simulator import Scenario, simulate

NS3_TABLE = {
    # B: (1 Gb/s access unpaced, 1 Gb/s access paced, 5 Mb/s access unpaced) as (U, goodput)
    1: ((0.053, 0.050), (0.177, 0.168), (0.210, 0.199)),
    2: ((0.110, 0.104), (0.314, 0.298), (0.356, 0.338)),
    5: ((0.203, 0.193), (0.635, 0.602), (0.657, 0.623)),
    10: ((0.339, 0.322), (0.916, 0.869), (0.740, 0.702)),
    20: ((0.461, 0.438), (0.981, 0.930), (0.783, 0.743)),
    50: ((0.645, 0.612), (0.998, 0.946), (0.934, 0.886)),
    100: ((0.898, 0.852), (1.000, 0.949), (1.000, 0.949)),
    200: ((1.000, 0.949), (1.000, 0.949), (1.000, 0.949)),
}
NS3_LIKE = Scenario(
    capacity_bps=100e6,
    flows=40,
    rtt_s=0.1,
    rtt_jitter_s=0.02,
    access_bps=1e9,
    max_window_packets=32,
    packet_bytes=1000,
    header_bytes=54,
    recovery="sack",
    delayed_ack=2,
    delayed_ack_timeout_s=0.2,  # ns-3's TcpSocket::DelAckTimeout default, 200 ms
    initial_window_packets=10,
    min_rto_s=1.0,
    duration_s=150.0,
    warmup_s=30.0,
)
COLUMNS = (NS3_LIKE, NS3_LIKE.replace(pacing=True), NS3_LIKE.replace(access_bps=5e6))


def test_fig_3_1_table_against_ns3() -> None:
    gaps_u: list[float] = []
    gaps_g: list[float] = []
    for ns3_b, row in NS3_TABLE.items():
        for scenario, (ns3_u, ns3_g) in zip(COLUMNS, row, strict=True):
            r = simulate(scenario, ns3_b + 1, seed=1)
            gaps_u.append(100 * abs(r.utilization - ns3_u))
            gaps_g.append(100 * abs(r.goodput_fraction - ns3_g))
    # measured: utilization mean 2.8, max 6.7 points; goodput mean 2.65, max 6.3 (3.2/7.4 and
    # 3.0/7.0 while the flight could reach ⌈cwnd⌉, before the window admitted whole segments
    # only; before the SACK recovery and slow-start fixes of test_sim_sack_recovery.py: 3.5/8.8
    # and 3.3/8.3)
    assert np.mean(gaps_u) <= 5.0, gaps_u
    assert np.mean(gaps_g) <= 5.0, gaps_g
    assert max(gaps_u) <= 12.0, gaps_u
    assert max(gaps_g) <= 12.0, gaps_g
