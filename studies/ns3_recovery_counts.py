"""Fast recovery counted on both sides of the ns-3 comparison (diagnosis of the CUBIC gap).

Run ``make ns3`` once, then::

    nice -n 19 .venv/bin/python studies/ns3_recovery_counts.py --cc cubic --fraction 0.1 \\
        --recovery prr,classic,sack_prr

It runs one case of ``studies/ns3_compare.py`` (same flows, seed, buffer and warm-up) in
ns-3 with the senders' per-flow counters of ``ns3_dumbbell.FlowMeter`` and in bufsize's pure
Python reference simulator (event for event the compiled core) with the same counters, and
prints them side by side; the ns-3 records are kept in
``studies/results/ns3_recovery_runs.json`` (``--no-ns3`` reuses them) and the table is
written to ``studies/results/ns3_recovery_counts.md`` (rows of other cases kept).

ns-3's loss recovery (``--recovery``, the attribute ``ns3::TcpL4Protocol::RecoveryType``):

- ``prr``: ns-3 3.44's default, ``TcpPrrRecovery`` (RFC 6937), the comparison's setting;
- ``classic``: ``TcpClassicRecovery``, cwnd = ssthresh on entering recovery and the RFC 6675
  pipe rule, as bufsize's SACK sender (``recovery="sack"``);
- ``sack_prr``: ``ns3_dumbbell.SackPrrRecovery``, ns-3's PRR without the segment its DoRecovery
  adds to the delivered bytes of each duplicate ACK (see there).

Counters, after the warm-up, summed over the 40 flows: fast recoveries (entries), timeouts,
retransmitted segments; per recovery, the cwnd and the flight (ns-3's BytesInFlight, bufsize's
snd_nxt - snd_una) when it starts, before the reduction, the data segments sent until it ends
(retransmissions included) and its mean duration; the time-average cwnd of a flow.
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import json
import sys
from typing import Any

import ns3_compare

from validation.simulator import simulate
from validation.simulator.layout import RecoveryState
from validation.simulator.reference import simulator as reference

RECORDS = ns3_compare.RESULTS / "ns3_recovery_runs.json"
TABLE = ns3_compare.RESULTS / "ns3_recovery_counts.md"
RECOVERY_TYPES = {
    "prr": "ns3::TcpPrrRecovery",
    "classic": "ns3::TcpClassicRecovery",
    "sack_prr": "bufsize::SackPrrRecovery",
}


class CountingReference(reference.ReferenceSimulator):
    """The reference simulator, counting its senders' fast recoveries after the warm-up."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        n = len(self.flows)
        self.warmup_s = self.sc.warmup_s
        self.recoveries = [0] * n
        self.entry_cwnd = [0.0] * n
        self.entry_flight = [0.0] * n
        self.sent = [0] * n
        self.retransmissions = [0] * n
        self.recovery_time_s = [0.0] * n
        self.entered_s = [-1.0] * n

    def on_ack(self, t: float, f: int, cum: int, sack_seq: int, ece: bool = False) -> None:
        fl = self.flows[f]
        before, cwnd, flight = fl.recovery, fl.cwnd, fl.high_tx - fl.snd_una
        super().on_ack(t, f, cum, sack_seq, ece)
        if (
            t >= self.warmup_s
            and before == RecoveryState.NONE
            and fl.recovery == RecoveryState.FAST
        ):
            self.recoveries[f] += 1
            self.entry_cwnd[f] += cwnd
            self.entry_flight[f] += flight
            self.entered_s[f] = t
        if before == RecoveryState.FAST and fl.recovery != RecoveryState.FAST:
            if self.entered_s[f] >= 0.0:
                self.recovery_time_s[f] += t - self.entered_s[f]
            self.entered_s[f] = -1.0

    def transmit(self, t: float, f: int, seg: int) -> None:
        fl = self.flows[f]
        if t >= self.warmup_s:
            if fl.recovery == RecoveryState.FAST:
                self.sent[f] += 1
            if seg < fl.high_tx:
                self.retransmissions[f] += 1
        super().transmit(t, f, seg)


