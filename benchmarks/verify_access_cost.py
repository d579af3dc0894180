"""What an access rate not given costs the check by simulation (``bufsize recommend --verify``).

Run with ``nice -n 10 .venv/bin/python benchmarks/verify_access_cost.py [--replications 5]``.
For two of the README's links it runs :func:`validation.verify.verify` twice, once with the
access rate given (10 x the port) and once without it, and prints the runs simulated, the wall
time and the ratio of the two. Without an access rate every size is simulated at both ends of
the plausible range (``Verification.slow_sizes``), so about twice the runs are expected; what
the extra runs cost depends on the link (the slow end's runs are cheaper where the flows'
bursts are smoothed). The compiled simulator and the workers' fork server are warmed first
(one short run, one small check), so the times are those of warm code; the load average at
the start is printed beside them (figures taken on a shared machine are inflated by the other
load; the ratio, measured in one run, less so).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time

from models.recommend import LinkScenario, Targets, recommend
from validation.simulator import Scenario
from validation.sweeps import Task, run_task
from validation.verify import verify

#: name -> (what it is, the link without an access rate).
LINKS: dict[str, tuple[str, LinkScenario]] = {
    "readme_100m": (
        "100 Mbit/s, 100 ms, 40 CUBIC flows (the README's first link)",
        LinkScenario(capacity_bps=100e6, rtts_s=(0.1,), flows=40, congestion_control="cubic"),
    ),
    "thesis_10g": (
        "10 Gbit/s, 100 ms, 1,000 CUBIC flows of 1000 B packets (the form's example)",
        LinkScenario(
            capacity_bps=10e9,
            rtts_s=(0.1,),
            flows=1000,
            packet_bytes=1000,
            congestion_control="cubic",
        ),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    run_task(Task(Scenario(capacity_bps=10e6, flows=4, duration_s=2.0, warmup_s=1.0), 20, 1))
    # The first pool of a process starts the fork server that loads the compiled core: paid
    # here, by a small check, not by the first link timed.
    small = LinkScenario(capacity_bps=10e6, rtts_s=(0.02,), flows=4, access_bps=1e8)
    verify(small, recommend(small), replications=1, seed=1, workers=args.workers)
    print(
        f"{args.replications} runs per size, seed {args.seed}, {args.workers} workers; load "
        f"average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    header = f"{'link':<12} {'access':<16} {'runs':>5} {'wall s':>7} {'verdict':<10}"
    print(header)
    print("-" * len(header))
    targets = Targets()
    for name, (what, link) in LINKS.items():
        walls = []
        for access in (link.capacity_bps * 10.0, None):
            given = dataclasses.replace(link, access_bps=access)
            rec = recommend(given, targets)
            started = time.perf_counter()
            v = verify(
                given,
                rec,
                targets,
                replications=args.replications,
                seed=args.seed,
                workers=args.workers,
            )
            walls.append(time.perf_counter() - started)
            runs = sum(c.replications for c in (*v.sizes, *v.slow_sizes))
            label = "not given" if access is None else f"given {access / 1e6:g} Mb/s"
            print(f"{name:<12} {label:<16} {runs:>5} {walls[-1]:>7.1f} {v.verdict:<10}")
        print(f"    {what}: not given / given wall time = {walls[1] / walls[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
