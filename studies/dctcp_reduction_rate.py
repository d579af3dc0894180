"""Why bufsize's DCTCP senders reduce more often than ns-3's at 200 µs: the senders' cycle.

The question (``results/dctcp_arrival_trains.md``): at 1 Gbit/s, 10 DCTCP flows and 200 µs,
bufsize's senders entered CWR 1.6-1.8 times as often as ns-3 3.44's, by smaller cuts, at the
same mean window, and its p99 queue was 1-4 packets wider. A sender's cycle is: an ECE ACK
outside CWR cuts cwnd to cwnd·(1 − α/2) and enters CWR; CWR ends at the first ACK beyond the
packets out at the cut; the window then grows until the next ECE ACK. This study logs every
step of that cycle on both sides, per flow, after the warm-up (ns-3: the sockets'
``CongState``, ``CongestionWindow``, ``SlowStartThreshold`` and ``EcnEchoSeq`` traces and
``TcpDctcp``'s ``CongestionEstimate``; bufsize: its reference simulator's ``ecn_on_ack``), and
reports from the logs alike:

- the flows that sent in the measured second (a flow whose SYN is lost may never start);
- cuts per flow per base RTT, cwnd and α at a cut, the cut in packets;
- how long CWR lasts (and how many CWR episodes last over 10 ms), and how long the sender
  stays open before its next cut;
- DCTCP's observation windows: packets per window, the mean fraction marked (M) and the share
  of windows with no mark; the ECE ACKs and the share of them that arrive while open.

ns-3 is run with its own DCTCP receiver and with two others (``TcpDctcpEcho`` below, from
``--receivers``): ``prior``, ns-3's with Linux's bookkeeping of the data a CE change must first
acknowledge (``dctcp_ece_ack_update`` in ``net/ipv4/tcp_dctcp.h`` records ``prior_rcv_nxt``
at every packet), and ``linux``, that and Linux's immediate ACK of the changing packet
(``ICSK_ACK_NOW``). ``--recovery`` picks ns-3's reduction: ``prr`` (its ``TcpPrrRecovery``),
``classic`` (cwnd = ssthresh at once, as bufsize) or ``linux`` (``LinuxPrrRecovery`` below:
Linux's ``tcp_cwnd_reduction`` in CWR).

Run from the repository's root (ns-3 needs ``make ns3``; a run takes 10-60 s of CPU)::

    nice -n 10 .venv/bin/python studies/dctcp_reduction_rate.py --k 5,10 --seeds 1

Prints a markdown table (``--output`` writes it, keeping the notes under it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dctcp_queue_p99
import numpy as np
from dctcp_queue_p99 import (
    BUFFER_PACKETS,
    LEVELS,
    PACKET_BYTES,
    WARMUP_S,
    Case,
    ns3_figures,
    p99_of,
    port_of,
)
from kernel_compare import write_keeping_notes

from validation.simulator.measures import to_result
from validation.simulator.reference.simulator import ReferenceSimulator

#: ns-3's TcpSocketState::TcpCongState_t values, used for both sides' logs.
OPEN, CWR, RECOVERY, LOSS = 0, 2, 3, 4
#: Event kinds of a log row (t, flow, kind, a, b, c).
STATE, ALPHA, ECE = 0, 1, 2


class _CycleLog(ReferenceSimulator):
    """The reference simulator logging its DCTCP senders' cycle in ns-3's terms."""

    rows: list[tuple[float, int, int, float, float, float]]
    now = 0.0
    cwr_flag: dict[int, bool]
    current = 0

    def on_ack(self, t: float, f: int, cum: int, sack_seq: int, ece: bool = False) -> None:
        self.now, self.current = t, f
        super().on_ack(t, f, cum, sack_seq, ece)

    def ecn_on_ack(self, fl: Any, cum: int, newly: int, ece: bool) -> None:
        f = self.current
        t = self.now
        before_cwnd, recover, window_end = fl.cwnd, fl.ecn_recover, fl.window_end
        acked, marked = fl.dctcp_acked + newly, fl.dctcp_marked + (newly if ece else 0)
        if self.cwr_flag.get(f) and cum > fl.ecn_recover:
            self.cwr_flag[f] = False
            self.rows.append((t, f, STATE, OPEN, fl.cwnd, fl.ssthresh))
        if ece and newly > 0:
            self.rows.append((t, f, ECE, float(self.cwr_flag.get(f, False)), 0.0, 0.0))
        super().ecn_on_ack(fl, cum, newly, ece)
        if fl.window_end != window_end:
            self.rows.append((t, f, ALPHA, marked, acked, fl.alpha))
        if fl.ecn_recover != recover:
            self.cwr_flag[f] = True
            self.rows.append((t, f, STATE, CWR, before_cwnd, fl.ssthresh))


def run_bufsize(case: Case, seed: int) -> dict[str, Any]:
    sim = _CycleLog(case.scenario(), BUFFER_PACKETS, seed, False)
    sim.rows, sim.cwr_flag = [], {}
    result = to_result(sim.p, sim.run(), 0.0, "reference")
    out = cycle_figures(np.array(sim.rows), case, segment=1.0)
    port = port_of(result)
    out.update(
        utilization=result.utilization,
        mark_rate=result.mark_rate,
        mean_port=float(np.dot(np.arange(LEVELS), port)),
        p99_port=float(p99_of(port)),
    )
    return out


_CYCLE_CPP = r"""
namespace bufsize_cycle {
using namespace ns3;

struct Row { double t; uint32_t flow; uint32_t kind; double a; double b; double c; };

class CycleLog
{
  public:
    std::vector<Row> rows;
    std::vector<uint32_t> cwnd;
    std::vector<uint32_t> ssthresh;
    std::vector<int> state;
    explicit CycleLog(uint32_t flows) : cwnd(flows, 0), ssthresh(flows, 0), state(flows, 0) {}
    void Add(uint32_t f, uint32_t kind, double a, double b, double c)
    {
        rows.push_back(Row{Simulator::Now().GetSeconds(), f, kind, a, b, c});
    }
    // flat copies for Python
    std::vector<double> Flat()
    {
        std::vector<double> out;
        out.reserve(rows.size() * 6);
        for (const auto& r : rows)
        {
            out.push_back(r.t); out.push_back(r.flow); out.push_back(r.kind);
            out.push_back(r.a); out.push_back(r.b); out.push_back(r.c);
        }
        return out;
    }
};

struct Slot { CycleLog* log; uint32_t flow; };

void SlotCwnd(Slot* s, uint32_t, uint32_t v) { s->log->cwnd[s->flow] = v; }
void SlotSsthresh(Slot* s, uint32_t, uint32_t v) { s->log->ssthresh[s->flow] = v; }
void SlotState(Slot* s, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v)
{
    s->log->state[s->flow] = int(v);
    s->log->Add(s->flow, 0, double(int(v)), s->log->cwnd[s->flow], s->log->ssthresh[s->flow]);
}
void SlotAlpha(Slot* s, uint32_t bytesEcn, uint32_t bytesTotal, double alpha)
{
    s->log->Add(s->flow, 1, bytesEcn, bytesTotal, alpha);
}
void SlotEcnEcho(Slot* s, SequenceNumber32, SequenceNumber32)
{
    // the state before this ACK's ECE is acted on: CWR (ECE ignored) or not (the sender cuts)
    s->log->Add(s->flow, 2, s->log->state[s->flow] == TcpSocketState::CA_CWR ? 1.0 : 0.0, 0, 0);
}

void Connect(Slot* s, Ptr<Application> app)
{
    Ptr<Socket> socket = DynamicCast<BulkSendApplication>(app)->GetSocket();
    PointerValue ops;
    socket->GetAttribute("CongestionOps", ops);
    Ptr<TcpCongestionOps> cc = ops.Get<TcpCongestionOps>();
    bool ok =
        socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&SlotCwnd, s)) &&
        socket->TraceConnectWithoutContext("SlowStartThreshold",
                                           MakeBoundCallback(&SlotSsthresh, s)) &&
        socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&SlotState, s)) &&
        socket->TraceConnectWithoutContext("EcnEchoSeq", MakeBoundCallback(&SlotEcnEcho, s)) &&
        cc->TraceConnectWithoutContext("CongestionEstimate", MakeBoundCallback(&SlotAlpha, s));
    NS_ABORT_MSG_UNLESS(ok, "a trace source of a DCTCP socket was not found");
}

