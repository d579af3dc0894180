"""/v1/flow-level/ps: processor sharing and the regime, with the check values of the papers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from app.main import app


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def ps(client: TestClient, **body: Any) -> Any:
    response = client.post("/v1/flow-level/ps", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_unlimited_flows_half_load(client: TestClient) -> None:
    # 003 §3 eq. 1 with φ ≡ 1 gives γ = 1 − ρ (check value: γ = 0.5 at ρ = 0.5); the number of
    # flows is geometric with mean ρ/(1 − ρ) = 1 (003 §3.1). Closed forms: float tolerance.
    out = ps(client, load=0.5, tail_flows=4)
    assert out["gamma"] == pytest.approx(0.5, rel=1e-9)
    assert out["mean_flows"] == pytest.approx(1.0, rel=1e-9)
    # 002 §III: "Note that if ρ = 0.5, for example, the probability there are more than 4 flows
    # in progress is only 0.03." (0.5^5 = 0.03125; the paper keeps two decimals: ±0.005.)
    assert abs(out["tail_probability"] - 0.03) <= 0.005


def test_peak_rate_limited_flows_transparent_to_high_load(client: TestClient) -> None:
    # 003 §3.3 on Fig. 1: "when flows are peak rate limited, the link is transparent to
    # throughput performance up to high loads (close to (1 − p/C))"; 003 §4 also needs the
    # sum of peak rates below C "with high probability": at half load the peak rates of
    # p = 0.1C flows add up to C 3.6% of the time (transparent), at 0.97 nearly always.
    below = ps(client, load=0.5, peak_rate_fraction=0.1)
    assert below["regime"] == "transparent"
    assert below["transparent_buffer_packets"] >= 1
    above = ps(client, load=0.97, peak_rate_fraction=0.1)
    assert above["regime"] == "elastic"
    # A flow never gets more than its peak rate: γ ≤ p/C.
    assert below["gamma"] <= 0.1 * (1 + 1e-12)


def test_unlimited_peak_is_elastic_and_overload_is_overload(client: TestClient) -> None:
    # 002 §III.C: flows that can fill the link make it elastic; ρ ≥ 1 is overload, where
    # flow throughput tends to zero and the number of flows is unbounded.
    assert ps(client, load=0.5)["regime"] == "elastic"
    over = ps(client, load=1.2, tail_flows=10)
    assert over["regime"] == "overload"
    assert over["gamma"] == 0.0
    assert over["mean_flows"] is None
    assert over["tail_probability"] == 1.0
    assert over["warning"]


def test_phi_table(client: TestClient) -> None:
    # A constant table φ ≡ 1 is the unlimited case: γ = 1 − ρ (003 eq. 1).
    assert ps(client, load=0.3, phi=[1.0, 1.0])["gamma"] == pytest.approx(0.7, rel=1e-9)
    # With φ ≡ c < 1 the link behaves as one of capacity cC: γ = c − ρ (eq. 1, Φ(i) = c^i).
    assert ps(client, load=0.3, phi=[0.8])["gamma"] == pytest.approx(0.5, rel=1e-9)


@settings(max_examples=15, deadline=None)
@given(low=st.floats(0.01, 0.95), step=st.floats(0.001, 0.04))
def test_gamma_falls_with_load(client: TestClient, low: float, step: float) -> None:
    # Metamorphic: more load never raises the mean flow throughput.
    for peak in (None, 0.1):
        a = ps(client, load=low, peak_rate_fraction=peak)["gamma"]
        b = ps(client, load=low + step, peak_rate_fraction=peak)["gamma"]
        assert b <= a * (1 + 1e-9)


@pytest.mark.parametrize(
    ("body", "field", "text"),
    [
        ({"load": 0}, "load", "greater than 0"),
        ({"load": 0.5, "peak_rate_fraction": 0}, "peak_rate_fraction", "0.000000001"),
        ({"load": 0.5, "phi": [0.5, 1.5]}, "phi", "less than or equal to 1"),
        ({"load": 0.9, "phi": [0.8]}, "load", "phi[-1]"),
        ({"load": 0.5, "tail_flows": -1}, "tail_flows", "greater than or equal to 0"),
    ],
)
def test_bounds(client: TestClient, body: dict[str, Any], field: str, text: str) -> None:
    response = client.post("/v1/flow-level/ps", json=body)
    assert response.status_code == 422
    (detail,) = response.json()["detail"]
    assert detail["loc"][:2] == ["body", field]
    assert text in detail["msg"]


def test_one_profile_only(client: TestClient) -> None:
    response = client.post(
        "/v1/flow-level/ps", json={"load": 0.5, "peak_rate_fraction": 0.1, "phi": [1.0]}
    )
    assert response.status_code == 422
    assert "at most one of peak_rate_fraction and phi" in response.json()["detail"][0]["msg"]


def test_phi_is_a_fraction_of_the_residual_capacity(client: TestClient) -> None:
    # 003 §5.1: "we evaluate the overall realized throughput φ(i) expressed as a fraction of
    # residual capacity C(1−ρ_b)". With ρ_b = 0.5 and φ ≡ 1 of the residual capacity, the other
    # flows form an M/G/1-PS queue of capacity C/2 at load (0.75 − 0.5)/(1 − 0.5) = 0.5:
    # γ = (1 − 0.5)·(1 − 0.5) = 0.25 of C and a mean of 0.5/(1 − 0.5) = 1 flow (by hand).
    out = ps(client, load=0.75, background_load=0.5, phi=[1.0])
    assert out["gamma"] == pytest.approx(0.25, rel=1e-12)
    assert out["mean_flows"] == pytest.approx(1.0, rel=1e-12)
    # Without background the table is a fraction of C itself, as before: γ = 1 − ρ.
    plain = ps(client, load=0.75, phi=[1.0])
    assert plain["gamma"] == pytest.approx(0.25, rel=1e-12)
    assert plain["mean_flows"] == pytest.approx(3.0, rel=1e-12)
    # Peak rates too are taken against the residual capacity: p = 0.05·C is 0.1 of C/2.
    peaked = ps(client, load=0.75, background_load=0.5, peak_rate_fraction=0.05)
    alone = ps(client, load=0.5, peak_rate_fraction=0.1)
    assert peaked["gamma"] == pytest.approx(alone["gamma"] * 0.5, rel=1e-12)
