"""pcap and pcapng captures: packets, handshake RTTs and inferred losses.

The file is read by :mod:`validation.traces.capture_blocks` (classic pcap here, a block at a
time; pcapng and the rest by libpcap through pcapy-ng), the link-layer headers walked by
:mod:`validation.traces.link_layers`, the IP and TCP fields read by the compiled passes of
:mod:`validation.traces.pcap_fast`; packets a few milliseconds out of time order are put
back in order (:mod:`validation.traces.reorder`). The reference path (``exact=True``: dpkt's
reader, one packet at a time, Ethernet with one 802.1Q tag, raw IP, Linux SLL, BSD loopback)
is what the tests check the fast path against.

What a capture at a router port can and cannot tell (004 §VI):

- it has no drop events. A segment lost at this link (or before it) never passes the capture
  point: the capture shows a **sequence hole** when the next segment of the flow passes, and
  later a retransmission that fills it. Each filled hole counts as one loss at the time the
  hole was seen (right after the drop). Losses before this link (RBP flows' access links) look
  the same, so from a capture alone a flow losing upstream is counted as losing here; the CSV
  format, with the link's own drop events, separates them.
- a retransmission of a segment the capture had already seen was lost **after** this link;
  it is counted per flow (``FlowTable.downstream_losses``) and is not a loss here.
- RTTs: the SYN and the ACK that completes the handshake both pass a port that carries the
  client-to-server direction; their spacing is one full RTT (H. Jiang, C. Dovrolis, "Passive
  estimation of TCP round-trip times", CCR 2002, the [21] of 004 §VI). Flows whose handshake
  is not seen get the first-round spacing of the estimators instead.
- the loss rate, C_e, N_b (with the caveat above) and the loss bursts (from the hole times).

TCP packets without payload (the SYN, the handshake's ACK, pure ACKs, a bare FIN) are read for
the handshake and the sequence numbers only: the estimators time data packets, and a flight,
a round or a back-to-back pair made of acknowledgements would be none of a sender's windows.
"""

from __future__ import annotations

import os
import socket
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import dpkt
import numpy as np

from validation.traces import pcap_fast
from validation.traces.capture_blocks import PCAP_BLOCK_BYTES, Block, CaptureBlocks, is_capture
from validation.traces.pcap_fast import flow_key
from validation.traces.records import FlowTable, PacketBatch, TraceFormatError
from validation.traces.reorder import ReorderWindow

#: Packets per batch handed to the estimators.
BATCH_PACKETS = 1 << 16
#: Holes remembered per flow (the oldest is forgotten past this).
MAX_HOLES = 64
_MASK = 0xFFFFFFFF
_HALF = 1 << 31
_TH_SYN = 0x02
_TH_ACK = 0x10
_IPV4 = struct.Struct("!BxH5xB2x4s4s")  # version/ihl, total length, protocol, src, dst
_PORTS = struct.Struct("!HH")
_TCP = struct.Struct("!HHIIBB")  # ports, seq, ack, data offset, flags
_IPV6 = struct.Struct("!4xHBx16s16s")  # payload length, next header, src, dst
_PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"
#: Link-layer header length (or None: Ethernet, parsed for its type and VLAN tag).
_LINK_OFFSETS: dict[int, int | None] = {1: None, 101: 0, 12: 0, 14: 0, 228: 0, 113: 16, 0: 4}
_PROTOCOLS = {6: "tcp", 17: "udp"}


