"""A capture file's packets, a block at a time: bytes, offsets, captured lengths, timestamps.

Two sources, chosen by the file's magic number:

- classic libpcap files (micro- or nanosecond, either byte order; "PCAP Capture File Format",
  IETF draft-ietf-opsawg-pcap §4-5) are read here, a few MB at a time: the 16-byte record
  headers of a block are found with one compiled pass (:func:`pcap_fast.record_offsets`) and
  gathered with numpy, which keeps the nanoseconds and reads as fast as tcpdump does;
- every other capture, pcapng first, is read by libpcap itself through pcapy-ng
  (``next_batch``: thousands of packets per call): libpcap applies each pcapng interface's own
  timestamp resolution and offset, and reads what tcpdump reads. Its timestamps are in
  microseconds (libpcap's default precision, as tcpdump prints them).

Both drop a record the file cuts short at its end, as tcpdump does, and say so in ``notes``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pcapy

from validation.traces import pcap_fast
from validation.traces.link_layers import LINK_NAMES, link_name, supported_list
from validation.traces.records import TraceFormatError

#: Bytes of a libpcap file read at a time.
PCAP_BLOCK_BYTES = 1 << 22
#: Packets asked of libpcap at a time.
LIBPCAP_BATCH = 1 << 15
#: Records of a block at most.
BLOCK_RECORDS = 1 << 16
_PCAP_LITTLE = {b"\xd4\xc3\xb2\xa1": False, b"\x4d\x3c\xb2\xa1": True}  # value: nanoseconds
_PCAP_BIG = {b"\xa1\xb2\xc3\xd4": False, b"\xa1\xb2\x3c\x4d": True}
#: Magic numbers libpcap reads besides those: pcapng, and the "modified" libpcap format.
_OTHER_MAGICS = {b"\x0a\x0d\x0d\x0a", b"\x34\xcd\xb2\xa1", b"\xa1\xb2\xcd\x34"}


def is_capture(head: bytes) -> bool:
    """True when ``head`` (the first 4 bytes of a file) is a pcap or pcapng magic number."""
    head = head[:4]
    return head in _PCAP_LITTLE or head in _PCAP_BIG or head in _OTHER_MAGICS


@dataclass
class Block:
    """Packets of a capture, in file order.

    ``buf[data[k] : data[k] + caplen[k]]`` is packet ``k``'s captured bytes, ``ts[k]`` its
    time (s); ``offset[k]`` its record's byte offset in the file (classic pcap) or -1;
    ``first_packet`` the 0-based number in the file of packet 0.
    """

    buf: np.ndarray
    data: np.ndarray
    caplen: np.ndarray
    ts: np.ndarray
    offset: np.ndarray
    first_packet: int


class CaptureBlocks:
    """The packets of ``path`` in blocks; ``kind`` is "pcap" or "pcapng", ``link`` the link type.

    Raises :class:`TraceFormatError` for a file libpcap cannot read, or a link type without IP
    this reader can find (naming it and the ones it reads).
    """

    def __init__(self, path: str, head: bytes) -> None:
        self.path = path
        self.total_bytes = os.path.getsize(path)
        self.bytes_read = 0
        self.notes: list[str] = []
        self._classic = head in _PCAP_LITTLE or head in _PCAP_BIG
        self.kind = "pcapng" if head == b"\x0a\x0d\x0d\x0a" else "pcap"
        if self._classic:
            self._little = head in _PCAP_LITTLE
            self._nano = (_PCAP_LITTLE if self._little else _PCAP_BIG)[head]
            with open(path, "rb") as handle:
                header = handle.read(24)
            if len(header) < 24:
                raise TraceFormatError(
                    path,
                    f"bad pcap file header: {len(header)} bytes of 24",
                    byte_offset=0,
                )
            field = pcap_fast.u32_header(
                np.frombuffer(header, dtype=np.uint8), np.array([20]), self._little
            )
            self.link = int(field[0]) & 0x0FFFFFFF  # the top bits may hold the FCS length
        else:
            self.link = int(self._open().datalink())
        if self.link not in LINK_NAMES:
            raise TraceFormatError(
                path,
                f"link type {link_name(self.link)} carries no IP packets this reader can "
                f"find; it reads link types {supported_list()}",
                byte_offset=0 if self._classic else None,
            )

    def _open(self) -> pcapy.Reader:
        try:
            return pcapy.open_offline(self.path)
        except pcapy.PcapError as exc:
            raise TraceFormatError(self.path, f"libpcap cannot read it: {exc}") from exc

    def blocks(self) -> Iterator[Block]:
        """The file's packets, a block at a time."""
        if self._classic:
            yield from self._pcap_blocks()
        else:
            yield from self._libpcap_blocks()
        self.bytes_read = self.total_bytes

    def _pcap_blocks(self) -> Iterator[Block]:
        little, nano = self._little, self._nano
        starts = np.zeros(BLOCK_RECORDS, dtype=np.int64)
        block = np.zeros(0, dtype=np.uint8)
        base = 24  # file offset of block[0]
        number = 0
        with open(self.path, "rb") as raw:
            raw.seek(24)
            while True:
                more = raw.read(PCAP_BLOCK_BYTES)
                if more:
                    block = np.concatenate([block, np.frombuffer(more, dtype=np.uint8)])
                count, end = pcap_fast.record_offsets(block, 0, little, starts)
                while count:
                    at = starts[:count].copy()
                    seconds = pcap_fast.u32_header(block, at, little)
                    fraction = pcap_fast.u32_header(block, at + 4, little)
                    yield Block(
                        buf=block,
                        data=at + 16,
                        caplen=pcap_fast.u32_header(block, at + 8, little),
                        ts=seconds + fraction * (1e-9 if nano else 1e-6),
                        offset=at + base,
                        first_packet=number,
                    )
                    number += count
                    block = block[end:]
                    base += end
                    count, end = pcap_fast.record_offsets(block, 0, little, starts)
                self.bytes_read = min(base, self.total_bytes)
                if not more:
                    break
        if block.size:
            need = 16
            if block.size >= 16:
                need += int(pcap_fast.u32_header(block, np.array([8]), little)[0])
            self.notes.append(
                f"the last record (byte offset {base:,}) is cut short: it needs {need:,} "
                f"bytes, the file has {block.size:,}; it was left out, as tcpdump does"
            )

    def _libpcap_blocks(self) -> Iterator[Block]:
        reader = self._open()
        number = 0
        while True:
            try:
                packets, meta = reader.next_batch(LIBPCAP_BATCH)
            except pcapy.PcapError as exc:
                # libpcap's batch loses the packets it had read before the error: read them
                # again one by one from a new handle, up to the error.
                yield from self._up_to_error(number, exc)
                return
            if not len(meta):
                return
            block = self._block(packets, meta, number)
            number += block.data.size
            self.bytes_read = self._position(reader)
            yield block

    def _block(self, packets: bytes, meta: bytes, number: int) -> Block:
        fields = np.frombuffer(meta, dtype=np.uint32).reshape(-1, 4).astype(np.int64)
        return Block(
            buf=np.frombuffer(packets, dtype=np.uint8),
            data=fields[:, 2],
            caplen=fields[:, 3],
            ts=fields[:, 0] + fields[:, 1] * 1e-6,
            offset=np.full(fields.shape[0], -1, dtype=np.int64),
            first_packet=number,
        )

    def _position(self, reader: pcapy.Reader) -> int:
        try:
            return min(os.lseek(reader.getfd(), 0, os.SEEK_CUR), self.total_bytes)
        except (OSError, pcapy.PcapError):
            return self.bytes_read

    def _up_to_error(self, number: int, error: pcapy.PcapError) -> Iterator[Block]:
        reader = self._open()
        skipped = 0
        while skipped < number:
            _, meta = reader.next_batch(min(LIBPCAP_BATCH, number - skipped))
            skipped += len(meta) // 16
        chunks: list[bytes] = []
        meta_rows: list[tuple[int, int, int, int]] = []
        offset = 0
        while True:
            try:
                header, data = reader.next()
            except pcapy.PcapError:
                break
            if header is None:
                break
            seconds, micro = header.getts()
            data = bytes(data)
            meta_rows.append((seconds, micro, offset, len(data)))
            chunks.append(data)
            offset += len(data)
        if meta_rows:
            meta = np.array(meta_rows, dtype=np.uint32).tobytes()
            yield self._block(b"".join(chunks), meta, number)
        message = str(error)
        read = number + len(meta_rows)
        where = f"after {read:,} packet{'' if read == 1 else 's'}"
        if "truncated" not in message:
            raise TraceFormatError(self.path, f"libpcap stops reading it {where}: {message}")
        self.notes.append(
            f"the file ends inside a record ({where}; libpcap: {message}); the cut record "
            "was left out, as tcpdump does"
        )
