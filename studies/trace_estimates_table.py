"""Accuracy of the trace estimators on 004 §VII's simulated mix, whose truth is known.

Run with ``.venv/bin/python studies/trace_estimates_table.py [--flows 2,10,20,50,100,200,400]
[--shares 0.95,0.9,0.8] [--seed 1[,2,...]] [--full] [--verify] [--markdown FILE] [--cache DIR]``
(``--cache``: the simulations are kept in DIR and re-read, e.g. after an estimator change; a
changed simulator misses the cache).

Each row simulates 004 §VII's traffic on its 50 Mbit/s target link, built by the validation
harness (:func:`validation.harness.bscl.mix_scenario`, the mix of the ``bscl_loss`` rows):
N_b LBP flows, 20 RBP flows behind slow access links, 10 window-limited flows and Poisson
short flows of 14 packets, the non-LBP share 1 - C_e/C split 40/40/20, RTTs uniform in
20-414 ms (mean 217 ms), SACK, ns-2's TCP as 004 ran it (1/cwnd per ACK, delayed ACKs with
a 100 ms timer); 60 s with 10 s of warm-up (``--full``: 200 s
and 20 s). The buffer is B = C·T_avg (004 §VII's first run). The run's trace is written as CSV
(each short flow under its own id, as a capture would show it), and N_b, T_e, C_e and the loss
bursts are estimated from it, given C and B (the operator knows both); BSCL (004 Fig. 4,
p̂ = 1 %) sizes the buffer from the estimates and from the truth.

The truth: N_b the LBP group's flows; T_e the harmonic mean (004 eq. 12) of their two-way
propagation delays as the simulator drew them, which is BSCL's RTT: it "does not include any
queueing delays in the target link" (004 §III.A, remark on eq. 3; §VI: the estimate is taken
"before the latter builds up any queueing at the target link"); C_e/C the LBP flows' measured
share of C after the warm-up; L̄ the mean burst of the trace's drops spaced by less than the
true T_e (004 §III.C). Targets (issue 13): N_b within 20 %, T_e within 10 %, the BSCL size
within 25 %.

With ``--verify`` each row is simulated again at the BSCL size from the estimates, at the BSCL
size from the truth, at the sqrt(N) size C·T_avg/√N_b and at the top of the BSCL size's range
(the largest size the estimates' 95 % intervals allow together, ``buffer_packets_range``), all
on the same mix, and the loss rates are printed next to the loss at C·T_avg (004 §VII: about
1 %, several times more with the other two at 300 LBP flows); the mean loss of each share's
rows closes the table.
"""

from __future__ import annotations

import argparse
import math
import pickle
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from models.bscl import bscl_buffer
from validation.harness.bscl import CAPACITY_BPS, RTT_S, mix_scenario
from validation.harness.run_cache import simulator_stamp
from validation.simulator import Scenario, simulate
from validation.traces import estimate_trace, open_trace
from validation.traces.estimate import TraceEstimates, _bursts
from validation.traces.sizing import size_from_estimates
from validation.traces.synthetic import (
    SimulatedTrace,
    relative_error,
    simulated_trace,
    write_csv,
)

T = TypeVar("T")

HEADER = (
    "| seed | N_b | C_e/C | N_b est | err | T_e est ms | 95 % interval ms | T_e ms | err | "
    "C_e/C est | C_e/C meas | L̄ est | L̄ | B est pkts | B truth pkts | err | B=C·T_avg | loss |"
)
VERIFY_HEADER = (
    " loss at B est | util | loss at B truth | B=C·T/√N_b | loss | B top pkts | loss at B top |"
)


def _cached(args: argparse.Namespace, key: str, compute: Callable[[], T]) -> T:
    """``compute()``, kept in ``--cache DIR`` under ``key`` when that option is given.

    The simulations do not depend on the estimator, so a re-run after an estimator change
    re-reads them instead of simulating again; the key holds the simulator's code stamp
    (:func:`validation.harness.run_cache.simulator_stamp`), so a changed simulator simulates anew.
    """
    if args.cache is None:
        return compute()
    path = args.cache / f"{simulator_stamp()[:16]}_{key}.pkl"
    if path.exists():
        with path.open("rb") as handle:
            value: T = pickle.load(handle)
        return value
    value = compute()
    args.cache.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump(value, handle)
    return value


