"""Tests of models.queues: M/M/1/B, the ρ^B sizing rule and the exact M/D/1/B queue."""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from models.queues import (
    md1b_loss_bound,
    md1b_occupancy_distribution,
    md1b_queue,
    mm1b_loss_bound,
    mm1b_loss_probability,
    mm1b_loss_scalar,
    transparent_admissible_load,
    transparent_buffer_packets,
)

# ---------------------------------------------------------------------------------------------
# Numbers quoted in the papers


def test_thesis_75_percent_load_20_packets_is_0_3_percent() -> None:
    # 000 §3.3: "The drop-rate would be ρ^B ... At 75% load and with 20 packet buffers, the drop
    # rate would be 0.3%". The paper rounds to one significant figure: accept [0.25%, 0.35%).
    bound = mm1b_loss_bound(0.75, 20)
    assert 0.0025 <= bound < 0.0035
    # The exact M/M/1/B loss is below the bound (eq. 3.3 has the extra (1-ρ)/(1-ρ^(B+1))).
    assert mm1b_loss_probability(0.75, 20) < bound


def test_augé_roberts_20_packets_admissible_loads() -> None:
    # 003 §4.2: "a buffer of 20 packets limits admissible load to ρ = .79 for ε = .01 or ρ = .7
    # for ε = .001". The paper gives two and one decimals: compare after the same rounding.
    assert round(transparent_admissible_load(20, 0.01), 2) == 0.79
    assert round(transparent_admissible_load(20, 0.001), 1) == 0.7
    # 003 §6 item 1: "a 20 packet buffer overflows with probability 0.01 at a load close to 80%".
    assert transparent_buffer_packets(0.79, 0.01) == 20


def test_augé_roberts_100_packets_at_90_percent() -> None:
    # 002 §IV.A: "If, for example, link load is less than 90%, a buffer of 100 packets maintains a
    # loss rate better than 1 in 30000." (0.9^100 = 2.66e-5 < 3.33e-5.)
    assert mm1b_loss_bound(0.9, 100) < 1.0 / 30000.0
    assert mm1b_loss_probability(0.9, 100) < 1.0 / 30000.0
    assert transparent_buffer_packets(0.9, 1.0 / 30000.0) <= 100
    # 002 §IV.A: "A 20 packet buffer can keep the loss rate better than 0.01 if load is less than
    # 71%." (True with margin: 0.71^20 = 1.06e-3; the ε = 0.01 limit itself is 0.794.)
    assert mm1b_loss_bound(0.71, 20) < 0.01


# ---------------------------------------------------------------------------------------------
# M/M/1/B closed form


def test_mm1b_at_unit_load_is_uniform() -> None:
    # At ρ = 1 the M/M/1/B occupancy is uniform on 0..B, so the loss is 1/(B+1).
    assert mm1b_loss_probability(1.0, 9) == pytest.approx(0.1, rel=1e-15)
    # Continuity across ρ = 1 (the expm1 form must not lose digits next to 1).
    assert mm1b_loss_probability(1.0 + 1e-9, 9) == pytest.approx(0.1, rel=1e-7)
    assert mm1b_loss_probability(1.0 - 1e-9, 9) == pytest.approx(0.1, rel=1e-7)


def test_mm1b_matches_direct_formula_and_overload_limit() -> None:
    # Direct evaluation of 000 eq. 3.3 where it is numerically harmless.
    for rho, b in [(0.5, 3), (0.9, 20), (1.3, 7), (3.0, 4)]:
        direct = rho**b * (1.0 - rho) / (1.0 - rho ** (b + 1))
        assert mm1b_loss_probability(rho, b) == pytest.approx(direct, rel=1e-12)
    # Overload with a huge buffer: the link carries 1, so the loss tends to 1 - 1/ρ; ρ^B would
    # overflow in the direct formula.
    assert mm1b_loss_probability(2.0, 5000) == pytest.approx(0.5, rel=1e-12)


def test_mm1b_broadcasts() -> None:
    loads = np.array([0.5, 0.9, 1.0, 1.5])
    out = mm1b_loss_probability(loads[:, None], np.array([1.0, 10.0, 100.0])[None, :])
    assert out.shape == (4, 3)
    # B = 1 is the Erlang loss formula ρ/(1+ρ) for any service distribution.
    np.testing.assert_allclose(out[:, 0], loads / (1.0 + loads), rtol=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    rho=st.floats(min_value=1e-3, max_value=20.0),
    b=st.integers(min_value=1, max_value=2000),
)
def test_mm1b_loss_falls_with_buffer(rho: float, b: int) -> None:
    # More buffer never means more loss.
    assert mm1b_loss_probability(rho, b + 1) <= mm1b_loss_probability(rho, b)


