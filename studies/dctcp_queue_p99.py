"""DCTCP's p99 queue beside ns-3: which "queue", which percentile, and which seconds.

The question (issue 32): with three differences from Linux taken out of ns-3 3.44, ns-3 and
bufsize agree at 1 Gbit/s, 40 flows, 200 µs, but with 10 flows "its p99 queue differs by up
to 35 %". The receiver's immediate ACK of a CE change moves bufsize's p99 by at most one
packet (``dctcp_ce_ack.py``), so that is not the cause. This study measures the same runs
under each definition a "p99 queue" can have, on both sides:

- time-weighted, packets at the port (the one in transmission included): bufsize's
  ``queue_distribution``; ns-3: queue disc + device queue + the transmitter's packet;
- time-weighted, packets waiting (the one in transmission excluded): ns-3's own count
  (``PacketsInQueue`` of the disc and the device queue);
- per arrival, packets found at the port by each arriving packet (what the marking sees);
- per packet, the wait before transmission (bufsize's ``queue_delay_p99_s``), in packet times.

and on two start-up schedules: the flows' starts spread over the scenario's default 1 s, so
that with 1.5 s simulated and 0.5 s discarded half of the flows start inside the measured
second, and spread over 0.1 s, so that the measured second holds no start-up. The p99 of a
time-weighted or per-event distribution of whole packets is the smallest k whose cumulative
share reaches 0.99 (``p99_of``).

Two behaviours of the senders are measured beside them: ns-3 lowers cwnd after an ECE over
the next round trip (its default ``TcpPrrRecovery``, as Linux's ``tcp_cwnd_reduction``) where
bufsize sets it to ssthresh at once (ns-3's ``TcpClassicRecovery`` does the same: the rows
marked 'classic'); and bufsize's DCTCP receiver acknowledges a CE change at once (RFC 8257
§3.2, Linux) where ns-3's does not (a column runs bufsize with ns-3's receiver). A last
column runs bufsize with Linux's arithmetic for DCTCP's cut (whole segments, the cut rounded
down, ``dctcp_ssthresh``), which neither bufsize nor ns-3 has.

ns-3 is the PyPI ``ns3`` 3.44 (``make ns3``) through ``ns3_dumbbell.py``; its delayed-ACK
timer is set to bufsize's (Linux's 40 ms, ``TCP_DELACK_MIN``) and its DCTCP keeps Linux's
floor of 2 segments on the reduced window (``dctcp_ssthresh`` in ``net/ipv4/tcp_dctcp.c``:
``max(cwnd - ((cwnd * alpha) >> 11), 2)``), two of the issue's three restored behaviours
(the third, a recovery that leaves the window at one segment, needs a timeout, and these runs
have no loss). bufsize is its reference simulator (the compiled core gives the same sample
paths).

Run from the repository's root (about 15-40 s of CPU per ns-3 run and 10-20 s per bufsize
run; 24 ns-3 runs and 32 bufsize runs by default; nice it on a shared machine)::

    nice -n 10 .venv/bin/python studies/dctcp_queue_p99.py
    nice -n 10 .venv/bin/python studies/dctcp_queue_p99.py --flows 40 --rtts-us 1000 \
        --k 20,40 --starts-s 1 --ns3-recovery prr \
        --output studies/results/dctcp_queue_p99_40flows.md

Writes ``results/dctcp_queue_p99.md`` (or ``--output``; the notes below its table are kept)
and keeps the ns-3 runs' histograms in ``results/dctcp_queue_p99_runs.json`` (``--no-ns3``
uses only those).
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from kernel_compare import write_keeping_notes

from validation.simulator import Scenario
from validation.simulator.measures import _histogram_quantile, to_result
from validation.simulator.parameters import make_parameters
from validation.simulator.reference.simulator import ReferenceSimulator

RESULTS = Path(__file__).resolve().parent / "results"
TABLE = RESULTS / "dctcp_queue_p99.md"
NS3_RUNS = RESULTS / "dctcp_queue_p99_runs.json"
#: ns-3's packets (``ns3_compare.py``): 1000 B of payload, 54 B of headers on the wire.
PACKET_BYTES, HEADER_BYTES = 1000, 54
BUFFER_PACKETS = 250  # no drop: the marking alone holds the queue
DURATION_S, WARMUP_S = 1.5, 0.5
CAPACITY_BPS = 1e9
#: Histogram length in packets (the buffer and a margin) and the wait histogram's bin, in
#: packet times (bufsize's delay histogram uses a quarter of a packet time here).
LEVELS = BUFFER_PACKETS + 8
WAIT_BINS_PER_PACKET = 4
#: Linux's delayed-ACK timer (TCP_DELACK_MIN = HZ/25), bufsize's default, given to ns-3.
DELAYED_ACK_TIMEOUT = "40ms"
DEFINITIONS = ("port, time", "waiting, time", "port, per arrival", "wait, per packet")


def p99_of(weights: np.ndarray, q: float = 0.99) -> int:
    """The smallest k whose cumulative share of ``weights`` (indexed by k) reaches q (0.99).

    >>> p99_of(np.array([0.5, 0.49, 0.01]))
    1
    >>> p99_of(np.array([0.5, 0.48, 0.02]))
    2
    """
    cum = np.cumsum(weights) / float(np.sum(weights))
    return int(np.searchsorted(cum, q - 1e-12))


def waiting_of_port(port: np.ndarray) -> np.ndarray:
    """Time-weighted packets waiting from packets at the port: a busy FIFO port holding k >= 1
    packets has k - 1 waiting (one is in transmission); an empty one has none.

    >>> waiting_of_port(np.array([0.2, 0.3, 0.5])).tolist()
    [0.5, 0.5]
    """
    out = port[1:].copy()
    out[0] += port[0]
    return out


@dataclass(frozen=True)
class Case:
    """One link: flows, RTT, K (packets waiting in ns-3's disc; the port's K + 2 in bufsize,
    as ``ns3_compare.py`` hands it over) and the spread of the flows' start times."""

    flows: int
    rtt_s: float
    k_packets: int
    start_spread_s: float

    @property
    def key(self) -> str:
        return (
            f"N={self.flows},rtt={1e6 * self.rtt_s:g}us,K={self.k_packets},"
            f"starts={self.start_spread_s:g}s"
        )

    def scenario(self) -> Scenario:
        return Scenario(
            capacity_bps=CAPACITY_BPS,
            flows=self.flows,
            rtt_s=self.rtt_s,
            rtt_jitter_s=0.0,
            congestion_control="dctcp",
            ecn=True,
            ecn_threshold_packets=self.k_packets + 2,
            packet_bytes=PACKET_BYTES,
            header_bytes=HEADER_BYTES,
            duration_s=DURATION_S,
            warmup_s=WARMUP_S,
            start_spread_s=self.start_spread_s,
        )


