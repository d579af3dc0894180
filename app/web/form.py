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

    @property
    def ok(self) -> bool:
        return self.answer is not None


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
    return text  # a quantity with its unit: the API parses it


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
            if len(parts) > 1:
                body.setdefault(f.also[0][0], {})[f.also[0][1]] = parts
                continue
            value = parts[0] if parts else text
        else:
            try:
                value = _convert(f, text)
            except ValueError as exc:
                errors[f.name] = str(exc)
                continue
        section, key = f.path
        body.setdefault(section, {})[key] = value
    if not values.get(BY_NAME["rtt"].name):
        errors[BY_NAME["rtt"].name] = "enter a round-trip time, e.g. 100 ms"
    body.setdefault("scenario", {})
    return body, errors


# API names in messages, longest first, each read as a whole word ("flows" is not found in
# "bottlenecked_flows"), to be replaced by the labels the person sees.
_LABELS = {path[-1]: f.label for f in FIELDS for path in (f.path, *f.also)}
_API_NAME_RE = re.compile(
    r"\b(" + "|".join(re.escape(n) for n in sorted(_LABELS, key=len, reverse=True)) + r")\b"
)


def _message(error: Mapping[str, Any], target: FormField | None) -> str:
    """The API's message in the form's words: no leading field name, labels for API names."""
    msg = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    if target is not None:
        for path in (target.path, *target.also):
            msg = msg.removeprefix(f"{path[-1]}: ")
    msg = _API_NAME_RE.sub(lambda m: _LABELS[m.group(0)].lower(), msg)
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
    if sub.errors:
        return sub
    try:
        sub.request = RecommendRequest.model_validate(body)
    except ValidationError as exc:
        _place(sub, [dict(e) for e in exc.errors()])
        return sub
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
    return sub


def _recommendation(request: RecommendRequest) -> dict[str, Any]:
    """The answer ``POST /v1/recommend`` gives for ``request``, as JSON-ready data."""
    scenario, targets = request.to_domain()
    if request.device is None:
        return RecommendResponse.of(recommend(scenario, targets)).model_dump(mode="json")
    result = recommend_for(scenario, targets, request.device.to_domain())
    return RecommendWithDeviceResponse.for_device(result).model_dump(mode="json")
