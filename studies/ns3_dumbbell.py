"""The bufsize dumbbell built in ns-3 3.44 (PyPI package ``ns3``, bindings through cppyy).

Imported by ``studies/ns3_compare.py`` only when ns-3 runs are asked for (``make ns3``
installs the package). Python builds the topology and reads the counters; every per-packet
callback is C++ (compiled by cppyy's Cling at import), so the Python layer costs nothing per
packet.

Topology (one node per sender, one router on each side of the bottleneck, one receiver node
per flow)::

    sender_i --[access_bps, rtt_i / 2]-- R1 ==[capacity_bps, 0 s]== R2 --[10 Gb/s, 0 s]-- recv_i

Data crosses the access link, the bottleneck and the receiver link; the ACKs come back the same
way, so the two-way propagation delay is rtt_i, as bufsize's "rtt_i / 2 to the bottleneck, and
rtt_i / 2 back on an uncongested path" (``validation.simulator.Scenario``). The flows' rtt_i and
start times are the ones bufsize draws for the same seed (``make_parameters``), so both
simulators run the same flows.

The bottleneck queue:

- drop-tail: no queue disc; the point-to-point device's own ``DropTailQueue`` of
  ``ns3_queue_packets`` packets. The device dequeues the packet it transmits, so the port holds
  ``ns3_queue_packets + 1`` packets, bufsize's ``buffer_packets``.
- marking (DCTCP): a ``RedQueueDisc`` with ``QW = 1`` (the instantaneous queue),
  ``MinTh = MaxTh = K``, ``UseEcn``, no hard drop: every ECN-capable arrival that finds at least
  K packets in the disc is marked CE, as DCTCP's switch does (Alizadeh et al. 2010, §3.1). The
  device queue is cut to 1 packet so that the packets wait in the disc: the port holds
  disc limit + 1 (device queue) + 1 (in transmission) packets.

Diagnosis (``run(..., diagnose=True, defaults=...)``, used by
``studies/ns3_recovery_counts.py``, never by the comparison's table): per-flow counters of
the senders (``FlowMeter``: fast recoveries, timeouts, retransmissions, what each recovery
sends), further ``Config::SetDefault`` pairs (for example another loss recovery), and
``SackPrrRecovery``, ns-3's PRR without the segment it adds to each duplicate ACK's delivered
bytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version as _package_version
from typing import Any

import cppyy  # type: ignore[import-not-found]
from ns import ns  # type: ignore[import-not-found]

#: Per-packet trace sinks, in C++ so that ns-3 never calls back into Python per packet.
_METER_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/internet-module.h"
#include "ns3/applications-module.h"

#include <vector>

namespace bufsize_ns3 {
using namespace ns3;

// Counters of one bottleneck port after the warm-up: bytes and packets whose transmission
// ended, arrivals (enqueued or dropped), drops, CE marks, and the time integral of the
// packets waiting (device queue plus queue disc; the packet in transmission is not waiting).
class PortMeter
{
  public:
    explicit PortMeter(double warmupS)
        : m_warmupS(warmupS)
    {
    }

    void TxEnd(Ptr<const Packet> p)
    {
        if (After())
        {
            txBytes += p->GetSize();
            txPackets += 1;
        }
    }

    void Arrival(Ptr<const Packet>)
    {
        if (After())
        {
            arrivals += 1;
        }
    }

    void DeviceDrop(Ptr<const Packet>)
    {
        if (After())
        {
            arrivals += 1;
            drops += 1;
        }
    }

    void DiscArrival(Ptr<const QueueDiscItem>)
    {
        if (After())
        {
            arrivals += 1;
        }
    }

    void DiscDrop(Ptr<const QueueDiscItem>, const char*)
    {
        if (After())
        {
            arrivals += 1;
            drops += 1;
        }
    }

    void DiscMark(Ptr<const QueueDiscItem>, const char*)
    {
        if (After())
        {
            marks += 1;
        }
    }

    void DeviceQueue(uint32_t, uint32_t n)
    {
        Advance();
        m_device = n;
    }

    void DiscQueue(uint32_t, uint32_t n)
    {
        Advance();
        m_disc = n;
    }

    void Finish()
    {
        Advance();
    }

    uint64_t txBytes = 0;
    uint64_t txPackets = 0;
    uint64_t arrivals = 0;
    uint64_t drops = 0;
    uint64_t marks = 0;
    double waitingIntegral = 0.0; // packet-seconds after the warm-up

  private:
    bool After() const
    {
        return Simulator::Now().GetSeconds() >= m_warmupS;
    }

    void Advance()
    {
        double now = Simulator::Now().GetSeconds();
        double from = m_last > m_warmupS ? m_last : m_warmupS;
        if (now > from)
        {
            waitingIntegral += double(m_device + m_disc) * (now - from);
        }
        m_last = now;
    }

    double m_warmupS;
    double m_last = 0.0;
    uint32_t m_device = 0;
    uint32_t m_disc = 0;
};

bool
ConnectDevice(PortMeter* meter, Ptr<NetDevice> device)
{
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(device);
    Ptr<Queue<Packet>> queue = p2p->GetQueue();
    return p2p->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&PortMeter::TxEnd, meter)) &&
           queue->TraceConnectWithoutContext("PacketsInQueue",
                                             MakeCallback(&PortMeter::DeviceQueue, meter));
}

// Without a queue disc the device stops its transmit queue when it is full, and the traffic
// control layer drops what arrives meanwhile: arrivals are the device queue's enqueues plus
// the traffic control layer's drops on the router (whose only loaded port is the bottleneck)
// plus any drop by the device queue itself.
bool
ConnectDeviceArrivals(PortMeter* meter, Ptr<NetDevice> device)
{
    Ptr<Queue<Packet>> queue = DynamicCast<PointToPointNetDevice>(device)->GetQueue();
    Ptr<TrafficControlLayer> tc = device->GetNode()->GetObject<TrafficControlLayer>();
    return queue->TraceConnectWithoutContext("Enqueue",
                                             MakeCallback(&PortMeter::Arrival, meter)) &&
           queue->TraceConnectWithoutContext("Drop",
                                             MakeCallback(&PortMeter::DeviceDrop, meter)) &&
           tc->TraceConnectWithoutContext("TcDrop", MakeCallback(&PortMeter::DeviceDrop, meter));
}

bool
ConnectDisc(PortMeter* meter, Ptr<QueueDisc> disc)
{
    return disc->TraceConnectWithoutContext("Enqueue",
                                            MakeCallback(&PortMeter::DiscArrival, meter)) &&
           disc->TraceConnectWithoutContext("DropBeforeEnqueue",
                                            MakeCallback(&PortMeter::DiscDrop, meter)) &&
           disc->TraceConnectWithoutContext("DropAfterDequeue",
                                            MakeCallback(&PortMeter::DiscDrop, meter)) &&
           disc->TraceConnectWithoutContext("Mark", MakeCallback(&PortMeter::DiscMark, meter)) &&
           disc->TraceConnectWithoutContext("PacketsInQueue",
                                            MakeCallback(&PortMeter::DiscQueue, meter));
}

// Diagnosis: per-flow counters of the senders after the warm-up, from the sockets' trace
// sources (tcp-socket-base.cc): entries into fast recovery (CongState -> CA_RECOVERY) and
// into CWR (-> CA_CWR, an ECE reduction) with the cut each one asks for (cwnd - ssthresh),
// retransmission timeouts (ReTxTimeout doubles m_rto, "RTO" trace: new == min(2 old, 60 s)),
// retransmitted segments ("Retransmission"), and the time integrals of cwnd and of the bytes
// in flight (segments x seconds) and of the time spent in CA_RECOVERY and CA_LOSS; per fast
// recovery, the cwnd and bytes in flight when it starts (before the reduction) and the data
// segments sent ("Tx") until it ends.
class FlowMeter;

struct FlowSlot
{
    FlowMeter* meter;
    uint32_t flow;
};

class FlowMeter
{
  public:
    FlowMeter(uint32_t flows, double warmupS, uint32_t segmentBytes)
        : m_warmupS(warmupS),
          m_segment(segmentBytes),
          m_cwnd(flows, 0),
          m_ssthresh(flows, 0),
          m_flight(flows, 0),
          m_state(flows, 0),
          m_last(flows, 0.0),
          recoveries(flows, 0),
          cwrEntries(flows, 0),
          cwrCut(flows, 0.0),
          timeouts(flows, 0),
          retransmissions(flows, 0),
          cwndIntegral(flows, 0.0),
          flightIntegral(flows, 0.0),
          recoveryTime(flows, 0.0),
          lossTime(flows, 0.0),
          recoverySent(flows, 0),
          recoveryEntryCwnd(flows, 0.0),
          recoveryEntryFlight(flows, 0.0)
    {
        for (uint32_t i = 0; i < flows; ++i)
        {
            m_slots.push_back(FlowSlot{this, i});
        }
    }

    FlowSlot* Slot(uint32_t flow)
    {
        return &m_slots[flow];
    }

    void Advance(uint32_t i)
    {
        double now = Simulator::Now().GetSeconds();
        double from = m_last[i] > m_warmupS ? m_last[i] : m_warmupS;
        if (now > from)
        {
            double dt = now - from;
            cwndIntegral[i] += dt * m_cwnd[i] / m_segment;
            flightIntegral[i] += dt * m_flight[i] / m_segment;
            if (m_state[i] == TcpSocketState::CA_RECOVERY)
            {
                recoveryTime[i] += dt;
            }
            else if (m_state[i] == TcpSocketState::CA_LOSS)
            {
                lossTime[i] += dt;
            }
        }
        m_last[i] = now;
    }

    void Cwnd(uint32_t i, uint32_t v)
    {
        Advance(i);
        m_cwnd[i] = v;
    }

    void Ssthresh(uint32_t i, uint32_t v)
    {
        m_ssthresh[i] = v;
    }

    void Flight(uint32_t i, uint32_t v)
    {
        Advance(i);
        m_flight[i] = v;
    }

    void State(uint32_t i, int v)
    {
        Advance(i);
        if (After() && v == TcpSocketState::CA_CWR && m_state[i] != TcpSocketState::CA_CWR)
        {
            // EnterCwr has set ssthresh and not yet lowered cwnd
            cwrEntries[i] += 1;
            cwrCut[i] += (double(m_cwnd[i]) - double(m_ssthresh[i])) / m_segment;
        }
        if (After() && v == TcpSocketState::CA_RECOVERY)
        {
            recoveries[i] += 1;
            recoveryEntryCwnd[i] += double(m_cwnd[i]) / m_segment;
            recoveryEntryFlight[i] += double(m_flight[i]) / m_segment;
        }
        m_state[i] = v;
    }

    void Rto(uint32_t i, Time oldValue, Time newValue)
    {
        Time doubled = oldValue + oldValue;
        Time cap = Seconds(60);
        if (After() && newValue == (doubled < cap ? doubled : cap))
        {
            timeouts[i] += 1;
        }
    }

    void Tx(uint32_t i, uint32_t payloadBytes)
    {
        if (After() && payloadBytes > 0 && m_state[i] == TcpSocketState::CA_RECOVERY)
        {
            recoverySent[i] += 1;
        }
    }

    void Retransmission(uint32_t i)
    {
        if (After())
        {
            retransmissions[i] += 1;
        }
    }

    void Finish()
    {
        for (uint32_t i = 0; i < m_cwnd.size(); ++i)
        {
            Advance(i);
        }
    }

  private:
    bool After() const
    {
        return Simulator::Now().GetSeconds() >= m_warmupS;
    }

    double m_warmupS;
    double m_segment;
    std::vector<uint32_t> m_cwnd;
    std::vector<uint32_t> m_ssthresh;
    std::vector<uint32_t> m_flight;
    std::vector<int> m_state;
    std::vector<double> m_last;
    std::vector<FlowSlot> m_slots;

  public:
    std::vector<uint64_t> recoveries;
    std::vector<uint64_t> cwrEntries;
    std::vector<double> cwrCut;
    std::vector<uint64_t> timeouts;
    std::vector<uint64_t> retransmissions;
    std::vector<double> cwndIntegral;
    std::vector<double> flightIntegral;
    std::vector<double> recoveryTime;
    std::vector<double> lossTime;
    std::vector<uint64_t> recoverySent;
    std::vector<double> recoveryEntryCwnd;
    std::vector<double> recoveryEntryFlight;
};

void
SlotCwnd(FlowSlot* s, uint32_t, uint32_t v)
{
    s->meter->Cwnd(s->flow, v);
}

void
SlotFlight(FlowSlot* s, uint32_t, uint32_t v)
{
    s->meter->Flight(s->flow, v);
}

void
SlotState(FlowSlot* s, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v)
{
    s->meter->State(s->flow, int(v));
}

void
SlotSsthresh(FlowSlot* s, uint32_t, uint32_t v)
{
    s->meter->Ssthresh(s->flow, v);
}

void
SlotRto(FlowSlot* s, Time oldValue, Time newValue)
{
    s->meter->Rto(s->flow, oldValue, newValue);
}

void
SlotTx(FlowSlot* s, Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>)
{
    s->meter->Tx(s->flow, p->GetSize());
}

void
SlotRetransmission(FlowSlot* s,
                   Ptr<const Packet>,
                   const TcpHeader&,
                   const Address&,
                   const Address&,
                   Ptr<const TcpSocketBase>)
{
    s->meter->Retransmission(s->flow);
}

void
ConnectSocket(FlowSlot* s, Ptr<Application> app)
{
    Ptr<Socket> socket = DynamicCast<BulkSendApplication>(app)->GetSocket();
    bool ok = socket->TraceConnectWithoutContext("CongestionWindow",
                                                 MakeBoundCallback(&SlotCwnd, s)) &&
              socket->TraceConnectWithoutContext("BytesInFlight",
                                                 MakeBoundCallback(&SlotFlight, s)) &&
              socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&SlotState, s)) &&
              socket->TraceConnectWithoutContext("SlowStartThreshold",
                                                 MakeBoundCallback(&SlotSsthresh, s)) &&
              socket->TraceConnectWithoutContext("RTO", MakeBoundCallback(&SlotRto, s)) &&
              socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&SlotTx, s)) &&
              socket->TraceConnectWithoutContext("Retransmission",
                                                 MakeBoundCallback(&SlotRetransmission, s));
    NS_ABORT_MSG_UNLESS(ok, "a trace source of a TCP socket was not found");
}

// The socket exists once the application has started: connect just after its start.
void
ScheduleConnect(FlowMeter* meter, uint32_t flow, Ptr<Application> app, double atS)
{
    Simulator::Schedule(Seconds(atS), &ConnectSocket, meter->Slot(flow), app);
}

// Diagnosis: ns-3 3.44's TcpPrrRecovery (src/internet/model/tcp-prr-recovery.cc) with one
// change. Its DoRecovery adds one segment to the delivered bytes of every duplicate ACK while
// prr_delivered < RecoverFS, although with SACK those bytes already count the segments the ACK
// SACKs (TcpSocketBase::ReceivedAck: TcpRateOps::SkbDelivered is called for every newly SACKed
// segment); RFC 6937 section 3 defines DeliveredData = change in snd.una + change in SACKd. This
// one takes the delivered bytes as they come (on entering recovery, even 0 of them, so that
// the fast retransmit still goes out), as ns-3's development tree does since commit 05c9099bb
// ("Fix PRR DeliveredData double-count with SACK enabled", after 3.44).
class SackPrrRecovery : public TcpClassicRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("bufsize::SackPrrRecovery")
                                .SetParent<TcpClassicRecovery>()
                                .AddConstructor<SackPrrRecovery>()
                                .SetGroupName("Internet");
        return tid;
    }

    SackPrrRecovery()
        : TcpClassicRecovery()
    {
    }

    SackPrrRecovery(const SackPrrRecovery& other)
        : TcpClassicRecovery(other),
          m_prrDelivered(other.m_prrDelivered),
          m_prrOut(other.m_prrOut),
          m_recoveryFlightSize(other.m_recoveryFlightSize)
    {
    }

    std::string GetName() const override
    {
        return "SackPrrRecovery";
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t,
                       uint32_t,
                       uint32_t deliveredBytes) override
    {
        m_prrOut = 0;
        m_prrDelivered = 0;
        m_recoveryFlightSize = tcb->m_bytesInFlight;
        Reduce(tcb, deliveredBytes, true);
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool) override
    {
        Reduce(tcb, deliveredBytes, false);
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        m_prrOut += bytesSent;
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<SackPrrRecovery>(this);
    }

  private:
    // TcpPrrRecovery::DoRecovery without the added segment
    void Reduce(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool entering)
    {
        if (deliveredBytes == 0 && !entering)
        {
            return;
        }
        m_prrDelivered += deliveredBytes;
        int sendCount;
        if (tcb->m_bytesInFlight > tcb->m_ssThresh)
        {
            sendCount =
                std::ceil(m_prrDelivered * tcb->m_ssThresh * 1.0 / m_recoveryFlightSize) - m_prrOut;
        }
        else
        {
            int limit = std::max(m_prrDelivered - m_prrOut, deliveredBytes);
            if (tcb->m_isRetransDataAcked)
            {
                limit += tcb->m_segmentSize;
            }
            sendCount = std::min(limit, static_cast<int>(tcb->m_ssThresh - tcb->m_bytesInFlight));
        }
        sendCount = std::max(sendCount, static_cast<int>(m_prrOut > 0 ? 0 : tcb->m_segmentSize));
        tcb->m_cWnd = tcb->m_bytesInFlight + sendCount;
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    uint32_t m_prrDelivered{0};
    uint32_t m_prrOut{0};
    uint32_t m_recoveryFlightSize{0};
};
} // namespace bufsize_ns3
"""

