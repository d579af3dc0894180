"""The compiled passes of the capture reader: packet headers decoded a block at a time.

The records of a classic libpcap block are found with one compiled pass over their lengths
(:func:`record_offsets`; "PCAP Capture File Format", IETF draft-ietf-opsawg-pcap, §4-5). The
IPv4 / IPv6 / TCP / UDP fields the estimators need (RFC 791 §3.1; RFC 8200 §3; RFC 9293 §3.1;
RFC 768) are read by one compiled pass over a block's packets (:func:`decode`), after the
link-layer headers of :mod:`validation.traces.link_layers`. Every packet then goes, in time
order, through the per-flow sequence tracking (:func:`track_tcp`, the reference's ``_tcp``
compiled over arrays). The reference path of :mod:`validation.traces.pcap_reader` reads the
same file record by record; ``tests/validation/test_traces.py`` checks that both give the
same packets, flows, handshakes and losses.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from validation.traces.link_layers import ip_header

#: Bytes of the flow key: family (4 or 16), source and destination (16 each, IPv4 first 4),
#: ports (4), has ports (1), protocol (1).
KEY_BYTES = 39
MAX_HOLES = 64
_MASK = 0xFFFFFFFF
_HALF = 1 << 31
_SYN, _ACK = 0x02, 0x10


def flow_key(src: bytes, dst: bytes, ports: bytes, proto: int) -> bytes:
    """The flow key both decoders use (see :data:`KEY_BYTES`)."""
    return (
        bytes((len(src),))
        + src.ljust(16, b"\0")
        + dst.ljust(16, b"\0")
        + ports.ljust(4, b"\0")
        + bytes((1 if ports else 0, proto))
    )


@njit(cache=True)
def record_offsets(buf, start, little, out):
    """Offsets of the whole records in ``buf`` from ``start``; (count, end of the last)."""
    n = 0
    pos = start
    size = buf.size
    while pos + 16 <= size and n < out.size:
        if little:
            cap = (
                buf[pos + 8]
                | (buf[pos + 9] << 8)
                | (buf[pos + 10] << 16)
                | (np.int64(buf[pos + 11]) << 24)
            )
        else:
            cap = (
                (np.int64(buf[pos + 8]) << 24)
                | (buf[pos + 9] << 16)
                | (buf[pos + 10] << 8)
                | buf[pos + 11]
            )
        if pos + 16 + cap > size:
            break
        out[n] = pos
        n += 1
        pos += 16 + cap
    return n, pos


def u32_header(buf: np.ndarray, at: np.ndarray, little: bool) -> np.ndarray:
    """The 32-bit unsigned fields at offsets ``at`` of ``buf``, in the file's byte order."""
    b = buf[at[:, None] + np.arange(4)].astype(np.int64)
    if little:
        return b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16) | (b[:, 3] << 24)
    return (b[:, 0] << 24) | (b[:, 1] << 16) | (b[:, 2] << 8) | b[:, 3]


class Decoded:
    """The fields of a block's packets (columns); ``ip`` marks the IP packets (the others are
    left out)."""

    def __init__(self, n: int) -> None:
        self.ip = np.zeros(n, dtype=np.bool_)
        self.key = np.zeros((n, KEY_BYTES), dtype=np.uint8)
        self.length = np.zeros(n, dtype=np.int64)
        self.tcp = np.zeros(n, dtype=np.bool_)  # a TCP header is there (seq, flags, payload)
        self.seq = np.zeros(n, dtype=np.int64)
        self.flags = np.zeros(n, dtype=np.int64)
        self.payload = np.zeros(n, dtype=np.int64)


def decode(buf: np.ndarray, data: np.ndarray, caplen: np.ndarray, link: int) -> Decoded:
    """Decode the packets at ``buf[data[k] : data[k] + caplen[k]]`` (a block, uint8)."""
    out = Decoded(data.size)
    _decode(
        buf,
        data,
        caplen,
        link,
        out.ip,
        out.key,
        out.length,
        out.tcp,
        out.seq,
        out.flags,
        out.payload,
    )
    return out


@njit(cache=True)
def _u16(buf, at):
    return (np.int64(buf[at]) << 8) | buf[at + 1]


@njit(cache=True)
def _decode(buf, data, caplen, link, is_ip, key, length, tcp, seq, flags, payload):
    """The IP and TCP fields of each packet (see the module docstring); a packet cut by the
    snap length gives what its headers hold (the IP length is the packet's, not the cut's)."""
    for k in range(data.size):
        d = data[k]
        end = d + caplen[k]
        ip, version = ip_header(buf, d, end, link)
        if version == 4:
            if ip + 20 > end:
                continue
            transport = ip + (buf[ip] & 0x0F) * 4
            proto = buf[ip + 9]
            length[k] = _u16(buf, ip + 2)
            width = 4
            src = ip + 12
            dst = ip + 16
        elif version == 6:
            if ip + 40 > end:
                continue
            transport = ip + 40
            proto = buf[ip + 6]
            length[k] = _u16(buf, ip + 4) + 40
            width = 16
            src = ip + 8
            dst = ip + 24
        else:
            continue
        is_ip[k] = True
        key[k, 0] = width
        for j in range(width):
            key[k, 1 + j] = buf[src + j]
            key[k, 17 + j] = buf[dst + j]
        if (proto == 6 or proto == 17) and transport + 4 <= end:
            for j in range(4):
                key[k, 33 + j] = buf[transport + j]
            key[k, 37] = 1
        key[k, 38] = proto
        if proto == 6 and transport + 14 <= end:
            tcp[k] = True
            seq[k] = (
                (np.int64(buf[transport + 4]) << 24)
                | (np.int64(buf[transport + 5]) << 16)
                | (np.int64(buf[transport + 6]) << 8)
                | buf[transport + 7]
            )
            flags[k] = buf[transport + 13]
            payload[k] = length[k] - (transport - ip) - (buf[transport + 12] >> 4) * 4


