"""The CSV trace ``bufsize simulate --trace`` writes, read in chunks.

The file starts with the header ``time_s,flow,size_bytes,dropped`` and has one packet a line:
the time in seconds, the flow (an integer id or any text without commas, such as a 5-tuple),
the bytes on the wire, and 1 for a drop at the link or 0 for a departure. Lines are in time
order. The reader streams the file in blocks through Apache Arrow's CSV reader
(``pyarrow.csv.open_csv``: a C++ parser that yields one record batch per block, the flow
column dictionary-encoded), takes each column as a numpy array and checks it vectorized, so
memory holds a few blocks and the flow table, whatever the size of the file.

Errors name the line and its byte offset: when a block fails (Arrow cannot parse it, or a
value breaks a bound), the file is read again from the start with the exact parser of this
module (``_exact_batches``: a split of each chunk, numpy conversions and a line-by-line search
for the first bad line), which raises the error with its place. That parser is also the
reference the fast one is tested against.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from validation.traces.records import FlowTable, IntArray, PacketBatch, TraceFormatError

#: The header the reader expects (the columns ``bufsize simulate --trace`` writes).
CSV_COLUMNS = ("time_s", "flow", "size_bytes", "dropped")
#: Bytes read at a time (a chunk ends at the last newline in it).
CHUNK_BYTES = 1 << 22
#: Smallest block handed to Arrow (a line must fit in one block).
MIN_ARROW_BLOCK_BYTES = 1 << 20


class _CountingFile:
    """The trace file, counting the bytes Arrow has read from it (for the progress)."""

    def __init__(self, path: str) -> None:
        self.handle = open(path, "rb")  # closed by close()
        self.position = 0

    def read(self, n: int = -1) -> bytes:
        data = self.handle.read(n)
        self.position += len(data)
        return data

    @property
    def closed(self) -> bool:
        """Arrow asks before it reads."""
        return self.handle.closed

    def close(self) -> None:
        self.handle.close()


class CsvTraceReader:
    """Stream a CSV trace of departures and drops.

    Parameters
    ----------
    path : str or Path
        The CSV file.
    chunk_bytes : int
        Bytes read at a time.
    """

    kind = "csv"
    has_drops = True

    def __init__(self, path: str | Path, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.path = str(path)
        self.chunk_bytes = int(chunk_bytes)
        self.flows = FlowTable()
        self.total_bytes = os.path.getsize(self.path)
        self.bytes_read = 0
        self.notes: list[str] = []
        self.reordered_packets = 0
        self._last_time_s = -np.inf

    def batches(self) -> Iterator[PacketBatch]:
        """Yield the packets block by block; raise :class:`TraceFormatError` on a bad line."""
        with open(self.path, "rb") as handle:
            header = handle.readline()
            self._check_header(header)
        counted = _CountingFile(self.path)
        try:
            reader = pacsv.open_csv(
                counted,
                read_options=pacsv.ReadOptions(
                    block_size=max(self.chunk_bytes, MIN_ARROW_BLOCK_BYTES),
                    skip_rows=1,
                    column_names=list(CSV_COLUMNS),
                ),
                convert_options=pacsv.ConvertOptions(
                    column_types={
                        "time_s": pa.float64(),
                        "flow": pa.dictionary(pa.int32(), pa.string()),
                        "size_bytes": pa.int64(),
                        "dropped": pa.int64(),
                    },
                    strings_can_be_null=False,
                ),
            )
            while True:
                try:
                    block = reader.read_next_batch()
                except StopIteration:
                    break
                batch = self._convert(block)
                if batch is None:  # a value out of bounds: find and name it
                    self._locate_error("a value is out of bounds")
                self.bytes_read = min(counted.position, self.total_bytes)
                if len(batch):
                    yield batch
        except pa.ArrowInvalid as exc:
            self._locate_error(str(exc))
        finally:
            counted.close()
        self.bytes_read = self.total_bytes

    def _convert(self, block: pa.RecordBatch) -> PacketBatch | None:
        """The block as a batch, or None if a value breaks a bound (or is missing)."""
        if any(block.column(k).null_count for k in range(4)):
            return None
        time_s = block.column(0).to_numpy()
        size_bytes = block.column(2).to_numpy()
        dropped_int = block.column(3).to_numpy()
        if time_s.size == 0:
            return PacketBatch(
                time_s, np.zeros(0, np.int64), size_bytes, np.zeros(0, np.bool_), time_s
            )
        if not (
            np.isfinite(time_s).all()
            and time_s.min() >= 0.0
            and time_s[0] >= self._last_time_s
            and (time_s[1:] >= time_s[:-1]).all()
            and size_bytes.min() >= 1
            and ((dropped_int == 0) | (dropped_int == 1)).all()
        ):
            return None
        column = block.column(1)
        keys = [str(k).strip() for k in column.dictionary.to_pylist()]
        if not all(keys):
            return None
        lookup = np.array([self.flows.lookup(k) for k in keys], dtype=np.int64)
        flow = lookup[column.indices.to_numpy()]
        self._last_time_s = float(time_s[-1])
        dropped = dropped_int.astype(np.bool_)
        return PacketBatch(
            time_s=time_s,
            flow=flow,
            size_bytes=size_bytes,
            dropped=dropped,
            loss_time_s=np.where(dropped, time_s, np.nan),
        )

    def _locate_error(self, message: str) -> NoReturn:
        """Read the file again with the exact parser, which names the bad line; else ``message``."""
        exact = CsvTraceReader(self.path, self.chunk_bytes)
        for _ in exact._exact_batches():
            pass
        raise TraceFormatError(self.path, f"cannot be read as a CSV trace: {message}")

    def _exact_batches(self) -> Iterator[PacketBatch]:
        """The exact parser: chunks split and converted with numpy (see the module docstring)."""
        with open(self.path, "rb") as handle:
            header = handle.readline()
            self._check_header(header)
            offset = len(header)
            line = 2
            rest = b""
            while True:
                block = handle.read(self.chunk_bytes)
                data = rest + block
                if not block:
                    if data.strip():
                        # The last line has no newline: a whole line, or a cut one.
                        yield self._parse(data + b"\n", offset, line)
                    self.bytes_read = self.total_bytes
                    return
                cut = data.rfind(b"\n") + 1
                rest = data[cut:]
                if cut:
                    chunk = data[:cut]
                    yield self._parse(chunk, offset, line)
                    offset += len(chunk)
                    line += chunk.count(b"\n")
                self.bytes_read = offset

    def _check_header(self, header: bytes) -> None:
        if not header:
            raise TraceFormatError(self.path, "the file is empty", byte_offset=0, line=1)
        try:
            names = tuple(n.strip() for n in header.decode("utf-8").strip().split(","))
        except UnicodeDecodeError as exc:
            raise TraceFormatError(
                self.path,
                "not a CSV trace (the first line is not text; a pcap or pcapng capture "
                "is recognised by its magic number, so this is neither)",
                byte_offset=exc.start,
                line=1,
            ) from exc
        if names == CSV_COLUMNS:
            return
        if names[-4:] == CSV_COLUMNS and set(names[:-4]) <= {"buffer_packets", "seed"}:
            raise TraceFormatError(
                self.path,
                f"the file holds several runs (leading columns {', '.join(names[:-4])}); "
                "give one run per file (simulate one buffer size, without --replications)",
                byte_offset=0,
                line=1,
            )
        raise TraceFormatError(
            self.path,
            f"the header must be {','.join(CSV_COLUMNS)}; got {header[:80]!r}",
            byte_offset=0,
            line=1,
        )

    def _parse(self, chunk: bytes, offset: int, line: int) -> PacketBatch:
        lines = chunk.count(b"\n")
        fields = chunk.replace(b"\r", b"").replace(b"\n", b",").split(b",")
        fields.pop()  # after the last newline
        if len(fields) != 4 * lines:
            self._locate(chunk, offset, line, "a line must have 4 comma-separated fields")
        cols = np.array(fields).reshape(lines, 4)
        try:
            time_s = cols[:, 0].astype(np.float64)
        except ValueError:
            self._locate(chunk, offset, line, "time_s must be a number", column=0)
        try:
            size_bytes = cols[:, 2].astype(np.int64)
        except ValueError:
            self._locate(chunk, offset, line, "size_bytes must be a whole number", column=2)
        try:
            dropped_int = cols[:, 3].astype(np.int64)
        except ValueError:
            self._locate(chunk, offset, line, "dropped must be 0 or 1", column=3)
        bad = ~np.isfinite(time_s) | (time_s < 0.0)
        self._fail_at(bad, chunk, offset, line, "time_s must be a finite number >= 0")
        order = np.empty(time_s.size, dtype=np.bool_)
        order[0] = time_s[0] < self._last_time_s
        np.less(time_s[1:], time_s[:-1], out=order[1:])
        self._fail_at(
            order, chunk, offset, line, "time_s goes backwards (lines must be in time order)"
        )
        self._fail_at(size_bytes < 1, chunk, offset, line, "size_bytes must be >= 1")
        self._fail_at(
            (dropped_int != 0) & (dropped_int != 1), chunk, offset, line, "dropped must be 0 or 1"
        )
        self._last_time_s = float(time_s[-1])
        dropped = dropped_int.astype(np.bool_)
        flow = self._flows(cols[:, 1], chunk, offset, line)
        return PacketBatch(
            time_s=time_s,
            flow=flow,
            size_bytes=size_bytes,
            dropped=dropped,
            loss_time_s=np.where(dropped, time_s, np.nan),
        )

    def _flows(self, column: np.ndarray, chunk: bytes, offset: int, line: int) -> IntArray:
        unique, inverse = np.unique(column, return_inverse=True)
        index = np.empty(unique.size, dtype=np.int64)
        for i, raw in enumerate(unique.tolist()):
            key = raw.decode("utf-8", "replace").strip()
            if not key:
                self._fail_at(column == raw, chunk, offset, line, "flow is empty")
            index[i] = self.flows.lookup(key)
        return index[inverse.reshape(-1)]

    def _fail_at(self, bad: np.ndarray, chunk: bytes, offset: int, line: int, message: str) -> None:
        if not bad.any():
            return
        row = int(np.argmax(bad))
        start = 0
        for _ in range(row):
            start = chunk.index(b"\n", start) + 1
        end = chunk.find(b"\n", start)
        text = chunk[start:end].rstrip(b"\r")[:80]
        raise TraceFormatError(
            self.path,
            f"{message}; got {text.decode('utf-8', 'replace')!r}",
            byte_offset=offset + start,
            line=line + row,
        )

    def _locate(
        self, chunk: bytes, offset: int, line: int, message: str, column: int | None = None
    ) -> NoReturn:
        """Find the first line that breaks ``message`` and raise (the slow path of errors)."""
        start = 0
        row = 0
        while start < len(chunk):
            end = chunk.index(b"\n", start)
            text = chunk[start:end].rstrip(b"\r")
            parts = text.split(b",")
            wrong = len(parts) != 4
            if not wrong and column is not None:
                try:
                    value = float(parts[column]) if column == 0 else int(parts[column])
                    wrong = column == 3 and value not in (0, 1)
                except ValueError:
                    wrong = True
            if wrong:
                what = (
                    "an empty line"
                    if not text.strip()
                    else repr(text[:80].decode("utf-8", "replace"))
                )
                raise TraceFormatError(
                    self.path, f"{message}; got {what}", byte_offset=offset + start, line=line + row
                )
            start = end + 1
            row += 1
        raise TraceFormatError(self.path, message, byte_offset=offset, line=line)