Slot* Schedule(CycleLog* log, uint32_t flow, Ptr<Application> app, double atS)
{
    auto* s = new Slot{log, flow};
    Simulator::Schedule(Seconds(atS), &Connect, s, app);
    return s;
}

// ns-3 3.44's TcpDctcp receiver (src/internet/model/tcp-dctcp.cc, CeState0to1/CeState1to0)
// acknowledges, on a CE change, "the previous" in-order data with the old ECE by setting
// NextRxSequence to m_priorRcvNxt, which it records only at CE changes: the packets received
// since the last change are not covered, and SendEmptyPacket cancels their delayed ACK anyway
// (m_delAckEvent.Cancel(), m_delAckCount = 0), so they and the changing packet wait for the
// next delayed ACK, 40 ms if the sender's window is full. Its m_delayedAckReserved also stays
// set after DelAckTimeout (which raises CA_EVENT_DELAYED_ACK as it sends the held ACK). That is
// Linux's DCTCP receiver before its July 2018 fixes ("tcp: fix dctcp delayed ACK schedule",
// "tcp: helpers to send special DCTCP ack", "tcp: do not cancel delay-AcK on DCTCP special
// ACK", "tcp: do not delay ACK in DCTCP upon CE status change"). Linux's dctcp_ece_ack_update
// (net/ipv4/tcp_dctcp.h) now records prior_rcv_nxt at every packet, sends the special ACK only
// while a delayed ACK is pending (ICSK_ACK_TIMER) and sets ICSK_ACK_NOW so that the changing
// packet is acknowledged at once too. This receiver does Linux's: the event comes from
// TcpSocketBase::ForwardUp before DoForwardUp, so NextRxSequence is still the rcv_nxt before
// this packet; a delayed ACK is pending only if ReceivedData held this packet's; with
// `immediate` the packet itself is acknowledged once processed (if its ACK was held).
class TcpDctcpEcho : public bufsize_p99::TcpDctcpFloor
{
  public:
    static bool immediate;
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("bufsize::TcpDctcpEcho")
                                .SetParent<bufsize_p99::TcpDctcpFloor>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpDctcpEcho>();
        return tid;
    }
    TcpDctcpEcho() : TcpDctcpFloor() {}
    TcpDctcpEcho(const TcpDctcpEcho& other) : TcpDctcpFloor(other) {}
    std::string GetName() const override { return "TcpDctcpEcho"; }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpDctcpEcho>(this); }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        switch (event)
        {
        case TcpSocketState::CA_EVENT_ECN_IS_CE:
            Change(tcb, true);
            break;
        case TcpSocketState::CA_EVENT_ECN_NO_CE:
            Change(tcb, false);
            break;
        case TcpSocketState::CA_EVENT_DELAYED_ACK:
            // ReceivedData holds this packet's ACK; DelAckTimeout raises the same event as it
            // sends the held ACK, when no packet is being received: then nothing is held
            m_reserved = m_receiving && Simulator::Now() == m_packetAt;
            m_receiving = false;
            break;
        case TcpSocketState::CA_EVENT_NON_DELAYED_ACK:
            m_reserved = false;
            break;
        default:
            break;
        }
    }

  private:
    void Change(Ptr<TcpSocketState> tcb, bool ce)
    {
        bool changed = ce != m_ce;
        m_receiving = true;
        m_packetAt = Simulator::Now();
        if (changed && m_reserved)
        {
            tcb->m_sendEmptyPacketCallback(m_ce ? (TcpHeader::ACK | TcpHeader::ECE)
                                                : TcpHeader::ACK);
            m_reserved = false;
        }
        m_ce = ce;
        if (ce)
        {
            tcb->m_ecnState = TcpSocketState::ECN_CE_RCVD;
        }
        else if (tcb->m_ecnState.Get() == TcpSocketState::ECN_CE_RCVD ||
                 tcb->m_ecnState.Get() == TcpSocketState::ECN_SENDING_ECE)
        {
            tcb->m_ecnState = TcpSocketState::ECN_IDLE;
        }
        if (changed && immediate)
        {
            Simulator::ScheduleNow(&TcpDctcpEcho::Flush, this, tcb);
        }
    }

    void Flush(Ptr<TcpSocketState> tcb)
    {
        if (m_reserved)
        {
            tcb->m_sendEmptyPacketCallback(m_ce ? (TcpHeader::ACK | TcpHeader::ECE)
                                                : TcpHeader::ACK);
            m_reserved = false;
        }
    }

    bool m_ce = false;
    bool m_reserved = false;
    bool m_receiving = false;
    Time m_packetAt;
};
bool TcpDctcpEcho::immediate = false;

