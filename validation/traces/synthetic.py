"""Traces whose truth is known: a simulator run written as CSV, pcap or pcapng.

The simulator (:mod:`validation.simulator`) records the bottleneck's departures and drops.
:func:`write_csv` writes them in the format ``bufsize simulate --trace`` writes.
:func:`write_capture` writes what a capture at the bottleneck's output port would hold:
Ethernet/IPv4/TCP headers (the payload cut off, as with a short snap length; the IP length
field keeps the packet's size), per-flow sequence numbers, no dropped packet, and each drop's
segment sent again by a later departure of the flow at least one RTT after the drop and after
a later segment of the flow left (fast retransmit answers the duplicate ACKs that later
segments raise, RFC 5681 §3.2, so a capture sees the hole before the retransmission). The ACK
that completes the handshake leaves just before the flow's first departure and the SYN one RTT
before that ACK reached this link: given the flows' start times, that is where a capture would
see them (the sender sends the ACK with its first segment, both meet this link's queue, and
the SYN-to-ACK spacing is the RTT plus the ACK's wait here: H. Jiang, C. Dovrolis, CCR 2002).
Without them the SYN is one RTT before the ACK, and the ACK just before the flow's first
packet, departure or drop: a handshake on an idle link. Background packets become UDP packets.
"""

from __future__ import annotations

import csv
import math
import socket
import struct
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import dpkt
import numpy as np

from validation.simulator import PacketTrace, Scenario, simulate
from validation.simulator.parameters import RunParameters, make_parameters
from validation.traces.records import FloatArray

#: Added to every capture timestamp (pcap times are seconds since 1970).
CAPTURE_EPOCH_S = 1_700_000_000.0
_CLIENT = "10.1.{}.{}"
#: Each flow's first data sequence number (its SYN takes the one before).
_FIRST_SEQ = 1000
_SERVER = "10.2.0.1"


@dataclass
class SimulatedTrace:
    """A simulator run's packet trace and the truth the estimators should find.

    Attributes
    ----------
    trace : the departures and drops at the bottleneck.
    scenario, buffer_packets, seed : what produced it.
    rtts_s : each TCP flow's two-way propagation delay (the RTT without queueing).
    lbp_flows : TCP flow slots bottlenecked at the link (the groups named LBP, or every TCP
        flow of a congested single-group scenario).
    effective_rtt_s : harmonic mean of the LBP flows' RTTs (004 eq. 12).
    bottlenecked_share : the LBP flows' bytes after the warm-up over C times the
        measured time.
    loss_rate : the run's loss rate at the bottleneck after the warm-up.
    utilization : the run's bottleneck utilization.
    starts_s : when each slot's first transfer started (its first segment sent), s; NaN for
        the slots of Poisson flow groups, whose transfers start at random in the run (None:
        a trace gathered before this was kept).
    """

    trace: PacketTrace
    scenario: Scenario
    buffer_packets: int
    seed: int
    rtts_s: FloatArray
    lbp_flows: list[int]
    effective_rtt_s: float
    bottlenecked_share: float
    loss_rate: float
    utilization: float
    starts_s: FloatArray | None = None

    def start_times(self) -> FloatArray:
        """``starts_s``, drawn again from the run's parameters for a trace kept without them."""
        if self.starts_s is not None:
            return self.starts_s
        return _slot_starts(make_parameters(self.scenario, self.buffer_packets, self.seed))


def _slot_starts(params: RunParameters) -> FloatArray:
    """Each slot's first start (NaN for a Poisson group's slot: its transfers start at random)."""
    poisson = np.array([g.traffic == "poisson_flows" for g in params.groups], dtype=np.bool_)
    starts: FloatArray = np.where(poisson[params.group_of], np.nan, params.start_s)
    return starts


def group_slots(scenario: Scenario, names: tuple[str, ...] | None) -> list[int]:
    """The TCP flow slots of the groups named ``names`` (None: every group); a scenario
    numbers its flows group after group."""
    slots: list[int] = []
    first = 0
    for group in scenario.flow_groups:
        if names is None or group.name in names:
            slots.extend(range(first, first + int(group.flows)))
        first += int(group.flows)
    return slots