def bufsize_counts(case: ns3_compare.Case, seed: int) -> dict[str, Any]:
    """bufsize's measures and counters of a case (reference simulator)."""
    sim = CountingReference(ns3_compare.bufsize_scenario(case), case.buffer_packets, seed, False)
    result = reference.to_result(sim.p, sim.run(), 0.0, "reference")
    # the time-average cwnd of the 40 flows, sampled every 10 ms by the compiled core (the
    # same sample path: the trace only reads the state)
    sampled = simulate(
        ns3_compare.bufsize_scenario(case).replace(traced_flows=case.scenario.flows),
        case.buffer_packets,
        seed,
        trace=True,
    ).samples
    assert sampled is not None
    after = sampled.time_s >= case.scenario.warmup_s
    return {
        "utilization": result.utilization,
        "loss_rate": result.loss_rate,
        "queue_delay_mean_s": result.queue_delay_mean_s,
        "timeouts": result.timeouts,
        "recoveries": sum(sim.recoveries),
        "retransmissions": sum(sim.retransmissions),
        "entry_cwnd": sum(sim.entry_cwnd),
        "entry_flight": sum(sim.entry_flight),
        "sent": sum(sim.sent),
        "recovery_time_s": sum(sim.recovery_time_s),
        "mean_cwnd_packets": float(sampled.cwnd_packets[after].mean()),
    }


def ns3_counts(case: ns3_compare.Case, seed: int, recovery: str) -> dict[str, Any]:
    """ns-3's measures and counters of a case with a loss recovery (runs ns-3)."""
    import ns3_dumbbell

    spec = ns3_compare.ns3_spec(case, seed)
    r = ns3_dumbbell.run(
        spec,
        diagnose=True,
        defaults=(("ns3::TcpL4Protocol::RecoveryType", RECOVERY_TYPES[recovery]),),
    )
    f = r.pop("flows")
    return {
        "utilization": r["utilization"],
        "loss_rate": r["loss_rate"],
        "queue_delay_mean_s": r["queue_delay_mean_s"],
        "timeouts": sum(f["timeouts"]),
        "recoveries": sum(f["recoveries"]),
        "retransmissions": sum(f["retransmissions"]),
        "entry_cwnd": sum(f["recovery_entry_cwnd_packets"]),
        "entry_flight": sum(f["recovery_entry_flight_packets"]),
        "sent": sum(f["recovery_sent"]),
        "recovery_time_s": sum(f["recovery_time_s"]),
        "mean_cwnd_packets": sum(f["mean_cwnd_packets"]) / len(f["mean_cwnd_packets"]),
        "wall_s": r["wall_s"],
        "spec": dataclasses.asdict(spec),
        "ns3_version": ns3_dumbbell.version(),
        "per_flow": f,
    }


def save_record(key: str, record: dict[str, Any]) -> None:
    """Add a record to the JSON file (locked: several runs may finish at once)."""
    RECORDS.parent.mkdir(exist_ok=True)
    with open(__file__) as lock:  # the script locks itself: no lock file to clean up
        fcntl.flock(lock, fcntl.LOCK_EX)
        records = json.loads(RECORDS.read_text()) if RECORDS.exists() else {}
        records[key] = record
        partial = RECORDS.with_name(RECORDS.name + ".partial")
        partial.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
        partial.replace(RECORDS)  # atomic: a reader never sees half a file


HEADER = (
    "| case | side | U | loss % | delay ms | timeouts | recoveries | retx per recovery "
    "| cwnd at entry | flight at entry | sent in recovery | recovery ms | mean cwnd |\n"
    + "|"
    + " --- |" * 13
)


def row(case_key: str, side: str, r: dict[str, Any]) -> str:
    n = max(r["recoveries"], 1)
    cells = [
        case_key,
        side,
        f"{r['utilization']:.3f}",
        f"{100 * r['loss_rate']:.3f}",
        f"{1e3 * r['queue_delay_mean_s']:.1f}",
        str(r["timeouts"]),
        str(r["recoveries"]),
        f"{r['retransmissions'] / n:.2f}",
        f"{r['entry_cwnd'] / n:.1f}",
        f"{r['entry_flight'] / n:.1f}",
        f"{r['sent'] / n:.1f}",
        f"{1e3 * r['recovery_time_s'] / n:.0f}",
        f"{r['mean_cwnd_packets']:.2f}",
    ]
    return "| " + " | ".join(cells) + " |"


