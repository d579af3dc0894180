"""/v1/rules: the check values (docs/references.md) through HTTP, units in, 422 on bad input."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import app


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def post(client: TestClient, path: str, body: dict[str, Any]) -> Any:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    return response.json()


def error(client: TestClient, path: str, body: dict[str, Any] | str) -> dict[str, Any]:
    """The single 422 detail entry for an invalid request."""
    if isinstance(body, str):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
    else:
        response = client.post(path, json=body)
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert len(detail) == 1, detail
    return dict(detail[0])


# --- rule of thumb -----------------------------------------------------------------------


def test_bdp_thesis_example_with_units(client: TestClient) -> None:
    # 000 §1.3: "1000 flows share a link of capacity 10Gb/s ... round-trip propagation delay of
    # 100ms ... packet size of 1KB ... The bandwidth-delay product rule-of-thumb suggests a
    # buffer size of 125MB, or around 125,000 packets." C·RTT is exact arithmetic here:
    # 10e9 · 0.1 / 8 = 125e6 bytes; only float rounding is allowed.
    out = post(
        client,
        "/v1/rules/bdp",
        {"capacity_bps": "10 Gbit/s", "rtt_s": "100 ms", "packet_bytes": "1000 B"},
    )
    assert out["buffer_packets"] == pytest.approx(125_000, rel=1e-12)
    assert out["buffer_bytes"] == pytest.approx(125e6, rel=1e-12)
    # A full BDP buffer drains in one RTT.
    assert out["buffer_s"] == pytest.approx(0.1, rel=1e-12)
    assert out["effective_rtt_s"] == pytest.approx(0.1, rel=1e-12)


def test_bdp_units_and_plain_numbers_agree(client: TestClient) -> None:
    with_units = post(
        client, "/v1/rules/bdp", {"capacity_bps": "10Gbps", "rtt_s": "100ms", "packet_bytes": 1000}
    )
    numbers = post(
        client, "/v1/rules/bdp", {"capacity_bps": 1e10, "rtt_s": 0.1, "packet_bytes": 1000.0}
    )
    assert with_units == pytest.approx(numbers, rel=1e-12)


def test_bdp_forty_gigabit_link(client: TestClient) -> None:
    # 002 §I: "With an assumed maximum RTT of 250ms, the buffer requirement for an OC768
    # (40Gbps) link would be some 1.2GBytes." By hand C·RTT = 40e9 · 0.25 / 8 = 1.25e9 bytes
    # (check value 1.25 GB, docs/references.md); the paper's "some 1.2" rounds it down, within 5 %.
    out = post(client, "/v1/rules/bdp", {"capacity_bps": "40 Gbit/s", "rtt_s": "250 ms"})
    assert out["buffer_bytes"] == pytest.approx(1.25e9, rel=1e-12)
    assert abs(out["buffer_bytes"] / 1.2e9 - 1.0) < 0.05


def test_bdp_harmonic_mean_of_rtts(client: TestClient) -> None:
    # 004 eqs. 11-12: T_e = N / Σ 1/T_i. By hand for 100 ms and 300 ms: 2 / (10 + 10/3) = 0.15 s.
    out = post(
        client, "/v1/rules/bdp", {"capacity_bps": "1 Gbit/s", "rtts_s": ["100 ms", "300 ms"]}
    )
    assert out["effective_rtt_s"] == pytest.approx(0.15, rel=1e-12)
    assert out["buffer_bytes"] == pytest.approx(1e9 * 0.15 / 8, rel=1e-12)


def test_bdp_cubic_beta(client: TestClient) -> None:
    # Beyond the papers (docs/references.md): B = C·RTT·(1−β)/β; CUBIC's β = 0.7 (RFC 9438 §4.6)
    # gives 0.3/0.7 = 3/7 ≈ 0.43 of the rule of thumb. Exact fraction, float tolerance.
    reno = post(client, "/v1/rules/bdp", {"capacity_bps": 1e9, "rtt_s": 0.1})
    cubic = post(client, "/v1/rules/bdp", {"capacity_bps": 1e9, "rtt_s": 0.1, "md_beta": 0.7})
    assert cubic["buffer_packets"] / reno["buffer_packets"] == pytest.approx(3 / 7, rel=1e-12)


def test_bdp_needs_exactly_one_rtt(client: TestClient) -> None:
    both = error(client, "/v1/rules/bdp", {"capacity_bps": 1e9, "rtt_s": 0.1, "rtts_s": [0.1, 0.2]})
    assert "rtt_s" in both["msg"] and "rtts_s" in both["msg"]
    neither = error(client, "/v1/rules/bdp", {"capacity_bps": 1e9})
    assert "exactly one of rtt_s or rtts_s" in neither["msg"]


@pytest.mark.parametrize(
    ("body", "field", "bound"),
    [
        ({"capacity_bps": 0, "rtt_s": 0.1}, "capacity_bps", "1000"),
        ({"capacity_bps": "-5 Gbit/s", "rtt_s": 0.1}, "capacity_bps", "1000"),
        ({"capacity_bps": 2e15, "rtt_s": 0.1}, "capacity_bps", "1000000000000000"),
        ({"capacity_bps": 1e9, "rtt_s": "2 min"}, "rtt_s", "60"),
        ({"capacity_bps": 1e9, "rtt_s": 0.1, "md_beta": 1.0}, "md_beta", "0.95"),
        ({"capacity_bps": 1e9, "rtt_s": 0.1, "packet_bytes": 0}, "packet_bytes", "1"),
        ({"capacity_bps": 1e9, "rtts_s": []}, "rtts_s", "1 item"),
    ],
)
def test_bdp_out_of_bounds_names_field_and_bound(
    client: TestClient, body: dict[str, Any], field: str, bound: str
) -> None:
    detail = error(client, "/v1/rules/bdp", body)
    assert detail["loc"] == ["body", field]
    assert bound in detail["msg"]


def test_unreadable_unit_string_says_so(client: TestClient) -> None:
    detail = error(client, "/v1/rules/bdp", {"capacity_bps": "fast", "rtt_s": 0.1})
    assert detail["loc"] == ["body", "capacity_bps"]
    assert "cannot read 'fast' as a quantity" in detail["msg"]
    assert "10 Gbit/s" in detail["msg"]  # and shows what would work


def test_unknown_unit_says_so(client: TestClient) -> None:
    detail = error(client, "/v1/rules/bdp", {"capacity_bps": 1e9, "rtt_s": "100 parsecs"})
    assert detail["loc"] == ["body", "rtt_s"]
    assert "rtt_s" in detail["msg"] and "100 parsecs" in detail["msg"]


def test_wrong_dimension_says_so(client: TestClient) -> None:
    detail = error(client, "/v1/rules/bdp", {"capacity_bps": "100 ms", "rtt_s": 0.1})
    assert detail["loc"] == ["body", "capacity_bps"]
    assert "is not a rate" in detail["msg"]


def test_expressions_are_not_evaluated(client: TestClient) -> None:
    # pint would evaluate "10**9 bit/s"; the API accepts only a number and a unit.
    detail = error(client, "/v1/rules/bdp", {"capacity_bps": "10**9 bit/s", "rtt_s": 0.1})
    assert "cannot read" in detail["msg"]


def test_non_finite_and_coerced_numbers_refused(client: TestClient) -> None:
    # Python's JSON parser reads the non-standard NaN and Infinity tokens; the schema refuses.
    nan = error(client, "/v1/rules/bdp", '{"capacity_bps": NaN, "rtt_s": 0.1}')
    assert nan["loc"] == ["body", "capacity_bps"]
    inf = error(client, "/v1/rules/bdp", '{"capacity_bps": 1e9, "rtt_s": Infinity}')
    assert inf["loc"] == ["body", "rtt_s"]
    boolean = error(client, "/v1/rules/bdp", {"capacity_bps": True, "rtt_s": 0.1})
    assert boolean["loc"] == ["body", "capacity_bps"]


def test_unknown_field_refused(client: TestClient) -> None:
    detail = error(client, "/v1/rules/bdp", {"capacity": 1e9, "capacity_bps": 1e9, "rtt_s": 0.1})
    assert detail["loc"] == ["body", "capacity"]


# --- sqrt(N) ---------------------------------------------------------------------------------


def test_sqrt_n_thesis_example(client: TestClient) -> None:
    # 000 §1.3: "The 2T × C/√N rule suggests a buffer size of around 3950 packets" for the
    # 1000-flow example above. By hand 125,000/√1000 = 3952.8; "around 3950" is rounded to
    # tens, so ±5 packets.
    out = post(
        client,
        "/v1/rules/sqrt-n",
        {"capacity_bps": "10 Gbit/s", "rtt_s": "100 ms", "flows": 1000, "packet_bytes": "1 kB"},
    )
    assert abs(out["buffer_packets"] - 3950) <= 5
    assert out["buffer_bytes"] == pytest.approx(out["buffer_packets"] * 1000, rel=1e-12)
    assert out["buffer_s"] == pytest.approx(0.1 / math.sqrt(1000), rel=1e-12)
    # Check value U(1x) ≈ 0.99 (docs/references.md; Appenzeller et al.: erf(3√3/(2√2)) = 0.989);
    # two decimals.
    assert abs(out["utilization_lower_bound"] - 0.99) <= 0.005


@pytest.mark.parametrize(("flows", "table_packets"), [(100, 129), (400, 64)])
def test_sqrt_n_oc3_table(client: TestClient, flows: int, table_packets: int) -> None:
    # 001 (slides), "Long Flows - Utilization ... GSR 12000, OC3 Line Card", ~100 ms RTT:
    # the 1x rows of 2T×C/√n are 129 packets for 100 flows and 64 for 400 flows. OC3 is
    # 155.52 Mb/s, 1500-byte packets; the table truncates to whole packets: within 1.
    out = post(
        client,
        "/v1/rules/sqrt-n",
        {"capacity_bps": "155.52 Mbit/s", "rtt_s": "100 ms", "flows": flows},
    )
    assert 0 <= out["buffer_packets"] - table_packets < 1


def test_sqrt_n_flows_bound(client: TestClient) -> None:
    detail = error(client, "/v1/rules/sqrt-n", {"capacity_bps": 1e9, "rtt_s": 0.1, "flows": 0})
    assert detail["loc"] == ["body", "flows"]
    assert "greater than or equal to 1" in detail["msg"]


# --- tiny buffers ------------------------------------------------------------------------------


def test_tiny_buffers_thesis_example(client: TestClient) -> None:
    # 000 §3.3: "if W_max = 64 packets, ρ = 0.5, and we want an effective utilization of 90%,
    # we need a buffer size of 15 packets regardless of the link capacity". Exact integer.
    out = post(
        client,
        "/v1/rules/tiny",
        {"max_window_packets": 64, "load": 0.5, "min_utilization": 0.9},
    )
    assert out["buffer_packets"] == 15
    # By hand: log2(64² / (2 · 0.1)) = log2(20480) = 14.32.
    assert out["buffer_packets_exact"] == pytest.approx(math.log2(20480), rel=1e-12)
    assert out["buffer_bytes"] == 15 * 1500
    assert out["buffer_s"] is None


def test_tiny_buffers_in_seconds_when_capacity_given(client: TestClient) -> None:
    out = post(
        client,
        "/v1/rules/tiny",
        {
            "max_window_packets": 64,
            "load": 0.5,
            "min_utilization": 0.9,
            "capacity_bps": "10 Gbit/s",
            "packet_bytes": "1 kB",
        },
    )
    assert out["buffer_s"] == pytest.approx(15 * 1000 * 8 / 10e9, rel=1e-12)


@pytest.mark.parametrize(
    ("body", "field", "bound"),
    [
        ({"max_window_packets": 64, "load": 1.0, "min_utilization": 0.9}, "load", "less than 1"),
        (
            {"max_window_packets": 0.5, "load": 0.5, "min_utilization": 0.9},
            "max_window_packets",
            "1",
        ),
        (
            {"max_window_packets": 64, "load": 0.5, "min_utilization": 1},
            "min_utilization",
            "less than 1",
        ),
    ],
)
def test_tiny_buffers_bounds(
    client: TestClient, body: dict[str, Any], field: str, bound: str
) -> None:
    valid = {"max_window_packets": 64, "load": 0.5, "min_utilization": 0.9}
    detail = error(client, "/v1/rules/tiny", {**valid, **body})
    assert detail["loc"] == ["body", field]
    assert bound in detail["msg"]


# --- BSCL --------------------------------------------------------------------------------------


def bscl(client: TestClient, **fields: Any) -> Any:
    body = {"capacity_bps": "50 Mbit/s", "effective_rtt_s": "100 ms", "bottlenecked_flows": 50}
    body.update(fields)
    return post(client, "/v1/rules/bscl", body)


def test_bscl_kp(client: TestClient) -> None:
    # 004 §IV.A: "K_p ≈ 9 packets for p̂=1%, and K_p ≈ 6 packets for p̂=2%", rounded to whole
    # packets: ±0.5.
    assert abs(bscl(client, max_loss=0.01)["kp_packets"] - 9) <= 0.5
    assert abs(bscl(client, max_loss=0.02)["kp_packets"] - 6) <= 0.5


def test_bscl_loss_term_governs_many_flows(client: TestClient) -> None:
    # 004 eq. 23: past Ñ_b the buffer is B_p = K_p·N_b·M − C_e·T_e. By hand with C = 50 Mb/s,
    # C_e = C, T_e = 0.1 s, N_b = 400, M = 1500 B, p̂ = 1 %: 8.7·400·1500 − 625,000 = 4,595,000 B.
    out = bscl(client, bottlenecked_flows=400)
    assert out["governing_constraint"] == "loss"
    assert out["buffer_bytes"] == pytest.approx(4_595_000, rel=1e-9)
    assert out["buffer_packets"] == pytest.approx(4_595_000 / 1500, rel=1e-9)
    assert out["buffer_s"] == pytest.approx(4_595_000 * 8 / 50e6, rel=1e-9)
    assert out["buffer_packets"] > out["crossover_flows"]  # sanity: well past Ñ_b


def test_bscl_global_synchronization_gives_ct(client: TestClient) -> None:
    # 004 §III.C: "in the case of global loss synchronization q(N_b)=1 and so the resulting
    # buffer requirement becomes B = CT". A loss burst 100 times N_b makes q = 1 in double
    # precision (1 − 0.9^1000 ≈ 1 − 1e-46); the loss term is negative at 1 Gb/s.
    out = post(
        client,
        "/v1/rules/bscl",
        {
            "capacity_bps": "1 Gbit/s",
            "effective_rtt_s": "100 ms",
            "bottlenecked_flows": 10,
            "sync_factor": 100,
        },
    )
    assert out["loss_sync_q"] == 1.0
    assert out["governing_constraint"] == "utilization"
    assert out["buffer_bytes"] == pytest.approx(1e9 * 0.1 / 8, rel=1e-12)


def test_bscl_delay_feasibility_and_rtts(client: TestClient) -> None:
    # 004 eq. 24: the delay bound needs B ≤ C·d̂; eq. 25: the smallest feasible d̂ is B/C.
    out = bscl(
        client, effective_rtt_s=None, rtts_s=["60 ms", "120 ms"], max_queueing_delay_s="1 ms"
    )
    assert out["effective_rtt_s"] == pytest.approx(2 / (1 / 0.06 + 1 / 0.12), rel=1e-12)
    assert out["delay_feasible"] is False
    assert out["min_feasible_delay_s"] == pytest.approx(out["buffer_s"], rel=1e-12)
    assert bscl(client, max_queueing_delay_s="10 s")["delay_feasible"] is True
    assert bscl(client)["delay_feasible"] is None


def test_bscl_bounds(client: TestClient) -> None:
    detail = error(
        client,
        "/v1/rules/bscl",
        {"capacity_bps": 1e9, "effective_rtt_s": 0.1, "bottlenecked_flows": 0},
    )
    assert detail["loc"] == ["body", "bottlenecked_flows"]
    detail = error(
        client,
        "/v1/rules/bscl",
        {"capacity_bps": 1e9, "bottlenecked_flows": 10, "max_loss": 1.5, "rtts_s": [0.1]},
    )
    assert detail["loc"] == ["body", "max_loss"]
    assert "less than 1" in detail["msg"]
    neither = error(client, "/v1/rules/bscl", {"capacity_bps": 1e9, "bottlenecked_flows": 10})
    assert "effective_rtt_s" in neither["msg"] and "rtts_s" in neither["msg"]
