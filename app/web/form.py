"""From the form's inputs to a ``/v1/recommend`` answer, or to messages beside the inputs.

The inputs are read from the query string (so a URL reproduces the page), turned into the
API's request body by :data:`app.web.fields.FIELDS`, checked by the API's request schema, and
answered by :mod:`app.services.recommend`, as the API's route answers; the answer is the API's
response schema, and every refused value is mapped back to the input it names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from app.schemas.recommend import (
    RecommendRequest,
    RecommendResponse,
    RecommendWithDeviceResponse,
)
from app.services.recommend import recommend, recommend_for
from app.web.fields import BY_NAME, FIELDS, FormField, field_for_location
from models.errors import ParameterError


@dataclass
class Submission:
    """The inputs as typed, and what became of them."""

    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    general_errors: list[str] = field(default_factory=list)
    request: RecommendRequest | None = None
    answer: dict[str, Any] | None = None
    #: When N_b was not given: the loss curve if every flow were bottlenecked here
    worst_loss: list[float | None] | None = None
    #: A device that needs one more input before it can be configured, and what it needs
    device_needs: str | None = None

    @property
    def ok(self) -> bool:
        return self.answer is not None

    @property
    def changed(self) -> set[str]:
        """The inputs whose text differs from their default (folded inputs unfold for them)."""
        return {f.name for f in FIELDS if self.values.get(f.name, "") != f.default}


def submitted(query: Mapping[str, str]) -> bool:
    """Whether the query string holds the form (a plain visit shows the defaults)."""
    return any(f.name in query for f in FIELDS)


def read_values(query: Mapping[str, str]) -> dict[str, str]:
    """Each input's text: from the query string if the form was sent, else its default."""
    if not submitted(query):
        return {f.name: f.default for f in FIELDS}
    # A choice left out of the query (a link from before it existed) takes its default.
    return {
        f.name: str(query.get(f.name, f.default if f.kind == "choice" else "")).strip()
        for f in FIELDS
    }


def _convert(f: FormField, text: str) -> Any:
    """The JSON value of one non-empty input; ValueError with a message for the user."""
    if f.kind == "int":
        try:
            return int(text.replace(",", "").replace("_", ""))
        except ValueError:
            raise ValueError("enter a whole number") from None
    if f.kind == "float":
        try:
            return float(text)
        except ValueError:
            raise ValueError("enter a number, e.g. 0.9") from None
    if f.kind == "bool":
        return text.lower() in ("1", "on", "true", "yes")
    if f.kind == "choice":
        allowed = [value for value, _ in f.choices]
        if text not in allowed:
            raise ValueError(f"choose one of {', '.join(allowed)}")
        return text
    if f.dimension and _BARE_NUMBER.fullmatch(text):
        raise ValueError(f"Add a unit, e.g. {_UNIT_EXAMPLE[f.dimension]}")
    return text  # a quantity with its unit (or a name): the API reads it


#: A number with nothing after it: a time, rate or size typed so would be read in seconds, bit/s
#: or bytes, which is rarely what was meant ("5" for a delay is not 5 s).
_BARE_NUMBER = re.compile(r"\s*[+-]?(?:\d[\d,_]*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")
_UNIT_EXAMPLE = {"time": "5 ms", "rate": "10 Gbit/s", "size": "1500 B"}


