"""Open a trace file with the reader its content calls for (not its name)."""

from __future__ import annotations

from pathlib import Path

from validation.traces.capture_blocks import is_capture
from validation.traces.csv_reader import CsvTraceReader
from validation.traces.pcap_reader import PcapTraceReader
from validation.traces.records import TraceFormatError, TraceReader


def open_trace(path: str | Path) -> TraceReader:
    """A reader for ``path``: pcap/pcapng by their magic number, otherwise the CSV format.

    Raises
    ------
    TraceFormatError
        If the file is empty or unreadable.
    """
    name = str(path)
    try:
        with open(name, "rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise TraceFormatError(name, f"cannot read the file: {exc.strerror}") from exc
    if not head:
        raise TraceFormatError(name, "the file is empty", byte_offset=0)
    if is_capture(head):
        return PcapTraceReader(name)
    return CsvTraceReader(name)
