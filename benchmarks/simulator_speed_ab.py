"""A/B of the packet simulator's speed between two checkouts, interleaved in one run.

Run with ``.venv/bin/python benchmarks/simulator_speed_ab.py --before /path/to/checkout-a
--after /path/to/checkout-b`` (each path the root of a bufsize checkout, e.g. made with
``git archive REV | tar -x -C DIR``). Each round runs one process per checkout (their order
rotates from round to round), with ``PYTHONPATH`` set to that checkout; a process runs every
case of ``simulator_speed.CASES`` once short to load the compiled core, then ``--repeat``
times, and reports the best packets per CPU second (``time.process_time``) and per wall
second (``time.perf_counter``, of the run with the least CPU time). The medians over the
rounds are printed per case and checkout, with the ratio of each checkout to the first, then
the ratios of ``simulator_speed.RATIOS`` (a congestion control against Reno) per checkout, in
CPU and in wall time: on a shared machine, ratios from interleaved runs of one session are
comparable, single absolute figures are not (CPU time less disturbed by other work). The
bottleneck packets, utilization and Jain index of each case are printed beside it, and
``DIFFER`` if the checkouts' sample paths differ there.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time


def worker(duration: float, repeat: int, only: str) -> None:
    """In the child: every case, best packets per CPU second of ``repeat`` runs (and per wall
    second in that run), as JSON."""
    import simulator_speed as bench  # the CASES of this script's checkout

    from validation.simulator import simulate

    out: dict[str, list[float]] = {}
    for name, scenario, buffer_packets, scale in bench.CASES:
        if only not in name:
            continue
        simulate(scenario.replace(duration_s=2.0 * scale, warmup_s=scale), buffer_packets, 1)
        duration_s = duration * scale
        sc = scenario.replace(duration_s=duration_s, warmup_s=min(10.0 * scale, duration_s / 2))
        gc.collect()
        best, best_wall = float("inf"), float("inf")
        for _ in range(max(repeat, 1)):
            start, wall = time.process_time(), time.perf_counter()
            result = simulate(sc, buffer_packets, 1)
            cpu, wall = time.process_time() - start, time.perf_counter() - wall
            if cpu < best:
                best, best_wall = cpu, wall
        packets = result.bottleneck_packets
        row = [packets / best, packets, result.utilization, result.jain_index, packets / best_wall]
        out[name] = row
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", help="root of the first checkout")
    parser.add_argument("--after", help="root of the second checkout")
    parser.add_argument("--rounds", type=int, default=3, help="processes per checkout")
    parser.add_argument("--duration", type=float, default=30.0, help="simulated seconds")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per case and process")
    parser.add_argument("--only", default="", help="only the cases whose name contains this")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.duration, args.repeat, args.only)
        return
    if not args.before or not args.after:
        parser.error("--before and --after: give the roots of the two checkouts")
    import simulator_speed as bench

    trees = {"before": os.path.abspath(args.before), "after": os.path.abspath(args.after)}
    names = list(trees)
    speeds: dict[str, dict[str, list[float]]] = {k: {} for k in names}
    walls: dict[str, dict[str, list[float]]] = {k: {} for k in names}
    paths: dict[str, dict[str, list[float]]] = {k: {} for k in names}
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--duration"]
    command += [str(args.duration), "--repeat", str(args.repeat), "--only", args.only]
    for i in range(max(args.rounds, 1)):
        for k in names[i % 2 :] + names[: i % 2]:
            env = dict(os.environ, PYTHONPATH=trees[k])
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            for name, row in json.loads(done.stdout.strip().splitlines()[-1]).items():
                speeds[k].setdefault(name, []).append(row[0])
                walls[k].setdefault(name, []).append(row[4])
                paths[k][name] = row[1:4]
    median = {k: {n: statistics.median(v) for n, v in speeds[k].items()} for k in names}
    wall = {k: {n: statistics.median(v) for n, v in walls[k].items()} for k in names}
    for name, base in median["before"].items():
        cells = ", ".join(
            f"{k} {median[k][name] / 1e6:.2f} M ({median[k][name] / base:.2f}x)" for k in names
        )
        wall_cells = ", ".join(
            f"{k} {wall[k][name] / 1e6:.2f} M ({wall[k][name] / wall['before'][name]:.2f}x)"
            for k in names
        )
        same = paths["before"][name] == paths["after"].get(name)
        print(
            f"{name}: median packets per CPU second over {args.rounds} rounds: {cells}; "
            f"per wall second: {wall_cells}; "
            f"packets, utilization, Jain index {paths['before'][name]}"
            + ("" if same else f" DIFFER: after {paths['after'].get(name)}")
        )
    for case, reno, *what in bench.RATIOS:
        cells = ", ".join(
            f"{k} {median[k][case] / median[k][reno]:.2f}"
            f" (wall {wall[k][case] / wall[k][reno]:.2f})"
            for k in names
            if case in median[k] and reno in median[k]
        )
        if cells:
            said = f" ({what[0]})" if what else ""
            print(f"{case} / {reno}: CPU {cells}{said}")


if __name__ == "__main__":
    main()