def simulated_trace(
    scenario: Scenario,
    buffer_packets: int,
    seed: int,
    lbp_groups: tuple[str, ...] | None = None,
) -> SimulatedTrace:
    """Run the simulator with the packet trace on and gather the truth.

    ``lbp_groups`` names the flow groups bottlenecked at the link (004 §VII's LBP flows);
    None: every TCP flow (a congested single-group scenario).
    """
    run = simulate(scenario, buffer_packets, seed, trace=True)
    trace = run.packet_trace
    if trace is None:  # the simulator returns one when asked
        raise RuntimeError("the simulator returned no packet trace")
    params = make_parameters(scenario, buffer_packets, seed)
    rtts = params.rtt_s
    lbp = group_slots(scenario, lbp_groups)
    after = (trace.time_s >= scenario.warmup_s) & ~trace.dropped
    is_lbp = np.zeros(scenario.tcp_flows + 1, dtype=np.bool_)
    is_lbp[lbp] = True
    lbp_rows = is_lbp[np.minimum(trace.flow, scenario.tcp_flows)]
    measured_s = scenario.duration_s - scenario.warmup_s
    fraction = (
        8.0 * float(trace.size_bytes[after & lbp_rows].sum()) / (scenario.capacity_bps * measured_s)
    )
    return SimulatedTrace(
        trace=trace,
        scenario=scenario,
        buffer_packets=buffer_packets,
        seed=seed,
        rtts_s=rtts,
        lbp_flows=lbp,
        effective_rtt_s=len(lbp) / float(np.sum(1.0 / rtts[lbp])),
        bottlenecked_share=fraction,
        loss_rate=float(run.loss_rate),
        utilization=float(run.utilization),
        starts_s=_slot_starts(params),
    )


def flow_keys(trace: PacketTrace) -> list[str]:
    """Each row's flow, each transfer of a slot under its own id (:meth:`PacketTrace.flow_keys`)."""
    return trace.flow_keys()


