"""The paced-traffic drop bound of 000 Theorem 2 (App. B, Lemmas 7-9)."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.pacing import (
    paced_drop_bound_bracket,
    paced_drop_bound_slots,
    paced_drop_probability_bound,
    paced_utilization_bound,
)

# The 000 §1.3 link: 1000 flows, 10 Gb/s, 100 ms, 64-packet windows of 1 KB packets
# (M = 125,000 slots, rho = 0.512), with 10 Mb/s access links (S = 1000).
EXAMPLE = {
    "flows": 1000,
    "max_window_packets": 64,
    "capacity_bps": 10e9,
    "rtt_s": 0.1,
    "access_bps": 10e6,
    "packet_bytes": 1000.0,
}


def _reference_bound(n: float, w: float, m: float, s: float, b: float) -> float:
    """Plain loop over interval lengths, written straight from App. B; no NumPy."""
    rho = n * w / m
    total = 0.0
    longest = math.floor(min(m, n * w - 1 - b))  # at most N·W packets arrive in one RTT
    for length in range(1, longest + 1):
        k = min(math.ceil(length / s), w)  # most packets one flow puts in the interval
        mu = rho * length / k  # Chernoff mean of sum_i Y_i/k
        threshold = (length + b) / k  # (1 + delta) * mu
        delta = threshold / mu - 1
        total += (math.exp(delta) / (1 + delta) ** (1 + delta)) ** mu
    return min(1.0, total)


def test_single_interval_by_hand() -> None:
    # N = 2 flows of W = 2 packets, M = 8 slots (rho = 1/2), B = 2: only intervals with
    # l + B <= N·W - 1, i.e. l = 1, can be overpopulated. Lemma 7's Chernoff bound
    # Pr[X >= (1+delta)mu] < (e^delta/(1+delta)^(1+delta))^mu with mu = rho·l = 0.5 and
    # (1+delta)mu = l + B = 3, so 1 + delta = 6: (e^5 / 6^6)^0.5 = 0.0564 by hand.
    result = paced_drop_bound_slots(2, 2, 8, 4, 2)
    assert result.longest_interval_slots == 1
    assert result.drop_probability == pytest.approx(math.sqrt(math.exp(5) / 6**6), rel=1e-12)
    assert result.drop_probability == pytest.approx(0.0564, abs=5e-5)
    assert result.partial_window_intervals == result.whole_window_intervals == 0.0


@pytest.mark.parametrize(
    ("n", "w", "m", "s", "b"),
    [
        (40, 16, 2000, 4.0, 6.0),  # all three regimes present (S·W = 64 < M)
        (100, 8, 1000, 1.0, 3.0),  # no pacing: S = 1
        (10, 32, 1000, 2.5, 0.0),  # non-integer S, no buffer
        (300, 10, 5000, 50.0, 12.5),  # slow access, non-integer buffer
    ],
)
def test_matches_plain_loop(n: float, w: float, m: float, s: float, b: float) -> None:
    # The vectorised, chunked, log-space sum against the direct loop; both are floating-point
    # sums of the same terms, so 1e-9 relative.
    expected = _reference_bound(n, w, m, s, b)
    assert paced_drop_bound_slots(n, w, m, s, b).drop_probability == pytest.approx(
        expected, rel=1e-9, abs=1e-300
    )


def test_regime_parts_add_up() -> None:
    result = paced_drop_bound_slots(40, 16, 2000, 4.0, 6.0)
    parts = (
        result.one_packet_intervals
        + result.partial_window_intervals
        + result.whole_window_intervals
    )
    assert result.drop_probability == pytest.approx(min(1.0, parts), rel=1e-12)
    assert result.one_packet_intervals > 0 and result.partial_window_intervals > 0
    assert result.whole_window_intervals > 0


def test_slow_access_links_far_below_poisson_bound() -> None:
    # Check values (docs/references.md): far below rho^B for slow access links. 000 §3.4: "The
    # packet loss
    # probability in Theorem 2 is comparable to that for Poisson traffic with the same buffer
    # size"; with S = 1000 the union bound is at least 100x below rho^B from 15 packets on.
    rho = 0.512
    for buffer_packets in (15, 20, 30, 50):
        bound = paced_drop_probability_bound(**EXAMPLE, buffer_packets=buffer_packets)
        assert bound < rho**buffer_packets / 100


def test_example_with_tiny_buffer_keeps_utilization() -> None:
    # The 15-packet tiny buffer of 000 §3.3 at the §1.3 link with paced flows: the drop bound
    # is below 1e-6, so theta >= 1 - 1e-6·64²/2 > 0.99 (Theorem 1 gives only about 0.9).
    assert paced_drop_probability_bound(**EXAMPLE, buffer_packets=15) < 1e-6
    assert paced_utilization_bound(**EXAMPLE, buffer_packets=15) > 0.99


def test_theorem_2_order_one_over_w_squared() -> None:
    # 000 Theorem 2: with B >= c_B log W and S >= c_S log W for large enough constants, "the
    # packet loss probability during a single RTT is O(1/W_max^2)". With c_B = 6, c_S = 20
    # and rho = 1/2, p·W² must stay bounded as W grows from 16 to 1024; it does not grow.
    scaled = []
    for w in (16, 32, 64, 128, 256, 512, 1024):
        m = 2000 * w
        result = paced_drop_bound_slots(m / (2 * w), w, m, 20 * math.log(w), 6 * math.log(w))
        scaled.append(result.drop_probability * w**2)
    assert max(scaled) < 10.0
    assert all(later <= earlier for earlier, later in itertools.pairwise(scaled))


def test_without_pacing_log_sized_buffers_get_no_guarantee() -> None:
    # Check value (docs/references.md): tends to the unpaced case as S -> 1. 000 §3.4: "if flows
    # can send at the same rate as the bottleneck link, then there is no pacing of traffic
    # whatsoever and our simulations indicate that constant throughput is not achievable with
    # log-sized buffers";
    # App. B: "when S is small traffic can be arbitrarily bursty". At S = 1 (access as fast
    # as the bottleneck) the bound is vacuous for buffers of a few dozen packets, and the
    # utilization guarantee is 0.
    unpaced = {**EXAMPLE, "access_bps": 10e9}
    for buffer_packets in (15, 30, 50):
        assert paced_drop_probability_bound(**unpaced, buffer_packets=buffer_packets) == 1.0
        assert paced_utilization_bound(**unpaced, buffer_packets=buffer_packets) == 0.0


def test_unpaced_limit_is_continuous() -> None:
    # S slightly above 1 gives the same bound as S = 1: ceil(l/S) = l for every l < 1e9.
    at_one = paced_drop_bound_slots(500, 64, 125_000, 1.0, 600).drop_probability
    near_one = paced_drop_bound_slots(500, 64, 125_000, 1.0 + 1e-9, 600).drop_probability
    assert 0.0 < at_one < 1.0
    assert near_one == pytest.approx(at_one, rel=1e-9)


def test_unpaced_bound_falls_per_window_not_per_packet() -> None:
    # At S = 1 a flow may deliver a whole window back to back, so the bound only falls by a
    # constant factor for each extra window W of buffer (measured ≈ 0.31 here): buffers of
    # O(W) rather than O(log W). With S = 1000 one extra window of buffer is worth many
    # orders of magnitude.
    unpaced = [
        paced_drop_bound_slots(1000, 64, 125_000, 1.0, b).drop_probability for b in (600, 664)
    ]
    assert unpaced[1] / unpaced[0] > 0.1
    paced = [
        paced_drop_bound_slots(1000, 64, 125_000, 1000.0, b).drop_probability for b in (10, 74)
    ]
    assert paced[1] / paced[0] < 1e-20


def test_vectorised_over_buffer() -> None:
    buffers = np.arange(0, 40, 3)
    bounds = paced_drop_probability_bound(**EXAMPLE, buffer_packets=buffers)
    assert isinstance(bounds, np.ndarray)
    assert bounds.shape == buffers.shape
    one_by_one = [float(paced_drop_probability_bound(**EXAMPLE, buffer_packets=b)) for b in buffers]
    np.testing.assert_allclose(bounds, one_by_one, rtol=0, atol=0)


def test_buffer_holding_a_whole_rtt_cannot_drop() -> None:
    # At most N·W packets arrive per RTT: with B >= N·W - 1 no interval can be overpopulated.
    assert paced_drop_bound_slots(10, 8, 1000, 1.0, 79).drop_probability == 0.0


def test_long_rtt_link_finishes_with_a_finite_answer() -> None:
    # M = 1e8 slots: the sum stops once the remaining terms are provably negligible.
    result = paced_drop_bound_slots(1.4e6, 64, 1e8, 1000.0, 6000.0)
    assert 0.0 < result.drop_probability < 1e-3


# Links with M = C·RTT between 200 and 20,000 slots, load below 1, a few regimes.
links = st.builds(
    lambda m, rho, w, s: (rho * m / w, w, m, s),
    st.floats(min_value=200.0, max_value=20_000.0),
    st.floats(min_value=0.05, max_value=0.95),
    st.integers(min_value=1, max_value=128).map(float),
    st.floats(min_value=0.5, max_value=5000.0),
)
buffers = st.floats(min_value=0.0, max_value=400.0)

# The sum may stop early with an error below e^-40 of its value, hence the 1e-12 allowance.
RTOL = 1e-12


@settings(max_examples=60, deadline=None)
@given(links, buffers, st.floats(min_value=0.1, max_value=50.0))
def test_bound_falls_as_buffer_grows(
    link: tuple[float, float, float, float], b: float, extra: float
) -> None:
    n, w, m, s = link
    n = max(n, 1.0)
    if n * w >= m:
        return
    small = paced_drop_bound_slots(n, w, m, s, b).drop_probability
    large = paced_drop_bound_slots(n, w, m, s, b + extra).drop_probability
    assert 0.0 <= large <= small * (1 + RTOL) <= 1.0 + RTOL


@settings(max_examples=60, deadline=None)
@given(links, buffers, st.floats(min_value=1.01, max_value=100.0))
def test_bound_falls_as_access_link_slows(
    link: tuple[float, float, float, float], b: float, factor: float
) -> None:
    n, w, m, s = link
    n = max(n, 1.0)
    if n * w >= m:
        return
    fast = paced_drop_bound_slots(n, w, m, s, b).drop_probability
    slow = paced_drop_bound_slots(n, w, m, s * factor, b).drop_probability
    assert 0.0 <= slow <= fast * (1 + RTOL) <= 1.0 + RTOL


@settings(max_examples=40, deadline=None)
@given(
    st.floats(min_value=100.0, max_value=50_000.0),
    st.floats(min_value=0.01, max_value=0.99),
    st.floats(min_value=1e-3, max_value=1e3),
    st.floats(min_value=0.0, max_value=200.0),
)
def test_bounds_stay_in_unit_interval(slots: float, rho: float, slowdown: float, b: float) -> None:
    # A 10 ms, 1500 B link of `slots` packets per RTT; 16-packet windows at load rho.
    capacity_bps = slots * 8 * 1500.0 / 0.01
    args = {
        "flows": max(1.0, rho * slots / 16),
        "max_window_packets": 16,
        "capacity_bps": capacity_bps,
        "rtt_s": 0.01,
        "access_bps": capacity_bps / slowdown,
        "packet_bytes": 1500.0,
        "buffer_packets": b,
    }
    if args["flows"] * 16 >= slots * (1 - 1e-9):
        return
    assert 0.0 <= paced_drop_probability_bound(**args) <= 1.0
    assert 0.0 <= paced_utilization_bound(**args) <= 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"capacity_bps": 0.0}, r"capacity_bps must be > 0"),
        ({"capacity_bps": -1e9}, r"capacity_bps must be > 0"),
        ({"capacity_bps": math.nan}, r"capacity_bps must be finite"),
        ({"rtt_s": math.inf}, r"rtt_s must be finite"),
        ({"access_bps": 0.0}, r"access_bps must be > 0"),
        ({"packet_bytes": -1.0}, r"packet_bytes must be > 0"),
        ({"max_window_packets": 0.5}, r"max_window_packets must be >= 1"),
        ({"flows": 0}, r"flows must be >= 1"),
        ({"buffer_packets": -1.0}, r"buffer_packets must be >= 0"),
        ({"buffer_packets": math.nan}, r"buffer_packets must be finite"),
        # 2000 flows x 64 packets = 128,000 > M = 125,000: rho >= 1.
        ({"flows": 2000}, r"load .* must be in \[0, 1\)"),
    ],
)
def test_invalid_input_rejected(kwargs: dict[str, float], message: str) -> None:
    args = {**EXAMPLE, "buffer_packets": 15.0} | kwargs
    with pytest.raises(ValueError, match=message):
        paced_drop_probability_bound(**args)
    with pytest.raises(ValueError, match=message):
        paced_utilization_bound(**args)


# --- robustness: bounded work whatever N·W, no floating-point warnings ------------------------


def test_one_flow_with_a_huge_window_finishes() -> None:
    # Found by fuzzing the API: N = 1, W = 1e9 (M = 2e9 slots, rho = 0.5, S = 150) summed a
    # billion terms one by one. Beyond 32768 slots the terms are now bounded bin by bin, so
    # the call returns at once (speed itself is measured in benchmarks, not asserted here).
    # Every term of Lemma 8 is at most exp(S·(1 − ρ + ln ρ))·e^(small) ≈ e^-29 here, and there
    # are a billion of them: the bound must land well inside (0, 1).
    result = paced_drop_bound_slots(1, 1e9, 2e9, 150.0, 10.0)
    assert 1e-5 < result.drop_probability < 1e-2
    # It is at least the plain sum of its first 2000 terms (a partial sum, by hand).
    head = sum(
        math.exp(_log_term_by_hand(length, 10.0, 0.5, min(math.ceil(length / 150.0), 1e9)))
        for length in range(1, 2001)
    )
    assert result.drop_probability >= head


def _log_term_by_hand(length: int, b: float, rho: float, k: float) -> float:
    """ln of App. B's Chernoff term (e^δ/(1+δ)^(1+δ))^μ, μ = ρl/k, (1+δ)μ = (l+B)/k."""
    mu = rho * length / k
    ratio = (length + b) / (rho * length)  # 1 + δ
    return mu * ((ratio - 1.0) - ratio * math.log(ratio))


