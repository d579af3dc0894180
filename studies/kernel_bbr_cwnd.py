"""How far Linux's BBR windows exceed 2 BDP: ``ss -ti`` sampled during the testbed's runs.

The question (issue 32): ten BBR flows at 100 Mbit/s, RTTs 80-120 ms, with 2 BDP of buffer
lose 1.60 % in the kernel testbed and 0.04 % in bufsize, and 20 CUBIC + 20 BBR flows at 1 and
2 BDP lose 1.8-2.3 times as much in the kernel (``kernel_compare.md``). BBR v1 bounds its
flight by cwnd = cwnd_gain · BtlBw · RTprop plus an allowance; if the allowance is larger in
Linux than in bufsize, the flows' windows add up to more than BDP + B and the port overflows.

Kernel side: every ``SAMPLE_S`` of a run's measured window the sender's namespace is read
with ``ss -tinH``: per BBR flow its cwnd, packets in flight (``unacked``), and BBR's own
``bbr:(bw, mrtt, pacing_gain, cwnd_gain)``. From them the window BBR's model allows
(``net/ipv4/tcp_bbr.c``, ``bbr_inflight``: ceil(cwnd_gain · bw · min_rtt) plus
``bbr_quantization_budget``'s 3 send quanta, rounded to even, +2 in the 5/4 phase) and the
excess of cwnd over it: in Linux ``bbr_set_cwnd`` adds ``bbr_ack_aggregation_cwnd`` (the
largest ``extra_acked`` of the last 5-10 rounds, at most bw · 100 ms) to that target, which
ss does not show. Samples of flows in ProbeRTT (cwnd_gain 1) or in recovery (cwnd below the
target by packet conservation) are counted apart. The backlog the packets found at the port
(the forwarder's ``backlog_found``) is stored too.

Needs root (the testbed). Run from the repository's root::

    sudo nice -n 10 .venv/bin/python studies/kernel_bbr_cwnd.py [--families bbr-10]
        [--fractions 2] [--seeds 1] [--capture] [--no-kernel]

``--capture`` also records the sender's departures (``tcpdump`` on its veth, CAPTURE_S after
the warm-up): the gaps between its data packets, against the port's packet time.

Appends one record a run to ``results/kernel_bbr_cwnd.json`` and rewrites
``results/kernel_bbr_cwnd.md`` from all the stored runs (the notes below its table kept).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from kernel_compare import FAMILIES, MTU_BYTES, Family, kernel_flows, write_keeping_notes

from validation.testbed import Testbed, run_problems
from validation.testbed.bed import FIRST_SOURCE_PORT

RESULTS = Path(__file__).resolve().parent / "results"
RUNS = RESULTS / "kernel_bbr_cwnd.json"
TABLE = RESULTS / "kernel_bbr_cwnd.md"
DURATION_S, WARMUP_S = 20.0, 5.0
#: Seconds between two readings of ``ss`` (each takes a few ms of one core).
SAMPLE_S = 0.25
#: Seconds of the sender's departures captured (``--capture``).
CAPTURE_S = 5.0
#: tcp_bbr.c bbr_quantization_budget at these rates: 3 · bbr_tso_segs_goal (2: the pacing
#: rate per 2^-10 s is below one MSS at 100 Mbit/s shared), then to even, +2 at gain 5/4.
QUANTA_PACKETS = 3 * 2
_BBR = re.compile(
    r"bbr:\(bw:(?P<bw>[0-9.]+)(?P<unit>[KMG]?)bps,mrtt:(?P<mrtt>[0-9.]+)"
    r"(?:,pacing_gain:(?P<pg>[0-9.]+))?(?:,cwnd_gain:(?P<cg>[0-9.]+))?\)"
)
_UNITS = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}
_PACING = re.compile(r"pacing_rate (?P<rate>[0-9.]+)(?P<unit>[KMG]?)bps")


def _word(words: list[str], name: str) -> float | None:
    for word in words:
        if word.startswith(name + ":"):
            return float(word.split(":", 1)[1])
    return None


def parse_ss(shown: str) -> list[dict[str, Any]]:
    """One entry per BBR socket in ``ss -tinH`` output: port, cwnd, unacked, mss and BBR's
    model (bw in payload bits per second, min RTT in seconds, gains)."""
    entries = []
    lines = shown.splitlines()
    for head, info in zip(lines[0::2], lines[1::2], strict=False):
        words = info.split()
        found = _BBR.search(info)
        pacing = _PACING.search(info)
        if not words or words[0] != "bbr" or found is None:
            continue
        entries.append(
            {
                "port": int(head.split()[2].rsplit(":", 1)[1]),
                "cwnd": _word(words, "cwnd") or 0.0,
                "unacked": _word(words, "unacked") or 0.0,
                "mss": _word(words, "mss") or 0.0,
                "bw_bps": float(found["bw"]) * _UNITS[found["unit"]],
                "mrtt_s": float(found["mrtt"]) / 1e3,
                "pacing_gain": float(found["pg"] or 0.0),
                "cwnd_gain": float(found["cg"] or 0.0),
                "pacing_bps": float(pacing["rate"]) * _UNITS[pacing["unit"]] if pacing else 0.0,
            }
        )
    return entries


def allowed(entry: dict[str, Any]) -> float:
    """bbr_inflight(bw, cwnd_gain) without the ACK-aggregation term, packets."""
    bw_packets = entry["bw_bps"] / (8.0 * entry["mss"]) if entry["mss"] else 0.0
    target = math.ceil(entry["cwnd_gain"] * bw_packets * entry["mrtt_s"]) + QUANTA_PACKETS
    target += target % 2
    return target + (2 if entry["pacing_gain"] > 1.0 else 0)


class _Sampler(threading.Thread):
    """Reads ``ss`` in the senders' namespace every SAMPLE_S until stopped."""

    def __init__(self, namespace: str) -> None:
        super().__init__(daemon=True)
        self.namespace = namespace
        self.samples: list[tuple[float, list[dict[str, Any]]]] = []
        self.halt = threading.Event()
        self.started_s = time.monotonic()

    def run(self) -> None:
        while not self.halt.wait(SAMPLE_S):
            shown = subprocess.run(
                ["ip", "netns", "exec", self.namespace, "ss", "-tinH", "state", "established"],
                capture_output=True, text=True, timeout=10, check=False,
            ).stdout  # fmt: skip
            self.samples.append((time.monotonic() - self.started_s, parse_ss(shown)))