class _CountingFile:
    """A file that remembers where the reader is and the first read that came up short."""

    def __init__(self, handle: BinaryIO, size: int, record_header: int) -> None:
        self.handle = handle
        self.size = size
        self.record_header = record_header
        self.position = 0
        self.record_start = 0
        self.short_read: tuple[int, int, int] | None = None
        self.name = getattr(handle, "name", "")

    def read(self, n: int = -1) -> bytes:
        if n == self.record_header:
            self.record_start = self.position
        data = self.handle.read(n)
        if n >= 0 and len(data) < n and self.short_read is None:
            self.short_read = (self.position, n, len(data))
        self.position += len(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        self.position = self.handle.seek(offset, whence)
        return self.position


class PcapTraceReader:
    """Stream a pcap or pcapng capture taken at the link.

    Parameters
    ----------
    path : str or Path
        The capture file.
    """

    has_drops = False

    def __init__(self, path: str | Path, *, exact: bool = False) -> None:
        self.path = str(path)
        self.exact = exact
        self.flows = FlowTable()
        self.total_bytes = os.path.getsize(self.path)
        self.bytes_read = 0
        self.kind = "pcap"
        self._index: dict[bytes, int] = {}
        self._next_seq: list[int | None] = []
        self._holes: list[list[list[float]]] = []
        self._syn_s: dict[int, float] = {}
        self._payload: list[bool] = []
        self._record_offset = 0
        self.notes: list[str] = []
        self.reordered_packets = 0

    def batches(self) -> Iterator[PacketBatch]:
        """Yield the packets in batches; raise :class:`TraceFormatError` on a bad record."""
        with open(self.path, "rb") as raw:
            head = raw.read(4)
        if not is_capture(head):
            raise TraceFormatError(
                self.path,
                f"not a pcap or pcapng capture (magic number {head.hex() or 'missing'})",
                byte_offset=0,
            )
        if self.exact:
            yield from self._reference_batches(head)
            return
        source = CaptureBlocks(self.path, head)
        self.kind = source.kind
        state = pcap_fast.TcpState()
        window = ReorderWindow()
        for block in source.blocks():
            columns = self._columns(block, source.link)
            ready, bad, late_s = window.push(columns)
            if bad >= 0:
                offset = int(columns[-1][bad])
                number = int(columns[-2][bad]) + 1
                raise TraceFormatError(
                    self.path,
                    f"packet {number:,} is {late_s:.6g} s earlier than a packet before it, "
                    f"more than the {window.window_s * 1e3:g} ms this reader puts back "
                    "in order; sort the capture by time (Wireshark's reordercap)",
                    byte_offset=offset if offset >= 0 else None,
                )
            yield from self._tracked(ready, state)
            self.bytes_read = source.bytes_read
        yield from self._tracked(window.flush(), state)
        self.reordered_packets = window.reordered
        self.notes = list(source.notes)
        if window.reordered:
            self.notes.append(
                f"{window.reordered:,} packets were earlier than a packet before them (by "
                f"{window.window_s * 1e3:g} ms at most) and were put back in time order"
            )
        self.flows.no_payload = {
            i
            for i in range(len(self.flows))
            if i not in self.flows.not_tcp
            and not (i < state.payload_seen.size and state.payload_seen[i])
        }
        self.bytes_read = self.total_bytes

    def _reference_batches(self, head: bytes) -> Iterator[PacketBatch]:
        """The reference path: records read one at a time (dpkt for pcapng)."""
        with open(self.path, "rb") as raw:
            self.kind = "pcapng" if head == _PCAPNG_MAGIC else "pcap"
            record_header = 8 if self.kind == "pcapng" else 16
            counted = _CountingFile(raw, self.total_bytes, record_header)
            try:
                reader: Any = dpkt.pcap.UniversalReader(counted)
            except (ValueError, dpkt.Error, struct.error) as exc:
                raise TraceFormatError(
                    self.path, f"bad {self.kind} file header: {exc}", byte_offset=0
                ) from exc
            link = int(reader.datalink())
            if link not in _LINK_OFFSETS:
                raise TraceFormatError(
                    self.path,
                    f"link type {link} is not supported by the reference reader",
                    byte_offset=0,
                )
            if self.kind == "pcap":
                yield from self._read(self._pcap_records(raw, head), counted, link)
            else:
                yield from self._read(iter(reader), counted, link)

    def _columns(self, block: Block, link: int) -> list[np.ndarray]:
        """The IP packets of a block as columns: time, flow, length, TCP (has a header), seq,
        flags, payload bytes, packet number in the file, record offset (or -1)."""
        dec = pcap_fast.decode(block.buf, block.data, block.caplen, link)
        rows = np.flatnonzero(dec.ip)
        flow = np.empty(rows.size, dtype=np.int64)
        if rows.size:
            # Flow indices: one dictionary look-up per distinct key, new flows in order.
            keys = np.ascontiguousarray(dec.key[rows]).view(f"V{pcap_fast.KEY_BYTES}").ravel()
            unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            index = np.empty(unique.size, dtype=np.int64)
            for u in np.argsort(first, kind="stable").tolist():
                key = unique[u].tobytes()
                found = self._index.get(key)
                if found is None:
                    found = self._new_flow(key, *_key_parts(key))
                index[u] = found
            flow = index[inverse.reshape(-1)]
        return [
            block.ts[rows],
            flow,
            dec.length[rows],
            dec.tcp[rows],
            dec.seq[rows],
            dec.flags[rows],
            dec.payload[rows],
            rows + block.first_packet,
            block.offset[rows],
        ]

    def _tracked(
        self, columns: list[np.ndarray], state: pcap_fast.TcpState
    ) -> Iterator[PacketBatch]:
        """Packets in time order through the per-flow sequence tracking, as a batch."""
        if not columns or not columns[0].size:
            return
        ts, flow, length, tcp, seq, flags, payload = columns[:7]
        state.grow(len(self.flows))
        loss = np.empty(flow.size)
        hole = np.empty(flow.size)
        pcap_fast.track_tcp(
            flow,
            tcp,
            seq,
            flags,
            payload,
            ts,
            state.next_seq,
            state.has_next,
            state.holes,
            state.nholes,
            state.syn_s,
            state.handshake_s,
            state.payload_seen,
            state.downstream,
            loss,
            hole,
        )
        n = len(self.flows)
        for i in np.flatnonzero(np.isfinite(state.handshake_s[:n])).tolist():
            self.flows.handshake_rtt_s[i] = float(state.handshake_s[i])
        for i in np.flatnonzero(state.downstream[:n]).tolist():
            self.flows.downstream_losses[i] = int(state.downstream[i])
        data = ~tcp | (payload > 0)  # a TCP packet without payload is timed nowhere
        if data.any():
            yield PacketBatch(
                time_s=ts[data],
                flow=flow[data],
                size_bytes=length[data],
                dropped=np.zeros(int(data.sum()), dtype=np.bool_),
                loss_time_s=loss[data],
                hole_s=hole[data],
            )

    def _pcap_records(self, raw: BinaryIO, magic: bytes) -> Iterator[tuple[float, bytes]]:
        """The records of a libpcap file: (timestamp, packet bytes), read in large blocks.

        The same records dpkt's ``pcap.Reader`` yields (16-byte header: seconds, micro- or
        nanoseconds, captured and original length), read with one ``struct`` call per record
        from a block of the file instead of one dpkt header object per record, which costs
        about five times as much (measured with ``benchmarks/trace_read_speed.py``).
        """
        little = magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1")
        nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
        header = struct.Struct("<IIII" if little else ">IIII")
        scale = 1e-9 if nano else 1e-6
        unpack = header.unpack_from
        raw.seek(24)
        base = 24  # file offset of block[0]
        block = b""
        pos = 0
        while True:
            if len(block) - pos < 16 or len(block) - pos < 16 + unpack(block, pos)[2]:
                more = raw.read(PCAP_BLOCK_BYTES)
                block = block[pos:] + more
                base += pos
                pos = 0
                if not more:
                    if block:
                        need = 16 if len(block) < 16 else 16 + unpack(block, 0)[2]
                        raise TraceFormatError(
                            self.path,
                            f"the file is cut short: a record needs {need:,} bytes, "
                            f"the file has {len(block):,}",
                            byte_offset=base,
                        )
                    return
                continue
            seconds, fraction, captured, _ = unpack(block, pos)
            self._record_offset = base + pos
            start = pos + 16
            pos = start + captured
            yield seconds + fraction * scale, block[start:pos]

    def _read(
        self, packets: Iterator[tuple[Any, bytes]], counted: _CountingFile, link: int
    ) -> Iterator[PacketBatch]:
        times: list[float] = []
        flows: list[int] = []
        sizes: list[int] = []
        loss_times: list[float] = []
        hole_times: list[float] = []
        offset = _LINK_OFFSETS[link]
        last_s = -np.inf
        while True:
            try:
                item = next(packets)
            except StopIteration:
                break
            except TraceFormatError:
                raise
            except (dpkt.Error, struct.error, ValueError, IndexError) as exc:
                raise TraceFormatError(
                    self.path,
                    f"bad {self.kind} record: {exc or type(exc).__name__}",
                    byte_offset=counted.record_start,
                ) from exc
            self._check_short(counted)
            ts = float(item[0])
            if ts < last_s:
                raise TraceFormatError(
                    self.path,
                    f"timestamps go backwards ({ts!r} s after {last_s!r} s); "
                    "sort the capture by time (e.g. reordercap)",
                    byte_offset=self._record_offset
                    if self.kind == "pcap"
                    else counted.record_start,
                )
            last_s = ts
            parsed = self._packet(item[1], offset, ts)
            if parsed is None:  # not IPv4/TCP: nothing this reader estimates from
                continue
            index, size, loss_s, hole_s = parsed
            times.append(ts)
            flows.append(index)
            sizes.append(size)
            loss_times.append(loss_s)
            hole_times.append(hole_s)
            if len(times) >= BATCH_PACKETS:
                self.bytes_read = self._record_offset if self.kind == "pcap" else counted.position
                yield _batch(times, flows, sizes, loss_times, hole_times)
                times, flows, sizes, loss_times, hole_times = [], [], [], [], []
        self._check_short(counted, at_end=True)
        self.flows.no_payload = {i for i, seen in enumerate(self._payload) if not seen}
        self.bytes_read = self.total_bytes
        if times:
            yield _batch(times, flows, sizes, loss_times, hole_times)

    def _check_short(self, counted: _CountingFile, at_end: bool = False) -> None:
        short = counted.short_read
        if short is None:
            return
        where, wanted, got = short
        clean_end = got == 0 and wanted == counted.record_header and where == counted.size
        if clean_end and at_end:
            return
        if clean_end:
            return
        raise TraceFormatError(
            self.path,
            f"the file is cut short: a record needs {wanted:,} more bytes, the file has {got:,}",
            byte_offset=where,
        )

    def _packet(
        self, buf: bytes, offset: int | None, ts: float
    ) -> tuple[int, int, float, float] | None:
        """Flow index, IP length, loss time and hole time (NaN: none) of one packet; None if
        it is not IP or is a TCP packet without payload."""
        fields = self._decode(buf, offset)
        if fields is None:
            return None
        index, length, tcp = fields
        if tcp is None:
            return index, length, np.nan, np.nan
        seq, flags, payload_bytes = tcp
        loss_s, hole_s = self._tcp(index, seq, flags, payload_bytes, ts)
        if payload_bytes <= 0:  # SYN, pure ACK, FIN: seen for the handshake, timed nowhere
            return None
        return index, length, loss_s, hole_s

    def _decode(
        self, buf: bytes, offset: int | None
    ) -> tuple[int, int, tuple[int, int, int] | None] | None:
        """Flow index, IP length and (seq, flags, payload) of a TCP packet; None if not IP."""
        if offset is None:  # Ethernet
            if len(buf) < 14:
                return None
            ether = buf[12:14]
            pos = 14
            if ether == b"\x81\x00":
                ether = buf[16:18]
                pos = 18
            if ether == b"\x08\x00":
                version = 4
            elif ether == b"\x86\xdd":
                version = 6
            else:
                return None
        else:
            pos = offset
            if len(buf) <= pos:
                return None
            version = buf[pos] >> 4
        ip_start = pos
        if version == 4:
            if len(buf) < pos + 20:
                return None
            vihl, length, proto, src, dst = _IPV4.unpack_from(buf, pos)
            pos += (vihl & 0x0F) * 4
        elif version == 6:
            if len(buf) < pos + 40:
                return None
            payload, proto, src, dst = _IPV6.unpack_from(buf, pos)
            length = payload + 40
            pos += 40
        else:
            return None
        transport = proto in _PROTOCOLS and len(buf) >= pos + 4
        ports = buf[pos : pos + 4] if transport else b""
        key = flow_key(src, dst, ports, proto)
        index = self._index.get(key)
        if index is None:
            index = self._new_flow(key, src, dst, ports, proto)
        if proto != 6 or len(buf) < pos + 14:
            return index, length, None
        _, _, seq, _, data_offset, flags = _TCP.unpack_from(buf, pos)
        payload_bytes = length - (pos - ip_start) - (data_offset >> 4) * 4
        return index, length, (seq, flags, payload_bytes)

    def _new_flow(self, key: bytes, src: bytes, dst: bytes, ports: bytes, proto: int) -> int:
        family = socket.AF_INET if len(src) == 4 else socket.AF_INET6
        name = _PROTOCOLS.get(proto, str(proto))
        if ports:
            sport, dport = _PORTS.unpack(ports)
            text = (
                f"{socket.inet_ntop(family, src)}:{sport}>"
                f"{socket.inet_ntop(family, dst)}:{dport}/{name}"
            )
        else:
            text = f"{socket.inet_ntop(family, src)}>{socket.inet_ntop(family, dst)}/{name}"
        index = self.flows.lookup(text)
        self._index[key] = index
        if proto != 6:
            self.flows.not_tcp.add(index)
        while len(self._next_seq) <= index:
            self._next_seq.append(None)
            self._holes.append([])
            self._payload.append(proto != 6)
        return index

    def _tcp(
        self, index: int, seq: int, flags: int, payload: int, ts: float
    ) -> tuple[float, float]:
        """Track the flow's sequence space: the time of the loss this segment reveals, and
        ``ts`` where it skipped segments not seen (a hole); NaN otherwise."""
        if flags & _TH_SYN:
            if not flags & _TH_ACK:
                self._syn_s[index] = ts
            self._next_seq[index] = seq + 1
            self._holes[index].clear()
            return np.nan, np.nan
        syn_s = self._syn_s.pop(index, None)
        if syn_s is not None and flags & _TH_ACK:
            self.flows.handshake_rtt_s[index] = ts - syn_s
        if payload <= 0:
            return np.nan, np.nan
        self._payload[index] = True
        nxt = self._next_seq[index]
        if nxt is None:  # joined mid-flow
            self._next_seq[index] = seq + payload
            return np.nan, np.nan
        ahead = (seq - nxt) & _MASK
        if ahead == 0:
            self._next_seq[index] = nxt + payload
            return np.nan, np.nan
        holes = self._holes[index]
        if ahead < _HALF:  # a hole: segments lost at this link or before it
            holes.append([float(nxt), float(nxt + ahead), ts])
            if len(holes) > MAX_HOLES:
                del holes[0]
            self._next_seq[index] = nxt + ahead + payload
            return np.nan, ts
        start = nxt - (_HALF * 2 - ahead)  # unwrapped sequence number behind nxt
        for i, hole in enumerate(holes):
            if hole[0] <= start < hole[1]:
                end = start + payload
                if start == hole[0]:
                    hole[0] = float(end)
                    if hole[0] >= hole[1]:
                        del holes[i]
                else:
                    if end < hole[1]:
                        holes.append([float(end), hole[1], hole[2]])
                    hole[1] = float(start)
                    if len(holes) > MAX_HOLES:
                        del holes[0]
                return hole[2], np.nan
        losses = self.flows.downstream_losses
        losses[index] = losses.get(index, 0) + 1
        return np.nan, np.nan


def _key_parts(key: bytes) -> tuple[bytes, bytes, bytes, int]:
    """Source, destination, ports (b"" if none) and protocol of a :func:`flow_key`."""
    width = key[0]
    ports = key[33:37] if key[37] else b""
    return key[1 : 1 + width], key[17 : 17 + width], ports, key[38]


def _batch(
    times: list[float],
    flows: list[int],
    sizes: list[int],
    loss_times: list[float],
    hole_times: list[float],
) -> PacketBatch:
    time_s = np.array(times, dtype=np.float64)
    return PacketBatch(
        time_s=time_s,
        flow=np.array(flows, dtype=np.int64),
        size_bytes=np.array(sizes, dtype=np.int64),
        dropped=np.zeros(time_s.size, dtype=np.bool_),
        loss_time_s=np.array(loss_times, dtype=np.float64),
        hole_s=np.array(hole_times, dtype=np.float64),
    )
