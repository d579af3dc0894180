"""``/v1/config``: a buffer size as device configuration (tc, SONiC, Junos, IOS XR, EOS)."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from fastapi import APIRouter

from app.schemas.device_config import ConfigRequest, ConfigResponse
from app.schemas.recommend import TargetsIn, link_and_targets
from app.services.device import (
    RecommendedSize,
    config_answer,
    configure,
    configure_recommended,
    given_discipline,
)
from app.services.recommend import recommend

router = APIRouter(tags=["config"])


@router.post(
    "/config",
    response_model=ConfigResponse,
    summary="Device configuration for a buffer size",
    description="The per-queue buffer (given, or recommended for a scenario as by "
    "/v1/recommend) as configuration for Linux tc, SONiC CONFIG_DB, Junos, IOS XR or Arista "
    "EOS, rounded up to the device's memory cell and converted at the line rate; with a chip's "
    "shared memory, the dynamic-threshold α (Choudhury and Hahne 1998) that gives the queue "
    "that size with n queues congested. A size given may come with the port's AQM (aqm, "
    "aqm_target_s, aqm_interval_s) and DCTCP's marking threshold (ecn_threshold_bytes); a "
    "scenario brings its own. Returns the text and every number it used.",
)
async def config(body: ConfigRequest) -> dict[str, Any]:
    device = replace(body.to_domain(), rtt_s=body.rtt_s)
    if body.scenario is not None:
        # The same scenario and targets /v1/recommend builds, so the same recommended size.
        scenario, targets = link_and_targets(body.scenario, body.targets or TargetsIn())
        rec = recommend(scenario, targets)
        answer = config_answer(configure_recommended(rec, scenario, device))
        answer["recommended"] = asdict(RecommendedSize.of(rec))
        return answer
    packet_bytes = 1500.0 if body.packet_bytes is None else body.packet_bytes
    if body.buffer_packets is not None:
        buffer_bytes = body.buffer_packets * packet_bytes
    else:
        buffer_bytes = float(body.buffer_bytes or 0.0)
    line_rate = float(body.capacity_bps or 0.0)  # required by the schema without a scenario
    discipline = given_discipline(
        body.aqm or "none",
        body.aqm_target_s,
        body.aqm_interval_s,
        body.ecn_threshold_bytes,
        buffer_bytes=buffer_bytes,
    )
    device = replace(device, discipline=discipline)
    return config_answer(configure(device, buffer_bytes, line_rate, packet_bytes))
