"""Slot-level emulation of the optical delay-line FIFO of 000 §5.2 (Algorithm A, Thms 5-6).

The buffer is a set of fibre delay lines: the FIFO lines ``D_i`` (lengths from
:func:`models.optical.fifo_line_lengths`) and the lines ``D'_i`` of the waiting line ``W``
(:func:`models.optical.waiting_line_lengths`). A packet switched into a line of length ``L`` at
the end of slot ``s`` sits at distance ``L - 1`` from the head in slot ``s + 1`` and at the head
(distance 0) in slot ``s + L``, when the line's 2x2 switch sends it on.

One slot runs in this order:

1. departure request: the packet of order 1 leaves (it must be at the head of a line ``D_i``);
2. arrival request: the packet is dropped if the FIFO is full, otherwise Algorithm A gives it a
   waiting time ``w``: 0 when the system is empty; ``(d + 1) mod l`` when its predecessor is at
   distance ``d`` in a line ``D_i`` of length ``l``; one slot after the predecessor leaves ``W``
   when the predecessor is still in ``W``. With ``w > 0`` the packet enters ``W`` and travels
   through the lines ``D'_i`` of the nonzero bits of ``w`` (Thm 5);
3. switching: each head-of-line packet of a line ``D_i`` goes to the tail of the longest line
   whose length is at most its order (staying in its own line when that is one of the longest
   lines); a packet whose waiting time is over, or an arrival with ``w = 0``, goes to the same
   kind of line, choosing among the longest lines one whose tail is free; packets in ``W`` move
   to the line of their next nonzero bit.

The departure comes before the arrival, so a packet never leaves in the slot it arrives in and
an arrival can take the place freed in the same slot; :func:`ideal_fifo` uses the same order.

The emulator does not assume what it is meant to check: it records, slot by slot, how many
packets were switched into each line (Lemma 3 says at most one), the occupancy of ``W``
(Lemma 2 says at most ``N/2``) and whether the packet of order 1 sat at the head of a line
(Lemma 4). Tests and notebook 08 compare its departures and drops with :func:`ideal_fifo`.

References
----------
Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007 (seed
``000_9b46cc70677d86b3.txt``), §5.2.1-5.2.3, Algorithm A, Lemmas 2-4, Thms 4-6, App. C.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from models import checks
from models.errors import ParameterError
from models.optical import optical_fifo_design

_FIFO = 0
_WAIT = 1
_INPUT = 2


class OpticalEmulationError(RuntimeError):
    """The emulated hardware cannot do what Algorithm A asks (e.g. a waiting time too long)."""


@dataclass(frozen=True)
class FifoTrace:
    """Departures and drops of a FIFO run.

    Attributes
    ----------
    departures : tuple of (int, int)
        ``(slot, packet_id)`` of every departure; packet ids number the arrival requests from 0.
    drops : tuple of (int, int)
        ``(slot, packet_id)`` of every arrival refused because the FIFO was full.
    """

    departures: tuple[tuple[int, int], ...]
    drops: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class OpticalFifoRun:
    """What the emulated delay-line FIFO did, slot by slot.

    Attributes
    ----------
    capacity_packets : int
        Most packets admitted (the requested buffer, at most ``N - 1``).
    n : int
        ``log2 N`` of the delay-line design.
    tradeoff_k : int
        ``K`` of Thm 6.
    fifo_line_lengths_packets, waiting_line_lengths_packets : tuple of int
        The lines ``D_i`` and ``D'_i``.
    trace : FifoTrace
        Departures and drops, to compare with an ideal FIFO.
    waiting_occupancy : ndarray of int
        Packets in ``W`` in each slot, after the arrival (Lemma 2).
    max_entries_per_line : ndarray of int
        Per slot, the most packets switched into one line (``D_i`` or ``D'_i``) at its end
        (Lemma 3).
    order1_at_head : ndarray of bool
        Per slot, whether the packet of order 1, if any, was at the head of a delay line at the
        departure request (Lemma 4; True when the system was empty): the head of a line
        ``D_i``, or the head of the last line of its path through ``W`` in the slot it leaves
        ``W`` (see ``order1_in_waiting_line``).
    order1_in_waiting_line : ndarray of bool
        Per slot, whether the packet of order 1 was still in ``W``. This happens when a packet's
        predecessor departs while the packet waits for it: its waiting time was set on arrival
        (Thm 5) and cannot shrink, so in the slot it leaves ``W`` it is at the head of a line of
        ``W`` and the output must be reachable from there. Lemma 4's proof in the thesis covers
        the lines ``D_i`` only.
    waiting_times_slots : ndarray of int
        Waiting time ``w`` of every admitted packet, in admission order.
    snapshots : tuple of ndarray, or None
        With ``record_lines``: per slot, after switching, the packet id at each position of every
        line (rows: ``D_1..`` then ``D'_1..``; column = distance from the head; -1 empty).
    """

    capacity_packets: int
    n: int
    tradeoff_k: int
    fifo_line_lengths_packets: tuple[int, ...]
    waiting_line_lengths_packets: tuple[int, ...]
    trace: FifoTrace
    waiting_occupancy: npt.NDArray[np.int64]
    max_entries_per_line: npt.NDArray[np.int64]
    order1_at_head: npt.NDArray[np.bool_]
    order1_in_waiting_line: npt.NDArray[np.bool_]
    waiting_times_slots: npt.NDArray[np.int64]
    snapshots: tuple[npt.NDArray[np.int64], ...] | None = None


@dataclass
class _Packet:
    pid: int
    kind: int  # _FIFO, _WAIT or _INPUT
    line: int = -1
    distance: int = 0
    release_slot: int = -1  # end of the slot at which the packet leaves W
    wait_path: list[int] = field(default_factory=list)  # W lines still to traverse


def _requests(name: str, values: Sequence[bool] | npt.ArrayLike) -> npt.NDArray[np.bool_]:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ParameterError(
            name,
            "a one-dimensional sequence of booleans",
            f"{name} must be a one-dimensional sequence of booleans",
        )
    if arr.size and not np.all((arr == 0) | (arr == 1)):
        raise ParameterError(name, "booleans (0 or 1)", f"{name} must hold only booleans (0 or 1)")
    return arr.astype(bool)


def ideal_fifo(
    arrivals: Sequence[bool] | npt.ArrayLike,
    departures: Sequence[bool] | npt.ArrayLike,
    capacity_packets: int,
) -> FifoTrace:
    """Reference FIFO of ``capacity_packets`` places, with the emulator's slot conventions.

    Parameters
    ----------
    arrivals, departures : sequence of bool
        Per slot, whether an arrival (departure) request occurs; same length.
    capacity_packets : int
        Most packets held (integer >= 1).

    Returns
    -------
    FifoTrace
        Departures and drops; in each slot the departure request is served before the arrival.
    """
    arr = _requests("arrivals", arrivals)
    dep = _requests("departures", departures)
    if arr.size != dep.size:
        raise ParameterError(
            "departures", "as long as arrivals", "arrivals and departures must have the same length"
        )
    capacity = checks.integer_at_least("capacity_packets", capacity_packets, 1)
    queue: deque[int] = deque()
    out: list[tuple[int, int]] = []
    dropped: list[tuple[int, int]] = []
    next_id = 0
    for slot in range(arr.size):
        if dep[slot] and queue:
            out.append((slot, queue.popleft()))
        if arr[slot]:
            if len(queue) >= capacity:
                dropped.append((slot, next_id))
            else:
                queue.append(next_id)
            next_id += 1
    return FifoTrace(tuple(out), tuple(dropped))


def emulate_optical_fifo(
    arrivals: Sequence[bool] | npt.ArrayLike,
    departures: Sequence[bool] | npt.ArrayLike,
    buffer_packets: int,
    tradeoff_k: int = 1,
    *,
    record_lines: bool = False,
) -> OpticalFifoRun:
    """Run Algorithm A on the delay-line FIFO that holds ``buffer_packets`` packets.

    Parameters
    ----------
    arrivals, departures : sequence of bool
        Per slot, whether an arrival (departure) request occurs; same length.
    buffer_packets : int
        Most packets admitted (integer >= 1); the lines are those of
        :func:`models.optical.optical_fifo_design` for this buffer (``N - 1 >= buffer``).
    tradeoff_k : int
        ``K = 2**k`` of Thm 6 (power of two, ``1 <= K <= N/2``).
    record_lines : bool
        Keep a snapshot of every line in every slot (for plots of small examples).

    Returns
    -------
    OpticalFifoRun
        The departures and drops and the per-slot observations of Lemmas 2-4.

    Raises
    ------
    OpticalEmulationError
        If a waiting time does not fit in the waiting line (never, by Thm 5).

    Notes
    -----
    The emulation follows Algorithm A of 000 §5.2.2 with the waiting line of Thm 5 and the
    longest lines split as in Thm 6; the slot conventions are in the module docstring.

    Assumptions:

    - packets are of one size and a slot is one packet time;
    - at most one arrival request and one departure request per slot;
    - switching takes no time and happens at slot boundaries.

    References
    ----------
    .. [1] seed ``000_9b46cc70677d86b3.txt``, §5.2, Algorithm A, Lemmas 2-4, Thms 4-6, App. C.
    """
    arr = _requests("arrivals", arrivals)
    dep = _requests("departures", departures)
    if arr.size != dep.size:
        raise ParameterError(
            "departures", "as long as arrivals", "arrivals and departures must have the same length"
        )
    design = optical_fifo_design(buffer_packets, tradeoff_k)
    capacity = int(buffer_packets)
    return _Emulator(design.fifo_line_lengths_packets, design.waiting_line_lengths_packets).run(
        arr, dep, capacity, design.n, design.tradeoff_k, record_lines
    )


class _Emulator:
    def __init__(self, fifo_lines: tuple[int, ...], wait_lines: tuple[int, ...]) -> None:
        self.fifo_lines = fifo_lines
        self.wait_lines = wait_lines
        self.longest = max(fifo_lines)
        self.long_lines = [i for i, length in enumerate(fifo_lines) if length == self.longest]
        self.max_wait = sum(wait_lines)

    def target_line(self, order: int, current: int, taken: set[int]) -> int:
        """Line ``D_i`` for a packet of this order: the longest with length <= order."""
        length = min(1 << (order.bit_length() - 1), self.longest)
        if length < self.longest:
            return self.fifo_lines.index(length)
        if current in self.long_lines:
            return current
        for line in self.long_lines:
            if line not in taken:
                return line
        return self.long_lines[0]  # every longest line is taken: the caller records contention

    def run(
        self,
        arr: npt.NDArray[np.bool_],
        dep: npt.NDArray[np.bool_],
        capacity: int,
        n: int,
        tradeoff_k: int,
        record_lines: bool,
    ) -> OpticalFifoRun:
        slots = arr.size
        queue: deque[_Packet] = deque()  # departure order; index + 1 is the order
        out: list[tuple[int, int]] = []
        dropped: list[tuple[int, int]] = []
        waiting_occupancy = np.zeros(slots, dtype=np.int64)
        max_entries = np.zeros(slots, dtype=np.int64)
        order1_at_head = np.ones(slots, dtype=bool)
        order1_in_waiting_line = np.zeros(slots, dtype=bool)
        waits: list[int] = []
        snapshots: list[npt.NDArray[np.int64]] = []
        next_id = 0
        for slot in range(slots):
            # 1. departure request
            if queue:
                head = queue[0]
                in_fifo_line = head.kind == _FIFO
                # leaving W at the end of this slot: at the head of the last line of its path
                leaving_wait = head.kind == _WAIT and head.line >= 0 and not head.wait_path
                order1_at_head[slot] = head.distance == 0 and (in_fifo_line or leaving_wait)
                order1_in_waiting_line[slot] = head.kind == _WAIT
                if dep[slot]:
                    out.append((slot, queue.popleft().pid))
            # 2. arrival request
            if arr[slot]:
                if len(queue) >= capacity:
                    dropped.append((slot, next_id))
                else:
                    packet = self.admit(next_id, slot, queue[-1] if queue else None)
                    waits.append(packet.release_slot - slot)
                    queue.append(packet)
                next_id += 1
            waiting_occupancy[slot] = sum(1 for p in queue if p.kind == _WAIT)
            # 3. switching at the end of the slot
            max_entries[slot] = self.switch(queue)
            if record_lines:
                snapshots.append(self.snapshot(queue))
        return OpticalFifoRun(
            capacity_packets=capacity,
            n=n,
            tradeoff_k=tradeoff_k,
            fifo_line_lengths_packets=self.fifo_lines,
            waiting_line_lengths_packets=self.wait_lines,
            trace=FifoTrace(tuple(out), tuple(dropped)),
            waiting_occupancy=waiting_occupancy,
            max_entries_per_line=max_entries,
            order1_at_head=order1_at_head,
            order1_in_waiting_line=order1_in_waiting_line,
            waiting_times_slots=np.asarray(waits, dtype=np.int64),
            snapshots=tuple(snapshots) if record_lines else None,
        )

    def admit(self, pid: int, slot: int, prior: _Packet | None) -> _Packet:
        """Algorithm A, arrival event: the packet's waiting time and its path through W."""
        if prior is None:
            wait = 0
        elif prior.kind == _WAIT:
            wait = prior.release_slot + 1 - slot
        else:
            length = self.fifo_lines[prior.line]
            wait = (prior.distance + 1) % length
        if wait > self.max_wait:
            raise OpticalEmulationError(
                f"waiting time {wait} slots exceeds the waiting line's {self.max_wait}"
            )
        path = [i for i in range(len(self.wait_lines)) if (wait >> i) & 1]
        kind = _WAIT if wait else _INPUT
        return _Packet(pid, kind, release_slot=slot + wait, wait_path=path)

    def switch(self, queue: deque[_Packet]) -> int:
        """Move every packet one slot on; return the most packets switched into one line."""
        entries: dict[tuple[int, int], int] = {}
        taken: set[int] = set()
        entrants: list[tuple[_Packet, int]] = []

        def enter(packet: _Packet, kind: int, line: int) -> None:
            entries[(kind, line)] = entries.get((kind, line), 0) + 1
            packet.kind, packet.line = kind, line
            lengths = self.fifo_lines if kind == _FIFO else self.wait_lines
            packet.distance = lengths[line] - 1

        for order, packet in enumerate(queue, start=1):
            if packet.kind == _FIFO:
                if packet.distance > 0:
                    packet.distance -= 1
                else:
                    line = self.target_line(order, packet.line, taken)
                    taken.add(line)
                    enter(packet, _FIFO, line)
            elif packet.kind == _WAIT and packet.line >= 0 and packet.distance > 0:
                packet.distance -= 1
            elif packet.wait_path:
                # an arrival entering W, or a packet at the head of a line D'_i moving on
                enter(packet, _WAIT, packet.wait_path.pop(0))
            else:
                # waiting time over (or an arrival with w = 0): into a line D_i below
                entrants.append((packet, order))
        for packet, order in entrants:  # at most one, as consecutive releases are a slot apart
            line = self.target_line(order, -1, taken)
            taken.add(line)
            enter(packet, _FIFO, line)
        return max(entries.values(), default=0)

    def snapshot(self, queue: deque[_Packet]) -> npt.NDArray[np.int64]:
        lines = list(self.fifo_lines) + list(self.wait_lines)
        grid = np.full((len(lines), max(lines)), -1, dtype=np.int64)
        offset = len(self.fifo_lines)
        for packet in queue:
            row = packet.line if packet.kind == _FIFO else offset + packet.line
            grid[row, packet.distance] = packet.pid
        return grid
