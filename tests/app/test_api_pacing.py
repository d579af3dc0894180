"""/v1/pacing/bound: the paced-traffic drop bound of 000 Thm 2 (App. B) through HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from app.main import app

# The thesis link of 000 §1.3: 1000 flows, 10 Gb/s, 100 ms, 1 KB packets, 64-packet windows
# (64 KB): M = C·RTT = 125,000 slots and ρ = N·W/M = 64,000/125,000 = 0.512.
THESIS_LINK = {
    "flows": 1000,
    "max_window_packets": 64,
    "capacity_bps": "10 Gbit/s",
    "rtt_s": "100 ms",
    "packet_bytes": "1000 B",
}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def bound(client: TestClient, **fields: Any) -> Any:
    response = client.post("/v1/pacing/bound", json={**THESIS_LINK, **fields})
    assert response.status_code == 200, response.text
    return response.json()


def test_slow_access_links_beat_poisson(client: TestClient) -> None:
    # Check values (docs/references.md): the paced bound falls with B and with S, and is far
    # below ρ^B for slow access links.
    # 000 §3.4: access links "often orders of magnitude slower than backbone links"; 10 Mb/s
    # access gives S = 1000. ρ^B = 0.512^15 = 4.4e-5 by hand; "far below" taken as 10x.
    out = bound(client, access_bps="10 Mbit/s", buffer_packets=15)
    assert out["load"] == pytest.approx(0.512, rel=1e-12)
    assert out["slowdown"] == pytest.approx(1000, rel=1e-12)
    assert out["drop_probability_bound"] < 0.512**15 / 10
    # Thm 2: loss O(1/W²) gives constant throughput; θ ≥ 1 − p·W²/2 (000 App. A).
    assert out["utilization_bound"] == pytest.approx(
        1 - out["drop_probability_bound"] * 64**2 / 2, rel=1e-12
    )
    assert out["utilization_bound"] > 0.99


def test_no_pacing_without_slow_access(client: TestClient) -> None:
    # 000 §3.4: "if flows can send at the same rate as the bottleneck link, then there is no
    # pacing of traffic whatsoever and ... constant throughput is not achievable with log-sized
    # buffers". With S = 1 the bound at B = 15 is no better than the S = 1000 one, and vacuous.
    fast = bound(client, access_bps="10 Gbit/s", buffer_packets=15)
    slow = bound(client, access_bps="10 Mbit/s", buffer_packets=15)
    assert fast["drop_probability_bound"] >= slow["drop_probability_bound"]
    assert fast["utilization_bound"] < slow["utilization_bound"]


@settings(max_examples=15, deadline=None)
@given(
    buffer_packets=st.integers(0, 60),
    access_mbps=st.sampled_from([1, 10, 100, 1000]),
)
def test_bound_falls_with_buffer_and_slowdown(
    client: TestClient, buffer_packets: int, access_mbps: int
) -> None:
    # Check values (docs/references.md): falls with B and with S (metamorphic; the bound is a
    # sum of terms that each fall with B and with S).
    here = bound(client, access_bps=access_mbps * 1e6, buffer_packets=buffer_packets)
    more_b = bound(client, access_bps=access_mbps * 1e6, buffer_packets=buffer_packets + 5)
    slower = bound(client, access_bps=access_mbps * 1e5, buffer_packets=buffer_packets)
    assert more_b["drop_probability_bound"] <= here["drop_probability_bound"] * (1 + 1e-9)
    assert slower["drop_probability_bound"] <= here["drop_probability_bound"] * (1 + 1e-9)


@pytest.mark.parametrize(
    ("fields", "field", "text"),
    [
        ({"access_bps": "fast", "buffer_packets": 10}, "access_bps", "cannot read"),
        ({"access_bps": 1e7, "buffer_packets": -1}, "buffer_packets", "greater than or equal"),
        ({"access_bps": 1e7, "buffer_packets": 10, "flows": 0}, "flows", "greater than or equal"),
    ],
)
def test_bounds(client: TestClient, fields: dict[str, Any], field: str, text: str) -> None:
    response = client.post("/v1/pacing/bound", json={**THESIS_LINK, **fields})
    assert response.status_code == 422
    (detail,) = response.json()["detail"]
    assert detail["loc"] == ["body", field]
    assert text in detail["msg"]


def test_overloaded_link_is_refused(client: TestClient) -> None:
    # 000 App. B assumes "the average traffic intensity ρ = N·W_max/M is bounded below 1":
    # 3000 flows of 64 packets on 125,000 slots is ρ = 1.54.
    response = client.post(
        "/v1/pacing/bound",
        json={**THESIS_LINK, "flows": 3000, "access_bps": 1e7, "buffer_packets": 10},
    )
    assert response.status_code == 422
    assert "must be in [0, 1)" in response.json()["detail"][0]["msg"]


def test_extreme_window_is_answered(client: TestClient) -> None:
    # One flow with a 1e9-packet window: the union bound over interval lengths is bounded work
    # in the model, so the request is answered (not refused) with a valid probability bound.
    response = client.post(
        "/v1/pacing/bound",
        json={
            **THESIS_LINK,
            "flows": 1,
            "max_window_packets": 1e9,
            "access_bps": 1e7,
            "buffer_packets": 10,
            "capacity_bps": 1e15,
            "rtt_s": 60,
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert 0.0 <= body["drop_probability_bound"] <= 1.0
    assert 0.0 <= body["utilization_bound"] <= 1.0
