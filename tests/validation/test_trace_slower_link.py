"""A flow whose packets a slower link after the capture point spaced out: its first-round
spacing is that link's packet spacing, not a round trip, and the handshake RTT is kept; with
and without the capacity given, the same flows, classes and RTTs.

The capture (written here) is a home uplink's far side: an upload whose handshake takes
21.7 ms and whose packets arrive 1.7 ms apart (1500 bytes at 7 Mbit/s), each flight one RTT
after the one before, the window doubling. Given the capture point's own rate (1 Gbit/s), a
packet's transmission time there is 12 µs, so the 1.7 ms between the first flight's first two
packets closes the flight: the first round measured is 1.7 ms.
"""

from __future__ import annotations

from pathlib import Path

import dpkt
import pytest

from validation.traces import estimate_trace, open_trace

RTT_S = 0.0217
SPACING_S = 0.0017


def _packet(sport: int, seq: int, flags: int, payload: int) -> bytes:
    tcp = dpkt.tcp.TCP(sport=sport, dport=443, seq=seq, ack=1, flags=flags, off=5, win=65535)
    tcp.data = b"\0" * payload
    ip = dpkt.ip.IP(src=bytes((192, 168, 1, 2)), dst=bytes((10, 0, 0, 1)), p=6, ttl=64)
    ip.data = tcp
    ip.len = 20 + len(bytes(tcp))
    eth = dpkt.ethernet.Ethernet(
        src=b"\x02" * 6, dst=b"\x04" * 6, type=dpkt.ethernet.ETH_TYPE_IP, data=ip
    )
    return bytes(eth)


def _capture(path: Path, flows: int = 2, duration_s: float = 4.0) -> None:
    packets = []
    for f in range(flows):
        t0 = 0.5 * f
        sport = 40000 + f
        packets.append((t0, _packet(sport, 1000, dpkt.tcp.TH_SYN, 0)))
        packets.append((t0 + RTT_S, _packet(sport, 1001, dpkt.tcp.TH_ACK, 0)))
        t, seq, window = t0 + RTT_S, 1001, 10
        while t < t0 + duration_s:
            start = t
            for _ in range(window):
                packets.append((t, _packet(sport, seq, dpkt.tcp.TH_ACK, 1448)))
                seq += 1448
                t += SPACING_S
            t = max(t, start + RTT_S)
            window = min(2 * window, 10_000)
    packets.sort(key=lambda p: p[0])
    with open(path, "wb") as handle:
        writer = dpkt.pcap.Writer(handle, nano=True)
        for ts, raw in packets:
            writer.writepkt(raw, ts=ts)


def test_slower_link_spacing_is_no_rtt_and_capacity_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "home.pcap"
    _capture(path)
    answers = []
    for capacity in (None, 1e9, 7e6):
        est = estimate_trace(open_trace(path), capacity_bps=capacity)
        table = sorted((f.key, f.flow_class, f.rtt_s, f.rtt_source) for f in est.flow_table)
        answers.append((est.flows, est.class_counts, table))
        for _, _, rtt_s, source in table:
            assert source == "handshake"
            assert rtt_s == pytest.approx(RTT_S, rel=1e-6)
    assert answers[0] == answers[1] == answers[2]
