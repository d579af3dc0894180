"""Trace readers and the BSCL parameter estimators (004 §VI) on simulated traces.

The simulated link is small (10 Mbit/s, 8 persistent flows, 40 s) so that one run takes a few
seconds; its truth comes from the simulator's own parameters (the RTTs it drew) and counts.
"""

from __future__ import annotations

import itertools
import struct
from pathlib import Path

import dpkt
import numpy as np
import pytest

from tests.validation.kernel_runs import run_kernel
from tests.validation.mix_traces import estimated_mix
from validation.harness.ns2 import NS2_DELACK_INTERVAL_S
from validation.simulator import Scenario
from validation.simulator.results import transfer_numbers
from validation.traces import (
    TraceEstimates,
    TraceFormatError,
    estimate_trace,
    kernel,
    open_trace,
)
from validation.traces.csv_reader import CsvTraceReader
from validation.traces.pcap_reader import PcapTraceReader
from validation.traces.synthetic import (
    CAPTURE_EPOCH_S,
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
        # The SYN and the handshake's ACK carry no payload: read for the handshake, not timed.
        assert packets == departures
        assert flows == SCENARIO.flows + 1
        reader = open_trace(path)
        list(reader.batches())
        # The handshake RTT is the SYN-to-ACK spacing the capture holds: the flow's RTT
        # (to the microsecond the writer rounds to; pcap here is nanosecond).
        rtts = sorted(reader.flows.handshake_rtt_s.values())
        np.testing.assert_allclose(rtts, np.sort(sim.rtts_s), rtol=0, atol=1e-5)


def test_handshake_in_a_capture_waits_in_the_queue_like_the_first_segment(
    sim: SimulatedTrace,
) -> None:
    """Given the flows' start times, the SYN leaves this link half an RTT before the start
    (one RTT before the handshake's ACK, sent with the first segment, reaches it) and the ACK
    just before the flow's first packet here: the spacing is the RTT plus that packet's wait
    (and its access link's transmission), as a capture sees it under a queue."""
    assert sim.starts_s is not None
    packets = capture_packets(sim.trace, SCENARIO, sim.rtts_s, sim.starts_s)
    path_first = {}
    for t, f in zip(sim.trace.time_s.tolist(), sim.trace.flow.tolist(), strict=True):
        path_first.setdefault(f, t)
    syn_s = {raw[29] - 1: ts for ts, raw in packets if raw[23] == 6 and raw[47] & dpkt.tcp.TH_SYN}
    assert len(syn_s) == SCENARIO.flows
    for f, ts in syn_s.items():
        # The SYN (written 2 us before its instant, the ACK 1 us before the first packet).
        assert ts == pytest.approx(
            CAPTURE_EPOCH_S + sim.starts_s[f] - 0.5 * sim.rtts_s[f] - 2e-6, abs=1e-6
        )
        # The first packet reached this link half an RTT after the start and left no earlier:
        # the handshake spans at least the RTT.
        assert path_first[f] - sim.starts_s[f] - 0.5 * sim.rtts_s[f] >= 0.0


def test_capture_losses_are_the_drops_at_the_link(sim: SimulatedTrace, tmp_path: Path) -> None:
    path = tmp_path / "t.pcap"
    write_capture(sim.trace, SCENARIO, sim.rtts_s, path)
    est = estimate_trace(open_trace(path), capacity_bps=SCENARIO.capacity_bps)
    # Each TCP drop is inferred, and nothing else. The writer resends a drop only after a
    # later segment of its flow left (fast retransmit), so every drop opens a hole that its
    # retransmission fills; UDP drops leave no trace. (A real capture misses a tail loss, one
    # that no later segment overtakes before the resend: tests/validation/
    # test_trace_linux_capture.py.)
    tcp_drops = int((sim.trace.dropped & (sim.trace.flow < SCENARIO.flows)).sum())
    reader = open_trace(path)
    inferred = sum(int(np.isfinite(b.loss_time_s).sum()) for b in reader.batches())
    assert inferred == tcp_drops
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
    # The 8 persistent TCP flows all share this congested link (drops here, IW 10 leaving back
    # to back at 1.2 ms): all LBP, and T_e within issue 13's 10 % of eq. 12's truth (measured
    # 74.1 against 73.7 ms). Before the first flight counted the link's own transmission time
    # as inside the flight, every flight here closed after one packet (1.2 ms > GAP_MIN_S),
    # each flow looked window-held (second flight no larger than the first, no drop in them)
    # and only flows that lost packets at their start escaped that: N_b was 2 (flows 3 and 6
    # lost their first 6 packets) before the simulator's whole-segment window, 0 after.
    assert est.bottlenecked_flows.value == 8
    assert abs(est.effective_rtt_s.value - sim.effective_rtt_s) <= 0.1 * sim.effective_rtt_s


def test_capacity_not_given_on_a_slow_link_reads_the_trace_again(
    sim: SimulatedTrace, tmp_path: Path
) -> None:
    """Without the capacity, the first pass estimates it (the busiest second's rate); a
    1500-byte packet takes 1.2 ms at 10 Mbit/s, over the kernel's 1 ms first-flight gap, so
    the trace is read again with it. The same trace and truth as the test above."""
    path = tmp_path / "t.csv"
    write_csv(sim.trace, path)
    fractions: list[float] = []
    events: list[tuple[str, float]] = []  # ("", progress) and (stage label, its fraction)
    est = estimate_trace(
        open_trace(path),
        warmup_s=SCENARIO.warmup_s,
        buffer_bytes=BUFFER_PACKETS * SCENARIO.wire_bytes,
        progress=lambda f: (fractions.append(f), events.append(("", f))),
        stage=lambda label, f: events.append((label, f)),
    )
    assert est.capacity_source == "estimated"
    # The busiest second's departures, a rate the link's transmission bounds: within 2 % of C
    # (a few packets a second either side; measured 10.008 Mbit/s).
    assert est.capacity_bps == pytest.approx(SCENARIO.capacity_bps, rel=0.02)
    assert any("read again" in note for note in est.notes)
    # One pass on its own closed every first flight after its first packet: N_b was 0, the 8
    # flows window-limited (measured on the code before this second reading). Read again: the
    # 8 flows, and T_e within issue 13's 10 % of eq. 12's truth, as with the capacity given
    # (measured 73.78 against 73.75 ms).
    assert est.bottlenecked_flows.value == 8
    assert abs(est.effective_rtt_s.value - sim.effective_rtt_s) <= 0.1 * sim.effective_rtt_s
    # Progress never goes back over the two readings, and ends at the whole file.
    assert fractions == sorted(fractions)
    assert fractions[-1] == 1.0
    # The second reading says what it is and how far it got, from 0 to the whole file, while
    # the progress stays at 1 (the file was read once).
    first = next(k for k, (label, _) in enumerate(events) if label)
    second = [(label, f) for label, f in events[first:] if label]
    assert {label for label, _ in second} == {
        f"second reading at the estimated rate ({est.capacity_bps / 1e6:.4g} Mbit/s)"
    }
    shares = [f for _, f in second]
    assert shares[0] == 0.0 and shares[-1] == 1.0 and shares == sorted(shares)
    assert all(f == 1.0 for label, f in events[first:] if not label)


def test_csv_flows_may_be_ids_or_5_tuples(tmp_path: Path) -> None:
    path = tmp_path / "mixed.csv"
    # Chunks of 24 bytes: one or two lines each; a 5-tuple flow and an exponent among them.
    path.write_bytes(
        b"time_s,flow,size_bytes,dropped\n0.25,7,1500,0\n0.5,7,40,1\n"
        b"1e-00,10.0.0.1:5>10.0.0.2:80/tcp,1500,0\n2.125,7,1500,0\n"
    )
    for exact in (False, True):  # Arrow's blocks, and the exact parser's 24-byte chunks
        reader = CsvTraceReader(path, chunk_bytes=24)
        batches = list(reader._exact_batches() if exact else reader.batches())
        np.testing.assert_array_equal(
            np.concatenate([b.time_s for b in batches]), [0.25, 0.5, 1.0, 2.125]
        )
        flows = np.concatenate([b.flow for b in batches])
        keys = [reader.flows.keys[i] for i in flows]
        assert keys == ["7", "7", "10.0.0.1:5>10.0.0.2:80/tcp", "7"]
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
    reader = PcapTraceReader(path)
    batches = list(reader.batches())
    record = 24 + sum(16 + len(raw) for _, raw in packets[:99])  # header, 99 whole records
    # As tcpdump: the whole records are read, the cut one is left out and named.
    assert any(f"byte offset {record:,}" in note and "cut short" in note for note in reader.notes)
    whole_path = tmp_path / "whole.pcap"
    whole_path.write_bytes(whole[:record])
    expected = list(PcapTraceReader(whole_path).batches())
    np.testing.assert_array_equal(
        np.concatenate([b.time_s for b in batches]), np.concatenate([b.time_s for b in expected])
    )


def test_wrong_format_is_named(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(struct.pack("!I", 0xDEADBEEF) + b"\xff\xfe" * 10)
    with pytest.raises(TraceFormatError, match="not a CSV trace"):
        _read_all(path)


def test_transfer_numbers_count_each_slot_s_transfers() -> None:
    """Slot 0 carries transfers 1, 2, 3 (epochs), slot 1 one transfer whose epoch wraps from
    255 to 0 between rows (a new transfer), row 5 is background (flow 2 = tcp_flows)."""
    flow = np.array([0, 1, 0, 0, 1, 2, 0, 1], dtype=np.int64)
    epoch = np.array([1, 255, 1, 2, 255, 0, 3, 0], dtype=np.int64)
    got = transfer_numbers(flow, epoch, tcp_flows=2)
    assert got.tolist() == [0, 0, 0, 1, 0, 0, 2, 1]


def test_poisson_flows_are_written_one_id_per_transfer(tmp_path: Path) -> None:
    """Poisson flows of 14 packets reuse slots; the CSV names each transfer apart, and every
    transfer that ended sent at least its 14 packets through the link (drops included)."""
    sc = SCENARIO.replace(
        traffic="poisson_flows",
        flows=50,
        flow_size_packets=14.0,
        flow_arrival_rate_per_s=20.0,
        background_load=0.0,
        duration_s=20.0,
    )
    sim = simulated_trace(sc, BUFFER_PACKETS, seed=3)
    assert sim.trace.transfer is not None
    path = tmp_path / "p.csv"
    write_csv(sim.trace, path)
    reader = open_trace(path)
    packets = np.zeros(0, dtype=np.int64)
    for batch in reader.batches():
        packets = np.concatenate([packets, batch.flow])
    counts = np.bincount(packets)
    # More flow ids than slots: slots carried several transfers.
    assert len(reader.flows) > int(np.unique(sim.trace.flow).size)
    slot_transfer = [(key + ".0").split(".")[:2] for key in reader.flows.keys]
    last: dict[str, int] = {}  # each slot's latest transfer (it may not have ended)
    for slot, number in slot_transfer:
        last[slot] = max(last.get(slot, 0), int(number))
    done = [i for i, (slot, number) in enumerate(slot_transfer) if last[slot] != int(number)]
    assert done and all(counts[i] >= 14 for i in done)


@pytest.mark.slow
@pytest.mark.parametrize(("flows", "share"), [(10, 0.9), (50, 0.8)])
def test_estimates_within_targets_on_004_mix(flows: int, share: float, tmp_path: Path) -> None:
    """004 §VII's mix (the harness's ``mix_scenario``: N_b LBP flows, 20 RBP flows behind slow
    access links, 10 window-limited flows, Poisson short flows of 14 packets; RTTs 20-414 ms),
    B = C·T_avg, 60 s with 10 s of warm-up, seed 1. Issue 13's targets: N_b within 20 %, T_e
    within 10 % of the harmonic mean of the LBP flows' propagation RTTs (BSCL's T_e excludes
    the queueing at this link, 004 §III.A). The RTTs taken from the drops are the propagation
    delays the simulator drew, to within two access-link transmissions (25 µs) and the
    bottleneck's transmission of a packet (0.25 ms at 50 Mbit/s)."""
    _, _, sim, est = estimated_mix(flows, share, full=False, seed=1, tmp_path=tmp_path)
    assert abs(est.bottlenecked_flows.value - flows) <= 0.2 * flows
    assert abs(est.effective_rtt_s.value - sim.effective_rtt_s) <= 0.1 * sim.effective_rtt_s
    from_drops = [
        (f.rtt_s, float(sim.rtts_s[int(f.key)]))
        for f in est.flow_table
        if f.rtt_source == "drops" and "." not in f.key and int(f.key) in sim.lbp_flows
    ]
    # Flows whose drops do not all agree on one lag below their first-round spacing, or whose
    # departures match many lags, keep their first-round RTT; on these runs 10 of 10 and 50 of
    # 50 LBP flows get one from drops (4 of 10 and 48 of 50 before a single loss episode
    # could give one, with the 200 ms delayed-ACK interval of then).
    assert len(from_drops) >= 0.8 * flows
    # A drop whose packet the receiver's delayed-ACK timer released is timed at the RTT plus
    # that wait (validation/traces/drop_rtt.py). Since the simulator's RACK resends lost
    # retransmissions (and Reno halves at most cwnd), one flow of the 50 (flow 49: RTT
    # 342.9 ms, 10 drops where the median LBP flow has 22) is given its RTT plus ns-2's
    # 100 ms wait (442.9 ms); the other 49 are within 0.3 ms. At most one flow in 50 may be
    # off by exactly that wait; any other error fails.
    wrong = [(rtt, truth) for rtt, truth in from_drops if abs(rtt - truth) >= 3e-4]
    assert len(wrong) <= flows // 50
    assert all(abs(rtt - truth - NS2_DELACK_INTERVAL_S) < 3e-4 for rtt, truth in wrong)


def _two_lbp_flows_estimated(
    share: float, seed: int, tmp_path: Path
) -> tuple[SimulatedTrace, TraceEstimates]:
    """004 §VII's mix with N_b = 2 at full length and B = C·T_avg, simulated, written as CSV
    and estimated back."""
    _, _, sim, est = estimated_mix(2, share, full=True, seed=seed, tmp_path=tmp_path)
    return sim, est


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.95, 0.9])
def test_effective_rtt_of_two_lbp_flows_on_004_mix(share: float, tmp_path: Path) -> None:
    """004 §VII's mix with N_b = 2 at its full length (200 s, 20 s warm-up), B = C·T_avg, seed
    1. The second LBP flow (RTT 394.5 ms) starts into the first one's standing queue: its
    first-round spacing is 529.9 ms (95 %) and 550.8 ms (90 %), and all its drops (34 at
    24.29-24.51 s and 32 at 23.83-23.95 s; measured with whole-segment windows) fall in one
    slow-start overflow. The lag every one of those drops agrees on, below that spacing, is
    its RTT; with the spacing as its RTT, T_e was +10.3 % and +11.6 % off (the harmonic mean
    with flow 0's 222.2 ms, on the simulator's earlier sample path). Targets of issue 13: T_e
    within 10 % of the harmonic mean of the LBP flows' propagation RTTs (004 eq. 12, §III.A);
    drop-lag RTTs within 0.3 ms as in the test above."""
    sim, est = _two_lbp_flows_estimated(share, 1, tmp_path)
    assert est.bottlenecked_flows.value == 2
    assert abs(est.effective_rtt_s.value - sim.effective_rtt_s) <= 0.1 * sim.effective_rtt_s
    assert est.effective_rtt_s.low <= sim.effective_rtt_s <= est.effective_rtt_s.high
    slow = max(sim.lbp_flows, key=lambda i: float(sim.rtts_s[i]))
    (row,) = [f for f in est.flow_table if f.key == str(slow)]
    assert row.rtt_source == "drops"
    assert abs(row.rtt_s - float(sim.rtts_s[slow])) < 3e-4


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.95, 0.9])
def test_a_drop_a_delayed_ack_released_does_not_void_the_lag_on_004_mix(
    share: float, tmp_path: Path
) -> None:
    """004 §VII's mix with N_b = 2, 200 s, B = C·T_avg, seed 2. LBP flow 1 (RTT 137.6 ms) has
    all its drops in one slow-start overflow (3.69-3.86 s, in the warm-up): at 95 % 18 of its
    20 drops show the lag 137.64 ms, and the 2 at 3.8082 s show the RTT plus 100.0 ms to its
    last departure before the overflow (3.5706 s): packets released by the receiver's
    delayed-ACK timer (the mix's 100 ms; RFC 5681 §4.2); at 90 % 11 of 13. When every drop
    had to agree the flow kept its first-round spacing, 184.0 and 188.0 ms (queue in it),
    and T_e was +13.5 and +14.5 % off; now most drops agreeing, with no rival lag under
    that spacing (the most votes 10 ms or more from 137.64 ms: 3 of 20 and 2 of 13), give
    the RTT. Drop lags within 0.3 ms as above; T_e within issue 13's 10 %."""
    sim, est = _two_lbp_flows_estimated(share, 2, tmp_path)
    (row,) = [f for f in est.flow_table if f.key == "1"]
    assert row.rtt_source == "drops"
    assert abs(row.rtt_s - float(sim.rtts_s[1])) < 3e-4
    assert abs(est.effective_rtt_s.value - sim.effective_rtt_s) <= 0.1 * sim.effective_rtt_s


