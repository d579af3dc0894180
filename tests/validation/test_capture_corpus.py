"""Real captures written by others (tests/data/captures, sources in MANIFEST.csv): each ends in
an estimate or a refusal of the expected kind, never a traceback.

The expected outcome of each file was read from the file itself (``tcpdump -r FILE -nn -e``):
which packets are IP and carry data, over what span, in what order. ``benchmarks/trace_corpus.py``
prints each file's time and peak memory.

Three link types the reader reads have no real capture here (14, 51 and 108): their files are
real captures of the corpus with only the link-layer header rewritten; the corpus README lists
where real ones were looked for (about 3,160 files of 19 repositories, each file's link type
read from its header).
"""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import numpy as np
import pytest

from validation.traces import TraceFormatError, estimate_trace, open_trace
from validation.traces.pcap_reader import PcapTraceReader

CORPUS = Path(__file__).resolve().parents[1] / "data" / "captures"
#: The corpus's own notes: its sources and where captures were looked for.
NOT_CAPTURES = {"MANIFEST.csv", "README.md"}

#: file -> "estimate", or the kind of refusal (a phrase of its message).
NO_DATA = "no IPv4 or IPv6 packet that carries data"
ONE_TIME = "all have one time"
ABSURD_SPAN = "its timestamps are not those of a link's traffic"
EXPECTED = {
    "cisco-hdlc.pcap": "estimate",
    "ftp-bulk.pcap": "estimate",
    "ipv6-http-stream.pcap": "estimate",
    "ipv6-http-stream-cut.pcap": "estimate",
    "ldap-11-interfaces.pcapng": "an interface has a type 113 different from the type",
    "linktype-12-ipv6-http.pcap": "estimate",
    "linktype-14-ipv6-http.pcap": "estimate",
    "linktype-108-ipv6-http.pcap": "estimate",
    "linktype-51-pppoe.pcap": "estimate",
    "linktype-ipv4.pcap": ONE_TIME,
    "linktype-ipv6.pcap": ONE_TIME,
    "linktype-raw-ipv4.pcap": ONE_TIME,
    "mixed-vlan-mpls.pcap": ABSURD_SPAN,
    "mpls-packets.pcap": ONE_TIME,
    "mpls.pcap": "estimate",
    "multi-interface.pcapng": "estimate",
    "nanosecs-big-endian.pcap": "estimate",
    "nanosecs.pcap": NO_DATA,  # Ethernet frames of an unknown type
    "null-loopback.pcap": ABSURD_SPAN,  # 3 packets over 604 days
    "ppp-hdlc.pcap": NO_DATA,  # a PPP IPCP packet
    "ppp.pcap": ONE_TIME,
    "pppoe-over-qinq.pcap": "estimate",
    "pppoe-session.pcap": NO_DATA,  # PPPoE LCP echoes
    "qinq.pcap": NO_DATA,  # ARP inside two tags
    "qinq.pcapng": ONE_TIME,
    "raw-ip-10-years.pcap": ABSURD_SPAN,
    "sll.pcap": ONE_TIME,
    "sll2.pcap": ONE_TIME,
    "snaplen-68.pcap": "estimate",
    "ssh-bulk.pcap": "estimate",
    "tcp-out-of-order.pcap": "estimate",
    "time-going-back.pcap": "earlier than a packet before it",
    "wifi-radiotap.pcap": "link type 127 (IEEE802_11_RADIO",
}