cppyy.cppdef(_METER_CPP)
_cpp = cppyy.gbl.bufsize_ns3
_cpp.SackPrrRecovery.GetTypeId()  # registers "bufsize::SackPrrRecovery" (diagnosis only)

#: ns-3 TypeIds of the congestion controls, by bufsize's names.
SOCKET_TYPES = {
    "reno": "ns3::TcpNewReno",
    # Linux's Reno: congestion avoidance counts the segments each ACK covers (as bufsize does)
    # where ns3::TcpNewReno adds SMSS^2/cwnd per ACK whatever it covers (RFC 5681 eq. 3).
    "linux_reno": "ns3::TcpLinuxReno",
    "cubic": "ns3::TcpCubic",
    "bbr": "ns3::TcpBbr",
    "dctcp": "ns3::TcpDctcp",
}


def version() -> str:
    """Version of the installed ``ns3`` package."""
    return _package_version("ns3")


@dataclass(frozen=True)
class Ns3Run:
    """What one ns-3 run is asked to simulate (every time in seconds, every rate in bit/s)."""

    cc: str
    capacity_bps: float
    access_bps: float
    rtts_s: tuple[float, ...]
    starts_s: tuple[float, ...]
    ns3_queue_packets: int
    packet_bytes: int
    min_rto_s: float
    initial_window_packets: int
    delayed_ack: int
    socket_buffer_bytes: int
    duration_s: float
    warmup_s: float
    seed: int
    ecn_threshold_packets: int | None = None
    hystart: bool = False


