"""Schemas of a device configuration, shared by ``/v1/config`` and ``/v1/recommend``.

:class:`DeviceIn` is the device a snippet is for (vendor family and its options);
:class:`DeviceConfigOut` is the snippet with every number it was made from, the answer of
:func:`app.services.device.config_answer`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field

from app.schemas.common import RequestModel, ResponseModel, Unit, given
from app.services.device import DeviceRequest
from models.choices import TcQdisc, Vendor

#: The largest buffer or chip memory accepted, bytes (10 TB: beyond any device).
MAX_DEVICE_BYTES = 1e13
MAX_CELL_BYTES = 65_536
MAX_CONGESTED_QUEUES = 65_536


#: A memory is at least one byte (a positive float like 5e-324 B overflowed the Junos percentage).
DeviceBytes = Annotated[float, Field(ge=1.0, le=MAX_DEVICE_BYTES), Unit("size")]


#: SONiC needs the chip's shared memory (stated in the schema: a SONiC device gives it).
SONIC_NEEDS_CHIP_BUFFER: dict[str, Any] = {
    "if": {"required": ["vendor"], "properties": {"vendor": {"const": "sonic"}}},
    "then": given("chip_buffer_bytes"),
}


class DeviceIn(RequestModel):
    """The device a snippet is for: its family and, optionally, its memory and port."""

    model_config = ConfigDict(json_schema_extra=SONIC_NEEDS_CHIP_BUFFER)

    vendor: Vendor = Field(description="Device family: tc, sonic, junos, iosxr or eos.")
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
    qdisc: TcQdisc | None = Field(
        default=None,
        description="tc only: the qdisc of the active command; by default the one that deploys "
        "the analysis (fq_codel marking CE at K for DCTCP, fq_codel for CoDel, pie for PIE, "
        "else pfifo).",
    )

    def to_domain(self) -> DeviceRequest:
        """The device as :mod:`app.services.device` takes it."""
        return DeviceRequest(
            vendor=self.vendor,
            cell_bytes=self.cell_bytes,
            interface=self.interface,
            queue=str(self.queue),
            chip_buffer_bytes=self.chip_buffer_bytes,
            congested_queues=self.congested_queues,
            qdisc=self.qdisc,
        )


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


class DeviceConfigOut(ResponseModel):
    """A snippet and the numbers it enforces (the answer of ``/v1/config`` without a scenario)."""

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
