"""What the request and response schemas share: quantities with units, bounds, base models.

A rate, a time or a size may be sent as a JSON number in the SI unit of the field's name
(``capacity_bps`` in bit/s, ``rtt_s`` in seconds, ``packet_bytes`` in bytes) or as a string with
its unit (``"10 Gbit/s"``, ``"100 ms"``, ``"1500 B"``), read by :func:`app.units.parse_quantity`.
The OpenAPI schema of such a field is ``anyOf`` the bounded number and a quantity string.
"""

from __future__ import annotations

from functools import cache, lru_cache
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    ValidationInfo,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

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
#: The largest seed: the largest integer every JSON reader holds exactly (a double's 53 bits).
#: Above it a schema bound is compared in rounded arithmetic (2**63 - 1 and 2**63 + 192 read
#: as the same number), so a client's check of a seed could pass where the server's fails.
MAX_SEED = 2**53 - 1


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
        text: dict[str, Any] = {
            "type": "string",
            "pattern": PATTERNS[self.kind],
            "maxLength": MAX_QUANTITY_CHARS,
            "description": f"a quantity with its unit, e.g. {example(self.kind)!r}",
            "x-quantity": self.kind,
        }
        # JSON Schema bounds no string by its value: the number's bounds, which apply to the
        # string once converted to the field's unit, are stated as x-minimum, x-maximum, ...
        bounds = {key: number[key] for key in BOUND_KEYWORDS if key in number}
        if bounds:
            text.update({f"x-{key}": value for key, value in bounds.items()})
            text["description"] += f", {bound_words(bounds, TARGET_UNITS[self.kind])}"
        return {"anyOf": [number, text]}

    def parse(self, value: Any, info: ValidationInfo) -> Any:
        """Convert a quantity string to the SI float of this kind; pass anything else through."""
        if not isinstance(value, str):
            return value
        name = info.field_name or self.kind
        return _parse_cached(name, value, self.kind)


class StringItems:
    """Annotated marker of a list of quantities: at most ``limit`` items if any is a string.

    Numbers are checked by pydantic's compiled validators; each string is read by
    :func:`parse_quantity` on the event loop (a few microseconds each), so a list of them is
    bounded more tightly, and a long list is sent as numbers. The OpenAPI schema states both
    lists (``anyOf`` the list of numbers and the shorter list of numbers or strings).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_before_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        full = handler(schema)
        if handler.mode == "serialization":
            return full
        items = full.get("items", {})
        numbers = {key: value for key, value in full.items() if key != "description"}
        numbers["items"] = items.get("anyOf", [items])[0]
        strings = {**numbers, "items": items, "maxItems": self.limit}
        return {"anyOf": [numbers, strings], "description": full.get("description", "")}

    def check(self, value: Any) -> Any:
        """Refuse a list longer than ``limit`` with a string in it (before any is read)."""
        if isinstance(value, list) and len(value) > self.limit:
            if any(isinstance(item, str) for item in value):
                raise PydanticCustomError(
                    "too_long",
                    "List should have at most {limit} items when any is a string with a unit, "
                    "not {length}; send a longer list as numbers (up to {most})",
                    {"limit": self.limit, "length": len(value), "most": MAX_RTT_LIST},
                )
        return value


#: Most items of a list of quantities with a string among them.
MAX_QUANTITY_STRINGS = 1_000

#: The JSON Schema keywords that bound a number.
BOUND_KEYWORDS = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum")


def bound_words(bounds: dict[str, float], unit: str) -> str:
    """``"converted to bit/s: >= 1000, <= 1e+15"``: the bounds of a quantity in words."""
    signs = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
    parts = ", ".join(f"{signs[key]} {value:g}" for key, value in bounds.items())
    return f"converted to {unit}: {parts}"


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


# JSON Schema for the rules between fields that it can state (which fields go together), so
# that the contract carries them and a client generated from it keeps them; rules that compare
# two fields' values (a target below an interval, N_b <= N) stay in the descriptions, and
# docs/contract.md lists them.


def given(*names: str) -> dict[str, Any]:
    """Each of ``names`` present and not null."""
    return {
        "required": list(names),
        "properties": {name: {"not": {"type": "null"}} for name in names},
    }


def absent(*names: str) -> dict[str, Any]:
    """Each of ``names`` absent or null."""
    return {"properties": {name: {"type": "null"} for name in names}}


def exactly_one_of(*names: str) -> dict[str, Any]:
    """Exactly one of ``names`` given (present and not null)."""
    return {"oneOf": [given(name) for name in names]}


def not_both(first: str, second: str) -> dict[str, Any]:
    """``first`` and ``second`` not both given."""
    return {"not": given(first, second)}


def only_with_an_aqm(aqms: tuple[str, ...], *names: str) -> dict[str, Any]:
    """``names`` (an AQM's target and interval) given only with ``aqm`` one of ``aqms``."""
    return {
        "anyOf": [{**given("aqm"), "properties": {"aqm": {"enum": list(aqms)}}}, absent(*names)]
    }


def together(*rules: dict[str, Any]) -> dict[str, Any]:
    """One schema holding the ``required`` and ``properties`` of each of ``rules``."""
    required = [name for rule in rules for name in rule.get("required", [])]
    properties = {k: v for rule in rules for k, v in rule.get("properties", {}).items()}
    return (
        {"required": required, "properties": properties} if required else {"properties": properties}
    )


def all_of(*rules: dict[str, Any]) -> dict[str, Any]:
    """Every one of ``rules`` (for a model's ``json_schema_extra``)."""
    return {"allOf": list(rules)}


class RequestModel(BaseModel):
    """Base of the request bodies: unknown fields, non-finite numbers and type coercions
    (``true`` for 1, ``"2"`` for an integer count) are refused.

    A whole number written with a fraction (``267.0``) is an integer, as JSON Schema's
    ``"type": "integer"`` says: JSON has one number type, and some writers put ``.0`` on every
    number.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)

    @model_validator(mode="before")
    @classmethod
    def _whole_numbers_as_integers(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fields = _integer_fields(cls)
        if not any(isinstance(data.get(name), float | list) for name in fields):
            return data
        return {name: _integral(value) if name in fields else value for name, value in data.items()}


def _integral(value: Any) -> Any:
    """``value`` as an int if it is a float holding a whole number (each item of a list)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


@cache
def _integer_fields(model: type[BaseModel]) -> frozenset[str]:
    """Fields of ``model`` declared ``int``, ``int | None``, ``list[int]`` and the like."""
    return frozenset(
        name for name, field in model.model_fields.items() if _holds_integers(field.annotation)
    )


def _holds_integers(annotation: Any) -> bool:
    """``int``, or a union, ``Annotated`` or list with ``int`` in it."""
    if annotation is int:
        return True
    origin = get_origin(annotation)
    if origin in (Union, UnionType, list, Annotated):
        arguments = get_args(annotation)[:1] if origin is Annotated else get_args(annotation)
        return any(_holds_integers(argument) for argument in arguments)
    return False


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