def _reference_log_sum(n: float, w: float, m: float, s: float, b: float) -> float:
    """The plain loop of :func:`_reference_bound` with each term taken from its logarithm."""
    rho = n * w / m
    longest = math.floor(min(m, n * w - 1 - b))
    terms = (
        math.exp(_log_term_by_hand(length, b, rho, min(math.ceil(length / s), w)))
        for length in range(1, longest + 1)
    )
    return min(1.0, math.fsum(terms))


@pytest.mark.parametrize(
    ("n", "w", "m", "s", "b"),
    [
        (20, 3000, 200_000, 60.0, 5.0),  # Lemma 8 over a thousand values of k
        (600, 100, 200_000, 20.0, 5.0),  # all three regimes, Lemma 9 beyond S·W = 2000
        (1500, 20, 600_000, 1.0, 60.0),  # no pacing (S = 1)
        (1000, 64, 125_000, 100.0, 16.0),  # the 000 §1.3 link with 100 Mb/s access links
        (300, 200, 400_000, 8.0, 30.0),
    ],
)
def test_binned_tail_is_an_upper_bound_close_to_the_sum(
    monkeypatch: pytest.MonkeyPatch, n: float, w: float, m: float, s: float, b: float
) -> None:
    # Force the binned bound from 1024 slots on and compare with the plain loop over every
    # interval length (30,000 to 64,000 of them, sums from 2e-5 to 0.2): the bins must never
    # give less than the sum (the result stays a valid upper bound; 1e-12 for the rounding of
    # two different summations) and, being 1/512 wide with tangent-line bounds inside, stay
    # within 1% of it.
    import models.pacing as pacing

    expected = _reference_log_sum(n, w, m, s, b)
    assert 1e-6 < expected < 0.5
    monkeypatch.setattr(pacing, "_EXACT_SLOTS", 1024)
    monkeypatch.setattr(pacing, "_TAIL_LOG_MARGIN", 1e9)  # no early stop: every bin added
    binned = paced_drop_bound_slots(n, w, m, s, b).drop_probability
    assert expected * (1 - 1e-12) <= binned <= expected * 1.01


