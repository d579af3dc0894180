"""Writes the corpus files of the link types that no permissively licensed test collection
holds (OpenBSD's LOOP 108 and RAW 14, PPPoE's PPP_ETHER 51), each from a real capture of the
corpus with only its link-layer header rewritten (no tests here; MANIFEST.csv names the source).

- ``linktype-14-ipv6-http.pcap``: ``linktype-12-ipv6-http.pcap`` with link type 14 (raw IP,
  as OpenBSD numbers it); the packets untouched.
- ``linktype-108-ipv6-http.pcap``: ``ipv6-http-stream.pcap`` (raw IPv6) with OpenBSD's 4-byte
  loopback header before each packet (the address family, 24 for IPv6, in network byte order).
- ``linktype-51-pppoe.pcap``: ``pppoe-over-qinq.pcap`` with each frame's Ethernet header and
  VLAN tags taken off, so that each packet begins with its PPPoE header.

Run: ``python -m tests.validation.derive_captures`` (the files are committed; tcpdump reads
them as it reads their sources, which tests/validation/test_capture_corpus.py checks).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "data" / "captures"
#: Ethernet types of VLAN tags, and of PPPoE discovery and session frames.
TAGS = (0x8100, 0x88A8, 0x9100)
PPPOE = (0x8863, 0x8864)


def _rewrite(source: str, target: str, link_type: int, frame: Callable[[bytes], bytes | None]):
    data = (CORPUS / source).read_bytes()
    assert data[:4] == b"\xd4\xc3\xb2\xa1", "a little-endian microsecond pcap"
    out = [data[:20] + struct.pack("<I", link_type)]
    offset = 24
    while offset + 16 <= len(data):
        seconds, micros, captured, original = struct.unpack_from("<IIII", data, offset)
        packet = frame(data[offset + 16 : offset + 16 + captured])
        offset += 16 + captured
        if packet is None:
            continue
        grown = len(packet) - captured
        out.append(struct.pack("<IIII", seconds, micros, len(packet), original + grown))
        out.append(packet)
    (CORPUS / target).write_bytes(b"".join(out))


def _pppoe(frame: bytes) -> bytes | None:
    at = 12
    kind = struct.unpack_from(">H", frame, at)[0]
    while kind in TAGS:
        at += 4
        kind = struct.unpack_from(">H", frame, at)[0]
    return frame[at + 2 :] if kind in PPPOE else None


def main() -> None:
    _rewrite("linktype-12-ipv6-http.pcap", "linktype-14-ipv6-http.pcap", 14, lambda p: p)
    loop = struct.pack(">I", 24)
    _rewrite("ipv6-http-stream.pcap", "linktype-108-ipv6-http.pcap", 108, lambda p: loop + p)
    _rewrite("pppoe-over-qinq.pcap", "linktype-51-pppoe.pcap", 51, _pppoe)


if __name__ == "__main__":
    main()
