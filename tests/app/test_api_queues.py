"""/v1/queues: M/M/1/B and M/D/1/B through HTTP, with the check values (docs/references.md)."""

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


def post(client: TestClient, path: str, body: dict[str, Any]) -> Any:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_mm1b_thesis_drop_rate(client: TestClient) -> None:
    # 000 §3.3: "The drop-rate would be ρ^B ... At 75% load and with 20 packet buffers, the drop
    # rate would be 0.3%". 0.75^20 = 0.00317 by hand; the thesis rounds to one digit: ±0.05 %.
    out = post(client, "/v1/queues/mm1b", {"load": 0.75, "buffer_packets": 20})
    assert abs(out["loss_bound"] - 0.003) <= 0.0005
    assert out["loss_bound"] == pytest.approx(0.75**20, rel=1e-12)
    # The exact M/M/1/B loss is below the geometric bound (000 eq. 3.3; 002 §IV.A).
    assert 0 < out["loss_probability"] < out["loss_bound"]


def test_mm1b_hundred_packets_at_ninety_percent(client: TestClient) -> None:
    # 002 §IV.A: "If, for example, link load is less than 90%, a buffer of 100 packets maintains
    # a loss rate better than 1 in 30000." (0.9^100 = 2.66e-5 < 3.33e-5.)
    out = post(client, "/v1/queues/mm1b", {"load": 0.9, "buffer_packets": 100})
    assert out["loss_bound"] < 1 / 30000
    assert out["loss_probability"] < 1 / 30000


@pytest.mark.parametrize(
    ("max_loss", "paper_load", "rounding"), [(0.01, 0.79, 0.005), (0.001, 0.7, 0.05)]
)
def test_mm1b_admissible_load_twenty_packets(
    client: TestClient, max_loss: float, paper_load: float, rounding: float
) -> None:
    # 003 §4.2: "a buffer of 20 packets limits admissible load to ρ = .79 for ε = .01 or
    # ρ = .7 for ε = .001." The paper gives two decimals for the first (±0.005) and one for the
    # second (±0.05; by hand 0.001^(1/20) = 0.708).
    out = post(client, "/v1/queues/mm1b", {"load": 0.5, "buffer_packets": 20, "max_loss": max_loss})
    assert abs(out["admissible_load"] - paper_load) <= rounding


def test_mm1b_transparent_buffer(client: TestClient) -> None:
    # 003 §4.2 read the other way: at ρ = 0.79 and ε = 0.01 the smallest B with ρ^B ≤ ε is
    # ⌈ln 0.01 / ln 0.79⌉ = ⌈19.53⌉ = 20 packets (by hand).
    out = post(client, "/v1/queues/mm1b", {"load": 0.79, "buffer_packets": 5, "max_loss": 0.01})
    assert out["transparent_buffer_packets"] == 20


def test_mm1b_overload_and_critical_load(client: TestClient) -> None:
    # 000 eq. 3.3 at ρ = 1: p = 1/(B + 1). No bound ρ^B or transparent size above capacity.
    out = post(client, "/v1/queues/mm1b", {"load": 1.0, "buffer_packets": 9, "max_loss": 0.01})
    assert out["loss_probability"] == pytest.approx(0.1, rel=1e-12)
    assert out["loss_bound"] is None
    assert out["transparent_buffer_packets"] is None
    # At 2x overload at least half the packets are lost: p ≥ 1 − 1/ρ.
    over = post(client, "/v1/queues/mm1b", {"load": 2.0, "buffer_packets": 50})
    assert over["loss_probability"] >= 0.5 - 1e-12


def test_md1b_single_place_is_erlang_loss(client: TestClient) -> None:
    # With B = 1 the port is an M/G/1/1 loss system, whose blocking ρ/(1+ρ) does not depend on
    # the service-time distribution (Erlang's loss formula with one server). Float tolerance.
    out = post(client, "/v1/queues/md1b", {"load": 0.8, "buffer_packets": 1})
    assert out["loss_probability"] == pytest.approx(0.8 / 1.8, rel=1e-9)
    assert out["mean_queue_packets"] == pytest.approx(0.8 / 1.8, rel=1e-9)
    # An accepted packet is only transmitted: one slot.
    assert out["mean_delay_slots"] == pytest.approx(1.0, rel=1e-9)


def test_md1b_below_its_lcfs_bound(client: TestClient) -> None:
    # 000 App. A, Lemma 6: the M/D/1 drop probability is at most ρ^B.
    out = post(client, "/v1/queues/md1b", {"load": 0.8, "buffer_packets": 20})
    assert out["loss_bound"] == pytest.approx(0.8**20, rel=1e-12)
    assert 0 < out["loss_probability"] <= out["loss_bound"]


@settings(max_examples=20, deadline=None)
@given(
    load=st.floats(min_value=0.05, max_value=3.0),
    buffer_packets=st.integers(min_value=1, max_value=200),
)
def test_more_buffer_never_more_loss(client: TestClient, load: float, buffer_packets: int) -> None:
    # Metamorphic: one more place in the buffer never raises the loss, for either model; fixed
    # packet sizes never lose more than exponential ones at the same load and buffer.
    for path in ("/v1/queues/mm1b", "/v1/queues/md1b"):
        small = post(client, path, {"load": load, "buffer_packets": buffer_packets})
        large = post(client, path, {"load": load, "buffer_packets": buffer_packets + 1})
        assert large["loss_probability"] <= small["loss_probability"] * (1 + 1e-9)
    mm = post(client, "/v1/queues/mm1b", {"load": load, "buffer_packets": buffer_packets})
    md = post(client, "/v1/queues/md1b", {"load": load, "buffer_packets": buffer_packets})
    assert md["loss_probability"] <= mm["loss_probability"] * (1 + 1e-9)


@pytest.mark.parametrize(
    ("path", "body", "field", "bound"),
    [
        ("/v1/queues/mm1b", {"load": 0, "buffer_packets": 20}, "load", "greater than 0"),
        ("/v1/queues/mm1b", {"load": 0.5, "buffer_packets": 0}, "buffer_packets", "1"),
        ("/v1/queues/mm1b", {"load": 0.5, "buffer_packets": 2.5}, "buffer_packets", "integer"),
        ("/v1/queues/mm1b", {"load": 0.5, "buffer_packets": 5, "max_loss": 1}, "max_loss", "1"),
        ("/v1/queues/md1b", {"load": 101, "buffer_packets": 20}, "load", "100"),
        ("/v1/queues/md1b", {"load": 0.5, "buffer_packets": 10_001}, "buffer_packets", "10000"),
    ],
)
def test_queue_bounds(
    client: TestClient, path: str, body: dict[str, Any], field: str, bound: str
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 422
    (detail,) = response.json()["detail"]
    assert detail["loc"] == ["body", field]
    assert bound in detail["msg"]
