"""``/v1/recommend``: every rule for one port, their assumptions checked, and one size."""

from __future__ import annotations

from functools import lru_cache

from fastapi import APIRouter, Response

from app.device_snippet import config_answer, recommendation_snippet
from app.errors import parameters_of
from app.schemas.device import DeviceConfigOut, DeviceIn
from app.schemas.recommend import (
    RecommendRequest,
    RecommendResponse,
    RecommendWithDeviceResponse,
    ScenarioIn,
    TargetsIn,
)
from models.recommend import LinkScenario, Targets, recommend

router = APIRouter(tags=["recommend"])

# Recommendations kept, serialized, for repeated identical requests (the engine is a pure
# function of scenario and targets; one answer is about 25 kB).
CACHED_RECOMMENDATIONS = 512


@lru_cache(maxsize=CACHED_RECOMMENDATIONS)
def recommendation_json(scenario: LinkScenario, targets: Targets) -> bytes:
    """The engine's answer as JSON bytes, checked against :class:`RecommendResponse`."""
    answer = RecommendResponse.model_validate(recommend(scenario, targets), from_attributes=True)
    return answer.model_dump_json().encode()


@router.post(
    "/recommend",
    response_model=RecommendWithDeviceResponse,
    summary="Recommend a buffer size",
    description="Every sizing rule of DESIGN §2 applied to the port, each with its assumptions "
    "marked holds / fails / unknown and its predicted utilization, loss and delay; the traffic "
    "regime; one recommended size with the rule that governs it and why; the trade-off when no "
    "size meets every target (004 §V); and curves against buffer size for plotting. With a "
    "device, also the recommended size as that device's configuration (device_config, the "
    "shape /v1/config returns).",
)
async def recommend_buffer(body: RecommendRequest) -> Response:
    # Run on the event loop, not in the thread pool: one answer is ~2 ms of CPU, and twenty
    # threads sharing the GIL made the slowest answers wait three times longer than the queue
    # (benchmarks/api_load.py: distinct scenarios, p99 161 ms in threads, 41 ms here).
    scenario, targets = link_and_targets(body)
    if body.device is not None:
        return Response(with_device(scenario, targets, body.device), media_type="application/json")
    return Response(recommendation_json(scenario, targets), media_type="application/json")


def with_device(scenario: LinkScenario, targets: Targets, device: DeviceIn) -> bytes:
    """The engine's answer with ``device_config``: the snippet for the recommended size."""
    rec = recommend(scenario, targets)
    with parameters_of("device"):
        snippet = recommendation_snippet(rec, scenario, device.vendor, **device.options())
    answer = RecommendWithDeviceResponse.model_validate(rec, from_attributes=True)
    answer.device_config = DeviceConfigOut.model_validate(config_answer(snippet))
    return answer.model_dump_json().encode()


def link_and_targets(body: RecommendRequest) -> tuple[LinkScenario, Targets]:
    """The engine's scenario and targets from a request (also used by /v1/verifications)."""
    return scenario_and_targets(body.scenario, body.targets)


def scenario_and_targets(sc: ScenarioIn, tg: TargetsIn) -> tuple[LinkScenario, Targets]:
    """The engine's scenario and targets from a request's parts (also used by /v1/config)."""
    with parameters_of("scenario"):
        scenario = LinkScenario(
            capacity_bps=sc.capacity_bps,
            rtts_s=sc.rtts,
            flows=sc.flows,
            packet_bytes=sc.packet_bytes,
            bottlenecked_flows=sc.bottlenecked_flows,
            bottlenecked_share=sc.bottlenecked_share,
            access_bps=sc.access_bps,
            peak_rate_bps=sc.peak_rate_bps,
            max_window_packets=sc.max_window_packets,
            paced=sc.paced,
            congestion_control=sc.congestion_control,
            load=sc.load,
            medium=sc.medium,
            aqm=sc.aqm,
            incast_senders=sc.incast_senders,
            initial_window_packets=sc.initial_window_packets,
            input_queued=sc.input_queued,
            speedup=sc.speedup,
            ports=sc.ports,
        )
    with parameters_of("targets"):
        targets = Targets(
            min_utilization=tg.min_utilization,
            max_loss=tg.max_loss,
            max_queueing_delay_s=tg.max_queueing_delay_s,
            priority=tg.priority,
        )
    return scenario, targets
