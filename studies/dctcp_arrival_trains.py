"""How bursty the arrivals at DCTCP's marking port are, in bufsize and in ns-3 3.44.

The question (``results/dctcp_queue_p99.md``): at 1 Gbit/s, 10 DCTCP flows and 200 µs
bufsize's queue is wider than ns-3's (p99 17 against 13 packets at K = 5) with about the same
mean. A wider queue at the same load points at burstier arrivals at the port. Both sides give
each sender an access link of the bottleneck's rate (``Scenario.access_bps`` = 1 Gbit/s, handed
to ``ns3_dumbbell.py``), so one sender's back-to-back packets reach the port one packet time
apart on both; the port's queue grows when several senders' trains overlap. This study records
every arrival at the port after the warm-up (time and flow) on both sides and the ACKs, and
reports from those records alike:

- ``gaps < tx``: the share of inter-arrival gaps shorter than one packet time (0.99 tx), the
  arrivals that find the port's previous arrival not yet sent;
- ``in last tx``: per arrival, how many other arrivals came in the packet time before it
  (mean and p99): overlapping trains;
- ``train``: per flow, the runs of its own packets arriving back to back (each within 1.01
  packet times of its previous one): mean length in packets and the share of packets in runs
  of 3 or more (a sender's burst after one ACK);
- ``ACKs / packet``: ACKs sent by the receivers per data packet arriving at the port (ns-3:
  the packets crossing the reverse bottleneck, all pure ACKs; bufsize: its receivers' ACKs),
  and bufsize's share of ACKs covering one segment.

bufsize is run as it is, with ns-3's DCTCP receiver (no immediate ACK of a CE change) and with
its flows' RTTs spread (``rtt_jitter_s``), as named in the rows.

Run from the repository's root (an ns-3 run takes 20-60 s of CPU; nice it)::

    nice -n 19 .venv/bin/python studies/dctcp_arrival_trains.py --k 5,10

Prints a markdown table (``--output`` writes it, keeping the notes under it).
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
from dctcp_queue_p99 import (
    BUFFER_PACKETS,
    CAPACITY_BPS,
    HEADER_BYTES,
    PACKET_BYTES,
    WARMUP_S,
    Case,
    _ArrivalCounting,
    p99_of,
    run_ns3_with,
)
from kernel_compare import write_keeping_notes

from validation.simulator.layout import CWR_FLAG
from validation.simulator.measures import to_result

TX_S = 8.0 * (PACKET_BYTES + HEADER_BYTES) / CAPACITY_BPS
#: Windows (in packet times) over which the arrivals are counted: the variance-time view of
#: where burstiness lies (24 packet times is about one RTT of 200 µs).
WINDOWS_TX = (4, 24, 96)


class _Recording(_ArrivalCounting):
    """bufsize's reference simulator recording each measured arrival at the port and ACK."""

    times: list[float]
    flows_of: list[int]
    cwr: list[bool]
    acks: int
    acks_one: int
    last_ack: dict[int, int]
    cwnd_integral: float
    cwnd_since: dict[int, float]
    cut_depths: list[float]
    measuring = False

    def arrive(self, t: float, f: int, epoch: int, seq: int, size: float, flags: int = 0) -> None:
        if t >= self.warm:
            self.times.append(t)
            self.flows_of.append(f)
            self.cwr.append(bool(flags & CWR_FLAG))
        super().arrive(t, f, epoch, seq, size, flags)

    def ecn_on_ack(self, fl: Any, cum: int, newly: int, ece: bool) -> None:
        before, recover = fl.cwnd, fl.ecn_recover
        super().ecn_on_ack(fl, cum, newly, ece)
        if fl.ecn_recover != recover and self.measuring:
            self.cut_depths.append(before - fl.cwnd)

    def on_ack(self, t: float, f: int, cum: int, sack_seq: int, ece: bool = False) -> None:
        self.measuring = t >= self.warm
        fl = self.flows[f]
        since = max(self.cwnd_since.get(f, self.warm), self.warm)
        if t > since:
            self.cwnd_integral += (t - since) * fl.cwnd
        self.cwnd_since[f] = t
        super().on_ack(t, f, cum, sack_seq, ece)

    def send_ack(self, t: float, f: int, sack_seq: int) -> None:
        fl = self.flows[f]
        if t >= self.warm:
            self.acks += 1
            self.acks_one += int(fl.rcv_nxt - self.last_ack.get(f, fl.rcv_nxt) == 1)
        self.last_ack[f] = fl.rcv_nxt
        super().send_ack(t, f, sack_seq)


