"""What the request and response schemas share: quantities with units, bounds, base models.

A rate, a time or a size may be sent as a JSON number in the SI unit of the field's name
(``capacity_bps`` in bit/s, ``rtt_s`` in seconds, ``packet_bytes`` in bytes) or as a string with
its unit (``"10 Gbit/s"``, ``"100 ms"``, ``"1500 B"``), read by :func:`app.units.parse_quantity`.
The OpenAPI schema of such a field is ``anyOf`` the bounded number and a quantity string.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    ValidationInfo,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from app.units import (
    MAX_QUANTITY_CHARS,
    PATTERNS,
    TARGET_UNITS,
    example,
    parse_quantity,
)

# Physical ranges accepted by the API. They keep every model's arithmetic inside float range
# (no overflow, no NaN) and are wide enough for any real link.
MIN_CAPACITY_BPS = 1e3  # 1 kbit/s
MAX_CAPACITY_BPS = 1e15  # 1 Pbit/s
MIN_RTT_S = 1e-6  # 1 microsecond
MAX_RTT_S = 60.0  # one minute
MIN_PACKET_BYTES = 1.0
MAX_PACKET_BYTES = 65536.0  # 64 KiB, the largest IP datagram
MAX_FLOWS = 1_000_000_000
MAX_WINDOW_PACKETS = 1e9
MAX_RTT_LIST = 10_000


class Unit:
    """Annotated marker: the field also accepts a string with a unit, converted to SI.

    ``Annotated[float, Field(ge=..., le=...), Unit("rate")]`` takes ``1e10`` or ``"10 Gbit/s"``;
    the bounds apply to the converted value. Its OpenAPI schema is ``anyOf`` the bounded number
    and a quantity string.
    """

    def __init__(self, kind: str) -> None:
        if kind not in TARGET_UNITS:
            raise ValueError(f"kind must be one of {sorted(TARGET_UNITS)}, got {kind!r}")
        self.kind = kind

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.with_info_before_validator_function(self.parse, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        number = handler(schema)
        if handler.mode == "serialization":
            return number
        text = {
            "type": "string",
            "pattern": PATTERNS[self.kind],
            "maxLength": MAX_QUANTITY_CHARS,
            "description": f"a quantity with its unit, e.g. {example(self.kind)!r}",
        }
        return {"anyOf": [number, text]}

    def parse(self, value: Any, info: ValidationInfo) -> Any:
        """Convert a quantity string to the SI float of this kind; pass anything else through."""
        if not isinstance(value, str):
            return value
        name = info.field_name or self.kind
        return _parse_cached(name, value, self.kind)


@lru_cache(maxsize=4096)
def _parse_cached(name: str, text: str, kind: str) -> float:
    """:func:`parse_quantity` (its grammar, its length limit), repeated strings read once."""
    return parse_quantity(name, text, kind)


# Fields used by several families, with their bounds.
CapacityBps = Annotated[
    float,
    Field(
        ge=MIN_CAPACITY_BPS,
        le=MAX_CAPACITY_BPS,
        description="Bottleneck link capacity C, in bit/s (or a string such as '10 Gbit/s').",
    ),
    Unit("rate"),
]
RttS = Annotated[
    float,
    Field(
        ge=MIN_RTT_S,
        le=MAX_RTT_S,
        description="Round-trip time, propagation included, in seconds (or e.g. '100 ms').",
    ),
    Unit("time"),
]
PacketBytes = Annotated[
    float,
    Field(
        ge=MIN_PACKET_BYTES,
        le=MAX_PACKET_BYTES,
        description="Packet size, in bytes (or e.g. '1500 B').",
    ),
    Unit("size"),
]
Load = Annotated[
    float,
    Field(
        gt=0.0,
        lt=1.0,
        description="Offered load ρ, dimensionless (arrival rate over service rate), in (0, 1).",
    ),
]
BufferPacketsIn = Annotated[
    int,
    Field(
        ge=1,
        le=1_000_000,
        description="Buffer B, in packets: the most packets the port holds, the one in "
        "transmission included (K of M/M/1/K).",
    ),
]
Flows = Annotated[
    int, Field(ge=1, le=MAX_FLOWS, description="Number of long-lived TCP flows N, a count.")
]
MaxWindowPackets = Annotated[
    float,
    Field(
        ge=1.0,
        le=MAX_WINDOW_PACKETS,
        description="Maximum (advertised) TCP window W, in packets (at least one packet).",
    ),
]


class RequestModel(BaseModel):
    """Base of the request bodies: unknown fields, non-finite numbers and type coercions
    (``true`` for 1, ``2.0`` for an integer count) are refused."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class ResponseModel(BaseModel):
    """Base of the response bodies: every number is finite."""

    model_config = ConfigDict(allow_inf_nan=False)


class BufferSize(ResponseModel):
    """A buffer size in the three units users think in."""

    buffer_packets: float = Field(ge=0.0, description="Buffer, in packets.")
    buffer_bytes: float = Field(ge=0.0, description="Buffer, in bytes.")
    buffer_s: float = Field(
        ge=0.0, description="Buffer, in seconds of queueing when drained at the link capacity."
    )


def buffer_size_fields(
    buffer_packets: float, packet_bytes: float, capacity_bps: float
) -> dict[str, float]:
    """``buffer_packets``, ``buffer_bytes`` and ``buffer_s`` of one buffer."""
    buffer_bytes = float(buffer_packets) * packet_bytes
    return {
        "buffer_packets": float(buffer_packets),
        "buffer_bytes": buffer_bytes,
        "buffer_s": 8.0 * buffer_bytes / capacity_bps,
    }


class ErrorMessage(ResponseModel):
    """An error answered with a single message (a body that is not UTF-8 JSON, for example)."""

    detail: str = Field(description="What was wrong with the request.")