// Linux's proportional rate reduction in CWR, tcp_cwnd_reduction (net/ipv4/tcp_input.c), where
// ns-3 3.44's TcpPrrRecovery (kept here for loss recovery) differs: prior_cwnd
// (tcp_init_cwnd_reduction) as the denominator, where ns-3 takes the bytes in flight and counts
// a segment more on entering (DoRecovery with isDupAck = true); below ssthresh a segment more
// on every ACK that advances snd_una ("if (flag & FLAG_SND_UNA_ADVANCED && !newly_lost)
// sndcnt++"), where ns-3 adds it only once a retransmission is acknowledged; the proportional
// part rounded up in whole segments, as Linux counts packets.
class LinuxPrrRecovery : public TcpPrrRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("bufsize::LinuxPrrRecovery")
                                .SetParent<TcpPrrRecovery>()
                                .AddConstructor<LinuxPrrRecovery>()
                                .SetGroupName("Internet");
        return tid;
    }
    LinuxPrrRecovery() : TcpPrrRecovery() {}
    LinuxPrrRecovery(const LinuxPrrRecovery& other)
        : TcpPrrRecovery(other), m_delivered(other.m_delivered),
          m_out(other.m_out), m_priorCwnd(other.m_priorCwnd)
    {
    }
    std::string GetName() const override { return "LinuxPrrRecovery"; }
    void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t dupAckCount, uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override
    {
        // ns-3's own state is kept for loss recovery, which may start from CWR
        TcpPrrRecovery::EnterRecovery(tcb, dupAckCount, unAckDataCount, deliveredBytes);
        m_out = 0;
        m_delivered = 0;
        m_priorCwnd = tcb->m_cWnd;
        Reduce(tcb, deliveredBytes, true);
    }
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override
    {
        if (tcb->m_congState != TcpSocketState::CA_CWR)
        {
            TcpPrrRecovery::DoRecovery(tcb, deliveredBytes, isDupAck);
            return;
        }
        Reduce(tcb, deliveredBytes, !isDupAck);
    }
    void UpdateBytesSent(uint32_t bytesSent) override
    {
        TcpPrrRecovery::UpdateBytesSent(bytesSent);
        m_out += bytesSent;
    }
    Ptr<TcpRecoveryOps> Fork() override { return CopyObject<LinuxPrrRecovery>(this); }

  private:
    void Reduce(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool advanced)
    {
        if (deliveredBytes == 0)
        {
            return;
        }
        m_delivered += deliveredBytes;
        int64_t seg = tcb->m_segmentSize;
        int64_t flight = tcb->m_bytesInFlight;
        int64_t ssthresh = tcb->m_ssThresh;
        int64_t delta = ssthresh - flight;
        int64_t sndcnt;
        if (delta < 0)
        {
            double segs = std::ceil(double(ssthresh) * double(m_delivered) /
                                        (double(m_priorCwnd) * double(seg)) -
                                    1e-9);
            sndcnt = int64_t(segs) * seg - m_out;
        }
        else
        {
            sndcnt = std::max<int64_t>(m_delivered - m_out, int64_t(deliveredBytes));
            if (advanced)
            {
                sndcnt += seg;
            }
            sndcnt = std::min(delta, sndcnt);
        }
        sndcnt = std::max<int64_t>(sndcnt, m_out > 0 ? 0 : seg);
        tcb->m_cWnd = uint32_t(flight + sndcnt);
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    int64_t m_delivered{0};
    int64_t m_out{0};
    int64_t m_priorCwnd{1};
};
} // namespace bufsize_cycle
"""


#: ns-3's wait before it resends a lost SYN (``TcpSocket::ConnTimeout``, 3 s by default). At
#: 200 µs ns-3's first flow grows its window in slow start without bound while it is alone
#: (its packets queue at its own access link, so the port never marks them), and its later
#: burst fills the port: a SYN lost then waited 3 s, longer than the run, and that flow never
#: sent (seed 1, K = 5: one flow of ten). bufsize does not model the handshake; a SYN resent
#: after 10 ms lets every flow run in the measured second.
SYN_TIMEOUT = "10ms"
#: ns-3's receivers: its own, and its own with Linux's ``dctcp_ece_ack_update`` (``TcpDctcpEcho``).
RECEIVERS = {
    "ns-3": "its receiver",
    "prior": "rcv_nxt before each packet",
    "linux": "Linux's receiver",
}


def run_ns3(
    case: Case,
    seed: int,
    recovery: str = "prr",
    receiver: str = "ns-3",
    syn_timeout: str = SYN_TIMEOUT,
) -> dict[str, Any]:
    import cppyy  # type: ignore[import-not-found]

    dctcp_queue_p99.define_cpp()  # TcpDctcpEcho derives from its TcpDctcpFloor
    if not hasattr(cppyy.gbl, "bufsize_cycle"):
        cppyy.cppdef(_CYCLE_CPP)
        cppyy.gbl.bufsize_cycle.TcpDctcpEcho.GetTypeId()
        cppyy.gbl.bufsize_cycle.LinuxPrrRecovery.GetTypeId()
    dctcp_queue_p99.NS3_RECOVERY.setdefault("linux", "bufsize::LinuxPrrRecovery")
    cycle = cppyy.gbl.bufsize_cycle
    cycle.TcpDctcpEcho.immediate = receiver == "linux"
    log = cycle.CycleLog(case.flows)
    record = dctcp_queue_p99.run_ns3(
        case,
        seed,
        recovery,
        socket_type="bufsize::TcpDctcpFloor" if receiver == "ns-3" else "bufsize::TcpDctcpEcho",
        extra_defaults=(("ns3::TcpSocket::ConnTimeout", syn_timeout),),
        sources=lambda flow, app, at_s: cycle.Schedule(log, flow, app, at_s),
    )
    rows = np.array(list(log.Flat())).reshape(-1, 6)
    out = cycle_figures(rows, case, segment=float(PACKET_BYTES))
    queue = ns3_figures(record)
    out.update(
        utilization=queue["utilization"],
        mark_rate=queue["mark_rate"],
        mean_port=queue["mean_port"],
        p99_port=float(queue["p99"]["port, time"]),
    )
    return out


def cycle_figures(rows: np.ndarray, case: Case, segment: float) -> dict[str, Any]:
    """The cycle's figures from a log of (t, flow, kind, a, b, c) rows in time order."""
    span = case.scenario().duration_s - WARMUP_S
    base_rtts = span / case.rtt_s
    cuts: list[tuple[float, float, float]] = []  # cwnd, cut, alpha
    cwr_us: list[float] = []
    open_us: list[float] = []
    windows: list[tuple[float, float]] = []  # M, packets
    ece_open = ece_cwr = 0
    long_cwr = 0
    active = 0
    for f in range(case.flows):
        mine = rows[rows[:, 1] == f]
        active += int(np.any(mine[:, 0] >= WARMUP_S)) if mine.size else 0
        alpha = 1.0
        state, since = OPEN, 0.0
        for t, _, kind, a, b, c in mine:
            after = t >= WARMUP_S
            if kind == ALPHA:
                alpha = c
                if after:
                    windows.append((a / b if b > 0 else 0.0, b / segment))
            elif kind == ECE and after:
                if a:
                    ece_cwr += 1
                else:
                    ece_open += 1
            elif kind == STATE:
                new = int(a)
                if after and since >= WARMUP_S:
                    if state == CWR:
                        cwr_us.append(1e6 * (t - since))
                        long_cwr += int(t - since > 0.01)
                    elif state == OPEN and new == CWR:
                        open_us.append(1e6 * (t - since))
                if new == CWR and state != CWR and after:
                    cuts.append((b / segment, (b - c) / segment, alpha))
                state, since = new, t
    c = np.array(cuts) if cuts else np.zeros((0, 3))
    w = np.array(windows) if windows else np.zeros((0, 2))
    return {
        "cuts_per_flow_rtt": len(cuts) / (case.flows * base_rtts),
        "cwnd_at_cut": float(np.mean(c[:, 0])),
        "cut": float(np.mean(c[:, 1])),
        "alpha_at_cut": float(np.mean(c[:, 2])),
        "cwr_us": float(np.mean(cwr_us)),
        "cwr_us_p10_50_90": np.percentile(cwr_us, [10, 50, 90]).round(0).tolist(),
        "open_us": float(np.mean(open_us)),
        "window_packets": float(np.mean(w[:, 1])),
        "windows_per_flow_rtt": len(w) / (case.flows * base_rtts),
        "mean_m": float(np.mean(w[:, 0])),
        "unmarked_windows": float(np.mean(w[:, 0] == 0.0)),
        "ece_acks_per_flow_rtt": (ece_open + ece_cwr) / (case.flows * base_rtts),
        "ece_open_share": ece_open / max(ece_open + ece_cwr, 1),
        "long_cwr": long_cwr,
        "active_flows": active,
    }


