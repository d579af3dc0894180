"""004 §VII's loss at 300 LBP flows in ns-2.35 and in bufsize, on the same flows.

Run with ``.venv/bin/python studies/ns2_bscl_mix.py [--buffers 2459,672,38] [--seeds 1,2,3]
[--access 1e9] [--short] [--ack-every-packet] [--simulators ns-2,bufsize] [--markdown FILE]``.
Needs ns-2.35 on the PATH as ``ns`` (Debian's package ``ns2``: ``apt-get install ns2``); the
project does not install it. ``--simulators bufsize`` runs bufsize's side alone (to re-measure it
after a change of the simulator; ns-2's side does not change).

004 §VII: "We evaluated the BSCL scheme using NS-2 simulations", with "NewReno, Delayed ACKs,
the SACK option, 1500-byte data packets, and 10,000-packet advertised windows" (Appendix).
Each row takes the flows of the ``bscl_loss`` mix (:func:`validation.harness.bscl.mix_scenario`,
300 LBP flows, 20 RBP flows behind 100 kb/s access links, 10 window-limited flows of 4 packets;
RTTs and start times as bufsize draws them for the seed, ``make_parameters``) without its Poisson
short flows, which need a new ns-2 connection per transfer, and simulates them in ns-2
(``studies/ns2_bscl_mix.tcl``: Agent/TCP/Sack1 senders, Agent/TCPSink/Sack1/DelAck receivers
with ns-2's 100 ms interval_, one access link per flow with rtt/2 of delay each way, a DropTail
target link of B packets; ns-2's queue limit does not count the packet in transmission, bufsize's
does, one packet of 2459) and in bufsize (the same groups, ns-2's growth ``ca_increase =
"per_ack"`` and delayed-ACK timer, as the ``bscl_loss`` rows). 200 s, the first 20 s ignored.

Printed for both: the packet loss rate at the target link, the LBP flows' drops, loss events (a
flow's drops within its propagation RTT + B/C of the event's first drop: one window halving) and
loss-event rate, and the timeouts after the warm-up. ``--short`` adds the mix's Poisson short
flows (in ns-2 one new connection and node per transfer, arrivals and RTTs drawn from the seed,
not bufsize's sample path); ``--ack-every-packet`` (a diagnosis, not 004's set-up) gives both
simulators receivers that acknowledge every segment (ns-2's Agent/TCPSink/Sack1, bufsize's
``delayed_ack = 1``).
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from bscl_access_sensitivity import fmt as cell
from bscl_access_sensitivity import lbp_loss_events, loss_events

from validation.harness.bscl import mix_scenario
from validation.simulator import Scenario, simulate
from validation.simulator.parameters import make_parameters

TCL = Path(__file__).resolve().parent / "ns2_bscl_mix.tcl"
LBP_FLOWS = 300


def scenario(access_bps: float, short: bool) -> Scenario:
    """The bscl_loss mix at C_e = 90 %, full scale, with or without the short flows."""
    sc = mix_scenario(LBP_FLOWS, 0.9, True, access_bps=access_bps)
    if short:
        return sc
    return dataclasses.replace(sc, groups=tuple(g for g in sc.groups if g.name != "short"))


def ns2_run(
    sc: Scenario,
    buffer_packets: int,
    seed: int,
    tmp: Path,
    sink: str = "Agent/TCPSink/Sack1/DelAck",
) -> dict[str, float]:
    """The flows bufsize draws for ``seed``, simulated in ns-2."""
    p = make_parameters(sc, buffer_packets, seed)
    flows_file, drops_file = tmp / "flows.txt", tmp / "drops.tr"
    with flows_file.open("w") as f:
        for k in range(p.flows):
            g = p.groups[int(p.group_of[k])]
            if g.traffic == "poisson_flows":
                continue
            f.write(
                f"{g.name.replace(' ', '_')} {p.rtt_s[k]:.9f} {p.start_s[k]:.9f} "
                f"{g.access_bps:.0f} {int(g.max_window_packets)}\n"
            )
        # Short flows: Poisson arrivals over the run, each its own connection (and node), its
        # RTT uniform as the group's; drawn from the seed, not bufsize's sample path.
        rng = np.random.default_rng(seed)
        for g in (g for g in sc.groups if g.traffic == "poisson_flows"):
            t = rng.exponential(1.0 / g.flow_arrival_rate_per_s)
            while t < sc.duration_s:
                rtt = g.rtt_s + (g.rtt_jitter_s or 0.0) * (2.0 * rng.random() - 1.0)
                f.write(f"short {rtt:.9f} {t:.9f} {g.access_bps:.0f} 10000\n")
                t += rng.exponential(1.0 / g.flow_arrival_rate_per_s)
    args = [str(x) for x in (TCL, flows_file, buffer_packets, sc.duration_s, sc.warmup_s)]
    out = subprocess.run(
        ["ns", *args, str(drops_file), sink], capture_output=True, text=True, check=True
    ).stdout
    total = arrivals = drops = timeouts = 0
    lbp_arrivals = lbp_bytes = 0
    for line in out.splitlines():
        w = line.split()
        if w[0] == "total":
            arrivals, drops = int(w[1]), int(w[2])
        elif w[0] == "flow" and int(w[1]) < LBP_FLOWS:
            lbp_arrivals += int(w[2])
            lbp_bytes += int(w[4])
        elif w[0] == "timeouts":
            timeouts += int(w[2])
    times, flows = [], []
    for line in drops_file.read_text().splitlines():
        w = line.split()  # d time from to type size flags fid src dst seq id
        if float(w[1]) >= sc.warmup_s and int(w[7]) < LBP_FLOWS:
            times.append(float(w[1]))
            flows.append(int(w[7]))
    window = p.rtt_s + buffer_packets * p.tx_s
    events = loss_events(np.array(times), np.array(flows, dtype=np.int64), window)
    total = len(times)
    measured = sc.duration_s - sc.warmup_s
    return {
        "loss": drops / arrivals,
        "lbp_drops": total,
        "events": events,
        "per_event": total / max(events, 1),
        "event_rate": events / lbp_arrivals,
        "lbp_share": 8 * lbp_bytes / (sc.capacity_bps * measured),
        "timeouts": timeouts,
    }


def bufsize_run(sc: Scenario, buffer_packets: int, seed: int) -> dict[str, float]:
    """The same flows in bufsize."""
    p = make_parameters(sc, buffer_packets, seed)
    r = simulate(sc, buffer_packets, seed, trace=True)
    trace = r.packet_trace
    assert trace is not None
    drops, events = lbp_loss_events(trace, p, sc.warmup_s, LBP_FLOWS, buffer_packets)
    lbp = next(g for g in r.groups if g.name == "LBP")
    return {
        "loss": r.loss_rate,
        "lbp_drops": drops,
        "events": events,
        "per_event": drops / max(events, 1),
        "event_rate": events / lbp.bottleneck_arrivals,
        "lbp_share": lbp.utilization_share,
        "timeouts": r.timeouts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--buffers", default="2459,672,38")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--access", type=float, default=1e9)
    parser.add_argument("--short", action="store_true", help="with the Poisson short flows")
    parser.add_argument("--ack-every-packet", action="store_true", help="a diagnosis")
    parser.add_argument("--simulators", default="ns-2,bufsize", help="ns-2, bufsize or both")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    simulators = args.simulators.split(",")
    if not set(simulators) <= {"ns-2", "bufsize"}:
        raise SystemExit("--simulators takes ns-2, bufsize or both")
    if "ns-2" in simulators and shutil.which("ns") is None:
        raise SystemExit("ns-2.35 is not on the PATH (Debian: apt-get install ns2)")
    buffers = [int(b) for b in args.buffers.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    sc = scenario(args.access, args.short)
    sink = "Agent/TCPSink/Sack1/DelAck"
    if args.ack_every_packet:
        sc = dataclasses.replace(sc, groups=tuple(g.replace(delayed_ack=1) for g in sc.groups))
        sink = "Agent/TCPSink/Sack1"
    started = time.perf_counter()
    runs: dict[tuple[str, int], list[dict[str, float]]] = {}
    per_run = []
    with tempfile.TemporaryDirectory() as tmp:
        for b in buffers:
            for s in seeds:
                for name in simulators:
                    if name == "ns-2":
                        result = ns2_run(sc, b, s, Path(tmp), sink)
                    else:
                        result = bufsize_run(sc, b, s)
                    runs.setdefault((name, b), []).append(result)
                    per_run.append(
                        f"- {name}, B {b}, seed {s}: loss {100 * result['loss']:.3f}%, LBP "
                        f"{result['lbp_drops']} drops in {result['events']} events, event rate "
                        f"{100 * result['event_rate']:.3f}%, {result['timeouts']} timeouts"
                    )
                    print(per_run[-1], flush=True)
    command = (
        f"studies/ns2_bscl_mix.py --buffers {args.buffers} --seeds {args.seeds} "
        f"--access {args.access:g}"
        + (" --short" if args.short else "")
        + (" --ack-every-packet" if args.ack_every_packet else "")
        + ("" if args.simulators == "ns-2,bufsize" else f" --simulators {args.simulators}")
    )
    lines = [
        f"Command: `.venv/bin/python {command}` ({time.perf_counter() - started:.0f} s wall)",
        "",
        f"300 LBP, 20 RBP, 10 window-limited flows "
        f"({'with' if args.short else 'no'} short flows"
        f"{'; an ACK for every segment' if args.ack_every_packet else ''}), "
        f"access {args.access / 1e6:g} "
        f"Mb/s, 200 s (20 s warm-up), seeds {args.seeds}; mean ± 99% Student-t half-width.",
        "",
        "| buffer | simulator | loss at the link % | LBP loss-event rate % | LBP drops per event "
        "| LBP share of C % | timeouts |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for b in buffers:
        for name in simulators:
            rs = runs[(name, b)]
            lines.append(
                f"| {b} | {name} | {cell([r['loss'] for r in rs], 100, 2)} "
                f"| {cell([r['event_rate'] for r in rs], 100, 2)} "
                f"| {cell([r['per_event'] for r in rs], 1, 2)} "
                f"| {cell([r['lbp_share'] for r in rs], 100, 1)} "
                f"| {cell([r['timeouts'] for r in rs], 1, 0)} |"
            )
    text = "\n".join([*lines, "", "Per run:", "", *per_run]) + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text)


if __name__ == "__main__":
    main()