class _ArrivalCounting(ReferenceSimulator):
    """The reference simulator, counting the packets each measured arrival finds at the port
    (the marking's own view: ``mark_on_arrival`` is given them before the packet joins).

    With ``whole_segment_cut`` DCTCP's reduction is Linux's arithmetic on a whole number of
    segments: ``dctcp_ssthresh`` in ``net/ipv4/tcp_dctcp.c`` returns
    ``max(snd_cwnd - ((snd_cwnd * alpha) >> 11), 2)``, the cut ``cwnd·α/2`` rounded down,
    where bufsize keeps ``cwnd·(1 − α/2)`` with its fraction."""

    found: np.ndarray
    whole_segment_cut = False

    def ecn_on_ack(self, fl: Any, cum: int, newly: int, ece: bool) -> None:
        before, recover = fl.cwnd, fl.ecn_recover
        super().ecn_on_ack(fl, cum, newly, ece)
        cut = fl.ecn_recover != recover and fl.grp.congestion_control == "dctcp"
        if cut and self.whole_segment_cut:
            w = math.floor(before)
            fl.cwnd = fl.ssthresh = float(max(w - math.floor(w * fl.alpha / 2.0), 2))

    def mark_on_arrival(self, t: float, f: int, q_packets: int, q_bytes: float) -> int:
        if t >= self.warm:
            self.found[min(q_packets, LEVELS - 1)] += 1
        return super().mark_on_arrival(t, f, q_packets, q_bytes)


def port_of(result: Any) -> np.ndarray:
    """The share of time with k packets at bufsize's port, k < LEVELS (a RunResult's)."""
    port = np.zeros(LEVELS)
    occ = result.queue_distribution[:LEVELS]
    port[: occ.size] = occ
    return port


