"""Speed of the trace readers: packets parsed per second for CSV and pcap.

Run with ``.venv/bin/python benchmarks/trace_read_speed.py [--packets 2000000] [--repeats 3]``.
It writes a CSV trace (the format of ``bufsize simulate --trace``) and a pcap capture of
Ethernet/IPv4/TCP packets (the payload cut off, as with a short snap length) to a temporary
directory, then times, with ``time.perf_counter``, (a) the reader alone (every batch built)
and (b) the reader plus the estimators' per-flow pass (``estimate_trace``), and (c) the
reference parsers the fast paths are tested against (the CSV reader's line-exact numpy
parser, the pcap reader's record-by-record decoder), interleaved with (a) run by run so that
the ratio of their medians is an A/B comparison on the same load. It prints the medians of
``--repeats`` runs and the load average before and after. The CSV and pcap packets are 400
flows sending in turn, with 1 % of the CSV rows drops.

Targets (issue 13): at least 1 M packets per second for CSV and 300 k for pcap on two cores.
The machine is shared: quote medians, and ratios between runs taken together.

Then (issue 29) the same packets, ``--tcpdump-packets`` of them (1 M by default), written as
pcap (nanosecond) and as pcapng, are read by the reader (every batch built, in this process,
after a first reading) and by ``tcpdump -r FILE -nn > /dev/null``, in turn ``--repeats``
times; it prints each median, the ratio reader/tcpdump of the medians (targets: pcapng 1.5,
pcap 1.2) and this process's peak resident memory. ``--tcpdump-packets 0`` leaves it out.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import shutil
import statistics
import struct
import subprocess
import tempfile
import time
from pathlib import Path

import dpkt
import numpy as np

from validation.traces import estimate_trace, open_trace
from validation.traces.csv_reader import CsvTraceReader
from validation.traces.pcap_reader import PcapTraceReader

FLOWS = 400


def write_csv(path: Path, packets: int, rng: np.random.Generator) -> None:
    time_s = np.cumsum(rng.exponential(1.0 / 83_000.0, packets))
    flow = rng.integers(0, FLOWS, packets)
    dropped = rng.random(packets) < 0.01
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(("time_s", "flow", "size_bytes", "dropped"))
        writer.writerows(
            zip(
                time_s.tolist(),
                flow.tolist(),
                [1500] * packets,
                dropped.astype(int).tolist(),
                strict=False,
            )
        )


def write_pcap(path: Path, packets: int, rng: np.random.Generator) -> None:
    templates = []
    for f in range(FLOWS):
        tcp = dpkt.tcp.TCP(sport=40000 + f, dport=80, flags=dpkt.tcp.TH_ACK, seq=0)
        ip = dpkt.ip.IP(src=bytes((10, 1, f // 250, f % 250 + 1)), dst=b"\x0a\x02\x00\x01", p=6)
        ip.data = tcp
        eth = dpkt.ethernet.Ethernet(
            src=b"\x02" * 6, dst=b"\x04" * 6, type=dpkt.ethernet.ETH_TYPE_IP, data=ip
        )
        raw = bytes(eth)
        templates.append(raw[:16] + struct.pack("!H", 1500) + raw[18:])
    flow = rng.integers(0, FLOWS, packets).tolist()
    seq = [0] * FLOWS
    time_s = np.cumsum(rng.exponential(1.0 / 83_000.0, packets)).tolist()
    with open(path, "wb") as handle:
        writer = dpkt.pcap.Writer(handle, nano=True)
        for t, f in zip(time_s, flow, strict=True):
            raw = templates[f]
            writer.writepkt(raw[:38] + struct.pack("!I", seq[f] & 0xFFFFFFFF) + raw[42:], ts=t)
            seq[f] += 1460


def write_pcapng(source: Path, path: Path) -> None:
    """The packets of the pcap ``source`` as pcapng (one interface, microseconds)."""
    with open(source, "rb") as raw, open(path, "wb") as handle:
        writer = dpkt.pcapng.Writer(handle)
        for ts, buf in dpkt.pcap.Reader(raw):
            writer.writepkt(buf, ts=float(ts))


def tcpdump(path: Path) -> int:
    subprocess.run(
        ["tcpdump", "-r", str(path), "-nn"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return 0


def against_tcpdump(tmp: Path, packets: int, repeats: int, rng: np.random.Generator) -> None:
    """The reader against ``tcpdump -r FILE -nn > /dev/null`` on pcap and pcapng."""
    pcap = tmp / "million.pcap"
    write_pcap(pcap, packets, rng)
    ng = tmp / "million.pcapng"
    write_pcapng(pcap, ng)
    for label, path, target in (("pcap", pcap, 1.2), ("pcapng", ng, 1.5)):
        read_only(path)  # the file in the page cache, the compiled code loaded
        (count, ours), (_, theirs) = timed([read_only, tcpdump], path, repeats)
        print(
            f"{label:6s} {count:,} packets: reader {ours:.3f} s, tcpdump -nn {theirs:.3f} s "
            f"(medians of {repeats}): ratio {ours / theirs:.2f} (target {target})"
        )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this process: {peak_mb:,.0f} MB")


def read_only(path: Path) -> int:
    return sum(len(batch) for batch in open_trace(path).batches())


def read_reference(path: Path) -> int:
    if path.suffix == ".csv":
        return sum(len(batch) for batch in CsvTraceReader(path)._exact_batches())
    return sum(len(batch) for batch in PcapTraceReader(path, exact=True).batches())


def read_and_estimate(path: Path) -> int:
    return estimate_trace(open_trace(path), capacity_bps=1e9).packets


def timed(fns: list[object], path: Path, repeats: int) -> list[tuple[int, float]]:
    """Median seconds of each function, the functions run in turn ``repeats`` times."""
    times: list[list[float]] = [[] for _ in fns]
    counts = [0] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            counts[k] = fn(path)  # type: ignore[operator]
            times[k].append(time.perf_counter() - start)
    return [(counts[k], statistics.median(times[k])) for k in range(len(fns))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packets", type=int, default=2_000_000, help="CSV rows")
    parser.add_argument("--pcap-packets", type=int, default=500_000, help="pcap packets")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--tcpdump-packets", type=int, default=1_000_000, help="packets against tcpdump (0: no)"
    )
    parser.add_argument("--only-tcpdump", action="store_true", help="only against tcpdump")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print("load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    if args.tcpdump_packets and shutil.which("tcpdump"):
        with tempfile.TemporaryDirectory() as tmp:
            against_tcpdump(Path(tmp), args.tcpdump_packets, args.repeats, rng)
    if args.only_tcpdump:
        return
    with tempfile.TemporaryDirectory() as tmp:
        csv_path = Path(tmp) / "trace.csv"
        pcap_path = Path(tmp) / "trace.pcap"
        write_csv(csv_path, args.packets, rng)
        write_pcap(pcap_path, args.pcap_packets, rng)
        for path in (csv_path, pcap_path):  # compile and load the numba code outside the timing
            read_and_estimate(path)
        for label, path in (("CSV", csv_path), ("pcap", pcap_path)):
            size_mb = path.stat().st_size / 1e6
            results = timed([read_only, read_reference, read_and_estimate], path, args.repeats)
            names = ("read", "read (reference)", "read + estimate")
            for what, (count, seconds) in zip(names, results, strict=True):
                print(
                    f"{label:4s} {what:16s} {count:>10,} packets ({size_mb:,.0f} MB) in "
                    f"{seconds:6.3f} s: {count / seconds / 1e3:8,.0f} k packets/s "
                    f"(median of {args.repeats})"
                )
            print(f"{label:4s} read: {results[1][1] / results[0][1]:.1f}x the reference's speed")
    print("load average (1, 5, 15 min) after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
