"""A bounded reorder window: small timestamp inversions put right, larger ones refused.

Captures merged from several interfaces or written by several CPUs hold packets a few
microseconds out of time order. The estimators need time order; tcpdump prints such files as
they are. Packets are held back for ``window_s`` of capture time and released in time order
(a stable sort: equal times keep the file's order); a packet earlier than the latest one
seen by more than the window is refused with its place in the file. Memory holds one
window's packets at most beside a block.
"""

from __future__ import annotations

import numpy as np

#: Capture time a packet may be out of order by, s: 10 ms is three orders of magnitude over
#: the 1-6 µs of merged interfaces and CPUs, and under any RTT the estimators time.
REORDER_WINDOW_S = 0.01


class ReorderWindow:
    """Columns of packets (the first being the time) released in time order.

    Attributes
    ----------
    reordered : packets that came earlier than a packet before them (put right).
    """

    def __init__(self, window_s: float = REORDER_WINDOW_S) -> None:
        self.window_s = window_s
        self.reordered = 0
        self.latest_s = -np.inf
        self._held: list[np.ndarray] | None = None

    def push(self, columns: list[np.ndarray]) -> tuple[list[np.ndarray], int, float]:
        """Take a block's columns (time first, file order); return the columns that can go,
        -1 and 0; or ([], k, s) where packet ``k`` of this block is ``s`` seconds earlier than
        a packet before it, more than the window (the caller refuses the file there)."""
        ts = columns[0]
        if ts.size:
            before = np.maximum.accumulate(np.concatenate([[self.latest_s], ts[:-1]]))
            late = before - ts
            too_late = np.flatnonzero(late > self.window_s)
            if too_late.size:
                k = int(too_late[0])
                return [], k, float(late[k])
            self.reordered += int(np.count_nonzero(late > 0))
            self.latest_s = max(self.latest_s, float(ts.max()))
        if self._held is not None:
            columns = [np.concatenate([h, c]) for h, c in zip(self._held, columns, strict=True)]
        ts = columns[0]
        if ts.size > 1 and np.any(ts[1:] < ts[:-1]):
            order = np.argsort(ts, kind="stable")
            columns = [c[order] for c in columns]
            ts = columns[0]
        cut = int(np.searchsorted(ts, self.latest_s - self.window_s, side="left"))
        self._held = [c[cut:] for c in columns]
        return [c[:cut] for c in columns], -1, 0.0

    def flush(self) -> list[np.ndarray]:
        """The packets still held (at the end of the file)."""
        held, self._held = self._held, None
        return held if held is not None else []
