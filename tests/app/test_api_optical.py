"""/v1/optical/fifo: delay-line FIFO counts of 000 §5.2 through HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import app


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def fifo(client: TestClient, **body: Any) -> Any:
    response = client.post("/v1/optical/fifo", json=body)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(("k", "lines", "length"), [(1, 11, 94), (4, 13, 70)])
def test_theorem_6_for_n_64(client: TestClient, k: int, lines: int, length: int) -> None:
    # 000 §5.2.3, Thm 6: "A FIFO queue of size N − 1, where N is a power of 2, can be emulated
    # by 2(log N + K − log K) − 3 delay lines with aggregate length of N − 1 + (N−2K)/(2K)".
    # By hand for N = 64: K = 1 -> 11 lines, 63 + 31 = 94; K = 4 -> 13 lines, 63 + 7 = 70.
    # Integer counts: exact.
    out = fifo(client, buffer_packets=63, tradeoff_k=k)
    assert out["delay_lines"] == lines
    assert out["total_length_packets"] == length
    assert sum(out["line_lengths_packets"]) == length
    assert out["fifo_capacity_packets"] == 63
    # §5.2 / Fig. 5.4(c): the linear design needs N − 1 lines and as many switches.
    assert out["linear_delay_lines"] == 63
    assert out["linear_switches"] == 63


def test_buffer_rounded_up_to_power_of_two(client: TestClient) -> None:
    # The FIFO's capacity is N − 1 packets with N a power of two (000 §5.2): buffer_packets is
    # rounded up to the next such capacity.
    assert fifo(client, buffer_packets=50)["fifo_capacity_packets"] == 63
    assert fifo(client, buffer_packets=64)["fifo_capacity_packets"] == 127


def test_lengths_in_bytes_seconds_and_fibre(client: TestClient) -> None:
    # One packet time at 10 Gb/s with 1500-byte packets is 1.2 µs; fibre carries light at
    # 2.04e8 m/s (docs/references.md), so a line of one packet is 244.8 m. By hand: 94 · 244.8 m.
    out = fifo(client, buffer_packets=63, packet_bytes="1500 B", capacity_bps="10 Gbit/s")
    assert out["packet_time_s"] == pytest.approx(1.2e-6, rel=1e-12)
    assert out["total_fiber_m"] == pytest.approx(94 * 244.8, rel=1e-9)
    assert out["total_length_bytes"] == pytest.approx(94 * 1500, rel=1e-12)
    assert out["total_length_s"] == pytest.approx(94 * 1.2e-6, rel=1e-12)
    assert out["fifo_capacity_bytes"] == pytest.approx(63 * 1500, rel=1e-12)
    assert out["fifo_capacity_s"] == pytest.approx(63 * 1.2e-6, rel=1e-12)


@pytest.mark.parametrize(
    ("body", "field", "text"),
    [
        ({"buffer_packets": 63, "tradeoff_k": 3}, "tradeoff_k", "power of two"),
        ({"buffer_packets": 63, "tradeoff_k": 64}, "tradeoff_k", "N/2 = 32"),
        ({"buffer_packets": 0}, "buffer_packets", "greater than or equal to 1"),
        ({"buffer_packets": 63, "capacity_bps": "10 GB"}, "capacity_bps", "not a rate"),
    ],
)
def test_invalid_design_names_field(
    client: TestClient, body: dict[str, Any], field: str, text: str
) -> None:
    response = client.post("/v1/optical/fifo", json=body)
    assert response.status_code == 422
    (detail,) = response.json()["detail"]
    assert detail["loc"] == ["body", field]
    assert text in detail["msg"]
