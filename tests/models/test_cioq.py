"""Tests of models.cioq against the thesis (seed 000 §5.1)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.cioq import cioq_advice


def test_speedup_two_emulates_output_queueing() -> None:
    # 000 §5.1.1: "a CIOQ switch can emulate an OQ switch using ... the stable marriage
    # scheduling and with a speedup of two"; Lemma 1: Q_B(j, t) <= Q_A(j, t), so the output needs
    # no more buffer than the output-queued switch.
    a = cioq_advice(20.0, 32)
    assert a.emulates_output_queueing is True
    assert a.output_buffer_packets == 20.0
    assert "stable-marriage" in a.note


def test_two_packets_per_voq() -> None:
    # 000 §5.1.2 (Fig. 5.2 runs, 32 ports): "even with output buffers of size 1000 packets, the
    # VOQ occupancy does not exceed 2 packets ... we assume that the size of input queues is only
    # 2 packets per VOQ". One VOQ per output: 32 ports -> 64 packets per input.
    a = cioq_advice(1000.0, 32)
    assert a.voq_packets_per_input == 2.0
    assert a.input_buffer_packets == 64.0


def test_below_speedup_two_is_not_guaranteed() -> None:
    # 000 §5.1: emulation is proven for speedup two; below it the advice carries a warning.
    a = cioq_advice(20.0, 16, speedup=1.5)
    assert a.emulates_output_queueing is False
    assert "not guaranteed" in a.note
    assert a.output_buffer_packets == 20.0


@settings(max_examples=100, deadline=None)
@given(st.floats(1.0, 1e6), st.integers(2, 4096), st.floats(2.0, 64.0))
def test_output_buffer_never_exceeds_oq(b: float, ports: int, s: float) -> None:
    # Lemma 1: an exactly emulating CIOQ switch never holds more than the OQ switch per output.
    a = cioq_advice(b, ports, speedup=s)
    assert a.emulates_output_queueing
    assert a.output_buffer_packets <= b
    assert a.input_buffer_packets == pytest.approx(2.0 * ports)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"output_buffer_packets": 0.0, "ports": 8}, "output_buffer_packets must be > 0"),
        ({"output_buffer_packets": math.nan, "ports": 8}, "output_buffer_packets must be finite"),
        ({"output_buffer_packets": 20.0, "ports": 1}, "ports must be >= 2"),
        ({"output_buffer_packets": 20.0, "ports": 2.5}, "ports must be an integer"),
        ({"output_buffer_packets": 20.0, "ports": 8, "speedup": 0.5}, "speedup must be >= 1"),
        ({"output_buffer_packets": 20.0, "ports": 8, "speedup": math.inf}, "speedup must be"),
    ],
)
def test_invalid_input_names_parameter_and_bound(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cioq_advice(**kwargs)
