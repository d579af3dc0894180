"""Tests of models.regimes against 002 §III.C, §IV and 003 §3.3, §4.2, §5-6."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.regimes import ELASTIC, OVERLOAD, TRANSPARENT, classify_regime

RANK = {TRANSPARENT: 0, ELASTIC: 1, OVERLOAD: 2}


def _has_rule_and_warning(text_rule: str, warning: str | None) -> None:
    assert text_rule.strip()
    assert warning is not None and warning.strip()


def test_overload_at_or_above_capacity() -> None:
    # 003 §3.3: "an overload regime (ρ > 1) where realized flow throughput tends to zero";
    # "Buffer sizing is clearly inadequate for dealing with congestion in the overload regime.
    # Alternative mechanisms ... (i.e., traffic engineering and admission control)".
    for rho in (1.0, 1.5):
        res = classify_regime(rho, peak_rate_fraction=0.01)
        assert res.regime == OVERLOAD
        assert "admission" in res.sizing_rule
        _has_rule_and_warning(res.sizing_rule, res.warning)
        assert res.buffer_packets is None


def test_single_unlimited_flow_on_background_is_elastic() -> None:
    # 002 §IV.B scenario: a 50 Mb/s link, Poisson background "accounts for half" of it, one
    # permanent bottlenecked New Reno flow (no peak-rate limit): the elastic regime. Its rule
    # scales with the residual bandwidth-delay product; the warning recalls the 20-packet
    # result ("only manages to acquire around 40% of the residual bandwidth").
    res = classify_regime(0.6, peak_rate_fraction=None, background_load=0.5)
    assert res.regime == ELASTIC
    assert "residual" in res.sizing_rule
    assert "40%" in (res.warning or "")
    _has_rule_and_warning(res.sizing_rule, res.warning)
    assert res.buffer_packets is None


def test_transparent_sizing_20_packets_at_79_percent() -> None:
    # 003 §4.2: "for a peak rate less than .1C and ε > .001, the required buffer size is the
    # same as would be required for the Poisson packet arrival process ... a buffer of 20
    # packets limits admissible load to ρ = .79 for ε = .01".
    res = classify_regime(0.79, peak_rate_fraction=0.01, max_loss=0.01)
    assert res.regime == TRANSPARENT
    assert res.buffer_packets == 20
    assert "ρ^B < ε" in res.sizing_rule
    _has_rule_and_warning(res.sizing_rule, res.warning)


def test_peak_rate_tenth_of_link_saturation_probability_decides() -> None:
    # 003 §4: "The transparent regime is characterized by the fact that the sum of flow peak
    # rates is, with high probability, less than link capacity." Fig. 1's throughput reading
    # (§3.3: transparent to throughput "close to (1 - p/C)") is not enough: at ρ = 0.92 with
    # p = 0.1·C the peak rates add up to C 73% of the time (issue: "saturated 73% of the
    # time"), so the link is elastic and the reason says how often it is saturated.
    busy = classify_regime(0.92, peak_rate_fraction=0.1)
    assert busy.regime == ELASTIC
    assert busy.saturation_probability == pytest.approx(0.73, abs=0.005)
    assert "73% of the time" in busy.reason
    # At half load the peak rates sum past C only 3.6% of the time: transparent, and the
    # reason gives the probability.
    calm = classify_regime(0.5, peak_rate_fraction=0.1)
    assert calm.regime == TRANSPARENT
    assert calm.saturation_probability is not None and calm.saturation_probability < 0.05
    assert "of the time" in calm.reason
    assert classify_regime(0.95, peak_rate_fraction=0.1).regime == ELASTIC


def test_peak_rate_limited_bottlenecked_flows_on_background() -> None:
    # 003 §5.2 / Fig. 8: flows of peak 2 Mb/s on a 50 Mb/s link with background ρ_b = 0.5 (peak
    # = 0.08 of the residual capacity) run in the transparent regime while their rates sum
    # below the residual capacity; 003 §6 item 3: "when the peak rate ... is a relatively small
    # fraction of the residual bandwidth (e.g., 1/10), and overall load is not too close to 1,
    # the link is rarely saturated and a small buffer sized for the transparent regime is
    # adequate".
    res = classify_regime(0.7, peak_rate_fraction=2.0 / 50.0, background_load=0.5)
    assert res.regime == TRANSPARENT
    assert res.saturation_probability is not None and res.saturation_probability < 0.05


def test_unknown_peak_rate_is_treated_as_unlimited() -> None:
    # 003 §6 item 2: flows that "can individually saturate the residual link bandwidth" make
    # the link elastic; with unknown peak rates the classifier assumes that worst case.
    res = classify_regime(0.3)
    assert res.regime == ELASTIC
    assert "unknown" in res.reason


def test_high_peak_rate_is_elastic_even_at_low_load() -> None:
    # Peaks of 0.3C: a handful of flows saturate the link, outside the "peak rate less than
    # .1C" range where 003 §4.2 trusts the Poisson sizing.
    res = classify_regime(0.3, peak_rate_fraction=0.3)
    assert res.regime == ELASTIC
    assert "above" in res.reason


def test_throughput_and_saturation_reported() -> None:
    # φ ≡ 1 on the whole link (a ≥ 1, no background): γ = 1 - ρ and P(N ≥ 1) = ρ (002 §III).
    res = classify_regime(0.4, peak_rate_fraction=1.0)
    assert res.throughput_ratio == pytest.approx(0.6, rel=1e-12)
    assert res.saturation_probability == pytest.approx(0.4, rel=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    rho=st.floats(min_value=0.01, max_value=1.5),
    step=st.floats(min_value=0.0, max_value=0.5),
    a=st.one_of(st.none(), st.floats(min_value=1e-3, max_value=2.0)),
)
def test_more_load_never_means_a_lighter_regime(rho: float, step: float, a: float | None) -> None:
    low = classify_regime(rho, peak_rate_fraction=a)
    high = classify_regime(rho + step, peak_rate_fraction=a)
    assert RANK[high.regime] >= RANK[low.regime]
    for res in (low, high):
        _has_rule_and_warning(res.sizing_rule, res.warning)
        assert (res.regime == OVERLOAD) == (res.reason.startswith("offered load"))


@settings(max_examples=150, deadline=None)
@given(
    rho=st.floats(min_value=0.01, max_value=0.99),
    a=st.floats(min_value=1e-3, max_value=0.2),
    factor=st.floats(min_value=1.0, max_value=5.0),
    eps=st.floats(min_value=1e-6, max_value=0.5),
)
def test_higher_peak_never_means_a_lighter_regime(
    rho: float, a: float, factor: float, eps: float
) -> None:
    low = classify_regime(rho, peak_rate_fraction=a, max_loss=eps)
    high = classify_regime(rho, peak_rate_fraction=a * factor, max_loss=eps)
    assert RANK[high.regime] >= RANK[low.regime]
    if low.regime == TRANSPARENT:
        # The transparent buffer meets the target with the geometric bound.
        assert low.buffer_packets is not None
        assert rho**low.buffer_packets <= eps * (1.0 + 1e-9)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"load": 0.0}, "load must be > 0"),
        ({"load": float("nan")}, "load must be finite"),
        ({"load": float("inf")}, "load must be finite"),
        ({"peak_rate_fraction": 0.0}, "peak_rate_fraction must be > 0"),
        ({"peak_rate_fraction": float("nan")}, "peak_rate_fraction must be finite"),
        ({"background_load": -0.1}, r"background_load must be in \[0, 0.5\]"),
        ({"background_load": 0.6}, r"background_load must be in \[0, 0.5\]"),
        ({"max_loss": 0.0}, r"max_loss must be in \(0, 1\)"),
        ({"max_loss": 1.0}, r"max_loss must be in \(0, 1\)"),
        ({"max_peak_fraction": 0.0}, r"max_peak_fraction must be in \(0, 1\]"),
        ({"throughput_fraction": 1.0}, r"throughput_fraction must be in \(0, 1\)"),
    ],
)
def test_invalid_input_names_parameter_and_bound(kwargs: dict[str, float], match: str) -> None:
    args: dict[str, float] = {"load": 0.5, "peak_rate_fraction": 0.05}
    args.update(kwargs)
    load = args.pop("load")
    with pytest.raises(ValueError, match=match):
        classify_regime(load, **args)