def train_figures(times: np.ndarray, flows: np.ndarray) -> dict[str, float]:
    """The burstiness figures of a record of arrivals (times in s, flow ids), in order.

    >>> at = TX_S * np.array([0.0, 1.0, 2.0, 10.0, 10.5])
    >>> f = train_figures(at, np.array([0, 0, 0, 1, 2]))
    >>> round(f["gaps_below_tx"], 2), f["train_mean"], round(f["in_3_or_more"], 2)
    (0.25, 1.67, 0.6)
    """
    order = np.argsort(times, kind="stable")
    times, flows = times[order], flows[order]
    gaps = np.diff(times)
    # arrivals in the packet time before each arrival (itself excluded)
    before = np.arange(times.size) - np.searchsorted(times, times - TX_S * 0.999, side="left")
    lengths: list[int] = []
    for f in np.unique(flows):
        own = times[flows == f]
        breaks = np.flatnonzero(np.diff(own) > 1.01 * TX_S)
        edges = np.concatenate(([0], breaks + 1, [own.size]))
        lengths.extend(np.diff(edges).tolist())
    runs = np.array(lengths)
    counts = np.bincount(before)
    windows = {}
    for w in WINDOWS_TX:
        edges = np.arange(times[0], times[-1] + w * TX_S, w * TX_S)
        per_window = np.histogram(times, bins=edges)[0]
        windows[f"p99_in_{w}tx"] = float(np.quantile(per_window, 0.99))
        windows[f"std_in_{w}tx"] = float(np.std(per_window))
    return windows | {
        "arrivals": float(times.size),
        "gaps_below_tx": float(np.mean(gaps < 0.99 * TX_S)),
        "in_last_tx_mean": float(np.mean(before)),
        "in_last_tx_p99": float(p99_of(counts.astype(float))),
        "train_mean": round(float(np.mean(runs)), 2),
        "in_3_or_more": float(np.sum(runs[runs >= 3]) / np.sum(runs)),
    }


def cut_figures(
    times: np.ndarray, flows: np.ndarray, cwr: np.ndarray, case: Case
) -> dict[str, float]:
    """The senders' reductions as the port sees them: the first new packet after each one
    carries CWR (RFC 3168 §6.1.2, on both sides). Reductions per flow per RTT, and per
    reduction the other flows' reductions within half an RTT of it (the synchronisation).

    >>> c = Case(2, 1.0, 5, 1.0)
    >>> f = cut_figures(np.array([0.0, 0.2, 3.0]), np.array([0, 1, 0]), np.array([1, 1, 1]), c)
    >>> f["cuts_per_flow_rtt"], round(f["others_within_half_rtt"], 2)
    (0.5, 0.67)
    """
    at, who = times[cwr.astype(bool)], flows[cwr.astype(bool)]
    span_rtts = (times[-1] - times[0]) / case.rtt_s if times.size > 1 else 1.0
    others = [
        int(np.sum((np.abs(at - t) <= case.rtt_s / 2) & (who != f)))
        for t, f in zip(at, who, strict=True)
    ]
    return {
        "cuts_per_flow_rtt": float(at.size / (case.flows * max(span_rtts, 1.0))),
        "others_within_half_rtt": float(np.mean(others)) if others else 0.0,
    }


