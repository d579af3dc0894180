"""What the trace readers hand to the estimators: batches of packets and the flow table."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class TraceFormatError(ValueError):
    """A trace file that cannot be read: the message says what is wrong and where.

    Attributes
    ----------
    path : the file's name as given.
    byte_offset : offset in the file of the bad record (or of the cut), or None.
    line : 1-based line of a text file, or None.
    """

    def __init__(
        self,
        path: str,
        message: str,
        *,
        byte_offset: int | None = None,
        line: int | None = None,
    ) -> None:
        where = []
        if line is not None:
            where.append(f"line {line:,}")
        if byte_offset is not None:
            where.append(f"byte offset {byte_offset:,}")
        location = f" ({', '.join(where)})" if where else ""
        super().__init__(f"{path}{location}: {message}")
        self.path = path
        self.byte_offset = byte_offset
        self.line = line


@dataclass
class PacketBatch:
    """Consecutive packets of a trace, in time order, as columns.

    Attributes
    ----------
    time_s : departure time (or, for a drop, the time of the drop), s.
    flow : index of the packet's flow in the reader's :class:`FlowTable`.
    size_bytes : bytes on the wire.
    dropped : True for a packet dropped at the link (a drop event of the CSV format).
    loss_time_s : NaN, or the time of a loss of the packet's flow at the link that this
        packet shows: for a CSV drop its own time; for a pcap retransmission that fills a
        sequence hole, the time the hole was first seen (the next segment's departure, just
        after the drop), which is earlier than the packet's own time by about one RTT.
    hole_s : a capture's packets only (None otherwise): the packet's own time where its
        sequence number skips segments the capture has not seen (a hole: a drop here or
        before this link, just before it), NaN elsewhere. The loss is counted when the
        retransmission fills the hole (``loss_time_s``); the hole tells at once that the link
        dropped a packet, as a drop event does.
    """

    time_s: FloatArray
    flow: IntArray
    size_bytes: IntArray
    dropped: BoolArray
    loss_time_s: FloatArray
    hole_s: FloatArray | None = None

    def __len__(self) -> int:
        return int(self.time_s.size)


@dataclass
class FlowTable:
    """Flow keys (a 5-tuple text or the CSV's id) and their dense indices, in order of appearance.

    ``handshake_rtt_s`` holds the RTT measured from a flow's SYN to the ACK that completes its
    handshake, where the capture saw both (pcap only); ``no_payload`` the flows that carried
    no TCP payload (acknowledgement streams of the other direction); ``downstream_losses`` per
    flow the retransmissions of segments the capture had already seen (lost after this link).
    """

    keys: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    handshake_rtt_s: dict[int, float] = field(default_factory=dict)
    no_payload: set[int] = field(default_factory=set)
    downstream_losses: dict[int, int] = field(default_factory=dict)
    not_tcp: set[int] = field(default_factory=set)

    def lookup(self, key: str) -> int:
        """The index of ``key``, adding it if new."""
        found = self.index.get(key)
        if found is None:
            found = len(self.keys)
            self.index[key] = found
            self.keys.append(key)
        return found

    def __len__(self) -> int:
        return len(self.keys)


class TraceReader(Protocol):
    """A streaming reader: batches in time order, the flow table, and how far it has read."""

    path: str
    kind: str
    flows: FlowTable
    has_drops: bool
    total_bytes: int
    bytes_read: int
    notes: list[str]  # what the reader put right or left out, in words
    reordered_packets: int  # packets put back in time order

    def batches(self) -> Iterator[PacketBatch]:
        """Yield the packets in batches; raise :class:`TraceFormatError` on a bad record."""
        ...