@settings(max_examples=200, deadline=None)
@given(
    rho=st.floats(min_value=1e-3, max_value=20.0),
    factor=st.floats(min_value=1.0, max_value=3.0),
    b=st.integers(min_value=1, max_value=2000),
)
def test_mm1b_loss_rises_with_load(rho: float, factor: float, b: int) -> None:
    p_low = mm1b_loss_probability(rho, b)
    p_high = mm1b_loss_probability(rho * factor, b)
    assert 0.0 <= p_low <= p_high * (1.0 + 1e-12) <= 1.0


@settings(max_examples=200, deadline=None)
@given(
    rho=st.floats(min_value=1e-3, max_value=0.999),
    b=st.integers(min_value=1, max_value=5000),
)
def test_mm1b_below_geometric_bound(rho: float, b: int) -> None:
    assert mm1b_loss_probability(rho, b) <= mm1b_loss_bound(rho, b) * (1.0 + 1e-12)


# ---------------------------------------------------------------------------------------------
# Transparent-regime sizing


@settings(max_examples=300, deadline=None)
@given(
    rho=st.floats(min_value=0.01, max_value=0.999),
    eps=st.floats(min_value=1e-12, max_value=0.5),
)
def test_transparent_buffer_is_the_smallest_meeting_the_target(rho: float, eps: float) -> None:
    b = transparent_buffer_packets(rho, eps)
    assert isinstance(b, int) and b >= 1
    # ρ^B ≤ ε (with the rule's 1e-12 relative slack on the exponent), and one packet less fails.
    assert rho**b <= eps * (1.0 + 1e-9)
    if b > 1:
        assert rho ** (b - 1) > eps * (1.0 - 1e-9)


def test_transparent_buffer_exact_powers() -> None:
    # ln(0.01)/ln(0.1) evaluates to 2.0000000000000004; the rule must still say 2.
    assert transparent_buffer_packets(0.1, 0.01) == 2
    assert transparent_buffer_packets(0.5, 0.5**10) == 10
    np.testing.assert_array_equal(transparent_buffer_packets([0.5, 0.9], 0.01), [7, 44])


@settings(max_examples=200, deadline=None)
@given(b=st.integers(min_value=1, max_value=10_000), eps=st.floats(min_value=1e-9, max_value=0.9))
def test_admissible_load_inverts_the_bound(b: int, eps: float) -> None:
    rho = transparent_admissible_load(b, eps)
    assert 0.0 < rho < 1.0
    assert rho**b == pytest.approx(eps, rel=1e-9)


# ---------------------------------------------------------------------------------------------
# M/D/1/B: independent checks


def test_md1b_single_place_is_erlang_loss() -> None:
    # With B = 1 there is no waiting room: the Erlang loss formula ρ/(1+ρ) holds for any
    # service-time distribution (insensitivity of M/G/1/1).
    for rho in [0.1, 0.5, 1.0, 2.0, 7.0]:
        res = md1b_queue(rho, 1)
        assert res.loss_probability == pytest.approx(rho / (1.0 + rho), rel=1e-12)
        # The only accepted packet stays exactly one transmission time.
        assert res.mean_delay_slots == pytest.approx(1.0, rel=1e-12)


def test_md1b_two_places_closed_form() -> None:
    # Derived by hand: with K = 2 the departure chain has states 0 and 1; the cut between them
    # gives π1·P(A=0) = π0·P(A≥1), i.e. π1/π0 = e^ρ - 1, so π0 = e^-ρ and
    # p_K = 1 - 1/(π0 + ρ) = (1 + ρe^ρ - e^ρ)/(1 + ρe^ρ).
    for rho in [0.2, 1.0, 3.0]:
        e = math.exp(rho)
        expected = (1.0 + rho * e - e) / (1.0 + rho * e)
        assert md1b_queue(rho, 2).loss_probability == pytest.approx(expected, rel=1e-12)


def _dense_md1k_loss(rho: float, k: int) -> float:
    """Loss from the full embedded transition matrix solved as a dense linear system."""
    a = stats.poisson.pmf(np.arange(k + 1), rho)
    p = np.zeros((k, k))
    for i in range(k):
        base = max(i - 1, 0)  # packets left behind before counting the new arrivals
        for j in range(base, k - 1):
            p[i, j] = a[j - base]
        p[i, k - 1] = 1.0 - p[i, : k - 1].sum()
    # π (P - I) = 0 with Σπ = 1: replace the last balance equation by the normalisation.
    lhs = (p - np.eye(k)).T
    lhs[-1, :] = 1.0
    rhs = np.zeros(k)
    rhs[-1] = 1.0
    pi = scipy.linalg.solve(lhs, rhs)
    return 1.0 - 1.0 / (pi[0] + rho)


