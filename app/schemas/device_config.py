"""Schemas of ``/v1/config``: a buffer size (or a scenario to recommend one) in, a snippet out."""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import ConfigDict, Field, model_validator

from app.schemas.common import (
    MAX_CAPACITY_BPS,
    MAX_RTT_S,
    MIN_CAPACITY_BPS,
    MIN_RTT_S,
    PacketBytes,
    ResponseModel,
    Unit,
    absent,
    all_of,
    given,
    only_with_an_aqm,
    together,
)
from app.schemas.device import SONIC_NEEDS_CHIP_BUFFER, DeviceBytes, DeviceConfigOut, DeviceIn
from app.schemas.recommend import AQM_NAMES, AqmTimeS, ScenarioIn, TargetsIn
from models.choices import Aqm

MAX_BUFFER_PACKETS = 1_000_000_000
#: The queue's behaviour beside a size given (with a scenario, the scenario's).
QUEUE_FIELDS = ("aqm", "aqm_target_s", "aqm_interval_s", "ecn_threshold_bytes")

_EXAMPLES: list[Any] = [
    {"vendor": "tc", "buffer_bytes": "1250000 B", "capacity_bps": "10 Gbit/s"},
    {
        "vendor": "sonic",
        "buffer_bytes": "1 MB",
        "capacity_bps": "100 Gbit/s",
        "chip_buffer_bytes": "64 MiB",
        "congested_queues": 8,
        "cell_bytes": 256,
    },
    {"vendor": "junos", "buffer_packets": 834, "capacity_bps": "10 Gbit/s"},
    {
        "vendor": "tc",
        "buffer_bytes": "1 MB",
        "capacity_bps": "1 Gbit/s",
        "aqm": "codel",
        "aqm_target_s": "5 ms",
        "aqm_interval_s": "100 ms",
    },
    {
        "vendor": "eos",
        "buffer_bytes": "500 KB",
        "capacity_bps": "100 Gbit/s",
        "ecn_threshold_bytes": "150 KB",
    },
    {
        "vendor": "iosxr",
        "scenario": {"capacity_bps": "10 Gbit/s", "rtt_s": "100 ms", "flows": 1000},
        "targets": {"min_utilization": 0.9, "max_loss": 0.01},
    },
]


