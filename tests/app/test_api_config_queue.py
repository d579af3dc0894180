"""/v1/config with a size given: the port's AQM and DCTCP's ECN marking reach every family.

A size given without a scenario takes the queue's behaviour beside it (aqm, aqm_target_s,
aqm_interval_s, ecn_threshold_bytes), as ``bufsize config --buffer`` does; with a scenario the
scenario's own AQM and congestion control decide it (tests/app/test_api_config.py).
Expected figures below are worked by hand from the inputs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import app

# 1 MB at 1 Gbit/s: 1,000,000/1500 = 666.7 -> 667 packets, 8,000 us.
CODEL_PORT = {"buffer_bytes": "1 MB", "capacity_bps": "1 Gbit/s", "aqm": "codel"}
# A 100 Gbit/s DCTCP leaf given 500 KB with K = 150 KB (12 us at line rate).
DCTCP_LEAF = {
    "buffer_bytes": "500 KB",
    "capacity_bps": "100 Gbit/s",
    "ecn_threshold_bytes": "150 KB",
}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def answer(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/config", json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def active_lines(text: str, comment: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith(comment)]


def test_codel_port_gets_fq_codel_with_the_given_target_and_interval(client: TestClient) -> None:
    out = answer(client, vendor="tc", **CODEL_PORT, aqm_target_s="2 ms", aqm_interval_s="30 ms")
    assert active_lines(out["text"], "#") == [
        "tc qdisc replace dev eth0 root fq_codel limit 667 target 2000us interval 30000us"
    ]


def test_codel_port_without_times_gets_rfc_8289s(client: TestClient) -> None:
    # RFC 8289 §4.2-4.5: INTERVAL 100 ms, TARGET 5 ms, whatever the line rate.
    out = answer(client, vendor="tc", **CODEL_PORT)
    assert active_lines(out["text"], "#") == [
        "tc qdisc replace dev eth0 root fq_codel limit 667 target 5000us interval 100000us"
    ]


def test_pie_port_gets_pie_with_its_qdelay_ref_and_t_update(client: TestClient) -> None:
    out = answer(
        client,
        vendor="tc",
        buffer_packets=400,
        capacity_bps="100 Mbit/s",
        aqm="pie",
        aqm_target_s="20 ms",
    )
    # T_UPDATE not given: RFC 8033 §4.2's 15 ms.
    assert active_lines(out["text"], "#") == [
        "tc qdisc replace dev eth0 root pie limit 400 target 20000us tupdate 15000us"
    ]


@pytest.mark.parametrize(("vendor", "comment"), [("junos", "#"), ("iosxr", "!"), ("eos", "!")])
def test_families_without_the_aqm_say_so_and_keep_the_limit(
    client: TestClient, vendor: str, comment: str
) -> None:
    out = answer(client, vendor=vendor, **CODEL_PORT)
    assert "codel: " in out["text"] and "only the hard limit is set" in out["text"]
    assert out["limit"]["limit_bytes"] == 1_000_000


def test_sonic_says_it_has_no_aqm_table(client: TestClient) -> None:
    out = answer(client, vendor="sonic", **CODEL_PORT, chip_buffer_bytes="32 MiB")
    assert any("SONiC's CONFIG_DB has no codel table" in note for note in out["notes"])
    assert "WRED_PROFILE" not in out["config_db"]


def test_dctcp_leaf_on_tc_marks_ce_at_k(client: TestClient) -> None:
    out = answer(client, vendor="tc", **DCTCP_LEAF)
    # 500,000/1500 = 333.3 -> 334 packets; K = 150,000·8/10^11 s = 12 us.
    assert active_lines(out["text"], "#") == [
        "tc qdisc replace dev eth0 root fq_codel limit 334 ce_threshold 12us ecn"
    ]


def test_dctcp_leaf_on_sonic_has_the_ecn_profile_at_k(client: TestClient) -> None:
    out = answer(client, vendor="sonic", **DCTCP_LEAF, chip_buffer_bytes="32 MiB")
    # K rounded up to SONiC's 256 B cell: ceil(150,000/256) = 586 cells = 150,016 B.
    profile = out["config_db"]["WRED_PROFILE"]["bufsize_ecn"]
    assert profile["ecn"] == "ecn_all"
    for colour in ("green", "yellow", "red"):
        assert profile[f"{colour}_min_threshold"] == "150016"
        assert profile[f"{colour}_max_threshold"] == "150016"
    assert out["config_db"]["QUEUE"] == {"Ethernet0|0": {"wred_profile": "bufsize_ecn"}}


def test_dctcp_leaf_on_junos_marks_from_ks_fill_level(client: TestClient) -> None:
    out = answer(client, vendor="junos", **DCTCP_LEAF)
    # K / limit = 150,000 / 500,000 = 30 %.
    assert (
        "set class-of-service drop-profiles bufsize-ecn fill-level 30 drop-probability 100"
        in out["text"]
    )
    assert "explicit-congestion-notification" in out["text"]


def test_dctcp_leaf_on_iosxr_marks_at_k(client: TestClient) -> None:
    out = answer(client, vendor="iosxr", **DCTCP_LEAF)
    lines = active_lines(out["text"], "!")
    assert "  random-detect 150000 bytes 150000 bytes" in lines
    assert "  random-detect ecn" in lines
    # IOS XR's interface by speed: 100 Gbit/s is HundredGigE.
    assert "interface HundredGigE0/0/0/0" in lines


def test_dctcp_leaf_on_eos_marks_at_k(client: TestClient) -> None:
    out = answer(client, vendor="eos", **DCTCP_LEAF)
    assert (
        "      random-detect ecn minimum-threshold 150000 bytes maximum-threshold 150000 bytes "
        "max-mark-probability 100 weight 0" in out["text"].splitlines()
    )


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        (
            {"buffer_bytes": "1 MB", "capacity_bps": "1 Gbit/s", "aqm_target_s": "2 ms"},
            "aqm_target_s",
            "only an AQM has a target and an interval",
        ),
        (
            {**CODEL_PORT, "aqm_target_s": "200 ms"},
            "aqm_target_s",
            "must be below CoDel's interval",
        ),
        (
            {**DCTCP_LEAF, "ecn_threshold_bytes": "600 KB"},
            "ecn_threshold_bytes",
            "must be below the buffer",
        ),
        (
            {
                "scenario": {"capacity_bps": "10 Gbit/s", "rtt_s": "1 ms", "flows": 10},
                "aqm": "codel",
            },
            None,
            "give aqm, aqm_target_s and aqm_interval_s inside scenario",
        ),
        (
            {
                "scenario": {"capacity_bps": "10 Gbit/s", "rtt_s": "1 ms", "flows": 10},
                "ecn_threshold_bytes": "10 KB",
            },
            None,
            "DCTCP's threshold comes from its congestion_control",
        ),
    ],
)
def test_queue_inputs_that_cannot_hold_are_422s_naming_the_field(
    client: TestClient, body: dict[str, Any], field: str | None, words: str
) -> None:
    response = client.post("/v1/config", json={"vendor": "tc", **body})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"][0]
    if field is not None:
        assert detail["loc"] == ["body", field]
    assert words in detail["msg"]