def run_bufsize(case: Case, seed: int, immediate: bool = True, jitter_s: float = 0.0) -> dict:
    scenario = dataclasses.replace(case.scenario(), rtt_jitter_s=jitter_s)
    sim = _Recording(scenario, BUFFER_PACKETS, seed, False)
    sim.found = np.zeros(BUFFER_PACKETS + 8)
    sim.immediate_ce_ack = immediate
    sim.cwnd_integral, sim.cwnd_since, sim.cut_depths = 0.0, {}, []
    sim.times, sim.flows_of, sim.cwr, sim.acks, sim.acks_one, sim.last_ack = [], [], [], 0, 0, {}
    result = to_result(sim.p, sim.run(), 0.0, "reference")
    occ = result.queue_distribution
    out = train_figures(np.array(sim.times), np.array(sim.flows_of))
    out.update(cut_figures(np.array(sim.times), np.array(sim.flows_of), np.array(sim.cwr), case))
    out.update(
        mark_rate=result.mark_rate,
        mean_port=float(np.dot(np.arange(occ.size), occ)),
        p99_port=float(p99_of(occ)),
        acks_per_packet=sim.acks / max(out["arrivals"], 1.0),
        acks_one_share=sim.acks_one / max(sim.acks, 1),
        mean_cut=float(np.mean(sim.cut_depths)) if sim.cut_depths else 0.0,
        mean_cwnd=sim.cwnd_integral / (case.flows * (scenario.duration_s - scenario.warmup_s)),
    )
    return out


_TRAIN_CPP = r"""
namespace bufsize_trains {
using namespace ns3;

// Every arrival at the bottleneck's disc after the warm-up (time, IPv4 source), and the
// packets the reverse direction of the bottleneck sends (the receivers' ACKs).
class TrainProbe
{
  public:
    explicit TrainProbe(double warmupS) : m_warmupS(warmupS) {}

    void Arrival(Ptr<const QueueDiscItem> item)
    {
        double now = Simulator::Now().GetSeconds();
        if (now < m_warmupS)
        {
            return;
        }
        Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
        times.push_back(now);
        sources.push_back(ip->GetHeader().GetSource().Get());
        TcpHeader tcp;
        item->GetPacket()->PeekHeader(tcp);
        cwr.push_back((tcp.GetFlags() & TcpHeader::CWR) ? 1 : 0);
    }

    void Ack(Ptr<const Packet>)
    {
        if (Simulator::Now().GetSeconds() >= m_warmupS)
        {
            acks += 1;
        }
    }

    void Finish() {}

    double m_warmupS;
    std::vector<double> times;
    std::vector<uint32_t> sources;
    std::vector<uint32_t> cwr;
    uint64_t acks = 0;
};

TrainProbe*
Attach(Ptr<NetDevice> device, Ptr<QueueDisc> disc, double warmupS)
{
    auto* probe = new TrainProbe(warmupS);
    Ptr<Channel> channel = device->GetChannel();
    Ptr<NetDevice> reverse = channel->GetDevice(0) == device ? channel->GetDevice(1)
                                                             : channel->GetDevice(0);
    bool ok =
        disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&TrainProbe::Arrival, probe)) &&
        reverse->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&TrainProbe::Ack, probe));
    NS_ABORT_MSG_UNLESS(ok, "a trace source of the bottleneck was not found");
    return probe;
}
} // namespace bufsize_trains
"""


def run_ns3(case: Case, seed: int) -> dict[str, Any]:
    """ns-3's figures of a case (its DCTCP with Linux's window floor, PRR, 40 ms delayed ACK)."""
    import cppyy  # type: ignore[import-not-found]
    import ns3_dumbbell  # noqa: F401  (its C++ headers first)

    if not hasattr(cppyy.gbl, "bufsize_trains"):
        cppyy.cppdef(_TRAIN_CPP)

    def attach(device: Any, disc: Any) -> Any:
        return cppyy.gbl.bufsize_trains.Attach(device, disc, WARMUP_S)

    record = run_ns3_with(case, seed, "prr", attach, diagnose=True)
    probe = record["attached"]
    times = np.array(list(probe.times))
    sources = np.array(list(probe.sources))
    out = train_figures(times, sources)
    out.update(cut_figures(times, sources, np.array([int(x) for x in probe.cwr]), case))
    # ns-3 sets CWR only while its ECN state is ECE_RCVD: an ACK without ECE before the next
    # data packet clears it, so its CWR flags undercount its reductions; count the entries
    # into CA_CWR instead
    out["cwr_flags_per_flow_rtt"] = out["cuts_per_flow_rtt"]
    span_rtts = (times[-1] - times[0]) / case.rtt_s
    out["cuts_per_flow_rtt"] = sum(record["flows"]["cwr_entries"]) / (case.flows * span_rtts)
    out["mean_cwnd"] = float(np.mean(record["flows"]["mean_cwnd_packets"]))
    cuts = sum(record["flows"]["cwr_entries"])
    out["mean_cut"] = sum(record["flows"]["cwr_cut_packets"]) / max(cuts, 1)
    out.update(
        mark_rate=record["mark_rate"],
        acks_per_packet=int(probe.acks) / max(out["arrivals"], 1.0),
        acks_one_share=float("nan"),
    )
    return out


