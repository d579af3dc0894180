"""Tiny-buffers bound of Theorem 1 (000 §3.3, App. A eq. A.13) and its inverse."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from models.tiny_buffers import (
    tiny_buffer_packets,
    tiny_buffers_load,
    tiny_buffers_utilization_bound,
)

windows = st.floats(min_value=1.0, max_value=1e5)
loads = st.floats(min_value=0.01, max_value=0.99)
targets = st.floats(min_value=0.0, max_value=0.999)


def test_thesis_example_15_packets() -> None:
    # 000 §3.3: "if W_max = 64 packets, rho = 0.5, and we want an effective utilization of 90%,
    # we need a buffer size of 15 packets regardless of the link capacity." log2(20480) = 14.32
    # by hand; the thesis rounds up to whole packets.
    exact = tiny_buffer_packets(64, 0.5, 0.9)
    assert math.ceil(exact) == 15
    assert 14.0 < exact <= 15.0


def test_window_part_is_twelve_packets() -> None:
    # 000 §1.3: "based on the tiny buffers rule, we will only need a buffer size of twelve
    # packets plus some small additive constant": log_{1/rho}(W^2) = 2 log2 64 = 12 at rho =
    # 1/2; the additive part log_{1/rho}(1/(2(1-theta))) vanishes at theta = 1/2.
    assert tiny_buffer_packets(64, 0.5, 0.5) == pytest.approx(12.0, rel=1e-12)


def test_thesis_link_example_load_and_buffer() -> None:
    # 000 §1.3: 1000 flows, 10Gb/s, 100ms, 64KB windows of 1KB packets: "The peak rate is
    # roughly 5Gb/s", i.e. rho ≈ 0.5 (0.512 exactly: 1000*64*8000/1e9); read "roughly" as
    # ±10%. Issue 2's acceptance check expects "tiny buffers about 12-15 packets" for it.
    load = float(tiny_buffers_load(1000, 64, 10e9, 0.1, 1000.0))
    assert abs(load - 0.5) <= 0.05
    assert 12.0 <= tiny_buffer_packets(64, load, 0.9) <= 15.0


def test_buffer_of_15_guarantees_90_percent() -> None:
    # The inverse at the thesis example (000 §3.3): 1 - 0.5^15 * 64^2 / 2 = 1 - 2048/32768
    # = 0.9375 by hand, at least the 90% asked for.
    assert tiny_buffers_utilization_bound(15, 64, 0.5) == pytest.approx(0.9375, rel=1e-12)


def test_vectorised() -> None:
    buffers = tiny_buffer_packets(np.array([16, 64, 256]), 0.5, 0.9)
    assert isinstance(buffers, np.ndarray)
    assert np.all(np.diff(buffers) > 0)
    # Each 4x of W adds log2(16) = 4 packets at rho = 1/2 (W^2 inside the logarithm).
    np.testing.assert_allclose(np.diff(buffers), [4.0, 4.0], rtol=1e-12)


def test_tiny_requirement_is_clipped_at_zero() -> None:
    # W = 1, theta = 0: log2(1/2) < 0, so no buffer is needed at all.
    assert tiny_buffer_packets(1, 0.5, 0.0) == 0.0


@given(windows, loads, targets)
def test_bound_and_inverse_round_trip(w: float, rho: float, theta: float) -> None:
    buffer = tiny_buffer_packets(w, rho, theta)
    assume(buffer > 0.0)
    assert tiny_buffers_utilization_bound(buffer, w, rho) == pytest.approx(theta, abs=1e-9)


@given(windows, loads, st.floats(min_value=0.01, max_value=30.0))
def test_inverse_then_bound_round_trip(w: float, rho: float, extra: float) -> None:
    # Buffers above log_{1/rho}(W^2/2), where the guarantee is positive.
    buffer = max(math.log(w**2 / 2) / math.log(1 / rho), 0.0) + extra
    theta = tiny_buffers_utilization_bound(buffer, w, rho)
    assume(1e-6 < theta < 1.0 - 1e-6)
    assert tiny_buffer_packets(w, rho, theta) == pytest.approx(buffer, rel=1e-6, abs=1e-6)


@given(windows, loads, targets)
def test_the_bound_always_delivers_its_target(w: float, rho: float, theta: float) -> None:
    # Also when the requirement is clipped at 0 packets.
    buffer = tiny_buffer_packets(w, rho, theta)
    assert tiny_buffers_utilization_bound(buffer, w, rho) >= theta - 1e-9


@given(windows, loads, st.floats(min_value=0.0, max_value=500.0))
def test_more_buffer_never_lowers_the_guarantee(w: float, rho: float, buffer: float) -> None:
    low = tiny_buffers_utilization_bound(buffer, w, rho)
    high = tiny_buffers_utilization_bound(buffer + 1.0, w, rho)
    assert 0.0 <= low <= high <= 1.0


@given(windows, st.floats(min_value=0.01, max_value=0.9), targets)
def test_more_load_needs_more_buffer(w: float, rho: float, theta: float) -> None:
    assert tiny_buffer_packets(w, rho, theta) <= tiny_buffer_packets(w, rho + 0.05, theta)


@pytest.mark.parametrize("load", [0.0, 1.0, 1.5, -0.2, math.nan, math.inf])
def test_load_must_be_in_open_unit_interval(load: float) -> None:
    with pytest.raises(ValueError, match="load"):
        tiny_buffer_packets(64, load, 0.9)
    with pytest.raises(ValueError, match="load"):
        tiny_buffers_utilization_bound(15, 64, load)


@pytest.mark.parametrize("theta", [1.0, -0.1, math.nan])
def test_target_utilization_must_be_below_one(theta: float) -> None:
    with pytest.raises(ValueError, match="min_utilization"):
        tiny_buffer_packets(64, 0.5, theta)


@pytest.mark.parametrize("window", [0.5, 0.0, -3.0])
def test_window_below_one_packet_rejected(window: float) -> None:
    with pytest.raises(ValueError, match=r"max_window_packets must be >= 1"):
        tiny_buffer_packets(window, 0.5, 0.9)
    with pytest.raises(ValueError, match=r"max_window_packets must be >= 1"):
        tiny_buffers_load(1000, window, 10e9, 0.1, 1000.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"capacity_bps": 0.0}, r"capacity_bps must be > 0"),
        ({"capacity_bps": math.nan}, r"capacity_bps must be finite"),
        ({"rtt_s": -1.0}, r"rtt_s must be > 0"),
        ({"flows": 0}, r"flows must be >= 1"),
    ],
)
def test_invalid_link_rejected(kwargs: dict[str, float], message: str) -> None:
    args = {
        "flows": 1000,
        "max_window_packets": 64,
        "capacity_bps": 10e9,
        "rtt_s": 0.1,
        "packet_bytes": 1000.0,
    } | kwargs
    with pytest.raises(ValueError, match=message):
        tiny_buffers_load(**args)


def test_negative_buffer_rejected() -> None:
    with pytest.raises(ValueError, match=r"buffer_packets must be >= 0"):
        tiny_buffers_utilization_bound(-1, 64, 0.5)


# --- robustness at extreme inputs -------------------------------------------------------------


def test_tiny_load_needs_almost_no_buffer_and_warns_nothing() -> None:
    # np.log(1/ρ) overflowed for ρ near 1e-320. By hand: ln(64²/(2·0.1)) = ln 20480 = 9.927,
    # −ln(1e-300) = 690.78, so B = 0.01437 packets (the last digit of the hand values).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tiny_buffer_packets(64, 1e-300, 0.9) == pytest.approx(0.01437, abs=5e-6)
        assert tiny_buffer_packets(64, 1e-320, 0.9) == pytest.approx(9.927 / 736.8, rel=1e-3)
        assert tiny_buffers_utilization_bound(1, 64, 1e-320) == 1.0


def test_huge_window_in_log_space() -> None:
    # W_max = 1e200 packets: W² overflows a float but log_{1/ρ}(W²/(2(1−θ))) does not. By hand
    # at ρ = 0.5, θ = 0.9: (2·200·ln 10 − ln 0.2)/ln 2 = (921.03 + 1.609)/0.6931 = 1331.1.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tiny_buffer_packets(1e200, 0.5, 0.9) == pytest.approx(1331.1, abs=0.1)
        # A buffer of 10 packets guarantees nothing with such windows; 2000 guarantees all.
        assert tiny_buffers_utilization_bound(10, 1e200, 0.5) == 0.0
        assert tiny_buffers_utilization_bound(2000, 1e200, 0.5) == 1.0


@given(
    w=st.floats(min_value=0.0, max_value=300.0).map(lambda x: 10.0**x),
    rho=st.one_of(
        st.floats(min_value=-320.0, max_value=-1e-3).map(lambda x: 10.0**x),
        st.floats(min_value=-16.0, max_value=-1e-3).map(lambda x: 1.0 - 10.0**x),
    ),
    theta=st.one_of(
        st.floats(min_value=0.0, max_value=0.999),
        st.floats(min_value=-16.0, max_value=-3.0).map(lambda x: 1.0 - 10.0**x),
    ),
    buffer=st.one_of(
        st.just(0.0), st.floats(min_value=-300.0, max_value=300.0).map(lambda x: 10.0**x)
    ),
)
def test_no_floating_point_warning_over_wide_inputs(
    w: float, rho: float, theta: float, buffer: float
) -> None:
    # Windows up to 1e300 packets, loads from 1e-320 to 1 − 1e-16, targets up to 1 − 1e-16,
    # buffers up to 1e300: no overflow, division or invalid-value warning, finite results.
    assume(0.0 < rho < 1.0 and theta < 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = tiny_buffer_packets(w, rho, theta)
        theta_b = tiny_buffers_utilization_bound(buffer, w, rho)
    assert math.isfinite(b) and b >= 0.0
    assert 0.0 <= theta_b <= 1.0


@given(
    n=st.floats(min_value=0.0, max_value=12.0).map(lambda x: 10.0**x),
    w=st.floats(min_value=0.0, max_value=12.0).map(lambda x: 10.0**x),
    c=st.floats(min_value=-3.0, max_value=20.0).map(lambda x: 10.0**x),
    t=st.floats(min_value=-9.0, max_value=4.0).map(lambda x: 10.0**x),
    size=st.floats(min_value=-3.0, max_value=9.0).map(lambda x: 10.0**x),
)
def test_load_without_warnings(n: float, w: float, c: float, t: float, size: float) -> None:
    # 1 mbit/s to 1e20 bit/s, 1 ns to 3 h, packets of 1e-3 to 1e9 bytes, 1e12 flows and
    # packets per window: ρ = N·W/(C·RTT) in packets, finite and positive, no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rho = tiny_buffers_load(n, w, c, t, size)
    assert rho == pytest.approx(n * w / (c * t / (8.0 * size)), rel=1e-12)
