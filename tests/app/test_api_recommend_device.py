"""/v1/recommend with a device: the answer carries the snippet for the recommended size."""

from __future__ import annotations

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
}
CAPACITY_BPS = 10e9
PACKET_BYTES = 1000.0


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def post(client: TestClient, body: dict[str, Any], status: int = 200) -> Any:
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == status, response.text
    return response.json()


def with_device(client: TestClient, **device: Any) -> Any:
    return post(client, {"scenario": THESIS, "device": device})


def recommended_bytes(out: Any) -> int:
    """The recommended size in bytes: whole packets of the scenario's 1000 B."""
    packets = int(out["recommended"]["buffer_packets"])
    assert out["recommended"]["buffer_bytes"] == packets * PACKET_BYTES
    return packets * int(PACKET_BYTES)


def test_without_device_there_is_no_device_config(client: TestClient) -> None:
    assert "device_config" not in post(client, {"scenario": THESIS})


def test_the_rest_of_the_answer_is_the_plain_recommendation(client: TestClient) -> None:
    plain = post(client, {"scenario": THESIS})
    out = with_device(client, vendor="tc")
    assert {k: v for k, v in out.items() if k != "device_config"} == plain


def test_tc_limit_is_the_recommended_packet_count(client: TestClient) -> None:
    out = with_device(client, vendor="tc", interface="enp1s0")
    packets = out["recommended"]["buffer_packets"]
    config = out["device_config"]
    assert config["vendor"] == "tc" and config["interface"] == "enp1s0"
    # tc's cell is one byte and the scenario's packets are 1000 B: the limit is the size itself.
    assert f"tc qdisc replace dev enp1s0 root pfifo limit {packets}\n" in config["text"]
    assert config["limit"]["limit_packets"] == packets
    assert config["limit"]["capacity_bps"] == CAPACITY_BPS
    assert config["limit"]["packet_bytes"] == PACKET_BYTES


def test_junos_buffer_is_the_recommended_size_in_microseconds(client: TestClient) -> None:
    out = with_device(client, vendor="junos")
    size_bytes = recommended_bytes(out)
    # Bytes drained at 10 Gbit/s (10,000 bits a microsecond), whole microseconds rounded up;
    # Junos' cell is one byte.
    limit_us = -(-size_bytes * 8 // 10_000)
    assert f"buffer-size temporal {limit_us}\n" in out["device_config"]["text"]


def test_iosxr_queue_limit_is_the_recommended_bytes(client: TestClient) -> None:
    out = with_device(client, vendor="iosxr")
    size_bytes = recommended_bytes(out)
    assert f"  queue-limit {size_bytes} bytes\n" in out["device_config"]["text"]


def test_sonic_rounds_up_to_its_cell_and_places_the_pool(client: TestClient) -> None:
    out = with_device(client, vendor="sonic", chip_buffer_bytes="64 MiB", congested_queues=4)
    config = out["device_config"]
    size_bytes = recommended_bytes(out)
    # SONiC's default cell is 256 B: the limit is the size rounded up to whole cells.
    assert config["limit"]["cell_bytes"] == 256
    assert config["limit"]["limit_bytes"] == -(-size_bytes // 256) * 256
    assert config["shared"]["steady_queue_bytes"] >= config["limit"]["limit_bytes"]
    assert config["config_db"]["BUFFER_POOL"]


def test_same_snippet_as_v1_config_for_the_scenario(client: TestClient) -> None:
    device = {"vendor": "junos", "interface": "et-0/0/1", "chip_buffer_bytes": "1 GiB"}
    out = with_device(client, **device)
    response = client.post("/v1/config", json={**device, "scenario": THESIS})
    assert response.status_code == 200, response.text
    config = response.json()
    assert config.pop("recommended")["buffer_packets"] == out["recommended"]["buffer_packets"]
    assert out["device_config"] == config


def test_sonic_without_chip_buffer_names_the_field(client: TestClient) -> None:
    detail = post(client, {"scenario": THESIS, "device": {"vendor": "sonic"}}, 422)["detail"]
    assert detail[0]["loc"] == ["body", "device", "chip_buffer_bytes"]
    assert "required for sonic" in detail[0]["msg"]


def test_chip_buffer_below_one_byte_is_refused_at_its_field(client: TestClient) -> None:
    # Found by the schema fuzzer: 5e-324 B passed "> 0" and overflowed Junos's percentage (a 500).
    device = {"vendor": "junos", "chip_buffer_bytes": 5e-324}
    detail = post(client, {"scenario": THESIS, "device": device}, 422)["detail"]
    assert detail[0]["loc"] == ["body", "device", "chip_buffer_bytes"]


def test_unknown_vendor_is_refused_at_its_field(client: TestClient) -> None:
    detail = post(client, {"scenario": THESIS, "device": {"vendor": "ios"}}, 422)["detail"]
    assert detail[0]["loc"] == ["body", "device", "vendor"]