class ConfigRequest(DeviceIn):
    """What to configure: a size (``buffer_bytes`` or ``buffer_packets``) or a ``scenario``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": _EXAMPLES,
            # One size: a scenario (with nothing of its own outside it), or buffer_bytes or
            # buffer_packets with the port's capacity_bps (and no targets); an AQM's target and
            # interval only with an aqm.
            **all_of(
                {
                    "oneOf": [
                        together(
                            given("scenario"),
                            absent("buffer_bytes", "buffer_packets", "capacity_bps"),
                            absent("packet_bytes", *QUEUE_FIELDS),
                        ),
                        together(
                            given("buffer_bytes", "capacity_bps"),
                            absent("buffer_packets", "scenario", "targets"),
                        ),
                        together(
                            given("buffer_packets", "capacity_bps"),
                            absent("buffer_bytes", "scenario", "targets"),
                        ),
                    ]
                },
                only_with_an_aqm(AQM_NAMES, "aqm_target_s", "aqm_interval_s"),
                SONIC_NEEDS_CHIP_BUFFER,
            ),
        }
    )

    buffer_bytes: DeviceBytes | None = Field(
        default=None, description="Per-queue buffer, in bytes (or e.g. '1.25 MB')."
    )
    buffer_packets: int | None = Field(
        default=None,
        ge=1,
        le=MAX_BUFFER_PACKETS,
        description="Per-queue buffer, in packets of packet_bytes.",
    )
    scenario: ScenarioIn | None = Field(
        default=None,
        description="A port and its traffic, as for /v1/recommend: the recommended size is used.",
    )
    targets: TargetsIn | None = Field(
        default=None, description="Targets of the recommendation (with scenario only)."
    )
    capacity_bps: (
        Annotated[
            float,
            Field(
                ge=MIN_CAPACITY_BPS,
                le=MAX_CAPACITY_BPS,
                description="The port's line rate C, in bit/s (or e.g. '10 Gbit/s'); with a "
                "scenario, give it there.",
            ),
            Unit("rate"),
        ]
        | None
    ) = None
    packet_bytes: PacketBytes | None = Field(
        default=None,
        description="Packet size, in bytes (or e.g. '1500 B'); 1500 by default; with a "
        "scenario, give it there.",
    )
    rtt_s: (
        Annotated[
            float,
            Field(
                ge=MIN_RTT_S,
                le=MAX_RTT_S,
                description="Round-trip time, in seconds (or e.g. '100 ms'): CoDel's interval "
                "for tc fq_codel; by default the scenario's effective RTT, else 100 ms.",
            ),
            Unit("time"),
        ]
        | None
    ) = None

    aqm: Aqm | None = Field(
        default=None,
        description="With a size given: the port's active queue management, deployed with the "
        "size as its hard limit (tc fq_codel or pie; the other families say whether they can "
        "express it). With a scenario, give it there.",
    )
    aqm_target_s: AqmTimeS | None = Field(
        default=None,
        description="With a size given and an aqm: its target queueing delay, in seconds (or "
        "e.g. '5 ms'); for CoDel below its interval; by default the RFC's: 5 ms (CoDel, RFC "
        "8289), 15 ms (PIE, RFC 8033; DualQ, RFC 9332).",
    )
    aqm_interval_s: AqmTimeS | None = Field(
        default=None,
        description="With a size given and an aqm: its control interval, in seconds (or e.g. "
        "'100 ms'); by default the RFC's: 100 ms (CoDel), 15 ms (PIE), 16 ms (DualQ).",
    )
    ecn_threshold_bytes: DeviceBytes | None = Field(
        default=None,
        description="With a size given: DCTCP's ECN marking threshold K, in bytes (or e.g. "
        "'150 KB'), marked on the queue (K = C·RTT/7, Alizadeh et al. 2010 eq. 13; "
        "/v1/recommend computes it for congestion_control dctcp). With a scenario it comes "
        "from the scenario's congestion control.",
    )

    @model_validator(mode="after")
    def _one_size(self) -> Self:
        given = [
            name
            for name in ("buffer_bytes", "buffer_packets", "scenario")
            if getattr(self, name) is not None
        ]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of buffer_bytes, buffer_packets or scenario, got "
                + (", ".join(given) or "none")
            )
        if self.scenario is None and self.capacity_bps is None:
            raise ValueError("capacity_bps is required with buffer_bytes or buffer_packets")
        if self.scenario is None and self.targets is not None:
            raise ValueError("targets go with scenario only")
        if self.scenario is not None and (
            self.capacity_bps is not None or self.packet_bytes is not None
        ):
            raise ValueError(
                "capacity_bps and packet_bytes come from the scenario: give them inside scenario"
            )
        if self.scenario is not None:
            inside = [name for name in QUEUE_FIELDS if getattr(self, name) is not None]
            if inside:
                raise ValueError(
                    f"{', '.join(inside)}: with a scenario the queue is the scenario's: give "
                    "aqm, aqm_target_s and aqm_interval_s inside scenario (DCTCP's threshold "
                    "comes from its congestion_control)"
                )
        return self


class RecommendedUsed(ResponseModel):
    rule: str = Field(description="The rule that governs the recommended size.")
    buffer_packets: int = Field(ge=0, description="Recommended buffer, packets.")
    buffer_bytes: float = Field(ge=0.0, description="Recommended buffer, bytes.")


class ConfigResponse(DeviceConfigOut):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "vendor": "tc",
                    "text": "# bufsize: ...\ntc qdisc replace dev eth0 root pfifo limit 834\n",
                    "interface": "eth0",
                    "release": "iproute2 6.1 (Debian 12)",
                    "references": ["tc-pfifo(8)/tc-bfifo(8), iproute2"],
                    "notes": [],
                    "limit": {
                        "requested_bytes": 1250000.0,
                        "cell_bytes": 1,
                        "limit_bytes": 1250000,
                        "limit_packets": 834,
                        "limit_s": 0.001,
                        "limit_us": 1000,
                        "packet_bytes": 1500.0,
                        "capacity_bps": 1e10,
                    },
                    "shared": None,
                    "config_db": None,
                    "recommended": None,
                }
            ]
        }
    )

    recommended: RecommendedUsed | None = Field(
        default=None, description="The recommendation used, when a scenario was given."
    )
