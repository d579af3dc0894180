"""Exception handlers: a bad parameter is the client's 422; any other exception is a 500.

The model library and the simulator check their arguments and raise
:class:`models.errors.ParameterError`, which carries the parameter's name and the bound it broke.
The request schemas use the same names as the model parameters, so the name is reported as the
body field, in the shape FastAPI uses for its own validation errors::

    {"detail": [{"loc": ["body", "load"], "msg": "load must be in (0, 1), got 1.2",
                 "type": "value_error"}]}

Only a ``ParameterError`` is the client's: any other exception, a ``ValueError`` or an
``OverflowError`` from inside a model included, is a fault of the service. It is logged with its
traceback and answered with a 500 whose body says nothing of the code.

Every 422 body is built by :func:`request_validation_error_handler`: the routes and the handlers
here raise :class:`~fastapi.exceptions.RequestValidationError` through :func:`invalid`.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.services.names import FieldError
from models.errors import ParameterError

logger = logging.getLogger(__name__)

#: The body of every 500: nothing of the code, the exception or the request.
INTERNAL_ERROR = {"detail": "internal server error: the fault is logged by the service"}

Loc = tuple[str | int, ...]


def invalid(
    loc: Loc, message: str, *, value: Any = None, error_type: str = "value_error"
) -> RequestValidationError:
    """A 422 for the field at ``loc`` (``("body", "scenario", "rtt_s")``)."""
    entry: dict[str, Any] = {"type": error_type, "loc": loc, "msg": message}
    if value is not None:
        entry["input"] = value
    return RequestValidationError([entry])


def parameter_invalid(exc: ParameterError, *within: str | int) -> RequestValidationError:
    """The 422 for a model's :class:`ParameterError`, located at ``body.<within...>.<name>``.

    A name that points into a list (``groups[1].flows``, a flow group's field) is located as
    ``(..., "groups", 1, "flows")``, as pydantic locates the same field.
    """
    return invalid(("body", *within, *_name_loc(exc.name)), str(exc))


def _name_loc(name: str) -> tuple[str | int, ...]:
    loc: list[str | int] = []
    for part in name.split("."):
        head, _, rest = part.partition("[")
        loc.append(head)
        while rest:
            index, _, rest = rest.partition("]")
            loc.append(int(index) if index.isdigit() else index)
            rest = rest.removeprefix("[")
    return tuple(loc)


@contextmanager
def parameters_of(*within: str | int) -> Iterator[None]:
    """Report a ``ParameterError`` raised inside as the field ``name`` of the body part ``within``.

    >>> with parameters_of("scenario"):  # doctest: +SKIP
    ...     LinkScenario(...)
    """
    try:
        yield
    except ParameterError as exc:
        raise parameter_invalid(exc, *within) from exc


def _json_safe(value: Any) -> Any:
    """Replace the non-finite floats JSON cannot carry (an echoed ``NaN`` input) by text."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    return value


#: Items of a list (or entries of an object) a 422 echoes as the refused input, at most: a
#: refused list of 10,000 strings is not sent back whole.
MAX_ECHOED_ITEMS = 20


def _items(value: Any, budget: int) -> int:
    """Items in ``value``'s lists and objects, nested ones included, counted up to ``budget``."""
    if not isinstance(value, list | tuple | dict):
        return 0
    count = len(value)
    for item in value.values() if isinstance(value, dict) else value:
        if count > budget:
            break
        count += _items(item, budget - count)
    return count


def _short_input(error: Any) -> Any:
    if isinstance(error, dict) and _items(error.get("input"), MAX_ECHOED_ITEMS) > MAX_ECHOED_ITEMS:
        return {key: item for key, item in error.items() if key != "input"}
    return error


async def request_validation_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Every 422: FastAPI's own, and those of :func:`invalid`, safe for an echoed ``NaN``; a
    long refused list or object is not echoed."""
    assert isinstance(exc, RequestValidationError)
    detail = _json_safe(jsonable_encoder([_short_input(error) for error in exc.errors()]))
    return JSONResponse(status_code=422, content={"detail": detail})


async def parameter_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """A model refused a parameter of the body: 422 naming it and the bound it broke."""
    assert isinstance(exc, ParameterError)
    return await request_validation_error_handler(request, parameter_invalid(exc))


async def field_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """A service refused an input: 422 at the field it names, with its message."""
    assert isinstance(exc, FieldError)
    error = invalid(("body", *exc.field), str(exc), value=exc.value)
    return await request_validation_error_handler(request, error)


async def internal_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Any other exception: a fault of the service, logged with its traceback; a plain 500."""
    logger.error(
        "%s %s failed: %s", request.method, request.url.path, type(exc).__name__, exc_info=exc
    )
    return JSONResponse(status_code=500, content=INTERNAL_ERROR)


def allowed_methods(application: Any, path: str) -> list[str]:
    """Every method the OpenAPI schema of ``application`` documents at ``path``.

    FastAPI declares one route per method, and Starlette's 405 names only the methods of the
    first route whose path matched (``GET`` of ``/v1/simulations/{job_id}``, without its
    ``DELETE``).
    """
    for template, methods in _documented_paths(application):
        if template.fullmatch(path):
            return methods
    return []


_HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def _documented_paths(application: Any) -> list[tuple[re.Pattern[str], list[str]]]:
    paths = getattr(application.state, "documented_paths", None)
    if paths is None:
        paths = [
            (
                re.compile(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))),
                sorted(method.upper() for method in operations if method in _HTTP_METHODS),
            )
            for template, operations in application.openapi().get("paths", {}).items()
        ]
        application.state.documented_paths = paths
    return paths


async def http_error_handler(request: Request, exc: Exception) -> Any:
    """Starlette's own answer, with a 405's ``Allow`` listing every method of the path."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405:
        methods = allowed_methods(request.app, request.url.path)
        if methods:
            exc = StarletteHTTPException(
                405, exc.detail, headers={**(exc.headers or {}), "Allow": ", ".join(methods)}
            )
    return await http_exception_handler(request, exc)


def install_error_handlers(application: FastAPI) -> None:
    """Register the handlers above on ``application``."""
    application.add_exception_handler(StarletteHTTPException, http_error_handler)
    application.add_exception_handler(RequestValidationError, request_validation_error_handler)
    application.add_exception_handler(ParameterError, parameter_error_handler)
    application.add_exception_handler(FieldError, field_error_handler)
    application.add_exception_handler(Exception, internal_error_handler)


def finite_result(value: float, field: str, reason: str) -> float:
    """Return ``value`` if finite; otherwise refuse the input ``field`` with ``reason`` (422)."""
    result = float(value)
    if not math.isfinite(result):
        raise invalid(("body", field), f"{field}: {reason}")
    return result
