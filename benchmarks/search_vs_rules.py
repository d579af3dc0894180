"""The rules' size beside the size searched by simulation, on links of different kinds.

Run with ``nice -n 10 .venv/bin/python benchmarks/search_vs_rules.py [--replications 3]
[--links home_uplink,geo]``. For each link it prints the recommended size and the rule that
governs it, the smallest size :func:`validation.size_search.search` finds to meet every target
in simulation (on the scaled link of ``--verify``), their ratio, the size one step smaller
(which misses or leaves a target undecided), the sizes tried and the search's wall time. The
compiled simulator is warmed first (one short run), so the times are those of warm code; on a
shared machine they are inflated by the other load, which the header line reports.

The target is under 60 s per link on a 2-core machine with warm compiled code.
"""

from __future__ import annotations

import argparse
import os
import time

from models.recommend import LinkScenario, Targets, recommend
from validation.simulator import Scenario
from validation.size_search import search
from validation.sweeps import Task, run_task

#: name -> (what it is, the link, the targets).
LINKS: dict[str, tuple[str, LinkScenario, Targets]] = {
    "home_uplink": (
        "home uplink, 35 Mb/s, one CUBIC upload, 40 ms, LAN 1 Gb/s",
        LinkScenario(
            capacity_bps=35e6, rtts_s=(0.04,), flows=1, access_bps=1e9, congestion_control="cubic"
        ),
        Targets(),
    ),
    "home_downlink": (
        "home downlink, 500 Mb/s, 4 CUBIC flows, 25 ms, servers on 10 Gb/s",
        LinkScenario(
            capacity_bps=500e6,
            rtts_s=(0.025,),
            flows=4,
            access_bps=10e9,
            congestion_control="cubic",
        ),
        Targets(),
    ),
    "cell_5g": (
        "5G cell, 300 Mb/s, 20 CUBIC flows, 30-80 ms",
        LinkScenario(
            capacity_bps=300e6,
            rtts_s=(0.03, 0.05, 0.08),
            flows=20,
            access_bps=10e9,
            congestion_control="cubic",
        ),
        Targets(),
    ),
    "geo": (
        "GEO satellite, 50 Mb/s, 10 CUBIC flows, 600 ms",
        LinkScenario(
            capacity_bps=50e6, rtts_s=(0.6,), flows=10, access_bps=1e9, congestion_control="cubic"
        ),
        Targets(),
    ),
    "enterprise_edge": (
        "enterprise edge, 1 Gb/s, 200 flows, N_b 50 Reno at 90 %, 20-60 ms",
        LinkScenario(
            capacity_bps=1e9,
            rtts_s=(0.02, 0.04, 0.06),
            flows=200,
            bottlenecked_flows=50,
            bottlenecked_share=0.9,
            congestion_control="reno",
            access_bps=10e9,
        ),
        Targets(max_loss=0.01),
    ),
    "backbone_100g": (
        "100G backbone, 50,000 CUBIC flows, 80 ms",
        LinkScenario(
            capacity_bps=100e9,
            rtts_s=(0.08,),
            flows=50_000,
            access_bps=1e9,
            congestion_control="cubic",
        ),
        Targets(),
    ),
    "backbone_400g": (
        "400G backbone, 200,000 Reno flows, 100 ms",
        LinkScenario(
            capacity_bps=400e9,
            rtts_s=(0.1,),
            flows=200_000,
            congestion_control="reno",
            access_bps=1e9,
        ),
        Targets(),
    ),
    "dc_leaf": (
        "datacenter leaf, 10 Gb/s, 400 DCTCP flows, 200 us",
        LinkScenario(
            capacity_bps=10e9,
            rtts_s=(0.0002,),
            flows=400,
            congestion_control="dctcp",
            access_bps=25e9,
        ),
        Targets(),
    ),
    "bbr_cdn": (
        "CDN edge, 400 Mb/s, 100 BBR flows, 60 ms",
        LinkScenario(
            capacity_bps=400e6,
            rtts_s=(0.06,),
            flows=100,
            congestion_control="bbr",
            access_bps=10e9,
        ),
        Targets(),
    ),
    "codel_shaper": (
        "subscriber shaper with CoDel, 100 Mb/s, 8 CUBIC flows, 30 ms",
        LinkScenario(
            capacity_bps=100e6,
            rtts_s=(0.03,),
            flows=8,
            aqm="codel",
            access_bps=1e9,
            congestion_control="cubic",
        ),
        Targets(),
    ),
    "transoceanic": (
        "congested transoceanic link, 1 Gb/s, N_b 300 Reno at 90 %, 180 ms, loss 1 %",
        LinkScenario(
            capacity_bps=1e9,
            rtts_s=(0.18,),
            flows=400,
            bottlenecked_flows=300,
            bottlenecked_share=0.9,
            congestion_control="reno",
            access_bps=10e9,
        ),
        Targets(max_loss=0.01),
    ),
    "regional_isp": (
        "regional ISP aggregation, 2.5 Gb/s, 2,000 CUBIC flows, 50 ms",
        LinkScenario(
            capacity_bps=2.5e9,
            rtts_s=(0.05,),
            flows=2000,
            access_bps=1e9,
            congestion_control="cubic",
        ),
        Targets(),
    ),
    "campus": (
        "campus uplink, 1 Gb/s, 100 CUBIC flows, 10 ms, delay 2 ms",
        LinkScenario(
            capacity_bps=1e9, rtts_s=(0.01,), flows=100, access_bps=10e9, congestion_control="cubic"
        ),
        Targets(max_queueing_delay_s=0.002),
    ),
}


def warm() -> None:
    """One short run, so that the compiled simulator is loaded before timing."""
    run_task(Task(Scenario(capacity_bps=10e6, flows=4, duration_s=2.0, warmup_s=1.0), 20, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=3)
    parser.add_argument("--max-replications", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--links", default=",".join(LINKS), help="Comma-separated names.")
    args = parser.parse_args()
    warm()
    load = os.getloadavg()[0]
    print(
        f"{args.replications} runs per size (up to {args.max_replications}), seed {args.seed}, "
        f"{args.workers} workers; load average at start {load:.1f} on {os.cpu_count()} CPUs "
        "(times above the target on a loaded machine are inflated by the other load)"
    )
    header = (
        f"{'link':<16} {'rule':<14} {'rule size':>10} {'searched':>10} {'ratio':>6} "
        f"{'smaller':>9} {'tried':>5} {'wall s':>7}"
    )
    print(header)
    print("-" * len(header))
    for name in args.links.split(","):
        what, link, targets = LINKS[name]
        rec = recommend(link, targets)
        started = time.perf_counter()
        found = search(
            link,
            rec,
            targets,
            replications=args.replications,
            max_replications=args.max_replications,
            seed=args.seed,
            workers=args.workers,
        )
        wall = time.perf_counter() - started
        rule_size = int(rec.recommended.buffer_packets)
        searched = "-" if found.found_packets is None else f"{found.found_packets:,}"
        ratio = "-" if found.found_packets is None else f"{found.found_packets / rule_size:.2f}"
        smaller = "-" if found.smaller_packets is None else f"{found.smaller_packets:,}"
        print(
            f"{name:<16} {rec.recommended.rule:<14} {rule_size:>10,} {searched:>10} {ratio:>6} "
            f"{smaller:>9} {len(found.tried):>5} {wall:>7.1f}"
        )
        print(f"    {what}: {found.reason}", flush=True)
        if found.found_packets is None and found.tried:
            top = found.tried[-1]
            print(f"    at {top.buffer_packets:,} packets: {top.check.reason}", flush=True)


if __name__ == "__main__":
    main()