def _variant(raw: bytes, flow: int) -> bytes:
    """The frame as IPv6 (flows 1, 4), behind an 802.1Q tag (flows 2, 4), or as it is."""
    eth = dpkt.ethernet.Ethernet(raw)
    ip = eth.data
    length = struct.unpack("!H", raw[16:18])[0]  # the IP length the payload cut kept
    if flow in (1, 4) and isinstance(ip, dpkt.ip.IP):
        six = dpkt.ip6.IP6(
            src=b"\x20\x01\x0d\xb8" + b"\x00" * 11 + bytes((flow,)),
            dst=b"\x20\x01\x0d\xb8" + b"\x00" * 11 + b"\xff",
            nxt=ip.p,
            hlim=64,
        )
        six.data = ip.data
        eth.type = dpkt.ethernet.ETH_TYPE_IP6
        eth.data = six
        raw = bytes(eth)
        # The payload length as the IPv4 length said (the payload is cut off, not gone).
        raw = raw[:18] + struct.pack("!H", max(length - 20, 0)) + raw[20:]
    if flow in (2, 4):
        raw = raw[:12] + b"\x81\x00\x00\x07" + raw[12:]
    return raw


def _capture(path: Path, packets: list[tuple[float, bytes]], nano: bool) -> None:
    with open(path, "wb") as handle:
        writer = dpkt.pcap.Writer(handle, nano=nano)
        for ts, raw in packets:
            writer.writepkt(raw, ts=ts)