def run_bufsize(
    case: Case, seed: int, immediate: bool = True, whole_segment_cut: bool = False
) -> dict[str, Any]:
    """bufsize's figures of a case under every definition."""
    sim = _ArrivalCounting(case.scenario(), BUFFER_PACKETS, seed, False)
    sim.found = np.zeros(LEVELS)
    sim.immediate_ce_ack = immediate
    sim.whole_segment_cut = whole_segment_cut
    result = to_result(sim.p, sim.run(), 0.0, "reference")
    port = port_of(result)
    tx_s = 8.0 * (PACKET_BYTES + HEADER_BYTES) / CAPACITY_BPS
    return {
        "utilization": result.utilization,
        "mark_rate": result.mark_rate,
        "timeouts": result.timeouts,
        "mean_port": float(np.dot(np.arange(LEVELS), port)),
        "p90_port": p99_of(port, 0.90),
        "p99": {
            "port, time": p99_of(port),
            "waiting, time": p99_of(waiting_of_port(port)),
            "port, per arrival": p99_of(sim.found),
            "wait, per packet": result.queue_delay_p99_s / tx_s,
        },
    }


_PROBE_CPP = r"""
#include <unordered_map>
namespace bufsize_p99 {
using namespace ns3;

// The bottleneck port's queue after the warm-up, under each definition: seconds spent with k
// packets waiting (disc + device queue) and with k at the port (waiting + the transmitter's
// packet); per arrival at the disc, the packets it finds waiting and at the port; per packet,
// the wait from its arrival at the disc to the start of its transmission (bins of 1/binsPerTx
// of a packet time).
class QueueProbe
{
  public:
    QueueProbe(Ptr<QueueDisc> disc, double warmupS, uint32_t levels, double txS,
               uint32_t binsPerTx)
        : m_disc(disc), m_warmupS(warmupS), m_binS(txS / binsPerTx),
          waitingTime(levels, 0.0), portTime(levels, 0.0), foundDisc(levels, 0.0),
          foundWaiting(levels, 0.0),
          foundPort(levels, 0.0), waitHist(levels * binsPerTx, 0.0)
    {
    }

    void DeviceQueue(uint32_t, uint32_t n) { Advance(); m_device = n; }
    void DiscQueue(uint32_t, uint32_t n) { Advance(); m_discCount = n; }

    void TxBegin(Ptr<const Packet> p)
    {
        Advance();
        m_busy = 1;
        auto it = m_arrived.find(p->GetUid());
        if (it != m_arrived.end())
        {
            double wait = Simulator::Now().GetSeconds() - it->second;
            m_arrived.erase(it);
            size_t k = std::min<size_t>(size_t(wait / m_binS + 1e-6), waitHist.size() - 1);
            waitHist[k] += 1.0;
        }
    }

    void TxEnd(Ptr<const Packet>) { Advance(); m_busy = 0; }

    // Called by the disc's "Enqueue" trace: the item is already in the disc, so the packets
    // it found waiting are the disc's count less one, plus the device queue's.
    void Arrival(Ptr<const QueueDiscItem> item)
    {
        double now = Simulator::Now().GetSeconds();
        if (now < m_warmupS)
        {
            return;
        }
        uint32_t inDisc = m_disc->GetNPackets();
        foundDisc[std::min<size_t>(inDisc - 1, foundDisc.size() - 1)] += 1.0;
        uint32_t found = inDisc - 1 + m_device;
        foundWaiting[std::min<size_t>(found, foundWaiting.size() - 1)] += 1.0;
        foundPort[std::min<size_t>(found + m_busy, foundPort.size() - 1)] += 1.0;
        m_arrived[item->GetPacket()->GetUid()] = now;
    }

    void Finish() { Advance(); }

  private:
    void Advance()
    {
        double now = Simulator::Now().GetSeconds();
        double from = m_last > m_warmupS ? m_last : m_warmupS;
        if (now > from)
        {
            uint32_t waiting = m_device + m_discCount;
            waitingTime[std::min<size_t>(waiting, waitingTime.size() - 1)] += now - from;
            portTime[std::min<size_t>(waiting + m_busy, portTime.size() - 1)] += now - from;
        }
        m_last = now;
    }

    Ptr<QueueDisc> m_disc;
    double m_warmupS;
    double m_binS;
    double m_last = 0.0;
    uint32_t m_device = 0;
    uint32_t m_discCount = 0;
    uint32_t m_busy = 0;
    std::unordered_map<uint64_t, double> m_arrived;

  public:
    std::vector<double> waitingTime;
    std::vector<double> portTime;
    std::vector<double> foundDisc;
    std::vector<double> foundWaiting;
    std::vector<double> foundPort;
    std::vector<double> waitHist;
};

QueueProbe*
Attach(Ptr<NetDevice> device, Ptr<QueueDisc> disc, double warmupS, uint32_t levels, double txS,
       uint32_t binsPerTx)
{
    auto* probe = new QueueProbe(disc, warmupS, levels, txS, binsPerTx);
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(device);
    bool ok =
        p2p->TraceConnectWithoutContext("PhyTxBegin",
                                        MakeCallback(&QueueProbe::TxBegin, probe)) &&
        p2p->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&QueueProbe::TxEnd, probe)) &&
        p2p->GetQueue()->TraceConnectWithoutContext(
            "PacketsInQueue", MakeCallback(&QueueProbe::DeviceQueue, probe)) &&
        disc->TraceConnectWithoutContext("PacketsInQueue",
                                         MakeCallback(&QueueProbe::DiscQueue, probe)) &&
        disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&QueueProbe::Arrival, probe));
    NS_ABORT_MSG_UNLESS(ok, "a trace source of the bottleneck was not found");
    return probe;
}

// ns-3 3.44's TcpDctcp with Linux's floor on the reduced window: dctcp_ssthresh in
// net/ipv4/tcp_dctcp.c returns max(cwnd - ((cwnd * alpha) >> 11), 2) segments, where
// TcpDctcp::GetSsThresh returns (1 - alpha / 2) * cwnd bytes, down to nothing.
class TcpDctcpFloor : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("bufsize::TcpDctcpFloor")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpDctcpFloor>();
        return tid;
    }

    TcpDctcpFloor() : TcpDctcp() {}
    TcpDctcpFloor(const TcpDctcpFloor& other) : TcpDctcp(other) {}

    std::string GetName() const override { return "TcpDctcpFloor"; }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return std::max(TcpDctcp::GetSsThresh(tcb, bytesInFlight), 2 * tcb->m_segmentSize);
    }

    Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpDctcpFloor>(this); }
};
} // namespace bufsize_p99
"""