def write_table(rows: dict[str, str], command: str) -> None:
    """Rewrite the markdown table with these rows (and the rows of other cases kept)."""
    with open(__file__) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _write_table(rows, command)


def _order(line: str) -> tuple[str, int, str, str]:
    """Rows by congestion control, then buffer, then seed (1 first), then side."""
    case, side = (c.strip() for c in line.strip("|").split("|")[:2])
    cc, _, buffer, _, *seed = case.split(",")
    return cc, int(buffer.removeprefix("B=")), "".join(seed), side


def _write_table(rows: dict[str, str], command: str) -> None:
    kept: dict[str, str] = {}
    commands: list[str] = []
    if TABLE.exists():
        for line in TABLE.read_text().splitlines():
            if line.startswith("| ") and not line.startswith(("| case", "| ---")):
                cells = [c.strip() for c in line.strip("|").split("|")]
                kept[f"{cells[0]}|{cells[1]}"] = line
            elif line.startswith("- `nice"):
                commands.append(line[3:-1])
    kept.update(rows)
    if command not in commands:
        commands.append(command)
    lines = [
        "# Fast recovery counted in ns-3 3.44 and bufsize "
        "(generated by studies/ns3_recovery_counts.py)",
        "",
        "Commands (each adds or replaces the rows of its case):",
        "",
        *[f"- `{c}`" for c in commands],
        "",
        "Cases of `studies/ns3_compare.py` (100 Mb/s, 40 flows, 100 ms ± 20 %, seed 1 "
        "unless the case says another, "
        "30 s with the first 10 s discarded). Sides: ns-3 with the loss recovery named "
        "(`prr` is the comparison's), bufsize's reference simulator. Counts after the warm-up, "
        "over all flows; per recovery: cwnd and flight (packets) when it starts, before the "
        "reduction (flight: ns-3's BytesInFlight, the RFC 6675 pipe, without the SACKed and "
        "lost segments; bufsize's snd_nxt - snd_una), data segments sent until it ends "
        "(retransmissions included), duration; "
        "mean cwnd: time average of a flow's cwnd (bufsize: sampled every 10 ms).",
        "",
        HEADER,
        *sorted(kept.values(), key=_order),
        "",
    ]
    TABLE.write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cc", default="cubic", choices=("reno", "cubic"))
    parser.add_argument("--fraction", type=float, default=0.1, help="buffer, fraction of BDP")
    parser.add_argument("--recovery", default="prr", help="ns-3 recoveries, comma-separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-ns3", action="store_true", help="use only recorded ns-3 runs")
    args = parser.parse_args()
    matches = [
        c
        for c in ns3_compare.cases(30.0, 10.0, [args.cc])
        if abs(c.fraction - args.fraction) < 1e-9
    ]
    if not matches:
        parser.error(f"no {args.cc} case at {args.fraction} BDP")
    case = matches[0]
    rows: dict[str, str] = {}
    label = case.key if args.seed == 1 else f"{case.key},seed={args.seed}"
    for recovery in [r.strip() for r in args.recovery.split(",") if r.strip()]:
        key = f"{case.key},seed={args.seed},recovery={recovery}"
        records = json.loads(RECORDS.read_text()) if RECORDS.exists() else {}
        if key not in records and not args.no_ns3:
            save_record(key, ns3_counts(case, args.seed, recovery))
            records = json.loads(RECORDS.read_text())
        if key in records:
            side = f"ns-3 {recovery}"
            rows[f"{label}|{side}"] = row(label, side, records[key])
            print(rows[f"{label}|{side}"], flush=True)
    ours = bufsize_counts(case, args.seed)
    rows[f"{label}|bufsize"] = row(label, "bufsize", ours)
    print(rows[f"{label}|bufsize"], flush=True)
    args_text = " ".join(a for a in sys.argv[1:] if a != "--no-ns3")
    write_table(rows, "nice -n 19 .venv/bin/python studies/ns3_recovery_counts.py " + args_text)


if __name__ == "__main__":
    main()