def summarize(
    samples: list[tuple[float, list[dict[str, Any]]]], bdp: float, buffer: int
) -> dict[str, Any]:
    """Per reading: the windows' sum against BDP + B; per flow reading in ProbeBW: the
    excess of cwnd over bbr_inflight."""
    sums, excess, excess_share, probe_rtt, below = [], [], [], 0, 0
    bw_sums, pacing_sums = [], []
    for _, entries in samples:
        if not entries:
            continue
        sums.append(sum(e["cwnd"] for e in entries))
        bw_sums.append(sum(e["bw_bps"] for e in entries))
        pacing_sums.append(sum(e.get("pacing_bps", 0.0) for e in entries))
        for e in entries:
            if e["cwnd_gain"] < 2.0:
                probe_rtt += 1
                continue
            over = e["cwnd"] - allowed(e)
            if over < 0:
                below += 1
                continue
            excess.append(over)
            bw_packets = e["bw_bps"] / (8.0 * e["mss"])
            excess_share.append(over / (bw_packets * 0.1) if bw_packets else math.nan)
    return {
        "readings": len(sums),
        "cwnd_sum_mean": statistics.fmean(sums) if sums else math.nan,
        "cwnd_sum_max": max(sums) if sums else math.nan,
        "bdp_plus_buffer": bdp + buffer,
        "excess_flow_readings": len(excess),
        "excess_mean": statistics.fmean(excess) if excess else math.nan,
        "excess_median": statistics.median(excess) if excess else math.nan,
        "excess_of_cap_mean": statistics.fmean(excess_share) if excess_share else math.nan,
        "probe_rtt_readings": probe_rtt,
        "bw_sum_bps_mean": statistics.fmean(bw_sums) if bw_sums else math.nan,
        "pacing_sum_bps_median": statistics.median(pacing_sums) if pacing_sums else math.nan,
        "below_target_readings": below,
    }


