"""All-optical FIFO buffers built from fibre delay lines and 2x2 switches (000 §5.2)."""

from __future__ import annotations

from dataclasses import dataclass

from models import checks
from models.errors import ParameterError

#: Speed of light in silica fibre (group index about 1.47), in metres per second.
FIBER_SPEED_MPS = 2.04e8


@dataclass(frozen=True)
class OpticalFifoDesign:
    """Delay lines and switches of an optical FIFO that emulates a FIFO of ``N - 1`` packets.

    Attributes
    ----------
    n : int
        ``log2 N``; the FIFO holds ``N - 1 = 2**n - 1`` packets.
    fifo_capacity_packets : int
        ``N - 1``, the most packets the emulated FIFO holds (at least the requested buffer).
    tradeoff_k : int
        The trade-off parameter ``K = 2**k`` of Thm 6 (1 is the design of Thms 4-5).
    delay_lines : int
        Number of delay lines, FIFO lines and waiting-line lines together.
    switches : int
        Number of 2x2 optical switches: one per delay line plus one at the input/output.
    line_lengths_packets : tuple of int
        Lengths of all the delay lines (FIFO lines first, then the waiting line's), in packets.
    fifo_line_lengths_packets : tuple of int
        Lengths of the lines ``D_i`` that hold the queued packets; they add up to ``N - 1``.
    waiting_line_lengths_packets : tuple of int
        Lengths of the lines ``D'_i`` that make up the waiting line ``W`` (Thm 5).
    max_line_length_packets : int
        Length of the longest line, ``N / (2K)``.
    total_length_packets : int
        Aggregate length of all the lines, ``N - 1 + (N - 2K)/(2K)``, in packets.
    packet_time_s : float
        Time to transmit one packet at the line rate; a line of length 1 delays by this much.
    total_fiber_m : float
        Aggregate fibre length in metres, ``total_length_packets * packet_time_s * 2.04e8``.
    linear_delay_lines : int
        Delay lines of the linear design of Fig. 5.4(c) that stores the requested buffer.
    linear_switches : int
        Switches of that linear design (one per line).
    """

    n: int
    fifo_capacity_packets: int
    tradeoff_k: int
    delay_lines: int
    switches: int
    line_lengths_packets: tuple[int, ...]
    fifo_line_lengths_packets: tuple[int, ...]
    waiting_line_lengths_packets: tuple[int, ...]
    max_line_length_packets: int
    total_length_packets: int
    packet_time_s: float
    total_fiber_m: float
    linear_delay_lines: int
    linear_switches: int


def fifo_size_exponent(buffer_packets: int) -> int:
    """Smallest ``n`` with ``2**n - 1 >= buffer_packets`` (at least 1).

    Parameters
    ----------
    buffer_packets : int
        Packets the FIFO must hold (integer >= 1).

    Returns
    -------
    int
        ``n = ceil(log2(buffer_packets + 1))``, so that ``N = 2**n`` and ``N - 1 >= buffer``.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007 (seed
       ``000_9b46cc70677d86b3.txt``), §5.2.2, Thm 4: "if N = 2^n ... a FIFO of size N - 1 can be
       emulated".
    """
    buffer = checks.integer_at_least("buffer_packets", buffer_packets, 1)
    return max(1, buffer.bit_length())


def fifo_line_lengths(n: int, tradeoff_k: int = 1) -> tuple[int, ...]:
    """Lengths of the FIFO lines ``D_i`` for ``N = 2**n`` and trade-off ``K``.

    Parameters
    ----------
    n : int
        ``log2 N`` (integer >= 1).
    tradeoff_k : int
        ``K = 2**k``, a power of two with ``1 <= K <= N/2``.

    Returns
    -------
    tuple of int
        ``1, 2, ..., N/(4K)`` followed by ``2K - 1`` lines of length ``N/(2K)``; for ``K = 1``
        the lines ``2**(i-1)``, ``i = 1..n``. They add up to ``N - 1``.

    Notes
    -----
    Thm 6 halves the longest lines ``k`` times: each step replaces every line of the longest
    length ``L`` by two lines of length ``L/2``.

    References
    ----------
    .. [1] seed ``000_9b46cc70677d86b3.txt``, §5.2.2 ("The length of delay line D_i is
       L_i = 2^(i-1)") and §5.2.3, Fig. 5.7, Thm 6.
    """
    k = _tradeoff_exponent(n, tradeoff_k)
    longest = 2 ** (n - k - 1)
    short = tuple(2**i for i in range(n - k - 1))
    return short + (longest,) * (2 * tradeoff_k - 1)


def waiting_line_lengths(n: int, tradeoff_k: int = 1) -> tuple[int, ...]:
    """Lengths of the lines ``D'_i`` of the waiting line ``W`` (Thm 5, halved by Thm 6).

    Parameters
    ----------
    n : int
        ``log2 N`` (integer >= 1).
    tradeoff_k : int
        ``K = 2**k``, a power of two with ``1 <= K <= N/2``.

    Returns
    -------
    tuple of int
        ``1, 2, ..., N/(4K)``: a waiting time ``w < N/(2K)`` is its binary expansion, bit ``i``
        sending the packet through the line of length ``2**(i-1)``.

    References
    ----------
    .. [1] seed ``000_9b46cc70677d86b3.txt``, §5.2.3, Thm 5 ("lines D'_i, i = 1, ..., log N - 1,
       where the length of the delay lines grows as 1, 2, 4, ..., 2^(log N - 2)") and Thm 6.
    """
    k = _tradeoff_exponent(n, tradeoff_k)
    return tuple(2**i for i in range(n - k - 1))