def _loss(
    args: argparse.Namespace, sc: Scenario, key: str, buffer: int, seed: int
) -> tuple[float, float]:
    """Loss rate and utilization of the mix at ``buffer`` packets (cached like the traces)."""

    def run() -> tuple[float, float]:
        result = simulate(sc, buffer, seed)
        return result.loss_rate, result.utilization

    return _cached(args, f"{key}_B{buffer}", run)


def estimated_row(
    flows: int, share: float, seed: int, args: argparse.Namespace, tmp: Path
) -> tuple[Scenario, int, str, SimulatedTrace, TraceEstimates]:
    """One row's mix at B = C·T_avg: its scenario, that buffer (packets), its cache key, its
    simulated trace (cached) and the estimates from that trace written as CSV."""
    sc = mix_scenario(flows, share, args.full)
    buffer_ct = max(int(CAPACITY_BPS * RTT_S / (8 * sc.wire_bytes)), 1)
    key = f"s{seed}_n{flows}_c{share}_{'full' if args.full else 'short'}"
    sim = _cached(
        args, f"{key}_trace", lambda: simulated_trace(sc, buffer_ct, seed, lbp_groups=("LBP",))
    )
    path = tmp / f"trace_{flows}_{share}.csv"
    write_csv(sim.trace, path)
    est = estimate_trace(
        open_trace(path),
        capacity_bps=CAPACITY_BPS,
        warmup_s=sc.warmup_s,
        buffer_bytes=buffer_ct * sc.wire_bytes,
    )
    path.unlink()
    return sc, buffer_ct, key, sim, est


def true_size(sim: SimulatedTrace, flows: int) -> tuple[float, float]:
    """BSCL's size from the truth (packets, p̂ = 1 %) and the true L̄ it takes: the mean burst
    of the link's drops after the warm-up spaced by less than the true T_e (004 §III.C; NaN
    without drops, and then BSCL's α instead)."""
    sc = sim.scenario
    after = sim.trace.dropped & (sim.trace.time_s >= sc.warmup_s)
    bursts = _bursts(np.sort(sim.trace.time_s[after]), sim.effective_rtt_s)
    burst = float(bursts.mean()) if bursts.size else math.nan
    size = float(
        bscl_buffer(
            CAPACITY_BPS,
            min(sim.bottlenecked_share, 1.0),
            flows,
            sc.wire_bytes,
            0.01,
            effective_rtt_s=sim.effective_rtt_s,
            loss_burst_packets=burst if burst > 0 else None,
        ).buffer_packets
    )
    return size, burst