wide_counts = st.floats(min_value=0.0, max_value=15.0).map(lambda x: 10.0**x)


@settings(max_examples=60, deadline=None)
@given(
    flows=wide_counts,
    window=wide_counts,
    log_rho=st.floats(min_value=-12.0, max_value=-1e-9),
    slowdown=st.floats(min_value=-3.0, max_value=12.0).map(lambda x: 10.0**x),
    b=st.one_of(st.just(0.0), st.floats(min_value=-3.0, max_value=12.0).map(lambda x: 10.0**x)),
)
def test_no_floating_point_warning_and_a_probability(
    flows: float, window: float, log_rho: float, slowdown: float, b: float
) -> None:
    # Loads from 1e-12 to just below 1, up to 1e15 flows and packets per window, slowdowns
    # from 1e-3 to 1e12, buffers up to 1e12: no overflow, division or invalid-value warning,
    # and the bound stays a probability.
    slots = flows * window / math.exp(log_rho)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = paced_drop_bound_slots(flows, window, slots, slowdown, b)
    assert 0.0 <= result.drop_probability <= 1.0
    parts = (
        result.one_packet_intervals,
        result.partial_window_intervals,
        result.whole_window_intervals,
    )
    assert all(math.isfinite(x) and x >= 0.0 for x in parts)


