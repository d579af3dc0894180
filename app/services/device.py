"""A buffer size as device configuration (tc, SONiC, Junos, IOS XR, EOS).

``bufsize config``, ``POST /v1/config`` and the device part of ``POST /v1/recommend`` (and of
the web form) come here: a size given (:func:`configure`), or the size a recommendation
recommends (:func:`configure_recommended`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from models.device import DeviceConfig, QueueDiscipline, device_config
from models.errors import ParameterError
from models.recommend import LinkScenario, Recommendation
from models.recommend.rules import DCTCP_K_DIVISOR
from models.recommend.scenario import aqm_times


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
    #: tc only: the active qdisc; None for the one that deploys ``discipline``
    qdisc: str | None = None
    #: CoDel's interval for tc ``fq_codel``; with a recommendation, its effective RTT by default.
    rtt_s: float | None = None
    #: The AQM or ECN marking to deploy; with a recommendation, the one it was made for.
    discipline: QueueDiscipline | None = None

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
            "discipline": self.discipline,
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


def analysed_discipline(recommendation: Recommendation, scenario: LinkScenario) -> QueueDiscipline:
    """The queue behaviour the recommendation was made for: the scenario's AQM with the target
    and interval the engine used (the scenario's, else the RFC's), and for DCTCP senders the
    marking threshold
    K = C·RTT/7 (Alizadeh et al. SIGCOMM 2010 §3.4 eq. 13; the engine's DCTCP rule)."""
    k_bytes = None
    if scenario.congestion_control == "dctcp":
        k_packets = recommendation.inputs.bdp_packets / DCTCP_K_DIVISOR
        k_bytes = max(1.0, k_packets) * scenario.packet_bytes
    return QueueDiscipline(
        aqm=scenario.aqm,
        target_s=scenario.aqm_target,
        interval_s=scenario.aqm_interval,
        ecn_threshold_bytes=k_bytes,
    )


def given_discipline(
    aqm: str,
    target_s: float | None = None,
    interval_s: float | None = None,
    ecn_threshold_bytes: float | None = None,
    buffer_bytes: float | None = None,
) -> QueueDiscipline:
    """The queue behaviour of a size given without a scenario: the AQM with its target and
    interval (the RFC's when not given; ``ParameterError`` as the engine refuses them), and
    DCTCP's marking threshold K when given (None: no ECN marking), which must lie below the
    buffer ``buffer_bytes`` (a queue never reaches a threshold at or above its limit)."""
    target, interval = aqm_times(aqm, target_s, interval_s)
    if (
        ecn_threshold_bytes is not None
        and buffer_bytes is not None
        and ecn_threshold_bytes >= buffer_bytes
    ):
        raise ParameterError(
            "ecn_threshold_bytes",
            f"< buffer_bytes ({buffer_bytes:,.0f} B)",
            f"ecn_threshold_bytes ({ecn_threshold_bytes:,.0f} B) must be below the buffer "
            f"buffer_bytes ({buffer_bytes:,.0f} B): the queue never reaches a marking "
            "threshold at or above its limit",
        )
    return QueueDiscipline(
        aqm=aqm, target_s=target, interval_s=interval, ecn_threshold_bytes=ecn_threshold_bytes
    )


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
    the effective RTT the engine used unless the device request gives one; the queue discipline
    deployed is the one the analysis assumed (:func:`analysed_discipline`) unless it gives one.
    """
    if device.rtt_s is None:
        device = replace(device, rtt_s=recommendation.inputs.effective_rtt_s)
    if device.discipline is None:
        device = replace(device, discipline=analysed_discipline(recommendation, scenario))
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
