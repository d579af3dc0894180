"""/v1/config: a buffer size (or a scenario's recommended size) as device configuration."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import app

# 000 §3.2: "1000 flows share a link of capacity 10 Gb/s ... an RTT of 100ms, a maximum window
# size of 64 KB, and a packet size of 1 KB"; here with 10 Mb/s access links.
THESIS_SCENARIO = {
    "capacity_bps": "10 Gbit/s",
    "rtt_s": "100 ms",
    "flows": 1000,
    "packet_bytes": "1000 B",
    "max_window_packets": 64,
    "access_bps": "10 Mbit/s",
}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def config(client: TestClient, **body: Any) -> Any:
    response = client.post("/v1/config", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def refused(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/config", json=body)
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert len(detail) >= 1
    return dict(detail[0])


def test_tc_from_a_size_with_units(client: TestClient) -> None:
    out = config(client, vendor="tc", buffer_bytes="1.25 MB", capacity_bps="10 Gbit/s")
    assert "tc qdisc replace dev eth0 root pfifo limit 834\n" in out["text"]
    # 1.25 MB at 10 Gbit/s: 1000 us; 1,250,000/1500 = 833.3 -> 834 packets.
    assert out["limit"] == {
        "requested_bytes": 1_250_000.0,
        "cell_bytes": 1,
        "limit_bytes": 1_250_000,
        "limit_packets": 834,
        "limit_s": pytest.approx(0.001),
        "limit_us": 1000,
        "packet_bytes": 1500.0,
        "capacity_bps": 10e9,
    }
    assert out["shared"] is None and out["config_db"] is None and out["recommended"] is None
    assert out["release"] == "iproute2 6.1 (Debian 12)"


def test_packets_are_converted_with_the_packet_size(client: TestClient) -> None:
    out = config(
        client, vendor="iosxr", buffer_packets=100, packet_bytes="9000 B", capacity_bps=1e11
    )
    assert "  queue-limit 900000 bytes\n" in out["text"]
    assert out["limit"]["limit_us"] == 72  # 900,000·8/10^11 s


def test_sonic_returns_the_document_and_the_alpha(client: TestClient) -> None:
    out = config(
        client,
        vendor="sonic",
        buffer_bytes="1 MB",
        capacity_bps="100 Gbit/s",
        chip_buffer_bytes="64 MiB",
        congested_queues=8,
        cell_bytes=256,
        interface="Ethernet4",
        queue=3,
    )
    # 1,000,000 B -> 3907 cells of 256 B = 1,000,192 B; α ≥ 1000192/(67108864 − 8·1000192) =
    # 0.01692 -> 2^-5 (by hand).
    assert out["limit"]["limit_bytes"] == 1_000_192
    assert out["shared"]["alpha_log2"] == -5
    assert out["shared"]["alpha"] == 2**-5
    assert out["config_db"]["BUFFER_PROFILE"]["bufsize_egress_profile"]["dynamic_th"] == "-5"
    assert out["config_db"]["BUFFER_QUEUE"] == {
        "Ethernet4|3": {"profile": "bufsize_egress_profile"}
    }


def test_scenario_uses_the_recommended_size(client: TestClient) -> None:
    # The size comes from /v1/recommend for the same scenario (with 10 Mb/s access links the
    # paced-traffic bound of 000 Thm 2 governs, below the tiny-buffers 15): config must enforce
    # exactly that size, whatever the engine recommends.
    recommendation = client.post("/v1/recommend", json={"scenario": THESIS_SCENARIO})
    assert recommendation.status_code == 200, recommendation.text
    best = recommendation.json()["recommended"]
    out = config(client, vendor="tc", scenario=THESIS_SCENARIO)
    packets = best["buffer_packets"]
    assert out["recommended"] == {
        "rule": best["rule"],
        "buffer_packets": packets,
        "buffer_bytes": best["buffer_bytes"],
    }
    assert packets < 20  # tiny or paced: a few packets, not a BDP (000 §3.3, Thm 2)
    assert f"pfifo limit {packets}\n" in out["text"]
    assert out["limit"]["capacity_bps"] == 10e9
    assert out["limit"]["packet_bytes"] == 1000.0
    # The scenario's RTT (100 ms) is CoDel's interval: target 5 ms (RFC 8289 §4;
    # tc-codel(8): target "Default and recommended value is 5ms").
    assert f"fq_codel limit {packets} target 5000us interval 100000us" in out["text"]


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"vendor": "tc", "capacity_bps": 1e9}, None, "give exactly one of"),
        (
            {"vendor": "tc", "buffer_bytes": 1e6, "buffer_packets": 10, "capacity_bps": 1e9},
            None,
            "give exactly one of",
        ),
        ({"vendor": "tc", "buffer_bytes": 1e6}, None, "capacity_bps is required"),
        ({"vendor": "cisco", "buffer_bytes": 1e6, "capacity_bps": 1e9}, "vendor", ""),
        ({"vendor": "tc", "buffer_bytes": -5, "capacity_bps": 1e9}, "buffer_bytes", ""),
        ({"vendor": "tc", "buffer_bytes": "3 parsecs", "capacity_bps": 1e9}, "buffer_bytes", ""),
        (
            {"vendor": "tc", "buffer_bytes": 1e6, "capacity_bps": 1e9, "queue": 16},
            "queue",
            "",
        ),
        (
            {"vendor": "sonic", "buffer_bytes": 1e6, "capacity_bps": 1e9},
            "chip_buffer_bytes",
            "required for sonic",
        ),
        (
            {
                "vendor": "sonic",
                "buffer_bytes": "10 MB",
                "capacity_bps": 1e9,
                "chip_buffer_bytes": "64 MiB",
            },
            "chip_buffer_bytes",
            "no α suffices",
        ),
        (
            {"vendor": "iosxr", "buffer_bytes": "5 GB", "capacity_bps": 1e9},
            "buffer_bytes",
            "above IOS XR's queue-limit range",
        ),
        (
            {"vendor": "tc", "scenario": THESIS_SCENARIO, "capacity_bps": 1e9},
            None,
            "come from the scenario",
        ),
    ],
)
def test_bad_input_is_a_422_naming_the_field(
    client: TestClient, body: dict[str, Any], field: str | None, words: str
) -> None:
    detail = refused(client, **body)
    if field is not None:
        assert field in detail["loc"]
    assert words in detail["msg"]


def test_scenario_errors_point_inside_the_scenario(client: TestClient) -> None:
    scenario = dict(THESIS_SCENARIO, bottlenecked_flows=2000)  # more than flows
    detail = refused(client, vendor="tc", scenario=scenario)
    assert detail["loc"][:2] == ["body", "scenario"]


def test_openapi_documents_the_operation(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/config"]["post"]
    assert operation["tags"] == ["config"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    schema = spec["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
    vendors = schema["properties"]["vendor"]["enum"]
    assert vendors == ["tc", "sonic", "junos", "iosxr", "eos"]
    # One example per family, two with the queue's AQM or DCTCP marking: each one answers.
    assert len(schema["examples"]) == 6
    for example in schema["examples"]:
        assert client.post("/v1/config", json=example).status_code == 200, example