@settings(max_examples=40, deadline=None)
@given(links, st.lists(buffers, min_size=1, max_size=6))
def test_bracket_contains_the_bound(
    link: tuple[float, float, float, float], bs: list[float]
) -> None:
    # The cheap bounds the recommendation engine searches with must hold the full evaluation
    # between them (1e-9: the two are summed differently) at every buffer of one call.
    n, w, m, s = link
    n = max(n, 1.0)
    if n * w >= m:
        return
    low, high = paced_drop_bound_bracket(n, w, m, s, np.asarray(bs))
    for b, lo, hi in zip(bs, low, high, strict=True):
        value = paced_drop_bound_slots(n, w, m, s, b).drop_probability
        assert lo * (1 - 1e-9) <= value <= hi * (1 + 1e-9)
        assert 0.0 <= lo <= hi <= 1.0


def test_bracket_beyond_the_term_by_term_sum() -> None:
    # The 000 §1.3 link with 100 Mb/s access links has 64,000 interval lengths, beyond the
    # 32,768 summed one by one; the bracket still holds the full evaluation, within 5%.
    buffers = np.array([4.0, 16.0, 37.0, 64.0])
    low, high = paced_drop_bound_bracket(1000, 64, 125_000, 100.0, buffers)
    for b, lo, hi in zip(buffers, low, high, strict=True):
        value = paced_drop_bound_slots(1000, 64, 125_000, 100.0, b).drop_probability
        assert lo * (1 - 1e-9) <= value <= hi * (1 + 1e-9)
        assert hi <= lo * 1.05
