"""Tests of models.optical against 000 §5.2 (Thms 4-6, Fig. 5.4, Fig. 5.7)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.optical import (
    fifo_line_lengths,
    fifo_size_exponent,
    optical_fifo_design,
    waiting_line_lengths,
)


def test_n64_k1_eleven_lines_length_94() -> None:
    # 000 §5.2.2: "a FIFO of size N - 1 can be emulated" by "exactly 2 log N - 1 delay lines";
    # Thm 6 with K = 1: 2(log N + K - log K) - 3 = 2(6 + 1 - 0) - 3 = 11 lines, aggregate length
    # N - 1 + (N - 2K)/(2K) = 63 + 62/2 = 94 (check value N = 64: 11 lines, length 94).
    design = optical_fifo_design(63, tradeoff_k=1)
    assert design.n == 6
    assert design.fifo_capacity_packets == 63
    assert design.delay_lines == 11
    assert design.total_length_packets == 94


def test_n64_k4_thirteen_lines_length_70() -> None:
    # 000 §5.2.3 Thm 6 with N = 64, K = 4: 2(6 + 4 - 2) - 3 = 13 lines of aggregate length
    # 63 + (64 - 8)/8 = 70 (check value: 13 lines, length 70 for K = 4).
    design = optical_fifo_design(63, tradeoff_k=4)
    assert design.delay_lines == 13
    assert design.total_length_packets == 70
    # "the extra fiber length would be approximately 1/2^(k+1) that of the original scheme":
    # the longest line is N/(2K) = 8.
    assert design.max_line_length_packets == 8


def test_fifo_lines_are_powers_of_two_summing_to_n_minus_1() -> None:
    # 000 §5.2.2: "The length of delay line D_i is L_i = 2^(i-1); making the aggregate length of
    # delay lines {D_i} equal to N - 1".
    assert fifo_line_lengths(6) == (1, 2, 4, 8, 16, 32)
    # 000 §5.2.3 Thm 5: W is built from "D'_i, i = 1, 2, ..., log N - 1, where the length of the
    # delay lines grows as 1, 2, 4, ..., 2^((log N) - 2)".
    assert waiting_line_lengths(6) == (1, 2, 4, 8, 16)


def test_fig_5_7_halving_the_longest_line() -> None:
    # 000 §5.2.3, Fig. 5.7: "the longest delay line is replaced by two half-sized delay lines.
    # Consequently, the size of the waiting time W can be halved"; "although one switch, and hence
    # one delay line is added to the set of delay lines {D_i}, the size of W is halved, which means
    # that one less switch is required for constructing W".
    base = optical_fifo_design(63, tradeoff_k=1)
    halved = optical_fifo_design(63, tradeoff_k=2)
    assert halved.fifo_line_lengths_packets == (1, 2, 4, 8, 16, 16, 16)
    assert halved.waiting_line_lengths_packets == (1, 2, 4, 8)
    assert halved.switches == base.switches
    assert halved.delay_lines == base.delay_lines


def test_switch_counts() -> None:
    # 000 §5.2.3: "the number of 2 x 2 switches in the proposed scheme is only 2 log N" -> 12 for
    # N = 64; repeating the halving k times "the total number of switches added to the system
    # would be 2^(k+1) - 2k - 2" -> k = 2 (K = 4) adds 8 - 4 - 2 = 2 -> 14.
    assert optical_fifo_design(63, tradeoff_k=1).switches == 12
    assert optical_fifo_design(63, tradeoff_k=4).switches == 14
    # 000 §5.2, Fig. 5.4(c): "In order to store N packets, we need to have N optical delay lines,
    # and N switches of size 2 x 2".
    design = optical_fifo_design(63)
    assert design.linear_delay_lines == 63
    assert design.linear_switches == 63


def test_fibre_length_in_metres() -> None:
    # One 1500-byte packet at 10 Gb/s lasts 12000 bits / 1e10 bit/s = 1.2 us, i.e. 1.2e-6 s x
    # 2.04e8 m/s = 244.8 m of fibre; N = 64, K = 1 needs 94 packet lengths = 23011.2 m.
    # Tolerance: float rounding only.
    design = optical_fifo_design(63, packet_bytes=1500.0, capacity_bps=10e9)
    assert design.packet_time_s == pytest.approx(1.2e-6, rel=1e-12)
    assert design.total_fiber_m == pytest.approx(23011.2, rel=1e-12)


@pytest.mark.parametrize(
    ("buffer_packets", "n"),
    [(1, 1), (2, 2), (3, 2), (4, 3), (63, 6), (64, 7), (100, 7), (127, 7), (128, 8)],
)
def test_n_rounds_up_so_that_n_minus_1_holds_the_buffer(buffer_packets: int, n: int) -> None:
    # 000 Thm 4 is stated for N = 2^n and a FIFO of N - 1 packets: the smallest such N with
    # N - 1 >= buffer (hand-computed table).
    assert fifo_size_exponent(buffer_packets) == n
    assert optical_fifo_design(buffer_packets).fifo_capacity_packets == 2**n - 1


@given(n=st.integers(1, 16), data=st.data())
def test_thm6_closed_forms_for_every_k(n: int, data: st.DataObject) -> None:
    # 000 Thm 6: "2(log N + K - log K) - 3 delay lines with aggregate length of
    # N - 1 + (N - 2K)/(2K), K = 2^0, 2^1, ..., 2^((log N) - 1)".
    k = data.draw(st.integers(0, n - 1))
    big_n, big_k = 2**n, 2**k
    design = optical_fifo_design(big_n - 1, tradeoff_k=big_k)
    assert design.delay_lines == 2 * (n + big_k - k) - 3
    assert design.total_length_packets == big_n - 1 + (big_n - 2 * big_k) // (2 * big_k)
    assert sum(design.fifo_line_lengths_packets) == big_n - 1
    assert design.max_line_length_packets == big_n // (2 * big_k)
    assert all(math.log2(x).is_integer() for x in design.line_lengths_packets)


@given(n=st.integers(2, 16), data=st.data())
def test_larger_k_means_less_fibre_and_no_fewer_lines(n: int, data: st.DataObject) -> None:
    # Metamorphic (000 §5.2.3): halving the longest lines never lengthens the fibre and never
    # removes lines.
    k = data.draw(st.integers(0, n - 2))
    a = optical_fifo_design(2**n - 1, tradeoff_k=2**k)
    b = optical_fifo_design(2**n - 1, tradeoff_k=2 ** (k + 1))
    assert b.total_length_packets < a.total_length_packets
    assert b.delay_lines >= a.delay_lines


@given(buffer_packets=st.integers(1, 10**6))
def test_log_design_needs_no_more_switches_than_linear_beyond_tiny_buffers(
    buffer_packets: int,
) -> None:
    # 000 §5.2: the linear design's switch count "grows linearly with the number of packets",
    # the proposed one only as 2 log N; the log design never needs more than 2 log2(2B) switches.
    design = optical_fifo_design(buffer_packets)
    assert design.fifo_capacity_packets >= buffer_packets
    assert design.switches == 2 * design.n
    if buffer_packets >= 7:
        assert design.switches <= design.linear_switches


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"buffer_packets": 0}, "buffer_packets must be >= 1"),
        ({"buffer_packets": 2.5}, "buffer_packets must be an integer"),
        ({"buffer_packets": float("nan")}, "buffer_packets must be finite"),
        ({"buffer_packets": 63, "tradeoff_k": 3}, "tradeoff_k must be a power of two"),
        ({"buffer_packets": 63, "tradeoff_k": 0}, "tradeoff_k must be >= 1"),
        ({"buffer_packets": 63, "tradeoff_k": 64}, "tradeoff_k must be <= N/2 = 32"),
        ({"buffer_packets": 63, "packet_bytes": 0.0}, "packet_bytes must be > 0"),
        ({"buffer_packets": 63, "capacity_bps": -1.0}, "capacity_bps must be > 0"),
        ({"buffer_packets": 63, "capacity_bps": float("inf")}, "capacity_bps must be finite"),
    ],
)
def test_invalid_input_names_parameter_and_bound(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        optical_fifo_design(**kwargs)  # type: ignore[arg-type]
