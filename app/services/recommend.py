"""Every buffer-sizing rule for one port, their assumptions checked, and one recommended size.

``bufsize recommend``, ``POST /v1/recommend``, ``POST /v1/config`` with a scenario, the
verifications and the web form all ask :func:`recommend`; with a device, :func:`recommend_for`
adds the recommended size as that device's configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import TypeAdapter

from app.services.device import DeviceRequest, configure_recommended
from models.device import DeviceConfig
from models.errors import ParameterError
from models.recommend import LinkScenario, Recommendation, Targets
from models.recommend import recommend as recommend_link


def recommend(scenario: LinkScenario, targets: Targets) -> Recommendation:
    """The engine's answer (:func:`models.recommend.recommend`); ``ParameterError`` if refused."""
    return recommend_link(scenario, targets)


#: The engine's answer written straight from its dataclasses: the bytes
#: ``RecommendResponse.of(answer).model_dump_json()`` writes (field for field, non-finite
#: numbers as null; tests/app/test_api_recommend_shape.py compares them), without validating
#: every answer into the response model first (0.28 -> 0.09 ms of an answer's ~2.5 ms).
_ANSWER_JSON = TypeAdapter(Recommendation)


def recommendation_json(scenario: LinkScenario, targets: Targets) -> bytes:
    """:func:`recommend`'s answer as JSON bytes, in ``RecommendResponse``'s shape (what
    ``POST /v1/recommend`` answers; computed by one of app.answer_pool's processes)."""
    return _ANSWER_JSON.dump_json(recommend(scenario, targets))


@dataclass(frozen=True)
class RecommendationForDevice:
    """A recommendation and its size as one device's configuration."""

    recommendation: Recommendation
    device_config: DeviceConfig


def recommend_for(
    scenario: LinkScenario, targets: Targets, device: DeviceRequest
) -> RecommendationForDevice:
    """The recommendation and the ``device`` configuration of its size.

    A ``ParameterError`` of the device's is named within it (``device.chip_buffer_bytes``), as
    the API's request and the web form place it.
    """
    rec = recommend(scenario, targets)
    try:
        config = configure_recommended(rec, scenario, device)
    except ParameterError as exc:
        raise ParameterError(f"device.{exc.name}", exc.bound, str(exc)) from exc
    return RecommendationForDevice(rec, config)