def write_csv(trace: PacketTrace, path: str | Path) -> None:
    """Write ``trace`` as ``bufsize simulate --trace`` does (``time_s,flow,size_bytes,dropped``),
    each transfer of a slot under its own flow id (:func:`flow_keys`)."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(("time_s", "flow", "size_bytes", "dropped"))
        writer.writerows(
            zip(
                trace.time_s.tolist(),
                flow_keys(trace),
                trace.size_bytes.tolist(),
                trace.dropped.astype(int).tolist(),
                strict=True,
            )
        )


def _address(flow: int) -> bytes:
    return socket.inet_aton(_CLIENT.format(flow // 250, flow % 250 + 1))


def _ethernet(ip: dpkt.ip.IP) -> bytes:
    eth = dpkt.ethernet.Ethernet(
        src=b"\x02\x00\x00\x00\x00\x01",
        dst=b"\x02\x00\x00\x00\x00\x02",
        type=dpkt.ethernet.ETH_TYPE_IP,
        data=ip,
    )
    return bytes(eth)


def _tcp_packet(flow: int, seq: int, flags: int, size: int, header: int) -> bytes:
    tcp = dpkt.tcp.TCP(sport=40000 + flow % 20000, dport=80, seq=seq & 0xFFFFFFFF, flags=flags)
    tcp.ack = 1
    # TCP options fill the header to ``header`` bytes with IP's 20 (timestamps: 52 = 20 + 32).
    options = max(header - 40, 0) // 4 * 4
    if options:
        tcp.opts = b"\x01" * options
        tcp.off = 5 + options // 4
    ip = dpkt.ip.IP(src=_address(flow), dst=socket.inet_aton(_SERVER), p=dpkt.ip.IP_PROTO_TCP)
    ip.data = tcp
    raw = _ethernet(ip)
    # The payload is cut off (a short snap length); the IP length field keeps the size.
    return raw[:16] + struct.pack("!H", max(size, header)) + raw[18:]


def _udp_packet(flow: int, size: int) -> bytes:
    udp = dpkt.udp.UDP(sport=50000, dport=5001)
    ip = dpkt.ip.IP(src=_address(flow), dst=socket.inet_aton(_SERVER), p=dpkt.ip.IP_PROTO_UDP)
    ip.data = udp
    raw = _ethernet(ip)
    return raw[:16] + struct.pack("!H", size) + raw[18:]


def capture_packets(
    trace: PacketTrace,
    scenario: Scenario,
    rtts_s: FloatArray,
    starts_s: FloatArray | None = None,
) -> list[tuple[float, bytes]]:
    """The packets a capture at the bottleneck's output would hold, in time order.

    A flow's first segment, sent at its start, reaches this link half its RTT later (the
    simulator puts half the propagation delay on each side of the link, after the access
    link's transmission) and so does the handshake's ACK sent with it; the SYN left this link
    one RTT before that ACK reached it: at the start less half the RTT. The ACK leaves just
    before the flow's first departure (dropped with the first segment at a full buffer, it is
    the first packet to pass that completes the handshake in the capture). Where ``starts_s``
    is not given (or NaN, a Poisson group's slot) the SYN is one RTT before the flow's first
    packet here (departure or drop) and the ACK just before it, as on an idle link.
    """
    tcp_flows = scenario.tcp_flows
    mss = scenario.packet_bytes
    header = scenario.header_bytes
    next_seq = [_FIRST_SEQ] * tcp_flows
    pending: list[deque[tuple[float, int]]] = [deque() for _ in range(tcp_flows)]
    started = [False] * tcp_flows
    ack_due = [False] * tcp_flows
    sent_after = [-1] * tcp_flows  # the latest new segment that left
    out: list[tuple[float, bytes]] = []
    for t, flow, size, dropped in zip(
        trace.time_s.tolist(),
        trace.flow.tolist(),
        trace.size_bytes.tolist(),
        trace.dropped.tolist(),
        strict=True,
    ):
        ts = CAPTURE_EPOCH_S + t
        if flow >= tcp_flows:
            if not dropped:
                out.append((ts, _udp_packet(flow, size)))
            continue
        rtt = float(rtts_s[flow])
        if not started[flow]:
            started[flow] = True
            syn = _tcp_packet(flow, _FIRST_SEQ - 1, dpkt.tcp.TH_SYN, header, header)
            start = math.nan if starts_s is None else float(starts_s[flow])
            if start == start:
                out.append((CAPTURE_EPOCH_S + start - 0.5 * rtt - 2e-6, syn))
                ack_due[flow] = True  # just before the flow's first departure
            else:
                out.append((ts - rtt - 2e-6, syn))
                ack = _tcp_packet(flow, _FIRST_SEQ, dpkt.tcp.TH_ACK, header, header)
                out.append((ts - 1e-6, ack))
        if ack_due[flow] and not dropped:
            # The ACK met this link's queue with the first segment; where that segment was
            # dropped at a full buffer, so was the ACK, and the first packet to pass is the
            # capture's end of the handshake.
            ack_due[flow] = False
            ack = _tcp_packet(flow, _FIRST_SEQ, dpkt.tcp.TH_ACK, header, header)
            out.append((ts - 1e-6, ack))
        queue = pending[flow]
        if dropped:
            queue.append((t, next_seq[flow]))
            next_seq[flow] += mss
            continue
        if queue and t - queue[0][0] >= rtt and sent_after[flow] >= queue[0][1]:
            seq = queue.popleft()[1]
        else:
            seq = next_seq[flow]
            next_seq[flow] += mss
            sent_after[flow] = seq
        out.append((ts, _tcp_packet(flow, seq, dpkt.tcp.TH_ACK, size, header)))
    out.sort(key=lambda item: item[0])
    return out


def write_capture(
    trace: PacketTrace,
    scenario: Scenario,
    rtts_s: FloatArray,
    path: str | Path,
    *,
    pcapng: bool = False,
    starts_s: FloatArray | None = None,
) -> int:
    """Write the capture of :func:`capture_packets` as pcap (or pcapng); packets written."""
    packets = capture_packets(trace, scenario, rtts_s, starts_s)
    with open(path, "wb") as handle:
        writer = dpkt.pcapng.Writer(handle) if pcapng else dpkt.pcap.Writer(handle, nano=True)
        for ts, raw in packets:
            writer.writepkt(raw, ts=ts)
    return len(packets)


def relative_error(estimate: float, truth: float) -> float:
    """(estimate - truth)/truth (dimensionless); NaN when either is not finite."""
    if not (math.isfinite(estimate) and math.isfinite(truth)) or truth == 0:
        return math.nan
    return (estimate - truth) / truth