def _columns(reader: object) -> tuple[list[np.ndarray], list[str]]:
    batches = list(reader.batches())  # type: ignore[attr-defined]
    cols = [
        np.concatenate([getattr(b, name) for b in batches])
        for name in ("time_s", "flow", "size_bytes", "dropped", "loss_time_s", "hole_s")
    ]
    keys = [reader.flows.keys[i] for i in cols[1]]  # type: ignore[attr-defined]
    return cols, keys


@pytest.mark.parametrize("nano", [False, True])
def test_fast_pcap_path_equals_the_reference(
    sim: SimulatedTrace, tmp_path: Path, nano: bool
) -> None:
    """The block decoder (numpy + compiled passes) and the record-by-record reference give the
    same packets, flows, handshakes, losses and flow tables, on a capture that mixes IPv4,
    IPv6, 802.1Q-tagged frames (the reference decodes those), UDP, an ARP frame and a frame
    too short for Ethernet; and the pcapng file of the same packets (dpkt's reader) agrees
    to its microsecond timestamps."""
    packets = capture_packets(sim.trace, SCENARIO, sim.rtts_s)
    flows = {raw[26:30]: raw[29] - 1 for _, raw in packets}  # client address -> flow
    mixed = [(ts, _variant(raw, flows[raw[26:30]])) for ts, raw in packets]
    arp = dpkt.ethernet.Ethernet(type=dpkt.ethernet.ETH_TYPE_ARP, data=b"\x00" * 28)
    mixed.insert(50, (mixed[50][0], bytes(arp)))
    mixed.insert(80, (mixed[80][0], b"\x01" * 10))
    path = tmp_path / "m.pcap"
    _capture(path, mixed, nano)
    fast = PcapTraceReader(path)
    exact = PcapTraceReader(path, exact=True)
    (fast_cols, fast_keys), (exact_cols, exact_keys) = _columns(fast), _columns(exact)
    # The ARP and the short frame are not IP; each TCP flow's SYN and handshake ACK carry no
    # payload and are read for the handshake only.
    assert fast_cols[0].size == len(mixed) - 2 - 2 * SCENARIO.flows
    for k in (0, 2, 3, 4, 5):  # the flow indices may be numbered in another order: keys below
        np.testing.assert_array_equal(fast_cols[k], exact_cols[k])
    # Every loss a retransmission confirms opened a hole first, at the time it gives.
    holes = fast_cols[5][np.isfinite(fast_cols[5])]
    losses = fast_cols[4][np.isfinite(fast_cols[4])]
    assert losses.size > 0 and np.isin(losses, holes).all()
    assert fast_keys == exact_keys
    assert any("2001:db8::" in k for k in fast_keys)
    assert sorted(fast.flows.keys) == sorted(exact.flows.keys)

    def named(reader: PcapTraceReader) -> list[object]:
        keys = reader.flows.keys
        return [
            {keys[i]: v for i, v in reader.flows.handshake_rtt_s.items()},
            {keys[i]: v for i, v in reader.flows.downstream_losses.items()},
            {keys[i] for i in reader.flows.no_payload},
            {keys[i] for i in reader.flows.not_tcp},
        ]

    assert named(fast) == named(exact)
    assert len(fast.flows.handshake_rtt_s) == SCENARIO.flows
    assert int(np.isfinite(fast_cols[4]).sum()) > 0  # losses inferred from holes
    ng = tmp_path / "m.pcapng"
    with open(ng, "wb") as handle:
        writer = dpkt.pcapng.Writer(handle)
        for ts, raw in mixed:
            writer.writepkt(raw, ts=ts)
    ng_cols, ng_keys = _columns(PcapTraceReader(ng))
    assert ng_keys == fast_keys
    # Both files round to the microsecond, each writer its own way (float64 steps 0.24 µs here).
    np.testing.assert_allclose(ng_cols[0], fast_cols[0], rtol=0, atol=2e-6)
    np.testing.assert_array_equal(np.isfinite(ng_cols[4]), np.isfinite(fast_cols[4]))


