"""The seam the recommendation response and the web form use: a recommendation's snippet."""

from __future__ import annotations

import pytest

from app.services.device import DeviceRequest, config_answer, configure_recommended
from models.choices import VENDORS
from models.recommend import LinkScenario, Targets, recommend

# 000 §3.2's example, and the same link with 10 flows and no window limit.
SCENARIOS = [
    LinkScenario(
        capacity_bps=10e9, rtts_s=(0.1,), flows=1000, packet_bytes=1000.0, max_window_packets=64
    ),
    LinkScenario(capacity_bps=10e9, rtts_s=(0.05, 0.2), flows=10, packet_bytes=1500.0),
]


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("vendor", VENDORS)
def test_snippet_enforces_the_recommended_size(scenario: LinkScenario, vendor: str) -> None:
    rec = recommend(scenario, Targets())
    snippet = configure_recommended(rec, scenario, DeviceRequest(vendor, chip_buffer_bytes=2**30))
    best = rec.recommended
    # Rounded up to the vendor's cell: never below the recommendation, less than a cell above.
    assert (
        best.buffer_bytes
        <= snippet.limit.limit_bytes
        < best.buffer_bytes + snippet.limit.cell_bytes
    )
    assert snippet.limit.capacity_bps == scenario.capacity_bps
    assert snippet.limit.packet_bytes == scenario.packet_bytes
    if snippet.limit.cell_bytes == 1:
        assert snippet.limit.limit_packets == best.buffer_packets
    answer = config_answer(snippet)
    assert answer["text"] == snippet.text and answer["vendor"] == vendor


def test_tc_snippet_uses_the_effective_rtt_for_codel() -> None:
    scenario = SCENARIOS[1]
    rec = recommend(scenario, Targets())
    # Harmonic mean of 50 and 200 ms: 2/(1/0.05 + 1/0.2) = 80 ms (004 eqs. 11-12); target 4 ms.
    assert rec.inputs.effective_rtt_s == pytest.approx(0.08)
    text = configure_recommended(rec, scenario, DeviceRequest("tc", qdisc="fq_codel")).text
    assert f"fq_codel limit {rec.recommended.buffer_packets} target 4000us interval 80000us" in text