def _connect(ok: bool) -> None:
    if not ok:
        raise RuntimeError("an ns-3 trace source of the bottleneck was not found")


def run(
    spec: Ns3Run,
    *,
    diagnose: bool = False,
    defaults: tuple[tuple[str, str], ...] = (),
    attach: Callable[[Any, Any], Any] | None = None,
    sources: Callable[[int, Any, float], None] | None = None,
) -> dict[str, Any]:
    """Build the dumbbell, run it, and return the bottleneck's measures after the warm-up.

    Diagnosis options (not used by the comparison's table): ``diagnose`` adds the senders'
    per-flow counters after the warm-up (``FlowMeter`` above) under ``"flows"``; ``defaults``
    are further ``Config::SetDefault`` pairs given as strings, set after the spec's own (for
    example ``("ns3::TcpL4Protocol::RecoveryType", "ns3::TcpClassicRecovery")``); ``attach``
    is called with the bottleneck's device and its queue disc (None without marking) before
    the run and returns a further meter, whose ``Finish()`` is called at the end of the run
    and which is returned under ``"attached"``; ``sources(i, app, at_s)`` is called for each
    flow's BulkSend application with a time just after its start, when its socket exists (to
    connect further per-socket meters, as ``FlowMeter`` is).
    """
    if spec.cc not in SOCKET_TYPES:
        raise ValueError(f"cc must be one of {sorted(SOCKET_TYPES)}, got {spec.cc!r}")
    ns.Simulator.Destroy()
    ns.Ipv4AddressGenerator.Reset()
    ns.RngSeedManager.SetSeed(spec.seed)
    ns.RngSeedManager.SetRun(1)
    flows = len(spec.rtts_s)
    marking = spec.ecn_threshold_packets is not None

    default = ns.Config.SetDefault
    default("ns3::TcpL4Protocol::SocketType", ns.StringValue(SOCKET_TYPES[spec.cc]))
    default("ns3::TcpSocket::SegmentSize", ns.UintegerValue(spec.packet_bytes))
    default("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(spec.initial_window_packets))
    default("ns3::TcpSocket::DelAckCount", ns.UintegerValue(spec.delayed_ack))
    default("ns3::TcpSocket::SndBufSize", ns.UintegerValue(spec.socket_buffer_bytes))
    default("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(spec.socket_buffer_bytes))
    default("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(spec.min_rto_s)))
    default("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    default("ns3::TcpSocketBase::UseEcn", ns.StringValue("On" if marking else "Off"))
    default("ns3::TcpSocketState::EnablePacing", ns.BooleanValue(spec.cc == "bbr"))
    default("ns3::TcpCubic::HyStart", ns.BooleanValue(spec.hystart))
    for name, value in defaults:
        default(name, ns.StringValue(value))

    senders = ns.NodeContainer()
    senders.Create(flows)
    receivers = ns.NodeContainer()
    receivers.Create(flows)
    routers = ns.NodeContainer()
    routers.Create(2)
    ns.InternetStackHelper().InstallAll()

    big_queue = ns.QueueSizeValue(ns.QueueSize("100000p"))
    bottleneck = ns.PointToPointHelper()
    bottleneck.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(spec.capacity_bps))))
    bottleneck.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(0.0)))
    device_queue = 1 if marking else spec.ns3_queue_packets
    bottleneck.SetQueue(
        "ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{device_queue}p"))
    )
    core = bottleneck.Install(routers.Get(0), routers.Get(1))

    address = ns.Ipv4AddressHelper()
    address.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.252"))
    address.Assign(core)
    address.NewNetwork()
    control = ns.TrafficControlHelper()
    control.Uninstall(core)

    access = ns.PointToPointHelper()
    access.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(spec.access_bps))))
    access.SetQueue("ns3::DropTailQueue", "MaxSize", big_queue)
    fast = ns.PointToPointHelper()
    fast.SetDeviceAttribute("DataRate", ns.StringValue("10Gbps"))
    fast.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(0.0)))
    fast.SetQueue("ns3::DropTailQueue", "MaxSize", big_queue)
    receiver_addresses = []
    for i in range(flows):
        access.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(spec.rtts_s[i] / 2.0)))
        left = access.Install(senders.Get(i), routers.Get(0))
        address.Assign(left)
        address.NewNetwork()
        control.Uninstall(left)
        right = fast.Install(routers.Get(1), receivers.Get(i))
        interfaces = address.Assign(right)
        address.NewNetwork()
        control.Uninstall(right)
        receiver_addresses.append(interfaces.GetAddress(1))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    meter = _cpp.PortMeter(spec.warmup_s)
    _connect(_cpp.ConnectDevice(meter, core.Get(0)))
    if marking:
        k = float(spec.ecn_threshold_packets)
        red = ns.TrafficControlHelper()
        red.SetRootQueueDisc(
            "ns3::RedQueueDisc",
            "MaxSize",
            ns.QueueSizeValue(ns.QueueSize(f"{spec.ns3_queue_packets}p")),
            "UseEcn",
            ns.BooleanValue(True),
            "UseHardDrop",
            ns.BooleanValue(False),
            "Gentle",
            ns.BooleanValue(False),
            "QW",
            ns.DoubleValue(1.0),
            "MinTh",
            ns.DoubleValue(k),
            "MaxTh",
            ns.DoubleValue(k),
        )
        discs = red.Install(core.Get(0))
        _connect(_cpp.ConnectDisc(meter, discs.Get(0)))
    else:
        discs = None
        _connect(_cpp.ConnectDeviceArrivals(meter, core.Get(0)))
    attached = (
        None if attach is None else attach(core.Get(0), None if discs is None else discs.Get(0))
    )

    flow_meter = _cpp.FlowMeter(flows, spec.warmup_s, spec.packet_bytes) if diagnose else None
    port = 5000
    for i in range(flows):
        sink = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        )
        sink.Install(receivers.Get(i)).Start(ns.Seconds(0.0))
        source = ns.BulkSendHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(receiver_addresses[i], port).ConvertTo()
        )
        source.SetAttribute("MaxBytes", ns.UintegerValue(0))
        source.SetAttribute("SendSize", ns.UintegerValue(spec.packet_bytes))
        apps = source.Install(senders.Get(i))
        apps.Start(ns.Seconds(spec.starts_s[i]))
        if flow_meter is not None:
            _cpp.ScheduleConnect(flow_meter, i, apps.Get(0), spec.starts_s[i] + 1e-6)
        if sources is not None:
            sources(i, apps.Get(0), spec.starts_s[i] + 1e-6)

    ns.Simulator.Stop(ns.Seconds(spec.duration_s))
    start = time.perf_counter()
    cpu_start = time.process_time()
    ns.Simulator.Run()
    wall_s = time.perf_counter() - start
    cpu_s = time.process_time() - cpu_start
    meter.Finish()
    if attached is not None:
        attached.Finish()
    measured_s = spec.duration_s - spec.warmup_s
    tx_packets = int(meter.txPackets)
    result = {
        "utilization": 8.0 * int(meter.txBytes) / (spec.capacity_bps * measured_s),
        "loss_rate": int(meter.drops) / max(int(meter.arrivals), 1),
        "mark_rate": int(meter.marks) / max(int(meter.arrivals), 1),
        # Little's law: mean wait before transmission = time-average waiting / departure rate.
        "queue_delay_mean_s": float(meter.waitingIntegral) / max(tx_packets, 1),
        "mean_waiting_packets": float(meter.waitingIntegral) / measured_s,
        "departures": tx_packets,
        "wall_s": wall_s,
        "cpu_s": cpu_s,
    }
    if flow_meter is not None:
        flow_meter.Finish()
        result["flows"] = {
            "recoveries": [int(x) for x in flow_meter.recoveries],
            "cwr_entries": [int(x) for x in flow_meter.cwrEntries],
            "cwr_cut_packets": [float(x) for x in flow_meter.cwrCut],
            "timeouts": [int(x) for x in flow_meter.timeouts],
            "retransmissions": [int(x) for x in flow_meter.retransmissions],
            "mean_cwnd_packets": [x / measured_s for x in flow_meter.cwndIntegral],
            "mean_flight_packets": [x / measured_s for x in flow_meter.flightIntegral],
            "recovery_time_s": list(flow_meter.recoveryTime),
            "loss_state_time_s": list(flow_meter.lossTime),
            "recovery_sent": [int(x) for x in flow_meter.recoverySent],
            "recovery_entry_cwnd_packets": list(flow_meter.recoveryEntryCwnd),
            "recovery_entry_flight_packets": list(flow_meter.recoveryEntryFlight),
        }
    if attached is not None:
        result["attached"] = attached
    ns.Simulator.Destroy()
    return result