def row(
    flows: int, share: float, seed: int, args: argparse.Namespace, tmp: Path
) -> tuple[str, dict[str, float]]:
    started = time.perf_counter()
    sc, buffer_ct, key, sim, est = estimated_row(flows, share, seed, args, tmp)
    b_true, true_burst = true_size(sim, flows)
    try:
        sizing = size_from_estimates(est, 0.01)
        sized, top = sizing.buffer_packets, sizing.buffer_packets_high
    except ValueError:
        sized = top = math.nan
    te = est.effective_rtt_s
    errors = {
        "covers": float(te.low <= sim.effective_rtt_s <= te.high),
        "n_b": relative_error(est.bottlenecked_flows.value, flows),
        "t_e": relative_error(est.effective_rtt_s.value, sim.effective_rtt_s),
        "bscl": relative_error(sized, b_true),
    }
    text = (
        f"| {seed} | {flows} | {share:.0%} | {est.bottlenecked_flows.value:.0f} | "
        f"{errors['n_b']:+.1%} | {te.value * 1e3:.1f} | {te.low * 1e3:.1f}-{te.high * 1e3:.1f} | "
        f"{sim.effective_rtt_s * 1e3:.1f} | "
        f"{errors['t_e']:+.1%} | {est.bottlenecked_share.value:.1%} | "
        f"{sim.bottlenecked_share:.1%} | {est.loss_burst_mean_packets.value:.1f} | "
        f"{true_burst:.1f} | {sized:.0f} | {b_true:.0f} | {errors['bscl']:+.1%} | "
        f"{buffer_ct} | {sim.loss_rate:.2%} |"
    )
    if args.verify and math.isfinite(sized):
        bscl_loss, bscl_util = _loss(args, sc, key, max(math.ceil(sized), 1), seed)
        truth_loss = _loss(args, sc, key, max(math.ceil(b_true), 1), seed)[0]
        stanford = max(int(buffer_ct / math.sqrt(flows)), 1)
        stanford_loss = _loss(args, sc, key, stanford, seed)[0]
        top_loss = _loss(args, sc, key, max(math.ceil(top), 1), seed)[0]
        losses = {"est": bscl_loss, "truth": truth_loss, "top": top_loss}
        errors.update({f"loss_{name}": value for name, value in losses.items()})
        text += (
            f" {bscl_loss:.2%} | {bscl_util:.1%} | "
            f"{truth_loss:.2%} | {stanford} | {stanford_loss:.2%} | {top:.0f} | {top_loss:.2%} |"
        )
    print(
        f"{text}  ({time.perf_counter() - started:.0f} s; classes {est.class_counts})",
        flush=True,
    )
    return text, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", default="2,10,20,50,100,200,400")
    parser.add_argument("--shares", default="0.95,0.9,0.8")
    parser.add_argument("--seed", default="1", help="one seed or a comma-separated list")
    parser.add_argument("--full", action="store_true", help="200 s runs (004 §VII's length)")
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    parser.add_argument(
        "--cache",
        type=Path,
        help="keep the simulations here and re-use them (estimator changes need no re-simulation)",
    )
    args = parser.parse_args()
    header = HEADER + (VERIFY_HEADER if args.verify else "")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    print("\n".join(lines))
    targets = {"n_b": 0.20, "t_e": 0.10, "bscl": 0.25}
    within = dict.fromkeys(targets, 0)
    rows = covered = 0
    losses: dict[float, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in (int(s) for s in str(args.seed).split(",")):
            for share in (float(s) for s in args.shares.split(",")):
                for flows in (int(n) for n in args.flows.split(",")):
                    text, errors = row(flows, share, seed, args, Path(tmp))
                    lines.append(text)
                    rows += 1
                    covered += int(errors["covers"])
                    if "loss_est" in errors:
                        losses.setdefault(share, []).append(errors)
                    for name, bound in targets.items():
                        within[name] += int(abs(errors[name]) <= bound)
    summary = (
        f"Within target: N_b (20 %) {within['n_b']}/{rows}, T_e (10 %) {within['t_e']}/{rows}, "
        f"BSCL size (25 %) {within['bscl']}/{rows}. The T_e interval holds the true T_e in "
        f"{covered}/{rows} rows."
    )
    for share, found in losses.items():
        means = {
            name: statistics.mean(row[f"loss_{name}"] for row in found)
            for name in ("est", "truth", "top")
        }
        summary += (
            f"\nC_e/C {share:.0%}, {len(found)} rows: mean loss {means['est']:.2%} at the size "
            f"from the estimates, {means['truth']:.2%} from the truth, {means['top']:.2%} at the "
            "top of the range."
        )
    print(summary)
    if args.markdown:
        command = (
            "studies/trace_estimates_table.py "
            + " ".join(
                f"--{k.replace('_', '-')} {v}"
                for k, v in (("flows", args.flows), ("shares", args.shares), ("seed", args.seed))
            )
            + (" --full" if args.full else "")
            + (" --verify" if args.verify else "")
        )
        args.markdown.write_text(
            "# Trace estimates on 004 §VII's mix\n\n"
            f"Command: `.venv/bin/python {command} --markdown {args.markdown}` "
            f"(Python {platform.python_version()}).\n\n"
            + "\n\n".join((__doc__ or "").split("\n\n")[2:]).split("With ``--verify``")[0].strip()
            + "\n\n"
            + "\n".join(lines)
            + f"\n\n{summary}\n"
        )


if __name__ == "__main__":
    main()