class _Capture(threading.Thread):
    """``tcpdump`` on the sender's veth for CAPTURE_S from the end of the warm-up: the times
    the sender's data packets left it (after TCP's pacing), read back when stopped."""

    def __init__(self, namespace: str, device: str, path: Path) -> None:
        super().__init__(daemon=True)
        self.args = ["ip", "netns", "exec", namespace, "tcpdump", "-i", device, "-nn",
                     "-s", "96", "-w", str(path), "tcp and greater 1000"]  # fmt: skip
        self.path = path
        self.halt = threading.Event()

    def run(self) -> None:
        if self.halt.wait(WARMUP_S + 0.5):
            return
        dump = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.halt.wait(CAPTURE_S)
        finally:
            dump.terminate()
            dump.wait(timeout=10)

    def gaps_s(self) -> list[float]:
        """Gaps between consecutive data packets (one flow: the sender's spacing)."""
        if not self.path.exists():
            return []
        shown = subprocess.run(["tcpdump", "-r", str(self.path), "-nn", "-tt"],
                               capture_output=True, text=True, check=False).stdout  # fmt: skip
        times = [float(line.split()[0]) for line in shown.splitlines() if line.strip()]
        return [b - a for a, b in itertools.pairwise(times)]


def run(family: Family, buffer_packets: int, seed: int, capture: bool) -> dict[str, Any]:
    """One kernel run with ss sampled through its measured window (and, with ``capture``,
    the sender's departures captured for CAPTURE_S)."""
    scenario = family.scenario(DURATION_S, WARMUP_S)
    flows = kernel_flows(family, scenario, buffer_packets, seed)
    with Testbed(family.capacity_bps, buffer_packets, MTU_BYTES) as bed:
        sampler = _Sampler(bed.names["snd"])
        dump = _Capture(bed.names["snd"], bed.devices["snd"], Path(tempfile.mkdtemp()) / "d.pcap")
        load = os.getloadavg()[0]
        sampler.start()
        if capture:
            dump.start()
        try:
            measured = bed.run(flows, warmup_s=WARMUP_S, measure_s=DURATION_S - WARMUP_S)
        finally:
            sampler.halt.set()
            dump.halt.set()
            sampler.join()
            if capture:
                dump.join()
        gaps = dump.gaps_s()
        shutil.rmtree(dump.path.parent, ignore_errors=True)
    tx_s = 8.0 * MTU_BYTES / family.capacity_bps
    # the flows start after the forwarder (0.3 s) and the RTT probes: past the warm-up then
    kept = [(t, e) for t, e in sampler.samples if t >= WARMUP_S + 0.5 and e]
    return {
        "family": family.name,
        "buffer_packets": buffer_packets,
        "seed": seed,
        "utilization": measured.utilization,
        "loss_rate": measured.loss_rate,
        "queue_delay_mean_s": measured.queue_delay_mean_s,
        "problems": run_problems(measured),
        "load_1min": load,
        "kernel": measured.kernel,
        "backlog_found": measured.arrival_counts.get("backlog_found", {}),
        "summary": summarize(kept, family.bdp_packets(), buffer_packets),
        "sender_gaps": {
            "n": len(gaps),
            "mean_s": statistics.fmean(gaps) if gaps else math.nan,
            "stdev_s": statistics.pstdev(gaps) if gaps else math.nan,
            "below_tx_share": sum(g < tx_s for g in gaps) / len(gaps) if gaps else math.nan,
            "below_half_tx_share": sum(g < tx_s / 2 for g in gaps) / len(gaps)
            if gaps
            else math.nan,
            "link_tx_s": tx_s,
        },
        "samples": [[round(t, 3), e] for t, e in kept],
    }


