"""Schemas of ``/v1/config``: a buffer size (or a scenario to recommend one) in, a snippet out."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from app.schemas.common import (
    MAX_CAPACITY_BPS,
    MAX_RTT_S,
    MIN_CAPACITY_BPS,
    MIN_RTT_S,
    PacketBytes,
    RequestModel,
    ResponseModel,
    Unit,
)
from app.schemas.recommend import ScenarioIn, TargetsIn

#: The largest buffer or chip memory accepted, bytes (10 TB: beyond any device).
MAX_DEVICE_BYTES = 1e13
MAX_CELL_BYTES = 65_536
MAX_CONGESTED_QUEUES = 65_536
MAX_BUFFER_PACKETS = 1_000_000_000

Vendor = Literal["tc", "sonic", "junos", "iosxr", "eos"]

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
        "vendor": "iosxr",
        "scenario": {"capacity_bps": "10 Gbit/s", "rtt_s": "100 ms", "flows": 1000},
        "targets": {"min_utilization": 0.9, "max_loss": 0.01},
    },
]


DeviceBytes = Annotated[float, Field(gt=0.0, le=MAX_DEVICE_BYTES), Unit("size")]


class ConfigRequest(RequestModel):
    """What to configure: a size (``buffer_bytes`` or ``buffer_packets``) or a ``scenario``."""

    model_config = ConfigDict(json_schema_extra={"examples": _EXAMPLES})

    vendor: Vendor = Field(description="Device family: tc, sonic, junos, iosxr or eos.")
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
    cell_bytes: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CELL_BYTES,
        description="The device's memory cell, in bytes: the size is rounded up to whole cells. "
        "By default the vendor family's (tc 1, sonic 256, others 1).",
    )
    chip_buffer_bytes: DeviceBytes | None = Field(
        default=None,
        description="Shared memory B of the switch chip, in bytes (or e.g. '64 MiB'): sets "
        "SONiC's dynamic_th (required for sonic).",
    )
    congested_queues: int = Field(
        default=8,
        ge=1,
        le=MAX_CONGESTED_QUEUES,
        description="n, a count: queues congested at once sharing chip_buffer_bytes.",
    )
    interface: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9/._:-]+$",
        description="Port name; by default a placeholder in the vendor's naming.",
    )
    queue: int = Field(default=0, ge=0, le=15, description="Egress queue index, 0 to 15.")
    qdisc: Literal["pfifo", "bfifo", "fq_codel"] = Field(
        default="pfifo", description="tc only: the qdisc of the active command."
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
        return self


class QueueLimitOut(ResponseModel):
    requested_bytes: float = Field(ge=0.0, description="The size asked for, bytes.")
    cell_bytes: int = Field(ge=1, description="The memory cell used, bytes.")
    limit_bytes: int = Field(ge=0, description="The size rounded up to whole cells, bytes.")
    limit_packets: int = Field(ge=0, description="limit_bytes in packets, rounded up.")
    limit_s: float = Field(ge=0.0, description="limit_bytes at line rate, seconds.")
    limit_us: int = Field(ge=0, description="limit_s in microseconds, rounded up.")
    packet_bytes: float = Field(gt=0.0, description="Packet size used, bytes.")
    capacity_bps: float = Field(gt=0.0, description="Line rate used, bit/s.")


class SharedBufferOut(ResponseModel):
    target_bytes: float = Field(description="Per-queue buffer asked of the shared memory, bytes.")
    chip_buffer_bytes: float = Field(description="Shared memory B, bytes.")
    congested_queues: int = Field(description="n, queues congested at once.")
    alpha_min: float | None = Field(description="Smallest α giving the target, dimensionless.")
    alpha: float | None = Field(description="α rounded up to a power of two the chip accepts.")
    alpha_log2: int | None = Field(description="log2 α (SONiC dynamic_th).")
    steady_queue_bytes: float | None = Field(
        description="Each congested queue's steady length α·B/(1 + n·α), bytes."
    )
    unallocated_bytes: float | None = Field(description="B/(1 + n·α), bytes left unused.")
    alpha_suffices: bool = Field(description="Whether some α in the chip's range gives the target.")
    reason: str


class RecommendedUsed(ResponseModel):
    rule: str = Field(description="The rule that governs the recommended size.")
    buffer_packets: int = Field(ge=0, description="Recommended buffer, packets.")
    buffer_bytes: float = Field(ge=0.0, description="Recommended buffer, bytes.")


class ConfigResponse(ResponseModel):
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

    vendor: Vendor
    text: str = Field(description="The snippet, with comments citing the document it follows.")
    interface: str
    release: str = Field(description="The software release the template follows.")
    references: list[str] = Field(description="Documents the template follows.")
    notes: list[str]
    limit: QueueLimitOut = Field(description="The numbers the snippet enforces.")
    shared: SharedBufferOut | None = Field(
        default=None, description="The dynamic-threshold α, when a chip memory was given."
    )
    config_db: dict[str, Any] | None = Field(
        default=None, description="SONiC only: the CONFIG_DB document in the text."
    )
    recommended: RecommendedUsed | None = Field(
        default=None, description="The recommendation used, when a scenario was given."
    )