def optical_fifo_design(
    buffer_packets: int,
    tradeoff_k: int = 1,
    packet_bytes: float = 1500.0,
    capacity_bps: float = 10e9,
    fiber_speed_mps: float = FIBER_SPEED_MPS,
) -> OpticalFifoDesign:
    """Delay lines, switches and fibre of the O(log N) optical FIFO of 000 §5.2.

    Parameters
    ----------
    buffer_packets : int
        Packets the FIFO must hold (integer >= 1); ``N`` is the smallest power of two with
        ``N - 1 >= buffer_packets``.
    tradeoff_k : int
        ``K = 2**k`` of Thm 6, a power of two with ``1 <= K <= N/2``; 1 gives the design of
        Thms 4-5, larger ``K`` trades more lines for less fibre.
    packet_bytes : float
        Fixed packet size in bytes (> 0).
    capacity_bps : float
        Line rate in bit/s (> 0); one packet time is ``8 * packet_bytes / capacity_bps``.
    fiber_speed_mps : float
        Propagation speed in the fibre, m/s (> 0); 2.04e8 for silica (group index about 1.47).

    Returns
    -------
    OpticalFifoDesign
        Line counts and lengths, switch count, fibre length, and the linear design's counts.

    Notes
    -----
    With ``N = 2**n`` and ``K = 2**k``::

        delay lines  = 2 (log2 N + K - log2 K) - 3            (Thm 6; 2 log2 N - 1 for K = 1)
        total length = N - 1 + (N - 2K) / (2K)   packets       (Thm 6; 1.5 N - 2 for K = 1)
        switches     = delay lines + 1                         (2 log2 N for K = 1, §5.2.3)
        fibre        = total length * 8 * packet_bytes / capacity_bps * fiber_speed_mps
        linear       = buffer_packets lines and buffer_packets switches   (Fig. 5.4(c))

    Assumptions:

    - all packets have the same size and time is slotted in packet times;
    - at most one arrival and one departure request per slot;
    - each delay line has its own 2x2 switch, plus one switch at the input/output;
    - a line of length L holds L back-to-back packets and delays a packet by L slots;
    - the scheduler knows every arrival and departure (Algorithm A).

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007 (seed
       ``000_9b46cc70677d86b3.txt``), §5.2: Fig. 5.4(c) ("we need to have N optical delay lines,
       and N switches"), Algorithm A, Thm 4, Thm 5 ("the number of 2x2 switches in the proposed
       scheme is only 2 log N"), Fig. 5.7 ("one switch, and hence one delay line is added"),
       Thm 6, App. C.
    """
    buffer = checks.integer_at_least("buffer_packets", buffer_packets, 1)
    checks.positive("packet_bytes", packet_bytes)
    checks.positive("capacity_bps", capacity_bps)
    checks.positive("fiber_speed_mps", fiber_speed_mps)
    n = fifo_size_exponent(buffer)
    fifo_lines = fifo_line_lengths(n, tradeoff_k)
    waiting_lines = waiting_line_lengths(n, tradeoff_k)
    lines = fifo_lines + waiting_lines
    total_length = sum(lines)
    packet_time_s = 8.0 * float(packet_bytes) / float(capacity_bps)
    return OpticalFifoDesign(
        n=n,
        fifo_capacity_packets=2**n - 1,
        tradeoff_k=int(tradeoff_k),
        delay_lines=len(lines),
        switches=len(lines) + 1,
        line_lengths_packets=lines,
        fifo_line_lengths_packets=fifo_lines,
        waiting_line_lengths_packets=waiting_lines,
        max_line_length_packets=max(lines),
        total_length_packets=total_length,
        packet_time_s=packet_time_s,
        total_fiber_m=total_length * packet_time_s * float(fiber_speed_mps),
        linear_delay_lines=buffer,
        linear_switches=buffer,
    )


def _tradeoff_exponent(n: int, tradeoff_k: int) -> int:
    """Check ``n >= 1`` and ``K = 2**k`` with ``1 <= K <= 2**(n-1)``; return ``k``."""
    n = checks.integer_at_least("n", n, 1)
    k_value = checks.integer_at_least("tradeoff_k", tradeoff_k, 1)
    if k_value & (k_value - 1):
        raise ParameterError.got("tradeoff_k", "a power of two", tradeoff_k)
    if k_value > 2 ** (n - 1):
        raise ParameterError(
            "tradeoff_k",
            f"<= N/2 = {2 ** (n - 1)}",
            f"tradeoff_k must be <= N/2 = {2 ** (n - 1)} for a FIFO of {2**n - 1} packets, "
            f"got {tradeoff_k!r}",
        )
    return k_value.bit_length() - 1
