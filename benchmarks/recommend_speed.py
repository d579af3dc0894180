"""Speed of the recommendation engine: wall time of one ``models.recommend.recommend()`` call.

Run with ``.venv/bin/python benchmarks/recommend_speed.py [--calls 300]``. For each scenario of
a realistic mix it makes ``--calls`` calls, each on a slightly different scenario (the flow
count, N_b or the load moves a little from call to call, as distinct API requests would), after
a few warm-up calls, and prints the median and the 99th percentile of the per-call time.

The API target, ``/v1/recommend`` p99 under 100 ms at 20 concurrent clients on two cores, needs
roughly 3 ms per call or less.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from models.recommend import LinkScenario, Targets, recommend

#: 004 §VII's kind of congested link: heterogeneous RTTs from 20 to 530 ms.
BSCL_RTTS_S = tuple(float(x) for x in np.linspace(0.02, 0.53, 20))


def thesis(i: int) -> tuple[LinkScenario, Targets]:
    """000 §1.3/§3.2: 10 Gb/s, 100 ms, about 1000 flows, W = 64 packets of 1000 B."""
    return LinkScenario(
        capacity_bps=10e9,
        rtts_s=(0.1,),
        flows=900 + i % 200,
        packet_bytes=1000.0,
        max_window_packets=64,
    ), Targets()


def bscl(i: int) -> tuple[LinkScenario, Targets]:
    """004: a congested 50 Mb/s link with N_b given (BSCL governs)."""
    return LinkScenario(
        capacity_bps=50e6,
        rtts_s=BSCL_RTTS_S,
        flows=260,
        packet_bytes=1500.0,
        bottlenecked_flows=150 + i % 100,
        bottlenecked_share=0.9,
        congestion_control="reno",
    ), Targets(min_utilization=0.98, max_loss=0.01)


def paced_access(i: int) -> tuple[LinkScenario, Targets]:
    """The thesis link with paced senders behind 100 Mb/s access links (000 Thm 2)."""
    return LinkScenario(
        capacity_bps=10e9,
        rtts_s=(0.1,),
        flows=900 + i % 200,
        packet_bytes=1000.0,
        max_window_packets=64,
        access_bps=100e6,
        paced=True,
    ), Targets()


def transparent(i: int) -> tuple[LinkScenario, Targets]:
    """A lightly loaded 10 Gb/s link of 100 Mb/s peak-rate flows (003 §4.2)."""
    return LinkScenario(
        capacity_bps=10e9,
        rtts_s=(0.05,),
        flows=5000,
        load=0.2 + 0.4 * (i % 100) / 100.0,
        peak_rate_bps=100e6,
    ), Targets()


def many_flows(i: int) -> tuple[LinkScenario, Targets]:
    """10 Gb/s, 100 ms, about 10,000 long-lived flows, N_b unknown (sqrt(N) governs)."""
    return LinkScenario(capacity_bps=10e9, rtts_s=(0.1,), flows=9000 + 10 * (i % 200)), Targets()


MIX: list[tuple[str, Callable[[int], tuple[LinkScenario, Targets]]]] = [
    ("thesis example (window-limited, tiny buffers)", thesis),
    ("congested link, N_b given (BSCL)", bscl),
    ("paced, access rate given", paced_access),
    ("transparent, low load", transparent),
    ("many flows, N_b unknown (sqrt(N))", many_flows),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=300, help="timed calls per scenario")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls per scenario")
    args = parser.parse_args()
    print(f"{'scenario':<48} {'median ms':>10} {'p99 ms':>8} {'calls':>6}")
    for name, make in MIX:
        for i in range(args.warmup):
            recommend(*make(i))
        times = []
        for i in range(args.calls):
            scenario, targets = make(i)
            start = time.perf_counter()
            recommend(scenario, targets)
            times.append(time.perf_counter() - start)
        ms = np.asarray(times) * 1e3
        print(
            f"{name:<48} {statistics.median(ms):>10.2f} "
            f"{float(np.percentile(ms, 99)):>8.2f} {args.calls:>6}"
        )


if __name__ == "__main__":
    main()