@pytest.mark.parametrize("cut", [5, 20])
def test_pcap_cut_inside_the_last_record_reads_the_others(
    sim: SimulatedTrace, tmp_path: Path, cut: int
) -> None:
    """A file cut inside the last record (5 or 20 bytes short of its end): the block reader
    reads the records before it, as the reference does on the file without the cut record,
    and names the cut record's offset; the reference (record by record) refuses there."""
    path = tmp_path / "t.pcap"
    packets = capture_packets(sim.trace, SCENARIO, sim.rtts_s)[:3000]
    _capture(path, packets, nano=True)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) - cut])
    record = len(whole) - 16 - len(packets[-1][1])
    fast = PcapTraceReader(path)
    fast_cols, _ = _columns(fast)
    assert any(f"byte offset {record:,}" in note for note in fast.notes)
    with pytest.raises(TraceFormatError, match="cut short") as info:
        list(PcapTraceReader(path, exact=True).batches())
    assert info.value.byte_offset == record
    shorter = tmp_path / "shorter.pcap"
    shorter.write_bytes(whole[:record])
    exact_cols, _ = _columns(PcapTraceReader(shorter, exact=True))
    np.testing.assert_array_equal(fast_cols[0], exact_cols[0])


def test_small_timestamp_inversions_are_put_in_order_and_counted(
    sim: SimulatedTrace, tmp_path: Path
) -> None:
    """Packets 5 µs out of order (merged interfaces) are put back in time order and counted;
    one a second out of order is refused with its packet number and byte offset."""
    packets = capture_packets(sim.trace, SCENARIO, sim.rtts_s)[:2000]
    path = tmp_path / "t.pcap"
    _capture(path, packets, nano=True)
    reference, _ = _columns(PcapTraceReader(path))
    swapped = list(packets)
    for k in (300, 900, 1500):  # each swapped with the one before, times kept
        swapped[k - 1], swapped[k] = swapped[k], swapped[k - 1]
    inverted = [ts for ts, _ in swapped]
    backs = sum(b < a for a, b in itertools.pairwise(inverted))
    assert backs == 3
    assert max(a - b for a, b in itertools.pairwise(inverted)) < 1e-2
    _capture(path, swapped, nano=True)
    reader = PcapTraceReader(path)
    cols, _ = _columns(reader)
    np.testing.assert_array_equal(cols[0], np.sort(cols[0]))
    assert reader.reordered_packets == 3
    assert any("3 packets" in note and "time order" in note for note in reader.notes)
    assert cols[0].size == reference[0].size
    far = list(packets)
    far[1500] = (far[1500][0] - 1.0, far[1500][1])
    _capture(path, far, nano=True)
    with pytest.raises(TraceFormatError, match="packet 1,501 is") as info:
        list(PcapTraceReader(path).batches())
    assert info.value.byte_offset == 24 + sum(16 + len(raw) for _, raw in packets[:1500])


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.95, 0.9, 0.8])
def test_window_limited_flow_with_first_flight_losses_is_not_lbp(
    share: float, tmp_path: Path
) -> None:
    """004 §VII's mix with N_b = 2, 200 s, B = C·T_avg, seed 3. Window-limited flow 30 (RTT
    167.5 ms) loses 1, 2 and 5 packets of its first flight at 95, 90 and 80 % (its first-round
    spacings, 634.6, 529.8 and 529.9 ms, are no RTT samples; taken as RTTs, T_e was +41.9,
    +40.4 and +40.4 % off), and at 80 % two more at 14.3 s (in the warm-up). It was counted
    LBP (N_b 3 for 2). On the simulator's sample path before whole-segment windows, in its
    longest loss-free stretch after the warm-up it sent 1116, 2322 and 2610 packets where a
    window growing by half a packet a round trip sends at least 7182, 8883 and 3813: it keeps
    its window and is not LBP ("the key difference with LBP flows is that the latter keep
    increasing their window until a loss occurs", 004 §VI).

    LBP flow 1 (RTT 113.3 ms) starts at 11.06 s into flow 0's standing queue (first-round
    spacing 265.5, 264.5 and 278.4 ms). At 95 % its only drops are one episode, 7 drops at
    13.16-13.27 s; every one of them shows the lag 113.34 ms, but also 12.03 ms (the spacing
    of packets of a regular burst). The lag is no shorter than the spacing less the full
    buffer's delay B/C (216.8 ms): with that bound it is 113.34 ms; without it the flow kept
    its spacing as RTT and T_e was +22.7 % (89.4 ms against 72.9), measured on the sample
    path with whole-segment windows. Targets of issue 13: N_b within 20 % (here exact), T_e
    within 10 % of the harmonic mean of the LBP flows' propagation RTTs (004 eq. 12, §III.A);
    measured +0.1, +0.1 and +0.0 %."""
    sim, est = _two_lbp_flows_estimated(share, 3, tmp_path)
    (row,) = [f for f in est.flow_table if f.key == "30"]
    assert row.flow_class == "window_limited"
    assert {int(f.key) for f in est.flow_table if f.flow_class == "lbp"} == set(sim.lbp_flows)
    assert abs(est.effective_rtt_s.value - sim.effective_rtt_s) <= 0.1 * sim.effective_rtt_s
    assert est.effective_rtt_s.low <= sim.effective_rtt_s <= est.effective_rtt_s.high


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.95, 0.9, 0.8])
def test_window_limited_flow_that_lost_only_in_the_warm_up(share: float, tmp_path: Path) -> None:
    """004 §VII's mix with N_b = 2, 200 s, B = C·T_avg, seed 5: the worst row of the seeds 2-9
    table before (95 %: 3 LBP flows found for 2, T_e and the BSCL size -46.4 %). Window-limited
    flow 31 (RTT 20.5 ms, a 7-packet window) loses packets only in the first 20 s, which 004
    §VII ignores ("All flows start at random times in the first 10% of the simulation
    duration, which is then ignored from the analysis"), and was counted LBP. In the 179.0,
    179.4 and 179.6 s after the warm-up (less its longest silence) it sends 5278, 6362 and
    15770 packets. A window growing by half a packet a round trip sends at least K(K - 1)/4,
    K the rounds of at most R + Q + D (Q = 216.8 ms, D = 0.2 s). At 95 % its first flight is
    whole and R is its first-round spacing, 98.6 ms: R + Q + D = 515.4 ms, K = 347, at least
    30015.5 packets. At 90 and 80 % its first flight lost 2 and 6 packets and its first-round
    spacing (293.8 and 342.2 ms) holds its timeout or the queue; at 80 % that R gives
    R + Q + D = 759.0 ms, K = 236 and 13865 packets, under the 15770 it sent, and the flow was
    counted LBP (N_b 3 for 2). After its timeout it sends one packet after a silence of
    0.739 and 1.099 s (over R + Q + D, 710.6 and 759.0 ms) and the next 108.8 and 114.0 ms
    later: that spacing is no
    shorter than its RTT (kernel ``_restart_flights``), R + Q + D = 525.5 and 530.8 ms,
    K = 341 and 338, at least 28985 and 28476.5 packets: it kept its window at all three
    shares and is not LBP. T_e is +0.1, -5.7 and +0.1 % off (issue 13's target: 10 %)."""
    sim, est = _two_lbp_flows_estimated(share, 5, tmp_path)
    (row,) = [f for f in est.flow_table if f.key == "31"]
    assert row.flow_class == "window_limited"
    lbp = {int(f.key) for f in est.flow_table if f.flow_class == "lbp"}
    assert lbp == set(sim.lbp_flows)
    assert abs(est.effective_rtt_s.value - sim.effective_rtt_s) <= 0.1 * sim.effective_rtt_s


