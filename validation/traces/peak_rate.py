"""The highest rate a trace sustained over short windows, read as the trace streams past.

With no capacity given, C is estimated as a rate the trace itself carried (a lower bound of
the link's rate). The busiest whole second misses a transfer shorter than a second, or one
that straddles two seconds: a 0.6 s transfer at 53.6 Mbit/s in an otherwise idle trace has a
busiest second of 32 Mbit/s. :class:`PeakRate` measures every window of ``WINDOW_S`` that
starts at a departed packet, cut into ``PIECES`` consecutive pieces at the first packet past
each quarter: a piece from packet ``a`` to packet ``b`` carried the bytes of ``a .. b-1`` in
``t_b - t_a`` (the last one's own time counted by the gap to ``b``), and the window's rate is
its slowest piece's, the rate sustained throughout it. A window counts when each piece holds
``MIN_PACKETS`` packets or more.

Why this rule:

- On a link that sends at C, packets ``a .. b-1`` cannot leave in less than their bytes over
  C: no piece, so no window, is above C, as long as the times are the link's departures (a
  FIFO port's, a simulated trace's). A saturated link's pieces are all at C.
- A burst (a train of packets a capture stamped together, packets that reached the capture
  point back to back, a token-bucket shaper's bucket: a Linux ``tbf`` of 3,000 bytes in
  ``tests/validation/test_trace_linux_capture.py``) raises one piece, or two where it
  straddles their border; the window takes its slowest piece, so the burst does not raise
  the estimate above what the rest of the window carried. Timestamp jitter that shortens one
  piece lengthens the next, so it errs low.
- ``MIN_PACKETS`` a piece keeps a handful of packets from passing for a rate: at 100 ms in
  four pieces of ten, windows are measured from about 5 Mbit/s of 1500-byte packets up; below
  that, the busiest second stays the estimate.

Memory: only the packets of the last ``WINDOW_S`` are kept between batches.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

#: The window measured, s.
WINDOW_S = 0.1
#: Consecutive pieces a window is cut into; its rate is its slowest piece's.
PIECES = 4
#: Packets each piece must hold for the window to count.
MIN_PACKETS = 10


class PeakRate:
    """The highest rate sustained over the windows of :data:`WINDOW_S` that the departures
    seen so far complete (bit/s; 0 when no window's pieces each hold :data:`MIN_PACKETS`)."""

    def __init__(self, window_s: float = WINDOW_S, min_packets: int = MIN_PACKETS) -> None:
        self.window_s = window_s
        self.min_packets = min_packets
        self.rate_bps = 0.0
        self._times = np.zeros(0)
        self._bytes = np.zeros(0)

    def advance(self, time_s: NDArray[np.float64], size_bytes: NDArray[np.int64]) -> None:
        """Add departures (times in order: the readers reorder what a capture inverted)."""
        if time_s.size == 0:
            return
        times = np.concatenate((self._times, np.asarray(time_s, dtype=np.float64)))
        sizes = np.concatenate((self._bytes, np.asarray(size_bytes, dtype=np.float64)))
        # Windows whose end is among these packets: those starting a window or more before
        # the last one.
        complete = int(np.searchsorted(times, times[-1] - self.window_s, side="right"))
        if complete > 0:
            self.rate_bps = max(self.rate_bps, self._busiest(times, sizes, complete))
        self._times, self._bytes = times[complete:], sizes[complete:]

    def _busiest(self, times: NDArray[np.float64], sizes: NDArray[np.float64], count: int) -> float:
        """The highest sustained rate of the windows starting at the first ``count`` packets."""
        cumulative = np.concatenate(([0.0], np.cumsum(sizes)))
        return float(_busiest(times, cumulative, count, self.window_s, PIECES, self.min_packets))


@njit(cache=True)
def _busiest(
    times: NDArray[np.float64],
    cumulative: NDArray[np.float64],
    count: int,
    window_s: float,
    pieces: int,
    min_packets: int,
) -> float:
    """:meth:`PeakRate._busiest` in one pass: each piece's end moves only forwards as the
    window's start does (``cumulative[k]``: the bytes of the packets before ``k``)."""
    ends = np.zeros(pieces, dtype=np.int64)
    best = 0.0
    for start in range(count):
        slowest = math.inf
        begin = start
        for piece in range(pieces):
            target = times[start] + window_s * (piece + 1) / pieces
            end = max(ends[piece], begin)
            while times[end] < target:  # a packet at or past the target exists: complete
                end += 1
            ends[piece] = end
            if end - begin < min_packets:
                slowest = 0.0
                break
            rate = 8.0 * (cumulative[end] - cumulative[begin]) / (times[end] - times[begin])
            slowest = min(slowest, rate)
            begin = end
        best = max(best, slowest)
    return best