@pytest.mark.parametrize(("rho", "k"), [(0.5, 5), (0.9, 10), (1.0, 25), (1.4, 12), (3.0, 40)])
def test_md1b_matches_dense_balance_equations(rho: float, k: int) -> None:
    # The dense solve uses the balance equations and the textbook p_K = 1 - 1/(π0 + ρ); losses
    # here are >= 1e-3, so its cancellation costs at most ~1e-13 relative.
    assert md1b_queue(rho, k).loss_probability == pytest.approx(_dense_md1k_loss(rho, k), rel=1e-9)


def test_md1b_large_buffer_tends_to_pollaczek_khinchine() -> None:
    # With ρ < 1 and a buffer far beyond the queue's reach, M/D/1/B is the infinite M/D/1 queue:
    # Pollaczek-Khinchine mean number L = ρ + ρ²/(2(1-ρ)) and sojourn W = 1 + ρ/(2(1-ρ)).
    rho = 0.8
    res = md1b_queue(rho, 2000)
    assert res.mean_queue_packets == pytest.approx(rho + rho**2 / (2.0 * (1.0 - rho)), rel=1e-10)
    assert res.mean_delay_slots == pytest.approx(1.0 + rho / (2.0 * (1.0 - rho)), rel=1e-10)
    assert res.loss_probability < 1e-100


def test_md1b_overload_large_buffer_carries_the_link() -> None:
    # At ρ > 1 with a large buffer the server is always busy: throughput 1, so loss 1 - 1/ρ,
    # and the queue is near full. Stable for a buffer of thousands of packets.
    for rho in [1.2, 2.0, 10.0]:
        res = md1b_queue(rho, 3000)
        assert res.loss_probability == pytest.approx(1.0 - 1.0 / rho, rel=1e-9)
        assert 2990.0 < res.mean_queue_packets <= 3000.0


def test_md1b_occupancy_distribution_sums_to_one() -> None:
    for rho, b in [(0.3, 4), (0.95, 300), (1.0, 50), (4.0, 200)]:
        dist = md1b_occupancy_distribution(rho, b)
        assert dist.shape == (b + 1,)
        assert np.all(dist >= 0.0)
        assert dist.sum() == pytest.approx(1.0, rel=1e-12)
        # Server busy fraction equals the carried load ρ(1 - p_B).
        assert 1.0 - dist[0] == pytest.approx(rho * (1.0 - dist[-1]), rel=1e-10)


def _simulate_md1k(
    rho: float, k: int, arrivals: int, replications: int, seed: int
) -> tuple[float, float, float, float]:
    """Loss and mean delay of M/D/1/K by direct simulation; (mean, half-width) of 99% CIs."""
    losses = np.empty(replications)
    delays = np.empty(replications)
    for r, child in enumerate(np.random.SeedSequence(seed).spawn(replications)):
        rng = np.random.default_rng(child)
        times = np.cumsum(rng.exponential(1.0 / rho, size=arrivals))
        in_port: deque[float] = deque()  # departure times of the packets in the port
        last_departure = 0.0
        dropped = 0
        sojourn = 0.0
        for t in times:
            while in_port and in_port[0] <= t:
                in_port.popleft()
            if len(in_port) >= k:
                dropped += 1
                continue
            last_departure = max(t, last_departure) + 1.0
            in_port.append(last_departure)
            sojourn += last_departure - t
        losses[r] = dropped / arrivals
        delays[r] = sojourn / (arrivals - dropped)
    quantile = stats.t.ppf(0.995, replications - 1)
    half = quantile / math.sqrt(replications)
    return (
        float(losses.mean()),
        float(half * losses.std(ddof=1)),
        float(delays.mean()),
        float(half * delays.std(ddof=1)),
    )


@pytest.mark.parametrize(("rho", "k"), [(0.9, 6), (1.3, 10)])
def test_md1b_agrees_with_simulation(rho: float, k: int) -> None:
    # Independent check: a direct event-by-event simulation of Poisson arrivals, unit
    # transmission times and a K-place drop-tail port, 8 replications of 20,000 arrivals with a
    # fixed seed. The model must fall inside the replications' 99% t confidence interval
    # (replications start empty; the bias of that start is far below the interval's width).
    loss, loss_half, delay, delay_half = _simulate_md1k(rho, k, 20_000, 8, seed=20240611)
    res = md1b_queue(rho, k)
    assert abs(res.loss_probability - loss) <= loss_half
    assert abs(res.mean_delay_slots - delay) <= delay_half