def _advance_one_flow(
    time_s: np.ndarray,
    dropped: np.ndarray,
    warmup_s: float,
    capacity_bps: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's per-flow state after one flow's departures (1500 B each, flow 0)."""
    flow = np.zeros(time_s.size, dtype=np.int64)
    return run_kernel(time_s, flow, dropped, flows=1, warmup_s=warmup_s, capacity_bps=capacity_bps)


def test_loss_free_stretches_after_the_warm_up() -> None:
    """Flow 0 sends a packet every 0.1 s from 0 to 29.9 s, silent from 12.0 to 14.0 s, and
    loses packets at 5 s (in the warm-up of 10 s), 15 s and 17 s. Its loss-free stretches after
    the warm-up: 10-15 s less its 2 s silence (31 departures), 15-17 s less 0.1 s (19), and
    17-29.9 s (129, still open at its last packet, longest silence 0.1 s). The longest closed
    one is kept; the open one is left for the estimator to weigh."""
    time_s = np.round(np.arange(0.0, 30.0, 0.1), 6)
    time_s = time_s[(time_s <= 12.0) | (time_s >= 14.0)]
    dropped = np.isin(time_s, [5.0, 15.0, 17.0])
    fs, fi = _advance_one_flow(time_s, dropped, 10.0)
    assert abs(fs[0, kernel.F["longest_stretch_s"]] - 3.0) < 1e-6
    assert fi[0, kernel.I["longest_stretch_packets"]] == 31
    assert abs(fs[0, kernel.F["stretch_start_s"]] - 17.0) < 1e-6
    assert abs(fs[0, kernel.F["stretch_silence_s"]] - 0.1) < 1e-6
    assert fi[0, kernel.I["stretch_packets"]] == 129


def test_first_flight_drops_are_counted_before_the_first_round_sample() -> None:
    """Flow 0: a first flight of two packets (one dropped), a second flight 0.3 s later with a
    drop in it. Only the first drop falls in the first flight (before the RTT sample)."""
    rows = [(0.0, 0), (0.0001, 1), (0.3, 0), (0.3001, 0), (0.3002, 1)]
    time_s = np.array([t for t, _ in rows])
    dropped = np.array([d for _, d in rows], dtype=np.bool_)
    fs, fi = _advance_one_flow(time_s, dropped, 0.0)
    assert fi[0, kernel.I["first_flight_drops"]] == 1
    assert fi[0, kernel.I["start_drops"]] == 2
    assert abs(fs[0, kernel.F["raw_rtt_s"]] - 0.3) < 1e-9


def test_a_capture_s_loss_in_the_first_flights_counts_when_its_resend_passes() -> None:
    """A capture has no drop events: a loss is told by the retransmission that fills its hole,
    one RTT or more later, with the hole's time. Flow 0: a first flight of two packets at 0 s
    (a hole between them: the second skipped a lost segment), a second flight of two at 0.3 s,
    the third at 0.6 s, and at 0.9 s the resend of the lost segment, which tells of the loss at
    0.0001 s, in the first flight: one drop at the start. The same resend telling of a loss at
    0.7 s, after the second flight, is none."""
    time_s = np.array([0.0, 0.0001, 0.3, 0.3001, 0.6, 0.6001, 0.6002, 0.9])
    dropped = np.zeros(time_s.size, dtype=np.bool_)
    flow = np.zeros(time_s.size, dtype=np.int64)
    for told, start_drops in ((0.0001, 1), (0.7, 0)):
        losses = np.full(time_s.size, np.nan)
        losses[-1] = told
        _, fi = run_kernel(time_s, flow, dropped, flows=1, loss_time_s=losses)
        assert (fi[0, kernel.I["flight1_packets"]], fi[0, kernel.I["flight2_packets"]]) == (2, 2)
        assert fi[0, kernel.I["start_drops"]] == start_drops


def test_a_burst_at_the_link_rate_is_one_first_flight() -> None:
    """Flow 0 on a 10 Mbit/s link: an initial window of 10 packets of 1500 bytes leaving back to
    back (1.2 ms apart, one transmission time each, RFC 6928's initial window), then 15 packets
    one RTT (100 ms) later. 1.2 ms is over ``GAP_MIN_S`` (1 ms), but it is the link's own
    spacing: with the capacity given the first flight is the 10 packets and the first-round
    sample is 100 ms. Without the capacity the kernel has only ``GAP_MIN_S`` and the flight's
    own gaps, and the second packet closes a one-packet flight (the sample is then 1.2 ms:
    the estimator wants C on links below 12 Mbit/s)."""
    tx_s = 1500 * 8 / 10e6
    time_s = np.round(np.concatenate([np.arange(10) * tx_s, 0.1 + np.arange(15) * tx_s]), 9)
    for capacity, n1, raw, n2 in ((10e6, 10, 0.1, 15), (None, 1, tx_s, 1)):
        fs, fi = _advance_one_flow(time_s, np.zeros(time_s.size, dtype=np.bool_), 1.0, capacity)
        assert fi[0, kernel.I["flight1_packets"]] == n1
        assert abs(fs[0, kernel.F["raw_rtt_s"]] - raw) < 1e-9
        assert fi[0, kernel.I["flight2_packets"]] == n2


def test_a_capture_s_congested_samples_without_a_recent_loss_lose_half_the_buffer() -> None:
    """Queue correction of a capture's RTT samples (``_capture_queue_midpoint``), Q = 0.2 s,
    the link's first loss at 5 s. Flow 0's sample came before it (no queue taken off); flow
    1's after it with a loss just before (the kernel took off Q: kept); flow 2's after it with
    none (its queue somewhere in [0, Q]: 0.1 s, the middle, off); flow 3, not LBP, is corrected
    alike and not counted in the note. With five samples on each side the median correction of
    ``_queue_corrected_rtts`` stands instead."""
    from types import SimpleNamespace

    from validation.traces.estimate import _capture_queue_midpoint

    acc = SimpleNamespace(first_loss_s=5.0, queue_full_s=0.2)
    raw = np.array([0.30, 0.45, 0.40, 0.40])
    at = np.array([4.0, 6.0, 7.0, 7.0])
    rtt = np.array([0.30, 0.25, 0.40, 0.40])  # the kernel's
    lbp = np.array([True, True, True, False])
    told = np.array([0.0, 0.2, 0.0, 0.0])  # what the kernel took off
    notes: list[str] = []
    out = _capture_queue_midpoint(raw, at, rtt, lbp, acc, told, notes)  # type: ignore[arg-type]
    np.testing.assert_allclose(out, [0.30, 0.25, 0.30, 0.30])
    assert len(notes) == 1 and notes[0].startswith("1 LBP flows' RTT samples")
    many = np.repeat(np.arange(2), 5)
    out = _capture_queue_midpoint(
        raw[many + 1], np.where(many == 0, 4.0, 7.0), rtt[many + 1], np.ones(10, bool),
        acc, np.zeros(10), [],
    )  # type: ignore[arg-type]  # fmt: skip
    np.testing.assert_allclose(out, rtt[many + 1])