def request_body(values: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The /v1/recommend body for these inputs, and the inputs that could not be read."""
    body: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for f in FIELDS:
        text = values.get(f.name, "")
        if f.kind == "bool":
            value: Any = _convert(f, text) if text else False
        elif not text:
            continue
        elif f.kind == "rtts":
            parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
            if any(_BARE_NUMBER.fullmatch(p) for p in parts):
                errors[f.name] = f"Add a unit to each time, e.g. {_UNIT_EXAMPLE['time']}"
                continue
            if len(parts) > 1:
                body.setdefault(f.also[0][0], {})[f.also[0][1]] = parts
                continue
            value = parts[0] if parts else text
        else:
            try:
                value = _convert(f, text)
            except ValueError as exc:
                errors[f.name] = str(exc)[:1].upper() + str(exc)[1:]
                continue
        section, key = f.path
        body.setdefault(section, {})[key] = value
    if not values.get(BY_NAME["rtt"].name):
        errors[BY_NAME["rtt"].name] = "Enter a round-trip time, e.g. 100 ms"
    body.setdefault("scenario", {})
    return body, errors


# API names in messages, longest first, each read as a whole word ("flows" is not found in
# "bottlenecked_flows"), to be replaced by the labels the person sees.
_LABELS = {path[-1]: f.label for f in FIELDS for path in (f.path, *f.also)}
_API_NAME_RE = re.compile(
    r"\b(" + "|".join(re.escape(n) for n in sorted(_LABELS, key=len, reverse=True)) + r")\b"
)


def in_a_sentence(label: str) -> str:
    """A label inside a sentence: lower case, but an acronym it starts with kept ("AQM")."""
    return label if label[:2].isupper() else label[:1].lower() + label[1:]


#: Pydantic's bound errors, in the form's words.
_BOUND_WORDS = {
    "greater_than_equal": ("ge", "must be at least"),
    "greater_than": ("gt", "must be more than"),
    "less_than_equal": ("le", "must be at most"),
    "less_than": ("lt", "must be less than"),
}


def quantity_text(value: float, dimension: str) -> str:
    """A bound in the unit people type for its dimension ("1 kbit/s", "100 ms", "1.5 kB")."""
    steps = {
        "rate": ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s"), (1, "bit/s")),
        "time": ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")),
        "size": ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1, "B")),
    }.get(dimension)
    if steps is None:
        return f"{value:,.6g}"
    for factor, unit in steps:
        if abs(value) >= factor:
            return f"{value / factor:,.6g} {unit}"
    factor, unit = steps[-1]
    return f"{value / factor:.6g} {unit}"


def _bound_message(error: Mapping[str, Any], target: FormField | None) -> str | None:
    words = _BOUND_WORDS.get(str(error.get("type")))
    ctx = error.get("ctx") or {}
    if words is None or words[0] not in ctx:
        return None
    bound = float(ctx[words[0]])
    return f"{words[1]} {quantity_text(bound, target.dimension if target else '')}"


def _message(error: Mapping[str, Any], target: FormField | None) -> str:
    """The API's message in the form's words: no leading field name, labels for API names,
    bounds in the unit of the input."""
    bound = _bound_message(error, target)
    if bound is not None:
        return bound[:1].upper() + bound[1:]
    msg = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    if target is not None:
        for path in (target.path, *target.also):
            msg = msg.removeprefix(f"{path[-1]}: ")
    msg = _API_NAME_RE.sub(lambda m: in_a_sentence(_LABELS[m.group(0)]), msg)
    return msg[:1].upper() + msg[1:]


def _place(sub: Submission, errors: list[Mapping[str, Any]]) -> None:
    for error in errors:
        target = field_for_location(tuple(error.get("loc", ())))
        if target is None:
            sub.general_errors.append(_message(error, None))
        else:
            sub.errors.setdefault(target.name, _message(error, target))


async def answer(query: Mapping[str, str]) -> Submission:
    """Read the inputs and ask the API's recommendation route; errors go beside the inputs."""
    sub = Submission(values=read_values(query))
    if not submitted(query):
        return sub
    body, sub.errors = request_body(sub.values)
    device = body.get("device") or {}
    if device.get("vendor") == "sonic" and "chip_buffer_bytes" not in device:
        # SONiC sizes a queue as a share of the chip's memory: without it the page still
        # answers, and says what the configuration needs.
        del body["device"]
        sub.device_needs = (
            "SONiC sets a queue's buffer as a share of the switch chip's shared memory "
            "(dynamic_th), so its configuration needs the chip buffer: enter it under "
            "Device configuration (e.g. 64 MiB) and send the form again."
        )
    try:
        request = RecommendRequest.model_validate(body)
    except ValidationError as exc:
        # Every input's complaint at once: those the form could not read keep their message,
        # and a complaint about the request as a whole that follows from an unread input (no
        # RTT) is left out.
        unread = bool(sub.errors)
        _place(sub, [dict(e) for e in exc.errors()])
        if unread:
            sub.general_errors.clear()
        return sub
    if sub.errors:
        return sub
    sub.request = request
    try:
        sub.answer = _recommendation(sub.request)
    except RequestValidationError as exc:
        _place(sub, [dict(e) for e in exc.errors()])
    except ParameterError as exc:
        if "." in exc.name:  # within a part of the request: "device.chip_buffer_bytes"
            loc: tuple[str, ...] = tuple(exc.name.split("."))
        else:
            named = [f.path for f in FIELDS if f.path[-1] == exc.name]
            loc = named[0] if named else ()
        _place(sub, [{"loc": loc, "msg": str(exc)}])
    if sub.answer is not None:
        sub.worst_loss = _worst_case_loss(sub.request, sub.answer)
    return sub


def _recommendation(request: RecommendRequest) -> dict[str, Any]:
    """The answer ``POST /v1/recommend`` gives for ``request``, as JSON-ready data."""
    scenario, targets = request.to_domain()
    if request.device is None:
        return RecommendResponse.of(recommend(scenario, targets)).model_dump(mode="json")
    result = recommend_for(scenario, targets, request.device.to_domain())
    return RecommendWithDeviceResponse.for_device(result).model_dump(mode="json")


def _worst_case_loss(
    request: RecommendRequest, answer: dict[str, Any]
) -> list[float | None] | None:
    """The loss curve with every flow bottlenecked (N_b = N), when N_b was not given and the
    answer predicts no loss: the worst case of 004's model, drawn as such."""
    if request.scenario.bottlenecked_flows is not None:
        return None
    if any(v is not None for v in answer["curves"]["loss_probability"]):
        return None
    scenario = request.scenario.model_copy(update={"bottlenecked_flows": request.scenario.flows})
    worst = request.model_copy(update={"scenario": scenario, "device": None})
    try:
        curve = _recommendation(worst)["curves"]["loss_probability"]
    except (RequestValidationError, ParameterError):
        return None
    return [None if v is None else float(v) for v in curve]
