"""Packet traces of a link: streaming readers and the parameter estimators of BSCL (004 §VI).

- :mod:`validation.traces.records`: a batch of packets (:class:`PacketBatch`), the table of
  flows seen so far (:class:`FlowTable`) and :class:`TraceFormatError`;
- :mod:`validation.traces.csv_reader`: the CSV ``bufsize simulate --trace`` writes
  (``time_s, flow, size_bytes, dropped``), read in chunks;
- :mod:`validation.traces.pcap_reader`: pcap and pcapng captures (pcapng read by libpcap),
  with losses inferred from TCP sequence numbers and RTTs from the three-way handshake;
- :mod:`validation.traces.estimate`: flow classification, per-flow RTTs, N_b, T_e, C_e, loss
  bursts and α, each with an uncertainty;
- :mod:`validation.traces.synthetic`: simulated traces whose truth is known (for the checks).

A reader keeps per-flow state only: memory grows with the flows seen, not with the file.
"""

from validation.traces.estimate import TraceEstimates, estimate_trace
from validation.traces.open import open_trace
from validation.traces.records import FlowTable, PacketBatch, TraceFormatError

__all__ = [
    "FlowTable",
    "PacketBatch",
    "TraceEstimates",
    "TraceFormatError",
    "estimate_trace",
    "open_trace",
]
