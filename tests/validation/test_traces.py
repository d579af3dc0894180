"""Trace readers and the BSCL parameter estimators (004 §VI) on simulated traces.

The simulated link is small (10 Mbit/s, 8 persistent flows, 40 s) so that one run takes a few
seconds; its truth comes from the simulator's own parameters (the RTTs it drew) and counts.
"""

from __future__ import annotations

import struct
from pathlib import Path

import dpkt
import numpy as np
import pytest

from validation.simulator import Scenario
from validation.traces import TraceFormatError, estimate_trace, open_trace
from validation.traces.csv_reader import CsvTraceReader
from validation.traces.synthetic import (
    SimulatedTrace,
    capture_packets,
    simulated_trace,
    write_capture,
    write_csv,
)

SCENARIO = Scenario(
    capacity_bps=10e6,
    flows=8,
    rtt_s=0.1,
    rtt_jitter_s=0.06,
    packet_bytes=1448,
    header_bytes=52,
    max_window_packets=10_000,
    delayed_ack=2,
    initial_window_packets=10,
    duration_s=40.0,
    warmup_s=4.0,
    start_spread_s=4.0,
    background_load=0.1,
)
BUFFER_PACKETS = 80


@pytest.fixture(scope="module")
def sim() -> SimulatedTrace:
    return simulated_trace(SCENARIO, BUFFER_PACKETS, seed=3)


def _read_all(path: Path) -> tuple[int, int]:
    reader = open_trace(path)
    packets = sum(len(b) for b in reader.batches())
    return packets, len(reader.flows)


