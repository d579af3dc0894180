"""Exception handlers: a model's refusal of its input becomes a 422, never a 500.

The model functions check their arguments with :mod:`models.checks`, whose ``ValueError`` messages
start with the parameter's name and state the bound (``"load must be in (0, 1), got 1.2"``). The
request schemas use the same names as the model parameters, so the name is reported as the body
field, in the shape FastAPI uses for its own validation errors::

    {"detail": [{"loc": ["body", "load"], "msg": "load must be in (0, 1), got 1.2",
                 "type": "value_error"}]}

An ``ArithmeticError`` (overflow in a model with extreme but individually valid inputs) is also
the client's input, reported the same way. Only errors raised from inside the model library or
the simulator (a frame of ``models`` or ``validation`` on the traceback) are the client's: the
same exceptions raised by the service's own code (a response that cannot be encoded, a pydantic
``ValidationError`` built in a route) are faults of the service and stay server errors.
"""

from __future__ import annotations

import math
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

# Packages whose argument checks speak for the client's input.
MODEL_PACKAGES = ("models", "validation")

# The parameter a models.checks message starts with: "flows must be >= 1, got 0".
_LEADING_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?::|\s+must\b|\s+is\b|\s+=)")


def error_detail(message: str, *, error_type: str = "value_error") -> dict[str, Any]:
    """One entry of a 422 ``detail`` list, locating the field named at the start of ``message``."""
    match = _LEADING_NAME.match(message)
    loc: list[str] = ["body", match.group(1)] if match else ["body"]
    return {"loc": loc, "msg": message, "type": error_type}


def unprocessable(message: str, *, error_type: str = "value_error") -> JSONResponse:
    """A 422 response in FastAPI's validation-error shape."""
    content = {"detail": [error_detail(message, error_type=error_type)]}
    return JSONResponse(status_code=422, content=jsonable_encoder(content))


def _json_safe(value: Any) -> Any:
    """Replace the non-finite floats JSON cannot carry (an echoed ``NaN`` input) by text."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    return value


async def request_validation_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's own 422, made safe for inputs such as ``NaN`` that it echoes back."""
    assert isinstance(exc, RequestValidationError)
    detail = _json_safe(jsonable_encoder(exc.errors()))
    return JSONResponse(status_code=422, content={"detail": detail})


def raised_by_models(exc: BaseException) -> bool:
    """Whether a frame of the model library or the simulator is on ``exc``'s traceback."""
    tb = exc.__traceback__
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        if module.split(".", 1)[0] in MODEL_PACKAGES:
            return True
        tb = tb.tb_next
    return False


async def model_value_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """A model function rejected its arguments: 422 naming the parameter and the bound."""
    if isinstance(exc, ValidationError) or not raised_by_models(exc):
        raise exc  # the service's own fault: a server error, found by the tests
    return unprocessable(str(exc) or type(exc).__name__)


async def arithmetic_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Inputs too extreme for a model to evaluate in floating point."""
    if not raised_by_models(exc):
        raise exc
    reason = str(exc) or type(exc).__name__
    return unprocessable(
        f"the inputs are outside the range the model can evaluate numerically ({reason})",
        error_type="arithmetic_error",
    )


def install_error_handlers(application: FastAPI) -> None:
    """Register the handlers above on ``application``."""
    application.add_exception_handler(RequestValidationError, request_validation_error_handler)
    application.add_exception_handler(ValueError, model_value_error_handler)
    application.add_exception_handler(ArithmeticError, arithmetic_error_handler)


def finite_result(value: float, field: str, reason: str) -> float:
    """Return ``value`` if finite; otherwise refuse the input ``field`` with ``reason`` (422)."""
    result = float(value)
    if not math.isfinite(result):
        raise RequestValidationError([error_detail(f"{field}: {reason}")])
    return result