#: ns-3's loss recovery classes, which also carry out an ECE reduction (CA_CWR): ``prr`` is
#: its default (RFC 6937, as Linux's ``tcp_cwnd_reduction``), ``classic`` sets cwnd to
#: ssthresh at once (as bufsize does).
NS3_RECOVERY = {"prr": "ns3::TcpPrrRecovery", "classic": "ns3::TcpClassicRecovery"}


def define_cpp() -> Any:
    """The C++ of this study (``QueueProbe``, ``TcpDctcpFloor``) compiled into ns-3's process
    once, after ns-3's own headers (``ns3_dumbbell``): cppyy's ``bufsize_p99`` namespace."""
    import cppyy  # type: ignore[import-not-found]
    import ns3_dumbbell  # noqa: F401  (its C++ headers first)

    if not hasattr(cppyy.gbl, "bufsize_p99"):
        cppyy.cppdef(_PROBE_CPP)
        cppyy.gbl.bufsize_p99.TcpDctcpFloor.GetTypeId()  # registers the TypeId
    return cppyy.gbl.bufsize_p99


def run_ns3_with(
    case: Case,
    seed: int,
    recovery: str,
    attach: Any,
    diagnose: bool = False,
    socket_type: str = "bufsize::TcpDctcpFloor",
    extra_defaults: tuple[tuple[str, str], ...] = (),
    sources: Any = None,
) -> dict[str, Any]:
    """ns-3's run of a case with a probe: its DCTCP with Linux's 2-segment floor, the 40 ms
    delayed-ACK timer and the given loss recovery; ``attach(device, disc)`` returns the probe,
    found under ``"attached"``; ``diagnose`` adds the senders' counters (``"flows"``) and
    ``sources`` is called for each sender (see ``ns3_dumbbell.run``); ``socket_type`` and
    ``extra_defaults`` replace the DCTCP class and add ``Config::SetDefault`` pairs. Imports
    ns-3: about a minute the first time."""
    import ns3_dumbbell

    define_cpp()
    sc = case.scenario()
    params = make_parameters(sc, BUFFER_PACKETS, seed)
    spec = ns3_dumbbell.Ns3Run(
        cc="dctcp",
        capacity_bps=CAPACITY_BPS,
        access_bps=sc.access_bps,
        rtts_s=tuple(float(x) for x in params.rtt_s),
        starts_s=tuple(float(x) for x in params.start_s),
        ns3_queue_packets=BUFFER_PACKETS - 2,
        packet_bytes=PACKET_BYTES,
        min_rto_s=sc.min_rto_s,
        initial_window_packets=sc.initial_window_packets,
        delayed_ack=sc.delayed_ack,
        socket_buffer_bytes=sc.max_window_packets * PACKET_BYTES,
        duration_s=DURATION_S,
        warmup_s=WARMUP_S,
        seed=seed,
        ecn_threshold_packets=case.k_packets,
    )
    result = ns3_dumbbell.run(
        spec,
        defaults=(
            ("ns3::TcpL4Protocol::SocketType", socket_type),
            ("ns3::TcpSocket::DelAckTimeout", DELAYED_ACK_TIMEOUT),
            ("ns3::TcpL4Protocol::RecoveryType", NS3_RECOVERY[recovery]),
            *extra_defaults,
        ),
        attach=attach,
        diagnose=diagnose,
        sources=sources,
    )
    result["spec"] = asdict(spec)
    result["ns3_version"] = ns3_dumbbell.version()
    return result