COLUMNS = (
    "K", "side", "arrivals", "marked %", "gaps < tx %", "in last tx: mean, p99",
    "train: mean, % in runs >= 3",
    *(f"arrivals in {w} tx: std, p99" for w in WINDOWS_TX), "ACKs / packet",
    "ACKs of 1 segment %", "reductions per flow per base RTT", "mean cwnd per flow, packets",
    "mean reduction, packets", "other flows' reductions within RTT/2 of one",
    "mean, p99 at port",
)  # fmt: skip


def _row(k: int, side: str, r: dict[str, Any]) -> str:
    cells = [
        str(k),
        side,
        f"{r['arrivals']:.0f}",
        f"{100 * r['mark_rate']:.1f}",
        f"{100 * r['gaps_below_tx']:.1f}",
        f"{r['in_last_tx_mean']:.2f}, {r['in_last_tx_p99']:.0f}",
        f"{r['train_mean']:.2f}, {100 * r['in_3_or_more']:.1f}",
        *(f"{r[f'std_in_{w}tx']:.2f}, {r[f'p99_in_{w}tx']:.0f}" for w in WINDOWS_TX),
        f"{r['acks_per_packet']:.3f}",
        "-" if r["acks_one_share"] != r["acks_one_share"] else f"{100 * r['acks_one_share']:.1f}",
        f"{r['cuts_per_flow_rtt']:.3f}"
        + (
            f" (CWR flags {r['cwr_flags_per_flow_rtt']:.3f})"
            if "cwr_flags_per_flow_rtt" in r
            else ""
        ),
        f"{r['mean_cwnd']:.2f}",
        f"{r['mean_cut']:.2f}" if "mean_cut" in r else "-",
        f"{r['others_within_half_rtt']:.2f}",
        "-" if "mean_port" not in r else f"{r['mean_port']:.1f}, {r['p99_port']:.0f}",
    ]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--k", default="5,10")
    parser.add_argument("--rtt-us", type=float, default=200.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jitter-us", type=float, default=20.0, help="bufsize's RTT spread row")
    parser.add_argument("--no-ns3", action="store_true")
    parser.add_argument("--only-ns3", action="store_true")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    rows = ["| " + " | ".join(COLUMNS) + " |", "| " + " | ".join("---" for _ in COLUMNS) + " |"]
    for k in map(int, args.k.split(",")):
        case = Case(10, args.rtt_us * 1e-6, k, 1.0)
        sides = {
            "bufsize": lambda c=case: run_bufsize(c, args.seed),
            "bufsize, ns-3's receiver": lambda c=case: run_bufsize(c, args.seed, False),
            f"bufsize, RTT jitter {args.jitter_us:g} µs": lambda c=case: run_bufsize(
                c, args.seed, jitter_s=args.jitter_us * 1e-6
            ),
        }
        if args.only_ns3:
            sides = {}
        if not args.no_ns3:
            sides["ns-3"] = lambda c=case: run_ns3(c, args.seed)
        for side, run in sides.items():
            rows.append(_row(k, side, run()))
            print(rows[-1], flush=True)
    head = (
        f"Seed {args.seed}; 10 DCTCP flows, 1 Gbit/s, RTT {args.rtt_us:g} µs, access links at "
        "1 Gbit/s on both sides, the measured second after 0.5 s (the cases of "
        "`dctcp_queue_p99.py`, starts over 1 s). tx = one packet time (8.43 µs)."
    )
    if args.output:
        write_keeping_notes(
            args.output,
            "# Arrival trains at DCTCP's port (studies/dctcp_arrival_trains.py)",
            [head, "", *rows, ""],
        )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