def _rtprop_excess_ms(r: dict[str, Any]) -> str:
    """The largest RTprop - path RTT of a BBR flow at the first reading after the warm-up, ms
    (a new testbed's first run gives flow i the source port FIRST_SOURCE_PORT + i)."""
    if not r["samples"]:
        return ""
    family = next(f for f in FAMILIES if f.name == r["family"])
    scenario = family.scenario(DURATION_S, WARMUP_S)
    flows = kernel_flows(family, scenario, r["buffer_packets"], r["seed"])
    first = r["samples"][0][1]
    excess = [e["mrtt_s"] - flows[e["port"] - FIRST_SOURCE_PORT].rtt_s for e in first]
    return f"{1e3 * max(excess):.1f}"


def _row(r: dict[str, Any]) -> str:
    s = r["summary"]
    gaps = r.get("sender_gaps", {})
    paired = f"{100 * gaps['below_half_tx_share']:.1f}" if gaps.get("n") else ""
    return (
        f"| {r['family']} | {r['buffer_packets']} | {r['seed']} | {r['utilization']:.3f} | "
        f"{100 * r['loss_rate']:.2f} | {1e3 * r['queue_delay_mean_s']:.1f} | "
        f"{s['cwnd_sum_mean']:.0f} / {s['cwnd_sum_max']:.0f} | {s['bdp_plus_buffer']:.0f} | "
        f"{s['excess_mean']:.1f} / {s['excess_median']:.1f} | {s['excess_of_cap_mean']:.2f} | "
        f"{_rtprop_excess_ms(r)} | {paired} | "
        f"{s['excess_flow_readings']} / {s['probe_rtt_readings']} / "
        f"{s['below_target_readings']} | {'; '.join(r['problems']) or 'none'} | "
        f"{r['load_1min']:.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="bbr-10")
    parser.add_argument("--fractions", default="2", help="buffers as fractions of the BDP")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--capture", action="store_true", help="the sender's departures too")
    parser.add_argument("--no-kernel", action="store_true", help="the table from stored runs")
    args = parser.parse_args()
    stored = [json.loads(line) for line in RUNS.read_text().splitlines()] if RUNS.exists() else []
    for name in [] if args.no_kernel else args.families.split(","):
        family = next(f for f in FAMILIES if f.name == name)
        for fraction in map(float, args.fractions.split(",")):
            buffer_packets = max(2, round(fraction * family.bdp_packets()))
            for seed in map(int, args.seeds.split(",")):
                record = run(family, buffer_packets, seed, args.capture)
                print(_row(record), flush=True)
                stored.append(record)
                RUNS.parent.mkdir(exist_ok=True)
                with RUNS.open("a") as out:
                    out.write(json.dumps(record) + "\n")
    header = [
        "| family | B (pkts) | seed | U | loss % | delay ms | Σcwnd mean / max | BDP + B | "
        "excess over bbr_inflight mean / median (pkts) | excess / (bw · 100 ms) | "
        "largest RTprop - path RTT (ms) | % sender gaps < ½ packet time | "
        "flow readings ProbeBW-at-or-above / ProbeRTT / below target | problems | load |",
        "| " + " | ".join(["---"] * 15) + " |",
    ]
    kernels = sorted({r["kernel"] for r in stored})
    write_keeping_notes(
        TABLE,
        "# Linux's BBR windows against its model (generated by studies/kernel_bbr_cwnd.py)",
        [f"Linux {', '.join(kernels)}; {DURATION_S:g} s a run, the first {WARMUP_S:g} s "
         f"discarded; ss read every {SAMPLE_S:g} s.", "", *header,
         *(_row(r) for r in stored)],
    )  # fmt: skip


if __name__ == "__main__":
    main()
