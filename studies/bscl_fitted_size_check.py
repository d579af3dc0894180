"""BSCL's link with N_b = 3,000 Reno flows: the fitted law's size and the sizes that meet 1 %.

Run with ``nice -n 10 .venv/bin/python studies/bscl_fitted_size_check.py [--part fitted,search,
large]``. The link is 004's congested link (1 Gbit/s, 180 ms, the 3,000 bottlenecked Reno flows
carrying 90 %, access links 10 Gbit/s so that one end of the access rates is simulated), the
target 1 % loss. Three parts, each printing every simulated size with its loss, interval,
utilization and verdict:

- ``fitted``: :func:`validation.verify.verify` of the size at which 004's loss law fitted to
  this simulator (``models/recommend/simulated_loss.py``) put 1 % (37,870 packets; 37,211
  since the re-run with RACK), with half
  and double it; the default delay target (the RTT) stays;
- ``search``: :func:`validation.size_search.search` for the smallest size meeting 1 % loss, the
  delay target set to 5 s so that loss alone decides;
- ``large``: the check of 72,000 packets (half and double it too) with 6 runs from the start.

The figures are those quoted by the engine's BSCL warning (``models/recommend/caveats.py``,
``FITTED_SIZE_CHECK``) and by ``studies/results/sim_loss_at_rule_sizes.md``.
"""

from __future__ import annotations

import argparse
import os
import time

from models.recommend import LinkScenario, Targets, recommend
from validation.size_search import search
from validation.verify import SizeCheck, verify

LINK = LinkScenario(
    capacity_bps=1e9,
    rtts_s=(0.18,),
    flows=3000,
    bottlenecked_flows=3000,
    bottlenecked_share=0.9,
    congestion_control="reno",
    access_bps=10e9,
)
#: Where the fitted law put 1 % loss for this link before the BSCL table's re-run with RACK
#: (37,211 since; the engine's warning prints it and quotes this check, a little above it).
FITTED_PACKETS = 37_870
LOSS_ONLY = Targets(max_loss=0.01, max_queueing_delay_s=5.0)


def _row(label: str, c: SizeCheck) -> str:
    return (
        f"{label:<12} {c.buffer_packets:>8,} ({c.simulated_buffer_packets:,} simulated) "
        f"{c.replications} runs: loss {c.loss_rate:.3%} ± {c.loss_rate_ci99:.3%}, "
        f"utilization {c.utilization:.2%}: {c.verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="fitted,search,large")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    parts = args.part.split(",")
    print(f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if "fitted" in parts:
        started = time.perf_counter()
        v = verify(
            LINK,
            None,
            Targets(max_loss=0.01),
            replications=3,
            max_replications=6,
            seed=args.seed,
            size=("fitted_law", FITTED_PACKETS),
            workers=args.workers,
        )
        print(f"fitted law's size ({time.perf_counter() - started:.1f} s): {v.verdict}")
        for c in v.sizes:
            print("  " + _row(c.label, c))
    if "search" in parts:
        started = time.perf_counter()
        found = search(
            LINK,
            recommend(LINK, LOSS_ONLY),
            LOSS_ONLY,
            replications=3,
            max_replications=6,
            seed=args.seed,
            workers=args.workers,
        )
        print(f"search ({time.perf_counter() - started:.1f} s): {found.reason}")
        for t in found.tried:
            print("  " + _row("tried", t.check))
    if "large" in parts:
        started = time.perf_counter()
        v = verify(
            LINK,
            None,
            LOSS_ONLY,
            replications=6,
            max_replications=12,
            seed=args.seed,
            size=("search_top", 72_000),
            workers=args.workers,
        )
        print(f"72,000 packets ({time.perf_counter() - started:.1f} s): {v.verdict}")
        for c in v.sizes:
            print("  " + _row(c.label, c))


if __name__ == "__main__":
    main()
