"""What do this simulator's senders lose at the sizes the engine's rules give?

Run with ``nice -n 10 .venv/bin/python studies/sim_loss_at_rule_sizes.py [--part bbr,bscl]
[--replications 3] [--seed 1] [--workers 2] [--markdown FILE]``.

Two questions, each a table (means of ``--replications`` runs with their 99 % Student-t
half-widths; seeds from ``--seed`` as ``bufsize verify`` draws them):

- ``bbr``: BBR v1 senders (as simulated, ``validation/simulator/core/bbr.py``) are paced and
  not governed by loss. How much of the port do they keep, and what do they lose, at buffers
  from 0.1 to 2 bandwidth-delay products, with 4 to 100 flows? The engine's BBR rule
  (0.25·C·T_e, Cardwell et al. 2016) and its BBR warning quote this table.
- ``bscl``: BSCL's loss term is calibrated on 004's ns-2 Reno (004 §III eq. 16, §VII). What do
  this simulator's Reno and CUBIC senders lose at BSCL's size for a 1 % loss target, for N_b
  from 300 to 3,000 flows on 004's kind of congested link (1 Gbit/s, 180 ms, the N_b flows
  carrying 90 %)? The engine's BSCL rule quotes this table where it is outside 004's range.

Each link is simulated as ``bufsize recommend --verify`` simulates it (the scaled link of
:func:`validation.verify.plan_sizes`: at most 50,000 packets/s, C and N scaled together; access
links 10 × the port, as given here). The figures depend on the simulator's senders: run the
study again after a change to them and update the engine's quotations
(``models/recommend/rules.py``, ``models/recommend/caveats.py``).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Sequence

from models.choices import CongestionControl
from models.recommend import LinkScenario, Targets, recommend
from validation.verify import local_runner, plan_sizes, run_batches

#: (name, capacity bit/s, flows, RTT s) of the BBR links.
BBR_LINKS = (
    ("CDN edge", 400e6, 100, 0.06),
    ("aggregation", 300e6, 20, 0.05),
    ("access", 100e6, 10, 0.04),
    ("home", 50e6, 4, 0.04),
)
#: Buffer sizes of the BBR table, fractions of the BDP.
BBR_FRACTIONS = (0.1, 0.25, 0.5, 1.0, 2.0)
#: N_b of the BSCL table (1 Gbit/s, 180 ms, the N_b flows carrying 90 %, loss target 1 %).
BSCL_FLOWS = (300, 1000, 3000)
BSCL_CCS: tuple[CongestionControl, ...] = ("reno", "cubic")


def _measure(
    link: LinkScenario, rule: str, sizes: dict[str, int], reps: int, seed: int, workers: int
) -> list[tuple[str, int, float, float, float, float, float]]:
    """(label, packets, utilization, ±, loss, ±, mean queueing delay s) per size."""
    labelled = dict(sizes)
    first = next(iter(labelled))
    labelled["recommended"] = labelled.pop(first)  # the plan judges one size "recommended"
    p = plan_sizes(
        link,
        Targets(),
        rule,
        labelled,
        slow_of={},
        replications=reps,
        seed=seed,
        max_replications=reps,
    )
    if p.scenario is None:
        raise SystemExit(f"{link}: {p.unfaithful().reason}")
    v = run_batches(p, local_runner(workers=workers))
    by_label = {c.label: c for c in v.sizes}
    by_label[first] = by_label.pop("recommended")
    return [
        (
            label,
            sizes[label],
            by_label[label].utilization,
            by_label[label].utilization_ci99,
            by_label[label].loss_rate,
            by_label[label].loss_rate_ci99,
            by_label[label].queue_delay_mean_s,
        )
        for label in sizes
    ]


def bbr_table(reps: int, seed: int, workers: int) -> list[str]:
    """The BBR table's markdown lines."""
    out = [
        "| link | C | flows | RTT | BDP (packets) | buffer (BDP) | packets | utilization | "
        "loss | mean queue (ms) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, capacity, flows, rtt in BBR_LINKS:
        link = LinkScenario(
            capacity_bps=capacity,
            rtts_s=(rtt,),
            flows=flows,
            congestion_control="bbr",
            access_bps=10 * capacity,
        )
        bdp = capacity * rtt / (8 * link.packet_bytes)
        sizes = {f"{f:g}": max(1, round(f * bdp)) for f in BBR_FRACTIONS}
        for label, packets, u, du, loss, dl, q in _measure(link, "bbr", sizes, reps, seed, workers):
            out.append(
                f"| {name} | {capacity / 1e6:g} Mb/s | {flows} | {rtt * 1e3:g} ms | {bdp:,.0f} | "
                f"{label} | {packets:,} | {u:.1%} ± {du:.1%} | {loss:.2%} ± {dl:.2%} | "
                f"{q * 1e3:.1f} |"
            )
    return out


def bscl_table(reps: int, seed: int, workers: int) -> list[str]:
    """The BSCL table's markdown lines."""
    out = [
        "| N_b | senders | BSCL size (packets) | BDP (packets) | simulated flows | loss | "
        "utilization |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for nb in BSCL_FLOWS:
        for cc in BSCL_CCS:
            link = LinkScenario(
                capacity_bps=1e9,
                rtts_s=(0.18,),
                flows=nb,
                bottlenecked_flows=nb,
                bottlenecked_share=0.9,
                congestion_control=cc,
                access_bps=10e9,
            )
            targets = Targets(max_loss=0.01)
            size = next(r for r in recommend(link, targets).rules if r.rule == "bscl")
            assert size.buffer_packets is not None
            rows = _measure(link, "bscl", {"bscl": size.buffer_packets}, reps, seed, workers)
            _, packets, u, du, loss, dl, _ = rows[0]
            scaled = max(round(nb * min(1.0, 50_000 / (1e9 / 12_000))), 1)
            out.append(
                f"| {nb:,} | {cc} | {packets:,} | 15,000 | {scaled:,} | {loss:.2%} ± {dl:.2%} | "
                f"{u:.1%} ± {du:.1%} |"
            )
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="bbr,bscl", help="bbr, bscl or both (comma-separated)")
    parser.add_argument("--replications", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--markdown", help="Write the tables to this file too.")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    lines = [
        f"Command: `nice -n 10 .venv/bin/python studies/sim_loss_at_rule_sizes.py --part "
        f"{args.part} --replications {args.replications} --seed {args.seed}`; load average "
        f"{os.getloadavg()[0]:.1f} at the start (2 cores).",
        "",
    ]
    parts = args.part.split(",")
    if "bbr" in parts:
        lines += ["## BBR v1 senders at fractions of the BDP", ""]
        lines += [*bbr_table(args.replications, args.seed, args.workers), ""]
    if "bscl" in parts:
        lines += ["## Loss at BSCL's size for a 1 % target (1 Gbit/s, 180 ms, 90 %)", ""]
        lines += [*bscl_table(args.replications, args.seed, args.workers), ""]
    lines.append(f"Wall time {math.ceil(time.perf_counter() - started)} s.")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