def _manifest() -> list[dict[str, str]]:
    with open(CORPUS / "MANIFEST.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_manifest_names_every_file_and_its_source() -> None:
    rows = _manifest()
    files = sorted(p.name for p in CORPUS.iterdir() if p.name not in NOT_CAPTURES)
    assert sorted(r["file"] for r in rows) == files == sorted(EXPECTED)
    for row in rows:
        assert row["repository"] and row["path"] and len(row["commit"]) == 40
        assert row["licence"] in {"BSD-3-Clause", "Unlicense"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_capture_ends_in_an_estimate_or_a_clear_refusal(name: str) -> None:
    expected = EXPECTED[name]
    path = CORPUS / name
    if expected == "estimate":
        est = estimate_trace(open_trace(path))
        assert est.packets > 0 and est.end_s > est.start_s
        assert est.capacity_bps > 0
        return
    with pytest.raises((TraceFormatError, ValueError)) as info:
        estimate_trace(open_trace(path))
    assert expected in str(info.value)
    assert str(path) in str(info.value)


def test_unknown_link_type_names_the_ones_read() -> None:
    with pytest.raises(TraceFormatError) as info:
        estimate_trace(open_trace(CORPUS / "wifi-radiotap.pcap"))
    for name in ("LINUX_SLL2", "EN10MB", "IPV6", "PPP", "NULL"):
        assert name in str(info.value)


def test_reader_quirks_of_the_corpus() -> None:
    """The cut last record is left out and named; the 2 inverted packets are put in order;
    the packets cut at 68 bytes keep their IP lengths; PPPoE inside QinQ is read."""
    cut = estimate_trace(open_trace(CORPUS / "ipv6-http-stream-cut.pcap"))
    whole = estimate_trace(open_trace(CORPUS / "ipv6-http-stream.pcap"))
    assert any("cut short" in note and "byte offset 8,467" in note for note in cut.notes)
    assert not any("cut short" in note for note in whole.notes)
    out_of_order = estimate_trace(open_trace(CORPUS / "tcp-out-of-order.pcap"))
    assert out_of_order.reordered_packets == 2
    reader = PcapTraceReader(CORPUS / "snaplen-68.pcap")
    sizes = np.concatenate([b.size_bytes for b in reader.batches()])
    assert sizes.max() > 68  # the IP length, not the 68 bytes captured
    pppoe = PcapTraceReader(CORPUS / "pppoe-over-qinq.pcap")
    assert sum(len(b) for b in pppoe.batches()) > 0


@pytest.mark.parametrize(
    "name",
    [
        "multi-interface.pcapng",
        "nanosecs-big-endian.pcap",
        "pppoe-over-qinq.pcap",
        "linktype-51-pppoe.pcap",
        "linktype-108-ipv6-http.pcap",
    ],
)
def test_same_packets_and_times_as_libpcap(name: str) -> None:
    """The IP packets and their times (to tcpdump's microsecond) as ``tcpdump -tt`` prints
    them (tcpdump is one of .ci/run's packages); multi-interface.pcapng has interfaces of
    10^-9 and 10^-6 s resolution."""
    printed = subprocess.run(
        ["tcpdump", "-r", str(CORPUS / name), "-nn", "-tt"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    times = sorted(float(line.split()[0]) for line in printed if line[:1].isdigit())
    reader = PcapTraceReader(CORPUS / name)
    ours = np.sort(np.concatenate([b.time_s for b in reader.batches()]))
    # Our packets are the IP packets with data (not ARP, not TCP without payload).
    assert 0 < ours.size <= len(times)
    if name == "multi-interface.pcapng":  # six DNS packets over UDP: all of them
        assert ours.size == len(times) == 6
    # tcpdump prints microseconds (cut, not rounded); a nanosecond file keeps its 3 more
    # digits here: each time within 1 µs of a printed one (float64 holds 0.24 µs at 1.7e9 s).
    printed = np.array(times)
    nearest = np.abs(printed[:, None] - ours[None, :]).min(axis=0)
    assert nearest.max() <= 1.25e-6


@pytest.mark.parametrize(
    ("derived", "source"),
    [
        ("linktype-14-ipv6-http.pcap", "linktype-12-ipv6-http.pcap"),
        ("linktype-108-ipv6-http.pcap", "ipv6-http-stream.pcap"),
        ("linktype-51-pppoe.pcap", "pppoe-over-qinq.pcap"),
    ],
)
def test_a_rewritten_link_layer_gives_the_packets_of_its_source(derived: str, source: str) -> None:
    """The same IP packets (times, sizes, flows) whatever link layer carries them."""
    ours, theirs = (list(PcapTraceReader(CORPUS / name).batches()) for name in (derived, source))
    assert sum(len(b) for b in ours) == sum(len(b) for b in theirs) > 0
    for field in ("time_s", "size_bytes", "flow"):
        assert np.array_equal(
            np.concatenate([getattr(b, field) for b in ours]),
            np.concatenate([getattr(b, field) for b in theirs]),
        )


def test_capacity_of_a_short_trace_is_at_least_what_it_carried() -> None:
    """A transfer of 0.27 s: the busiest second's rate would be its bytes over one second,
    below what the trace itself carried; the capacity is at least its bytes over its span."""
    reader = PcapTraceReader(CORPUS / "ipv6-http-stream.pcap")
    batches = list(reader.batches())
    times = np.concatenate([b.time_s for b in batches])
    carried_bps = 8.0 * sum(int(b.size_bytes.sum()) for b in batches) / (times[-1] - times[0])
    est = estimate_trace(open_trace(CORPUS / "ipv6-http-stream.pcap"))
    assert times[-1] - times[0] < 1.0
    assert est.capacity_bps >= carried_bps * (1 - 1e-12)
    assert any("capacity estimated" in note for note in est.notes)


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if e == "estimate"))
def test_capacity_given_or_estimated_the_flows_and_rtts_agree(name: str) -> None:
    """The capacity the capture gave, given back as ``--capacity``: every estimate (flows,
    their RTTs, N_b, T_e, the rates) the same; only where the capacity came from, and its
    note, differ."""
    estimated = estimate_trace(open_trace(CORPUS / name)).to_dict(flows=True)
    given = estimate_trace(
        open_trace(CORPUS / name), capacity_bps=estimated["capacity_bps"]
    ).to_dict(flows=True)
    assert estimated["capacity_source"] != given["capacity_source"]
    differ = {key for key in estimated if estimated[key] != given.get(key)}
    assert differ == {"capacity_source", "notes"}
    assert estimated["flows"] > 0