def test_csv_reader_reads_every_row_in_small_chunks(sim: SimulatedTrace, tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    write_csv(sim.trace, path)
    reader = CsvTraceReader(path, chunk_bytes=4096)  # many chunks, lines cut across them
    batches = list(reader.batches())
    time_s = np.concatenate([b.time_s for b in batches])
    dropped = np.concatenate([b.dropped for b in batches])
    assert time_s.size == sim.trace.time_s.size
    np.testing.assert_array_equal(time_s, sim.trace.time_s)
    np.testing.assert_array_equal(dropped, sim.trace.dropped)
    # 8 TCP flows and the background stream (flow id 8).
    assert sorted(reader.flows.keys, key=int) == [str(i) for i in range(9)]


def test_pcap_and_pcapng_hold_departures_handshakes_and_no_drops(
    sim: SimulatedTrace, tmp_path: Path
) -> None:
    departures = int((~sim.trace.dropped).sum())
    for name, ng in (("t.pcap", False), ("t.pcapng", True)):
        path = tmp_path / name
        written = write_capture(sim.trace, SCENARIO, sim.rtts_s, path, pcapng=ng)
        # Each TCP flow adds a SYN and a handshake ACK; drops are not in a capture.
        assert written == departures + 2 * SCENARIO.flows
        packets, flows = _read_all(path)
        assert packets == written
        assert flows == SCENARIO.flows + 1
        reader = open_trace(path)
        list(reader.batches())
        # The handshake RTT is the SYN-to-ACK spacing the capture holds: the flow's RTT
        # (to the microsecond the writer rounds to; pcap here is nanosecond).
        rtts = sorted(reader.flows.handshake_rtt_s.values())
        np.testing.assert_allclose(rtts, np.sort(sim.rtts_s), rtol=0, atol=1e-5)


def test_capture_losses_are_the_drops_at_the_link(sim: SimulatedTrace, tmp_path: Path) -> None:
    path = tmp_path / "t.pcap"
    write_capture(sim.trace, SCENARIO, sim.rtts_s, path)
    est = estimate_trace(open_trace(path), capacity_bps=SCENARIO.capacity_bps)
    # Each inferred loss is a TCP drop (no false losses). Not every drop can be seen: a drop
    # that no later segment of its flow overtakes before the resend (the last packet of a
    # window) leaves no hole, in a real capture as here; UDP drops leave no trace. On this run
    # 442 of the 579 TCP drops show (76 %); the bound says "most".
    tcp_drops = int((sim.trace.dropped & (sim.trace.flow < SCENARIO.flows)).sum())
    reader = open_trace(path)
    inferred = sum(int(np.isfinite(b.loss_time_s).sum()) for b in reader.batches())
    assert 0.5 * tcp_drops <= inferred <= tcp_drops
    assert sum(reader.flows.downstream_losses.values()) == 0
    assert est.class_counts["unresponsive"] == 1  # the UDP stream


def test_csv_estimates_on_a_congested_link(sim: SimulatedTrace, tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    write_csv(sim.trace, path)
    est = estimate_trace(
        open_trace(path),
        capacity_bps=SCENARIO.capacity_bps,
        warmup_s=SCENARIO.warmup_s,
        buffer_bytes=BUFFER_PACKETS * SCENARIO.wire_bytes,
    )
    # The link's loss rate is counted exactly from the drop events (same packets, same span).
    assert est.loss_rate.value == pytest.approx(sim.loss_rate, rel=0.02)
    assert est.loss_rate.low <= est.loss_rate.value <= est.loss_rate.high
    # The loss bursts partition the drops after the warm-up.
    assert est.loss_bursts >= 1
    assert est.loss_burst_median_packets.value <= est.loss_burst_mean_packets.value * 3
    # Every interval contains its estimate.
    for interval in (est.bottlenecked_flows, est.effective_rtt_s):
        assert interval.low <= interval.value <= interval.high


def test_csv_flows_may_be_ids_or_5_tuples(tmp_path: Path) -> None:
    path = tmp_path / "mixed.csv"
    # Chunks of 24 bytes: one or two lines each; a 5-tuple flow and an exponent among them.
    path.write_bytes(
        b"time_s,flow,size_bytes,dropped\n0.25,7,1500,0\n0.5,7,40,1\n"
        b"1e-00,10.0.0.1:5>10.0.0.2:80/tcp,1500,0\n2.125,7,1500,0\n"
    )
    reader = CsvTraceReader(path, chunk_bytes=24)
    batches = list(reader.batches())
    np.testing.assert_array_equal(
        np.concatenate([b.time_s for b in batches]), [0.25, 0.5, 1.0, 2.125]
    )
    flows = np.concatenate([b.flow for b in batches])
    assert [reader.flows.keys[i] for i in flows] == ["7", "7", "10.0.0.1:5>10.0.0.2:80/tcp", "7"]
    assert np.concatenate([b.size_bytes for b in batches]).tolist() == [1500, 40, 1500, 1500]


@pytest.mark.parametrize(
    ("content", "message", "line"),
    [
        (b"time_s,flow,size_bytes,dropped\n0.1,1,1500,0\n0.2,1,1500\n", "4 comma", 3),
        (b"time_s,flow,size_bytes,dropped\n0.1,1,1500,0\n0.2,1,abc,0\n", "size_bytes", 3),
        (b"time_s,flow,size_bytes,dropped\n0.3,1,1500,0\n0.2,1,1500,0\n", "backwards", 3),
        (b"time_s,flow,size_bytes,dropped\n0.1,1,1500,2\n", "dropped", 2),
        (b"time,flow\n0.1,1\n", "header", 1),
    ],
)
def test_bad_csv_names_what_and_where(
    tmp_path: Path, content: bytes, message: str, line: int
) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(TraceFormatError, match=message) as info:
        _read_all(path)
    assert info.value.line == line
    assert f"line {line}" in str(info.value)


def test_truncated_pcap_names_the_byte_offset(sim: SimulatedTrace, tmp_path: Path) -> None:
    path = tmp_path / "t.pcap"
    packets = capture_packets(sim.trace, SCENARIO, sim.rtts_s)[:100]
    with open(path, "wb") as handle:
        writer = dpkt.pcap.Writer(handle)
        for ts, raw in packets:
            writer.writepkt(raw, ts=ts)
    whole = path.read_bytes()
    cut = len(whole) - 20  # inside the last record's bytes
    path.write_bytes(whole[:cut])
    with pytest.raises(TraceFormatError, match="cut short") as info:
        _read_all(path)
    record = 24 + 99 * (16 + len(packets[0][1]))  # file header + 99 whole records
    assert info.value.byte_offset is not None
    assert record <= info.value.byte_offset <= cut


def test_wrong_format_is_named(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(struct.pack("!I", 0xDEADBEEF) + b"\xff\xfe" * 10)
    with pytest.raises(TraceFormatError, match="not a CSV trace"):
        _read_all(path)


@pytest.mark.slow
@pytest.mark.parametrize("flows", [50, 200])
def test_bottlenecked_flows_within_20_percent_on_004_link(flows: int, tmp_path: Path) -> None:
    """004 §VII's link (50 Mbit/s, RTTs 20-534 ms), C_e = 90 % (Poisson background for the
    rest), B = C·T_avg, 60 s with the first 10 % left out. Issue 13's target: N_b within 20 %.
    The non-LBP stream is Poisson, which the CSV format does not mark: at 200 flows it is
    counted as one more LBP flow (201), inside the target."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import trace_estimates_table as table

    sc = table.scenario(flows, 0.9, 60.0)
    rtts = __import__("validation.traces.synthetic", fromlist=["x"]).true_rtts_s(sc, 100, 1)
    buffer_packets = int(table.CAPACITY_BPS * rtts.mean() / (8 * sc.wire_bytes))
    sim = simulated_trace(sc, buffer_packets, seed=1)
    path = tmp_path / "t.csv"
    write_csv(sim.trace, path)
    est = estimate_trace(
        open_trace(path),
        capacity_bps=table.CAPACITY_BPS,
        warmup_s=sc.warmup_s,
        buffer_bytes=buffer_packets * sc.wire_bytes,
    )
    assert abs(est.bottlenecked_flows.value - flows) <= 0.2 * flows