#: The table's columns: (heading, key in the figures, format).
COLUMNS = (
    ("flows sending", "active_flows", "{}"),
    ("utilization", "utilization", "{:.3f}"),
    ("marked %", "mark_rate", "{:.1%}"),
    ("mean, p99 at port", ("mean_port", "p99_port"), "{:.1f}, {:.0f}"),
    ("cuts per flow per base RTT", "cuts_per_flow_rtt", "{:.3f}"),
    ("cwnd at a cut", "cwnd_at_cut", "{:.2f}"),
    ("cut, packets", "cut", "{:.2f}"),
    ("α at a cut", "alpha_at_cut", "{:.3f}"),
    ("CWR, µs: mean (p10, p50, p90)", ("cwr_us", "cwr_us_p10_50_90"), "{:.0f} ({})"),
    ("CWR episodes over 10 ms", "long_cwr", "{}"),
    ("open before a cut, µs: mean", "open_us", "{:.0f}"),
    (
        "observation windows: packets, mean M, share unmarked",
        ("window_packets", "mean_m", "unmarked_windows"),
        "{:.2f}, {:.3f}, {:.2f}",
    ),
    (
        "ECE ACKs per flow per base RTT, share while open",
        ("ece_acks_per_flow_rtt", "ece_open_share"),
        "{:.3f}, {:.2f}",
    ),
)