def run_ns3(case: Case, seed: int, recovery: str = "prr", **options: Any) -> dict[str, Any]:
    """ns-3's figures of a case under every definition (``QueueProbe``); ``options`` are
    :func:`run_ns3_with`'s."""
    tx_s = 8.0 * (PACKET_BYTES + HEADER_BYTES) / CAPACITY_BPS

    def attach(device: Any, disc: Any) -> Any:
        return define_cpp().Attach(device, disc, WARMUP_S, LEVELS, tx_s, WAIT_BINS_PER_PACKET)

    result = run_ns3_with(case, seed, recovery, attach, **options)
    probe = result.pop("attached")
    record: dict[str, Any] = {"spec": result.pop("spec"), "ns3_version": result.pop("ns3_version")}
    record.update(result)
    for name in ("waitingTime", "portTime", "foundDisc", "foundWaiting", "foundPort", "waitHist"):
        record[name] = [float(x) for x in getattr(probe, name)]
    # the probe's reading of the disc is right if the arrivals it says found K or more
    # waiting in the disc are the ones RED marked
    found = record["foundDisc"]
    record["found_k_or_more_share"] = sum(found[case.k_packets :]) / max(sum(found), 1.0)
    return record


def ns3_figures(record: dict[str, Any]) -> dict[str, Any]:
    """The figures of a stored ns-3 run under every definition."""
    port = np.array(record["portTime"])
    wait = np.array(record["waitHist"])
    return {
        "utilization": record["utilization"],
        "mark_rate": record["mark_rate"],
        "mean_port": float(np.dot(np.arange(port.size), port) / np.sum(port)),
        "p90_port": p99_of(port, 0.90),
        "p99": {
            "port, time": p99_of(port),
            "waiting, time": p99_of(np.array(record["waitingTime"])),
            "port, per arrival": p99_of(np.array(record["foundPort"])),
            "wait, per packet": _histogram_quantile(wait, 1.0 / WAIT_BINS_PER_PACKET, 0.99),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flows", default="10")
    parser.add_argument("--rtts-us", default="200,1000")
    parser.add_argument("--k", default="5,10,20,40", help="marking thresholds, packets waiting")
    parser.add_argument("--starts-s", default="1,0.1", help="spreads of the flows' starts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--ns3-recovery",
        default="prr,classic",
        help="ns-3's reductions to run (classic: on the first start schedule only)",
    )
    parser.add_argument("--no-ns3", action="store_true", help="use only the stored ns-3 runs")
    parser.add_argument("--output", type=Path, default=TABLE, help="markdown table to write")
    args = parser.parse_args()
    runs: dict[str, Any] = json.loads(NS3_RUNS.read_text()) if NS3_RUNS.exists() else {}
    columns = (
        "flows", "RTT µs", "K", "starts over s", "ns-3 reduction", "U (bufsize / ns-3)",
        "marked % (bufsize / ns-3)", "mean at port (bufsize / ns-3)",
        "p90 port, time (bufsize / ns-3)", "bufsize RTOs",
        *(f"p99 {d} (bufsize / ns-3)" for d in DEFINITIONS),
        "bufsize with ns-3's receiver: marked %, p99 port, time",
        "bufsize with Linux's whole-segment cut: U, marked %, mean, p90, p99 port, time",
    )  # fmt: skip
    rows = ["| " + " | ".join(columns) + " |", "| " + " | ".join("---" for _ in columns) + " |"]
    for flows in map(int, args.flows.split(",")):
        for rtt_us in map(int, args.rtts_us.split(",")):
            for k in map(int, args.k.split(",")):
                for i, spread in enumerate(map(float, args.starts_s.split(","))):
                    case = Case(flows, rtt_us * 1e-6, k, spread)
                    ours = run_bufsize(case, args.seed)
                    ours["ns3_receiver"] = run_bufsize(case, args.seed, immediate=False)
                    ours["linux_cut"] = run_bufsize(case, args.seed, whole_segment_cut=True)
                    for recovery in args.ns3_recovery.split(","):
                        if recovery != "prr" and i > 0:
                            continue
                        key = f"{case.key},seed={args.seed}" + (
                            "" if recovery == "prr" else f",recovery={recovery}"
                        )
                        if key not in runs and not args.no_ns3:
                            runs[key] = run_ns3(case, args.seed, recovery)
                            NS3_RUNS.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n")
                        theirs = ns3_figures(runs[key]) if key in runs else None
                        rows.append(_row(case, recovery, ours, theirs))
                        print(rows[-1], flush=True)
    text = write_keeping_notes(
        args.output,
        "# DCTCP's p99 queue beside ns-3 3.44 (studies/dctcp_queue_p99.py)",
        [
            f"Seed {args.seed}; 1 Gbit/s, {BUFFER_PACKETS} packets of buffer, "
            f"{PACKET_BYTES} + {HEADER_BYTES} B packets, equal RTTs, {DURATION_S:g} s with "
            f"the first {WARMUP_S:g} s discarded; the flows start at the times bufsize draws "
            "for the seed, spread over the 'starts over' seconds. K = packets waiting that an "
            "arrival finds (ns-3's RED disc; K + 2 at bufsize's port). ns-3 3.44 with Linux's "
            f"{DELAYED_ACK_TIMEOUT} delayed-ACK timer and 2-segment window floor; bufsize's "
            "reference simulator. p99 in packets: 'port, time' = time-weighted packets at the "
            "port (in transmission included), 'waiting, time' = without it, 'port, per "
            "arrival' = packets each arrival finds at the port, 'wait, per packet' = wait "
            "before transmission in packet times. ns-3 reduction: 'prr' (its default: cwnd "
            "lowered over the round trip after an ECE, as Linux) or 'classic' (cwnd = ssthresh "
            "at once, as bufsize); bufsize's columns repeat on a case's two rows. The last two "
            "columns: bufsize with ns-3's DCTCP receiver (no immediate ACK of a CE change), and "
            "with Linux's DCTCP cut on whole segments (not bufsize's arithmetic, see the notes).",
            "",
            *rows,
            "",
        ],
    )
    print(text)


def _row(case: Case, recovery: str, ours: dict[str, Any], theirs: dict[str, Any] | None) -> str:
    def pair(a: float, b: float | None, fmt: str) -> str:
        return f"{a:{fmt}} / " + ("not run" if b is None else f"{b:{fmt}}")

    t = theirs or {}
    rx, lc = ours["ns3_receiver"], ours["linux_cut"]
    cells = [
        str(case.flows),
        f"{1e6 * case.rtt_s:g}",
        str(case.k_packets),
        f"{case.start_spread_s:g}",
        recovery,
        pair(ours["utilization"], t.get("utilization"), ".3f"),
        pair(100 * ours["mark_rate"], 100 * t["mark_rate"] if t else None, ".1f"),
        pair(ours["mean_port"], t.get("mean_port"), ".1f"),
        pair(ours["p90_port"], t.get("p90_port"), ".0f"),
        str(ours["timeouts"]),
        *(
            pair(ours["p99"][d], t["p99"][d] if t else None, ".0f" if "time" in d else ".1f")
            for d in DEFINITIONS
        ),
        f"{100 * rx['mark_rate']:.1f}, {rx['p99']['port, time']}",
        f"{lc['utilization']:.3f}, {100 * lc['mark_rate']:.1f}, {lc['mean_port']:.1f}, "
        f"{lc['p90_port']}, {lc['p99']['port, time']}",
    ]
    return "| " + " | ".join(cells) + " |"


if __name__ == "__main__":
    main()