class TcpState:
    """Per-flow sequence tracking (grown as flows appear)."""

    def __init__(self) -> None:
        self.next_seq = np.zeros(0, dtype=np.int64)
        self.has_next = np.zeros(0, dtype=np.bool_)
        self.holes = np.zeros((0, MAX_HOLES + 1, 3))
        self.nholes = np.zeros(0, dtype=np.int64)
        self.syn_s = np.zeros(0)
        self.handshake_s = np.zeros(0)
        self.payload_seen = np.zeros(0, dtype=np.bool_)
        self.downstream = np.zeros(0, dtype=np.int64)

    def grow(self, flows: int) -> None:
        old = self.next_seq.size
        if flows <= old:
            return
        new = max(flows, 2 * old, 64)

        def more(a: np.ndarray, fill: float) -> np.ndarray:
            extra = np.full((new - old, *a.shape[1:]), fill, dtype=a.dtype)
            return np.concatenate([a, extra])

        self.next_seq = more(self.next_seq, 0)
        self.has_next = more(self.has_next, False)
        self.holes = more(self.holes, 0.0)
        self.nholes = more(self.nholes, 0)
        self.syn_s = more(self.syn_s, np.nan)
        self.handshake_s = more(self.handshake_s, np.nan)
        self.payload_seen = more(self.payload_seen, False)
        self.downstream = more(self.downstream, 0)


@njit(cache=True)
def track_tcp(
    flow,
    tcp,
    seq,
    flags,
    payload,
    ts,
    next_seq,
    has_next,
    holes,
    nholes,
    syn_s,
    handshake_s,
    payload_seen,
    downstream,
    loss_time,
    hole_time,
):
    """The reference decoder's ``_tcp`` over arrays: the loss time each packet reveals, and
    its own time where it opens a hole (NaN otherwise)."""
    for k in range(flow.size):
        loss_time[k] = np.nan
        hole_time[k] = np.nan
        if not tcp[k]:
            continue
        i = flow[k]
        f = flags[k]
        t = ts[k]
        if f & _SYN:
            if not f & _ACK:
                syn_s[i] = t
            next_seq[i] = seq[k] + 1
            has_next[i] = True
            nholes[i] = 0
            continue
        if syn_s[i] == syn_s[i]:
            if f & _ACK:
                handshake_s[i] = t - syn_s[i]
            syn_s[i] = np.nan
        p = payload[k]
        if p <= 0:
            continue
        payload_seen[i] = True
        if not has_next[i]:
            next_seq[i] = seq[k] + p
            has_next[i] = True
            continue
        nxt = next_seq[i]
        ahead = (seq[k] - nxt) & _MASK
        if ahead == 0:
            next_seq[i] = nxt + p
            continue
        if ahead < _HALF:
            hole_time[k] = t
            m = nholes[i]
            holes[i, m, 0] = nxt
            holes[i, m, 1] = nxt + ahead
            holes[i, m, 2] = t
            m += 1
            if m > MAX_HOLES:
                for j in range(m - 1):
                    holes[i, j, :] = holes[i, j + 1, :]
                m -= 1
            nholes[i] = m
            next_seq[i] = nxt + ahead + p
            continue
        start = nxt - ((_HALF * 2) - ahead)
        found = False
        for j in range(nholes[i]):
            if holes[i, j, 0] <= start < holes[i, j, 1]:
                found = True
                end = start + p
                loss_time[k] = holes[i, j, 2]
                if start == holes[i, j, 0]:
                    holes[i, j, 0] = end
                    if holes[i, j, 0] >= holes[i, j, 1]:
                        for q in range(j, nholes[i] - 1):
                            holes[i, q, :] = holes[i, q + 1, :]
                        nholes[i] -= 1
                else:
                    if end < holes[i, j, 1]:
                        m = nholes[i]
                        holes[i, m, 0] = end
                        holes[i, m, 1] = holes[i, j, 1]
                        holes[i, m, 2] = holes[i, j, 2]
                        holes[i, j, 1] = start
                        m += 1
                        if m > MAX_HOLES:  # as the reference: the oldest is forgotten
                            for q in range(m - 1):
                                holes[i, q, :] = holes[i, q + 1, :]
                            m -= 1
                        nholes[i] = m
                    else:
                        holes[i, j, 1] = start
                break
        if not found:
            downstream[i] += 1