def _cell(fig: dict[str, Any], key: Any, fmt: str) -> str:
    keys = key if isinstance(key, tuple) else (key,)
    values = [fig[k] for k in keys]
    values = [", ".join(f"{x:.0f}" for x in v) if isinstance(v, list) else v for v in values]
    return fmt.format(*values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", default="5,10,20,40")
    parser.add_argument("--rtt-us", default="200")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--flows", type=int, default=10)
    parser.add_argument("--recovery", default="prr", choices=("prr", "classic", "linux"))
    parser.add_argument("--receivers", default="ns-3,prior,linux")
    parser.add_argument("--no-ns3", action="store_true")
    parser.add_argument("--syn-timeout", default=SYN_TIMEOUT, help="ns-3's ConnTimeout")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    head = ["RTT µs", "K", "seed", "side", *(c[0] for c in COLUMNS)]
    rows = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    for rtt_us in (float(x) for x in args.rtt_us.split(",")):
        for k in (int(x) for x in args.k.split(",")):
            for seed in (int(x) for x in args.seeds.split(",")):
                case = Case(args.flows, rtt_us * 1e-6, k, 1.0)
                sides: list[tuple[str, Callable[[], dict[str, Any]]]] = [
                    ("bufsize", lambda c=case, s=seed: run_bufsize(c, s))
                ]
                if not args.no_ns3:
                    for receiver in args.receivers.split(","):
                        sides.append(
                            (
                                f"ns-3, {RECEIVERS[receiver]}",
                                lambda c=case, s=seed, r=receiver: run_ns3(
                                    c, s, args.recovery, r, args.syn_timeout
                                ),
                            )
                        )
                for side, run in sides:
                    fig = run()
                    cells = [_cell(fig, key, fmt) for _, key, fmt in COLUMNS]
                    rows.append(
                        f"| {rtt_us:g} | {k} | {seed} | {side} | " + " | ".join(cells) + " |"
                    )
                    print(rows[-1], flush=True)
    body = [
        f"{args.flows} DCTCP flows, 1 Gbit/s, access links at 1 Gbit/s, starts spread over 1 s, "
        "the "
        "second after 0.5 s measured (the cases of `dctcp_queue_p99.py`); ns-3 3.44 with "
        f"Linux's 2-segment floor, the 40 ms delayed-ACK timer, {args.recovery} recovery and a "
        f"lost SYN resent after {args.syn_timeout}.",
        "",
        *rows,
        "",
    ]
    if args.output:
        write_keeping_notes(
            args.output,
            "# DCTCP senders' cycle in bufsize and ns-3 (studies/dctcp_reduction_rate.py)",
            body,
        )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
