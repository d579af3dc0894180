"""From a recommendation to the device configuration that enforces it.

:func:`recommendation_snippet` is the seam the recommendation response and the web form use to
offer the snippet for the recommended size; ``bufsize config`` and ``POST /v1/config`` use
:func:`config_answer` for the numbers they return beside the text.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from models.device import DeviceConfig, device_config
from models.recommend import LinkScenario, Recommendation


def recommendation_snippet(
    recommendation: Recommendation, scenario: LinkScenario, vendor: str, **options: Any
) -> DeviceConfig:
    """The ``vendor`` configuration of the size ``recommendation`` recommends for ``scenario``.

    The line rate and the packet size are the scenario's; CoDel's interval (tc ``fq_codel``) is
    the effective RTT the engine used. ``options`` are those of
    :func:`models.device.device_config` (``cell_bytes``, ``interface``, ``queue``,
    ``chip_buffer_bytes``, ``congested_queues``, ``qdisc``).
    """
    options.setdefault("rtt_s", recommendation.inputs.effective_rtt_s)
    return device_config(
        vendor,
        recommendation.recommended.buffer_bytes,
        scenario.capacity_bps,
        packet_bytes=scenario.packet_bytes,
        **options,
    )


def config_answer(config: DeviceConfig) -> dict[str, Any]:
    """The snippet and every number it was made from, as plain JSON-ready data."""
    shared = None if config.shared is None else asdict(config.shared)
    return {
        "vendor": config.vendor,
        "text": config.text,
        "interface": config.interface,
        "release": config.release,
        "references": list(config.references),
        "notes": list(config.notes),
        "limit": asdict(config.limit),
        "shared": shared,
        "config_db": config.config_db,
    }