@settings(max_examples=60, deadline=None)
@given(
    rho=st.floats(min_value=0.05, max_value=0.99),
    b=st.integers(min_value=1, max_value=150),
)
def test_md1b_below_mm1b_and_lcfs_bound(rho: float, b: int) -> None:
    # Fixed packet sizes are smoother than exponential ones: never more loss than M/M/1/B at the
    # same load and buffer, and never more than the LCFS-PR bound ρ^B (000 App. A, Lemma 6).
    p = md1b_queue(rho, b).loss_probability
    assert p <= mm1b_loss_probability(rho, b) * (1.0 + 1e-9)
    assert p <= md1b_loss_bound(rho, b) * (1.0 + 1e-9)


@settings(max_examples=60, deadline=None)
@given(
    rho=st.floats(min_value=0.05, max_value=5.0),
    b=st.integers(min_value=1, max_value=150),
)
def test_md1b_loss_falls_with_buffer(rho: float, b: int) -> None:
    assert md1b_queue(rho, b + 1).loss_probability <= md1b_queue(rho, b).loss_probability * (
        1.0 + 1e-12
    )


@settings(max_examples=60, deadline=None)
@given(
    rho=st.floats(min_value=0.05, max_value=5.0),
    factor=st.floats(min_value=1.0, max_value=2.0),
    b=st.integers(min_value=1, max_value=150),
)
def test_md1b_loss_rises_with_load(rho: float, factor: float, b: int) -> None:
    low = md1b_queue(rho, b).loss_probability
    high = md1b_queue(rho * factor, b).loss_probability
    assert low <= high * (1.0 + 1e-12)


def test_md1b_broadcasts() -> None:
    res = md1b_queue(np.array([0.5, 0.9]), np.array([[1], [10]]))
    assert res.loss_probability.shape == (2, 2)
    assert res.loss_probability[0, 0] == pytest.approx(0.5 / 1.5, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Invalid input


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: mm1b_loss_probability(0.0, 10), "load must be > 0"),
        (lambda: mm1b_loss_probability(-0.5, 10), "load must be > 0"),
        (lambda: mm1b_loss_probability(float("nan"), 10), "load must be finite"),
        (lambda: mm1b_loss_probability(float("inf"), 10), "load must be finite"),
        (lambda: mm1b_loss_probability(0.5, 0.5), "buffer_packets must be >= 1"),
        (lambda: mm1b_loss_probability(0.5, float("nan")), "buffer_packets must be finite"),
        (lambda: mm1b_loss_bound(1.0, 10), r"load must be in \(0, 1\)"),
        (lambda: mm1b_loss_bound(0.5, 0), "buffer_packets must be >= 1"),
        (lambda: md1b_loss_bound(1.5, 10), r"load must be in \(0, 1\)"),
        (lambda: transparent_buffer_packets(1.0, 0.01), r"load must be in \(0, 1\)"),
        (lambda: transparent_buffer_packets(0.5, 0.0), r"max_loss must be in \(0, 1\)"),
        (lambda: transparent_buffer_packets(0.5, 1.0), r"max_loss must be in \(0, 1\)"),
        (lambda: transparent_admissible_load(0, 0.01), "buffer_packets must be >= 1"),
        (lambda: transparent_admissible_load(20, 1.5), r"max_loss must be in \(0, 1\)"),
        (lambda: md1b_queue(0.0, 10), r"load must be in \(0, 100\]"),
        (lambda: md1b_queue(101.0, 10), r"load must be in \(0, 100\]"),
        (lambda: md1b_queue(float("inf"), 10), "load must be finite"),
        (lambda: md1b_queue(0.5, 0), "buffer_packets must be >= 1"),
        (lambda: md1b_queue(0.5, 2.5), "buffer_packets must be a whole number"),
    ],
)
def test_invalid_input_names_parameter_and_bound(call: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()  # type: ignore[operator]


@pytest.mark.parametrize("load", [0.05, 0.5, 0.999, 1.0, 1.001, 3.0])
@pytest.mark.parametrize("buffer_packets", [1.0, 7.5, 100.0, 2000.0])
def test_scalar_mm1b_is_the_array_formula(load: float, buffer_packets: float) -> None:
    # The scalar core used by the TCP fixed point is the same expression in plain floats:
    # equal to the array function within two ulps (different libm paths for exp/expm1).
    scalar = mm1b_loss_scalar(load, buffer_packets)
    array = float(mm1b_loss_probability(load, buffer_packets))
    assert scalar == pytest.approx(array, rel=4e-16, abs=1e-300)
