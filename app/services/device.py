"""A buffer size as device configuration (tc, SONiC, Junos, IOS XR, EOS).

``bufsize config``, ``POST /v1/config`` and the device part of ``POST /v1/recommend`` (and of
the web form) come here: a size given (:func:`configure`), or the size a recommendation
recommends (:func:`configure_recommended`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from models.device import DeviceConfig, device_config
from models.recommend import LinkScenario, Recommendation


@dataclass(frozen=True)
class DeviceRequest:
    """The device a snippet is for: its family and the options of
    :func:`models.device.device_config` (None: the family's default)."""

    vendor: str
    cell_bytes: int | None = None
    interface: str | None = None
    queue: str = "0"
    chip_buffer_bytes: float | None = None
    congested_queues: int = 8
    qdisc: str = "pfifo"
    #: CoDel's interval for tc ``fq_codel``; with a recommendation, its effective RTT by default.
    rtt_s: float | None = None

    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`models.device.device_config` beside the size."""
        return {
            "cell_bytes": self.cell_bytes,
            "interface": self.interface,
            "queue": self.queue,
            "chip_buffer_bytes": self.chip_buffer_bytes,
            "congested_queues": self.congested_queues,
            "qdisc": self.qdisc,
            "rtt_s": self.rtt_s,
        }


@dataclass(frozen=True)
class RecommendedSize:
    """The size a recommendation recommends, as the configuration answers say it."""

    rule: str
    buffer_packets: int
    buffer_bytes: float

    @classmethod
    def of(cls, rec: Recommendation) -> RecommendedSize:
        best = rec.recommended
        return cls(best.rule, best.buffer_packets, best.buffer_bytes)


def configure(
    device: DeviceRequest, buffer_bytes: float, capacity_bps: float, packet_bytes: float
) -> DeviceConfig:
    """The configuration of a per-queue buffer of ``buffer_bytes`` at line rate ``capacity_bps``."""
    return device_config(
        device.vendor, buffer_bytes, capacity_bps, packet_bytes=packet_bytes, **device.options()
    )


def configure_recommended(
    recommendation: Recommendation, scenario: LinkScenario, device: DeviceRequest
) -> DeviceConfig:
    """The ``device`` configuration of the size ``recommendation`` recommends for ``scenario``.

    The line rate and the packet size are the scenario's; CoDel's interval (tc ``fq_codel``) is
    the effective RTT the engine used unless the device request gives one.
    """
    if device.rtt_s is None:
        device = replace(device, rtt_s=recommendation.inputs.effective_rtt_s)
    return configure(
        device,
        recommendation.recommended.buffer_bytes,
        scenario.capacity_bps,
        scenario.packet_bytes,
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
