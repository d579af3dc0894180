"""Tests of models.processor_sharing against 003 §3 (eq. 1, Fig. 1) and 002 §III."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from models.processor_sharing import (
    ps_flow_distribution,
    ps_mean_flows,
    ps_saturation_probability,
    ps_tail_probability,
    ps_throughput_ratio,
    ps_transparency_limit_load,
)

# ---------------------------------------------------------------------------------------------
# Numbers quoted in the papers


def test_gamma_half_at_half_load() -> None:
    # 003 eq. 1 with φ ≡ 1: Σρ^i = 1/(1-ρ), Σ iρ^(i-1) = 1/(1-ρ)², so γ = 1 - ρ; docs/references.md
    # check "γ(φ≡1, ρ=0.5) = 0.5".
    assert ps_throughput_ratio(0.5) == pytest.approx(0.5, rel=1e-12)
    np.testing.assert_allclose(ps_throughput_ratio([0.1, 0.5, 0.9]), [0.9, 0.5, 0.1], rtol=1e-12)


def test_more_than_four_flows_at_half_load() -> None:
    # 002 §III: "Note that if ρ = 0.5, for example, the probability there are more than 4 flows
    # in progress is only 0.03." The paper rounds to two decimals (exact: 0.5^5 = 0.03125).
    assert round(ps_tail_probability(0.5, 4), 2) == 0.03


def test_fewer_than_twenty_flows_at_80_percent() -> None:
    # 003 §3.1: the number of flows is geometric of mean ρ/(1-ρ), "less than 20 with
    # probability .99 at 80% load". Two decimals in the paper (exact: 1 - 0.8^20 = 0.9885).
    assert round(1.0 - ps_tail_probability(0.8, 19), 2) == 0.99
    assert ps_mean_flows(0.8) == pytest.approx(0.8 / 0.2, rel=1e-12)


def test_geometric_distribution() -> None:
    # 002 §III: "Pr[n flows] = (1 - ρ)ρ^n".
    rho = 0.7
    dist = ps_flow_distribution(rho)
    n = np.arange(dist.size)
    np.testing.assert_allclose(dist, (1 - rho) * rho**n, rtol=1e-9)
    assert dist.sum() == pytest.approx(1.0, abs=1e-12)


def test_peak_rate_tenth_of_link_is_transparent_up_to_about_90_percent() -> None:
    # 003 §3.3 on Fig. 1 (p = 0.1C): "when flows are peak rate limited, the link is transparent
    # to throughput performance up to high loads (close to (1 - p/C))", i.e. about 0.9.
    # Read numerically: γ stays at the peak rate 0.1 (within 1%) up to half load, and keeps at
    # least half of it until a load within ±0.05 of 0.9 (the figure's reading precision).
    gamma = ps_throughput_ratio(np.array([0.1, 0.3, 0.5]), peak_rate_fraction=0.1)
    assert np.all(gamma >= 0.99 * 0.1)
    assert np.all(gamma <= 0.1)
    limit = ps_transparency_limit_load(0.1)
    assert 0.85 <= limit <= 0.95
    # Beyond it γ collapses toward 0 as ρ -> 1, like the φ ≡ 1 curve.
    assert ps_throughput_ratio(0.99, peak_rate_fraction=0.1) < 0.1 * 0.1


# ---------------------------------------------------------------------------------------------
# Independent computations


def _erlang_c(servers: int, offered: float) -> float:
    """Erlang C by the Erlang B recursion B(k) = A·B(k-1)/(k + A·B(k-1))."""
    b = 1.0
    for k in range(1, servers + 1):
        b = offered * b / (k + offered * b)
    rho = offered / servers
    return b / (1.0 - rho * (1.0 - b))


@pytest.mark.parametrize("rho", [0.2, 0.5, 0.8, 0.9, 0.97])
def test_peak_rate_profile_is_an_m_m_m_queue(rho: float) -> None:
    # With p/C = 1/m, φ(i) = min(i/m, 1) is the M/M/m queue with offered load A = mρ:
    # E[N] = A + C(m, A)·ρ/(1-ρ) (Erlang C), and γ = ρ/E[N] by Little's law.
    m = 10
    mean = m * rho + _erlang_c(m, m * rho) * rho / (1.0 - rho)
    assert ps_mean_flows(rho, peak_rate_fraction=1.0 / m) == pytest.approx(mean, rel=1e-10)
    assert ps_throughput_ratio(rho, peak_rate_fraction=1.0 / m) == pytest.approx(
        rho / mean, rel=1e-10
    )
    # The peak rates reach C when all m "servers" are busy: the Erlang C probability.
    assert ps_saturation_probability(rho, 1.0 / m) == pytest.approx(
        _erlang_c(m, m * rho), rel=1e-10
    )
    # The same φ given as a table (log-space path) agrees with the closed-form Poisson path.
    table = [min(i / m, 1.0) for i in range(1, m + 1)]
    assert ps_throughput_ratio(rho, phi=table) == pytest.approx(rho / mean, rel=1e-10)


def _brute_force_gamma(rho: float, table: list[float], terms: int = 5000) -> float:
    """003 eq. 1 summed term by term with plain floats (φ constant after the table)."""
    num = 1.0  # i = 0 term
    den = 0.0
    term = 1.0  # ρ^i / Φ(i), built up factor by factor
    for i in range(1, terms):
        term *= rho / table[min(i, len(table)) - 1]
        num += term
        den += i * term / rho
    return num / den


@pytest.mark.parametrize(
    ("rho", "table"),
    [(0.6, [0.5, 0.8, 0.9]), (0.3, [0.4]), (0.85, [1.0, 0.95, 0.9, 0.95, 1.0])],
)
def test_phi_table_matches_brute_force_sum(rho: float, table: list[float]) -> None:
    # 5000 terms: the neglected tail is below (ρ/φ(n))^5000 < 1e-90 of the sums.
    assert ps_throughput_ratio(rho, phi=table) == pytest.approx(
        _brute_force_gamma(rho, table), rel=1e-11
    )


def test_unlimited_peak_rate_is_phi_one() -> None:
    # A peak rate at or above the link rate means φ(i) = min(i·p/C, 1) = 1.
    for a in (1.0, 3.0):
        assert ps_throughput_ratio(0.4, peak_rate_fraction=a) == pytest.approx(0.6, rel=1e-12)


def test_tiny_peak_rate_gets_the_peak_rate() -> None:
    # p/C = 1e-6 at 80% load: 800,000 flows in progress on average and saturation is
    # astronomically unlikely, so γ = p/C and E[N] = ρC/p (Poisson number of flows).
    assert ps_throughput_ratio(0.8, peak_rate_fraction=1e-6) == pytest.approx(1e-6, rel=1e-9)
    assert ps_mean_flows(0.8, peak_rate_fraction=1e-6) == pytest.approx(8e5, rel=1e-9)
    dist = ps_flow_distribution(0.8, peak_rate_fraction=1e-6)
    assert dist.sum() == pytest.approx(1.0, abs=1e-12)


def test_tail_probability_agrees_with_distribution() -> None:
    for kwargs in ({}, {"peak_rate_fraction": 0.1}, {"phi": [0.3, 0.6, 0.9]}):
        dist = ps_flow_distribution(0.75, **kwargs)  # type: ignore[arg-type]
        for n in (0, 3, 12, 30):
            expected = 1.0 - dist[: n + 1].sum()
            got = ps_tail_probability(0.75, n, **kwargs)  # type: ignore[arg-type]
            assert got == pytest.approx(expected, abs=1e-11)


def test_explicit_max_flows() -> None:
    dist = ps_flow_distribution(0.5, max_flows=3)
    np.testing.assert_allclose(dist, [0.5, 0.25, 0.125, 0.0625], rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Properties

profiles = st.one_of(
    st.just({}),
    st.builds(lambda a: {"peak_rate_fraction": a}, st.floats(min_value=1e-4, max_value=2.0)),
    st.builds(
        lambda v: {"phi": v},
        st.lists(st.floats(min_value=0.05, max_value=1.0), min_size=1, max_size=30),
    ),
)


def _load_for(kwargs: dict[str, object], frac: float) -> float:
    """A load strictly inside the stable range of the profile."""
    top = 1.0
    if "phi" in kwargs:
        top = float(kwargs["phi"][-1])  # type: ignore[index]
    return max(frac * top, 1e-6)


@settings(max_examples=150, deadline=None)
@given(kwargs=profiles, frac=st.floats(min_value=0.001, max_value=0.99))
def test_gamma_in_unit_interval_and_below_unlimited(kwargs: dict[str, object], frac: float) -> None:
    rho = _load_for(kwargs, frac)
    gamma = ps_throughput_ratio(rho, **kwargs)  # type: ignore[arg-type]
    assert 0.0 < gamma <= 1.0
    # A service rate φ ≤ 1 never gives flows more than the φ ≡ 1 share 1 - ρ.
    assert gamma <= (1.0 - rho) * (1.0 + 1e-9)
    if "peak_rate_fraction" in kwargs:
        assert gamma <= min(float(kwargs["peak_rate_fraction"]), 1.0) * (1.0 + 1e-9)  # type: ignore[arg-type]
    # Little's law: E[N] = ρ/γ.
    mean = ps_mean_flows(rho, **kwargs)  # type: ignore[arg-type]
    assert mean == pytest.approx(rho / gamma, rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(kwargs=profiles, frac=st.floats(min_value=0.001, max_value=0.98))
def test_distribution_sums_to_one(kwargs: dict[str, object], frac: float) -> None:
    rho = _load_for(kwargs, frac)
    dist = ps_flow_distribution(rho, **kwargs)  # type: ignore[arg-type]
    assert np.all(dist >= 0.0)
    assert math.fsum(dist) == pytest.approx(1.0, abs=1e-12)
    mean = float(np.dot(np.arange(dist.size), dist))
    expected = ps_mean_flows(rho, **kwargs)  # type: ignore[arg-type]
    assert mean == pytest.approx(expected, rel=1e-8, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(
    a=st.floats(min_value=1e-3, max_value=1.0),
    rho=st.floats(min_value=0.01, max_value=0.95),
    step=st.floats(min_value=1e-3, max_value=0.04),
)
def test_gamma_falls_with_load(a: float, rho: float, step: float) -> None:
    low = ps_throughput_ratio(rho, peak_rate_fraction=a)
    high = ps_throughput_ratio(rho + step, peak_rate_fraction=a)
    assert high <= low * (1.0 + 1e-12)


# ---------------------------------------------------------------------------------------------
# Robustness at extreme inputs


def test_astronomically_small_peak_rate_returns_the_peak_rate() -> None:
    # Found by fuzzing the API: p/C = 1e-300 hung (m = C/p counted up one by one from 1e300).
    # m is now closed-form. With 1e300 "servers" at 50% load saturation never happens, so, as
    # for p/C = 1e-6 above, every flow gets its peak rate: γ = p/C and E[N] = ρC/p. The only
    # error is rounding in the log-space sums (1e-12 relative).
    for a in (1e-300, 1e-200, 1e-20):
        assert ps_throughput_ratio(0.5, peak_rate_fraction=a) == pytest.approx(a, rel=1e-12)
        assert ps_mean_flows(0.5, peak_rate_fraction=a) == pytest.approx(0.5 / a, rel=1e-12)
        assert ps_saturation_probability(0.5, a) == 0.0


def test_one_third_peak_rate_means_three_flows_fill_the_link() -> None:
    # m is the least i with i·p/C >= 1 as the caller computes it: 3·(1/3) rounds to 1, so
    # p/C = 1/3 is the M/M/3 queue (the float 1/3 is a hair below a third; exact arithmetic
    # would say 4). Erlang C of 3 servers at offered load 1.5, computed independently.
    assert ps_saturation_probability(0.5, 1.0 / 3.0) == pytest.approx(_erlang_c(3, 1.5), rel=1e-10)


def test_huge_number_of_servers_near_saturation_matches_halfin_whitt() -> None:
    # p/C = 1e-17 (m = 1e17 flows fill the link) at ρ = 1 − 1e-9: the saturation probability
    # is Erlang C with m servers, whose many-server (Halfin-Whitt) limit with
    # β = (1 − ρ)√m is 1/(1 + β·Φ(β)/φ(β)); the limit's error is O(1/√m) ≈ 3e-9, hence
    # 1e-6. The textbook log Poisson pmf, k·ln A − ln k! − A, cancels away every digit here.
    m, rho = 1e17, 1.0 - 1e-9
    beta = (1.0 - rho) * math.sqrt(m)
    expected = 1.0 / (1.0 + beta * stats.norm.cdf(beta) / stats.norm.pdf(beta))
    assert ps_saturation_probability(rho, 1.0 / m) == pytest.approx(expected, rel=1e-6)


def test_gamma_never_exceeds_one_at_tiny_loads() -> None:
    # γ = 1 − ρ for φ ≡ 1 (003 eq. 1); at ρ = 1e-10 the ratio of the two log-space sums used to
    # round to 1 + 1e-14. γ is a mean of per-flow rates, none above 1.
    for rho in (1e-300, 1e-100, 1e-10, 1e-6):
        gamma = ps_throughput_ratio(rho)
        assert gamma <= 1.0
        assert gamma == pytest.approx(1.0 - rho, rel=1e-12)


tiny_or_extreme_loads = st.one_of(
    st.floats(min_value=-300.0, max_value=-0.01).map(lambda x: 10.0**x),
    st.floats(min_value=-15.0, max_value=-0.01).map(lambda x: 1.0 - 10.0**x),
)
wide_profiles = st.one_of(
    st.just({}),
    st.builds(
        lambda x: {"peak_rate_fraction": 10.0**x}, st.floats(min_value=-300.0, max_value=0.5)
    ),
    st.builds(
        lambda v: {"phi": [1.0, *v]},
        st.lists(st.floats(min_value=1e-300, max_value=1.0), min_size=0, max_size=20),
    ),
)


@settings(max_examples=150, deadline=None)
@given(kwargs=wide_profiles, rho=tiny_or_extreme_loads, flows=st.integers(0, 1000))
def test_no_floating_point_warning_over_wide_inputs(
    kwargs: dict[str, object], rho: float, flows: int
) -> None:
    # Loads from 1e-300 to 1 − 1e-15, peak rates from 1e-300 C to above C, φ tables with
    # values down to 1e-300: no overflow, division or invalid-value warning; γ in (0, 1] and
    # at most the peak rate; probabilities in [0, 1].
    if "phi" in kwargs:
        rho = min(rho, 0.999) * float(kwargs["phi"][-1])  # type: ignore[index]
        assume(rho > 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gamma = ps_throughput_ratio(rho, **kwargs)  # type: ignore[arg-type]
        mean = ps_mean_flows(rho, **kwargs)  # type: ignore[arg-type]
        tail = ps_tail_probability(rho, flows, **kwargs)  # type: ignore[arg-type]
    assert 0.0 < gamma <= 1.0
    if "peak_rate_fraction" in kwargs:
        assert gamma <= float(kwargs["peak_rate_fraction"])  # type: ignore[arg-type]
    assert math.isfinite(mean) and mean >= 0.0
    assert 0.0 <= tail <= 1.0 + 1e-12


# ---------------------------------------------------------------------------------------------
# Invalid input


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ps_throughput_ratio(0.0), r"load must be in \(0, 1\)"),
        (lambda: ps_throughput_ratio(1.0), r"load must be in \(0, 1\)"),
        (lambda: ps_throughput_ratio(float("nan")), "load must be finite"),
        (lambda: ps_throughput_ratio(float("inf")), "load must be finite"),
        (
            lambda: ps_throughput_ratio(0.5, peak_rate_fraction=0.0),
            "peak_rate_fraction must be > 0",
        ),
        (lambda: ps_throughput_ratio(0.5, phi=[0.5, 0.0]), r"phi must be in \(0, 1\]"),
        (lambda: ps_throughput_ratio(0.5, phi=[0.5, 1.5]), r"phi must be in \(0, 1\]"),
        (lambda: ps_throughput_ratio(0.5, phi=[float("nan")]), "phi must be finite"),
        (lambda: ps_throughput_ratio(0.5, phi=[0.9, 0.4]), r"load must be < phi\[-1\] = 0.4"),
        (
            lambda: ps_throughput_ratio(0.5, peak_rate_fraction=0.1, phi=[1.0]),
            "at most one of peak_rate_fraction and phi",
        ),
        (lambda: ps_mean_flows(-0.1), r"load must be in \(0, 1\)"),
        (lambda: ps_tail_probability(0.5, -1), "flows must be >= 0"),
        (lambda: ps_flow_distribution(0.5, max_flows=-2), "max_flows must be >= 0"),
        (lambda: ps_flow_distribution(1 - 1e-12), "max_flows must be <"),
        (lambda: ps_transparency_limit_load(1.0), r"peak_rate_fraction must be in \(0, 1\)"),
        (lambda: ps_transparency_limit_load(0.1, 1.0), r"throughput_fraction must be in \(0, 1\)"),
    ],
)
def test_invalid_input_names_parameter_and_bound(call: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()  # type: ignore[operator]


def test_subnormal_peak_rate_is_refused_with_its_bound() -> None:
    # C/p must stay a finite float; below 1e-300 the peak rate is refused by name and bound.
    with pytest.raises(ValueError, match=r"peak_rate_fraction must be >= 1e-300"):
        ps_throughput_ratio(0.5, peak_rate_fraction=1e-310)
