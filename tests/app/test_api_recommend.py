"""/v1/recommend: the engine through HTTP, on the thesis example and on invalid input."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import app

# 000 §1.3: "1000 flows share a link of capacity 10Gb/s ... each flow has a round-trip
# propagation delay of 100ms, a maximum window size of 64KB, and a packet size of 1KB."
THESIS = {
    "capacity_bps": "10 Gbit/s",
    "rtt_s": "100 ms",
    "flows": 1000,
    "packet_bytes": "1000 B",
    "max_window_packets": 64,
    "congestion_control": "reno",
}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def recommend(client: TestClient, scenario: dict[str, Any], **targets: Any) -> Any:
    response = client.post("/v1/recommend", json={"scenario": scenario, "targets": targets})
    assert response.status_code == 200, response.text
    return response.json()


def rule(answer: Any, name: str) -> Any:
    return next(r for r in answer["rules"] if r["rule"] == name)


def test_thesis_example_every_rule(client: TestClient) -> None:
    out = recommend(client, {**THESIS, "access_bps": "10 Mbit/s"})
    # 000 §1.3: "The bandwidth-delay product rule-of-thumb suggests a buffer size of 125MB, or
    # around 125,000 packets." Exact arithmetic (10e9 · 0.1 / 8 / 1000).
    bdp = rule(out, "rule_of_thumb")
    assert bdp["buffer_packets"] == 125_000
    assert bdp["buffer_bytes"] == pytest.approx(125e6, rel=1e-12)
    assert bdp["buffer_s"] == pytest.approx(0.1, rel=1e-9)
    # "The 2T × C/√N rule suggests a buffer size of around 3950 packets": rounded to tens.
    assert abs(rule(out, "sqrt_n")["buffer_packets"] - 3950) <= 5
    # 000 §3.3: W = 64, ρ = 0.5, θ = 0.9 -> 15 packets. Here ρ = 64,000/125,000 = 0.512 and by
    # hand log_{1/0.512}(64²/0.2) = 14.8, still 15 once rounded up.
    assert rule(out, "tiny_buffers")["buffer_packets"] == 15
    # The flows are window-limited (ρ < 1), so the tiny-buffers theorem governs (000 ch. 3).
    assert out["inputs"]["window_limited_load"] == pytest.approx(0.512, rel=1e-12)
    assert out["recommended"]["buffer_packets"] <= 15
    assert out["feasible"] is True
    rec = out["recommended"]
    assert rec["buffer_bytes"] == pytest.approx(rec["buffer_packets"] * 1000, rel=1e-12)
    assert rec["buffer_s"] == pytest.approx(rec["buffer_packets"] * 8e-7, rel=1e-9)


def test_every_rule_has_assumptions_and_sizes_in_three_units(client: TestClient) -> None:
    out = recommend(client, THESIS)
    for r in out["rules"]:
        assert r["assumptions"], r["rule"]
        assert all(a["status"] in ("holds", "fails", "unknown") for a in r["assumptions"])
        if r["buffer_packets"] is not None:
            assert r["buffer_bytes"] is not None and r["buffer_s"] is not None
    curves = out["curves"]
    n = len(curves["buffer_packets"])
    assert n > 2
    assert all(len(curves[k]) == n for k in ("utilization", "loss_probability"))
    # Metamorphic: on the predicted curves more buffer never means more loss.
    losses = curves["loss_probability"]
    assert all(b <= a * (1 + 1e-9) for a, b in itertools.pairwise(losses))


def test_delay_bound_conflict_reports_trade_off(client: TestClient) -> None:
    # 004 §V: when B ≤ C·d̂ cannot meet the utilization and loss targets the engine keeps them
    # (priority "throughput") and names the trade-off. 1 µs of queueing at 100 Mb/s is 0.008
    # packets: nothing useful fits.
    scenario = {"capacity_bps": "100 Mbit/s", "rtt_s": "100 ms", "flows": 50}
    out = recommend(client, scenario, max_queueing_delay_s="1 us", min_utilization=0.98)
    assert out["feasible"] is False
    assert out["trade_off"]["conflict"]
    assert out["recommended"]["predicted"]["meets_delay"] is False


def test_optical_medium(client: TestClient) -> None:
    out = recommend(client, {**THESIS, "medium": "optical"})
    design = out["optical"]
    assert design is not None
    # The FIFO holds N − 1 ≥ the recommended buffer with N a power of two (000 §5.2, Thm 4).
    assert design["fifo_capacity_packets"] >= out["recommended"]["buffer_packets"]
    assert math.log2(design["fifo_capacity_packets"] + 1).is_integer()


def test_identical_requests_identical_answers(client: TestClient) -> None:
    first = client.post("/v1/recommend", json={"scenario": THESIS}).content
    again = client.post("/v1/recommend", json={"scenario": THESIS}).content
    assert first == again


SC, TG = ["body", "scenario"], ["body", "targets"]


@pytest.mark.parametrize(
    ("scenario", "targets", "loc", "text"),
    [
        ({**THESIS, "capacity_bps": "fast"}, {}, [*SC, "capacity_bps"], "cannot read"),
        ({**THESIS, "flows": 0}, {}, [*SC, "flows"], "greater than or equal to 1"),
        ({**THESIS, "bottlenecked_flows": 2000}, {}, [*SC, "bottlenecked_flows"], "<= flows"),
        ({**THESIS, "rtts_s": [0.1]}, {}, SC, "exactly one of rtt_s or rtts_s"),
        (THESIS, {"max_loss": 0}, [*TG, "max_loss"], "greater than 0"),
        (THESIS, {"max_queueing_delay_s": "5 Mbit/s"}, [*TG, "max_queueing_delay_s"], "not a time"),
        ({**THESIS, "congestion_control": "vegas"}, {}, [*SC, "congestion_control"], "reno"),
    ],
)
def test_invalid_input_names_field(
    client: TestClient, scenario: Any, targets: Any, loc: list[str], text: str
) -> None:
    response = client.post("/v1/recommend", json={"scenario": scenario, "targets": targets})
    assert response.status_code == 422
    (detail,) = response.json()["detail"]
    assert detail["loc"] == loc
    assert text in detail["msg"]


def test_large_paced_window_limited_link_is_answered(client: TestClient) -> None:
    # 2e7 packets per RTT, window-limited (ρ = 0.5), paced: the paced rule's search does
    # bounded work, so the engine answers; the flows are window-limited and paced with
    # S = M/W_max = 4e7/1000 = 40,000 slots between a flow's packets, so the paced-traffic
    # bound (000 Thm 2, App. B) governs with a buffer far below the bandwidth-delay product.
    scenario = {
        "capacity_bps": "1 Tbit/s",
        "rtt_s": 2e7 / 0.5 * 8 * 1500 / 1e12,
        "flows": 20_000,
        "max_window_packets": 1000,
        "paced": True,
    }
    response = client.post("/v1/recommend", json={"scenario": scenario})
    assert response.status_code == 200, response.text
    best = response.json()["recommended"]
    assert best["rule"] == "paced"
    assert response.json()["inputs"]["slowdown"] == pytest.approx(4e4, rel=1e-9)
    assert 1 <= best["buffer_packets"] < 4e7 / 1000


def test_aqm_target_and_interval_are_taken_with_units(client: TestClient) -> None:
    # 1 Gbit/s of 1500-byte packets: a 2 ms target is 2e-3·1e9/12,000 = 166.7 packets.
    scenario = {"capacity_bps": "1 Gbit/s", "rtt_s": "50 ms", "flows": 100, "aqm": "codel"}
    answer = recommend(client, {**scenario, "aqm_target_s": "2 ms", "aqm_interval_s": "40 ms"})
    assert rule(answer, "aqm")["buffer_packets"] == 167
    assert "INTERVAL 40 ms" in rule(answer, "aqm")["note"]
    refused = client.post(
        "/v1/recommend",
        json={"scenario": {**scenario, "aqm": "none", "aqm_interval_s": "40 ms"}},
    )
    assert refused.status_code == 422, refused.text
    detail = refused.json()["detail"]
    assert [d["loc"] for d in detail] == [["body", "scenario", "aqm_interval_s"]]
    assert "only an AQM has a target" in detail[0]["msg"]


@pytest.mark.parametrize("absent", [True, False])
def test_congestion_control_not_given_is_an_unknown(client: TestClient, absent: bool) -> None:
    # A GEO link, 50 Mb/s, 600 ms, 8 flows: Reno needs C·T = 2,500 packets (000 §2.1), CUBIC
    # 2,500·0.3/0.7 = 1,072 (RFC 9438 §4.6). Absent or null, the congestion control is not
    # assumed: the larger size is recommended and both are stated.
    scenario: dict[str, Any] = {"capacity_bps": "50 Mbit/s", "rtt_s": "600 ms", "flows": 8}
    if not absent:
        scenario["congestion_control"] = None
    out = recommend(client, scenario)
    assert out["inputs"]["congestion_control_given"] is False
    assert out["inputs"]["congestion_control"] == "reno"
    assert out["recommended"]["buffer_packets"] == 2500
    assert "Reno 2,500 packets; CUBIC 1,072 packets" in out["warnings"][0]
    cubic = next(w for w in out["what_if"] if w["input"] == "congestion_control")
    assert cubic["buffer_packets"] == 1072
    given = recommend(client, {**scenario, "congestion_control": "cubic"})
    assert given["inputs"]["congestion_control_given"] is True
    assert given["recommended"]["buffer_packets"] == 1072
