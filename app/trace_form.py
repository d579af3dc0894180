"""The text fields of the trace upload form (``POST /v1/traces``) and their OpenAPI schemas.

The form's fields are strings; each is read only if it matches its pattern, the same one the
OpenAPI document gives clients, and a blank field is a field not given (what a browser sends
for an empty input). The bounds of a quantity, which no pattern can state, are given as the
JSON fields' are: ``x-minimum``, ``x-maximum``, ... of the value read, in words as well.
"""

from __future__ import annotations

from typing import Any

from app.schemas.common import MAX_CAPACITY_BPS, MIN_CAPACITY_BPS, bound_words
from app.services.trace import TRACE_REPLICATIONS
from app.units import FRACTION_PATTERN, MAX_QUANTITY_CHARS, PATTERNS


def _optional(pattern: str) -> str:
    """``pattern`` (anchored), or blank: a form's empty field is a field not given."""
    return f"^ *$|{pattern}"


def _form_field(
    description: str, pattern: str, quantity: str | None = None, **bounds: float
) -> dict[str, Any]:
    field: dict[str, Any] = {
        "type": "string",
        "pattern": _optional(pattern),
        "maxLength": MAX_QUANTITY_CHARS,
    }
    if quantity is not None:
        # As for the JSON fields with units: the bounds of the value once read, in words and as
        # x-minimum, x-maximum, ... (JSON Schema bounds no string by its value).
        field["x-quantity"] = quantity
        field.update({f"x-{key}": value for key, value in bounds.items()})
        description += f" ({bound_words(bounds, FORM_UNITS[quantity])})"
    field["description"] = description
    return field


#: The unit each kind of form quantity is bounded in.
FORM_UNITS = {"rate": "bit / second", "time": "second", "packets": "packets", "fraction": "1"}

#: The text fields of the upload form beside ``file``: their OpenAPI schemas. The service reads
#: a field only if it matches its pattern (422 naming it otherwise); blank is not given.
TRACE_FORM_FIELDS: dict[str, dict[str, Any]] = {
    "capacity_bps": _form_field(
        "Link rate, e.g. 50 Mbit/s.",
        PATTERNS["rate"],
        "rate",
        minimum=MIN_CAPACITY_BPS,
        maximum=MAX_CAPACITY_BPS,
    ),
    "buffer_packets": _form_field(
        "Buffer during the capture: packets (a bare number) or a size (64 KiB, in packets of "
        "1500 B); needs capacity_bps.",
        PATTERNS["size"],
        "packets",
        exclusiveMinimum=0.0,
    ),
    "warmup_s": _form_field(
        "Left out at the start, e.g. 10s.", PATTERNS["time"], "time", minimum=0.0
    ),
    "max_loss": _form_field(
        "BSCL's loss target, e.g. 1% or 0.01.",
        FRACTION_PATTERN,
        "fraction",
        exclusiveMinimum=0.0,
        exclusiveMaximum=1.0,
    ),
    "verify": _form_field("true (or 1): simulate the BSCL size.", "^ *(?:true|false|1|0) *$"),
    "replications": _form_field(
        "Simulator runs per size of the check, {} to {}.".format(*TRACE_REPLICATIONS),
        "^ *(?:[2-9]|1[0-9]|20) *$",  # TRACE_REPLICATIONS (tests/app/test_api_traces.py)
    ),
    "seed": _form_field(
        "Seed of the check, a whole number of at most 15 digits.", "^ *[0-9]{1,15} *$"
    ),
}

#: The rule between the form's fields that JSON Schema states: buffer_packets (not blank) needs
#: capacity_bps (not blank), as the service refuses otherwise.
TRACE_FORM_RULES: dict[str, Any] = {
    "anyOf": [
        {
            "properties": {
                "buffer_packets": {**TRACE_FORM_FIELDS["buffer_packets"], "pattern": "^ *$"}
            }
        },
        {
            "required": ["capacity_bps"],
            "properties": {
                "capacity_bps": {**TRACE_FORM_FIELDS["capacity_bps"], "pattern": PATTERNS["rate"]}
            },
        },
    ]
}
