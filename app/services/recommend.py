"""Every buffer-sizing rule for one port, their assumptions checked, and one recommended size.

``bufsize recommend``, ``POST /v1/recommend``, ``POST /v1/config`` with a scenario, the
verifications and the web form all ask :func:`recommend`; with a device, :func:`recommend_for`
adds the recommended size as that device's configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.services.device import DeviceRequest, configure_recommended
from models.device import DeviceConfig
from models.errors import ParameterError
from models.recommend import LinkScenario, Recommendation, Targets
from models.recommend import recommend as recommend_link


def recommend(scenario: LinkScenario, targets: Targets) -> Recommendation:
    """The engine's answer (:func:`models.recommend.recommend`); ``ParameterError`` if refused."""
    return recommend_link(scenario, targets)


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
