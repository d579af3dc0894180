"""Request-body size limit: a body larger than ``max_body_bytes`` gets 413 before it is parsed.

Starlette's :class:`~starlette.middleware.body_limit.RequestBodyLimitMiddleware` counts a body
as it arrives and stops it at the limit. This module reads the limit from the settings, refuses
a declared ``Content-Length`` over it before calling the application, and answers the 413 in the
service's JSON error shape, naming the bound.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.middleware.body_limit import MAX_BODY_SIZE_SCOPE_KEY, RequestBodyLimitMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from app.settings import get_settings

#: The upload path whose limit is ``max_trace_bytes`` instead of ``max_body_bytes``.
TRACE_UPLOAD_PATH = "/v1/traces"


class BodySizeLimitMiddleware(RequestBodyLimitMiddleware):
    """Refuse request bodies over ``max_body_bytes`` with 413.

    Without an explicit limit, the application's settings give it (honouring
    ``app.dependency_overrides[get_settings]``), read at the first request.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int | None = None) -> None:
        super().__init__(app, max_body_size=max_body_bytes or 0)
        self._resolved = max_body_bytes is not None
        self._body_bytes = self.max_body_size
        self._trace_bytes = self.max_body_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._resolved:
            application: Any = scope.get("app")
            overrides = getattr(application, "dependency_overrides", {})
            settings = overrides.get(get_settings, get_settings)()
            self._body_bytes = int(settings.max_body_bytes)
            self._trace_bytes = int(settings.max_trace_bytes)
            self._resolved = True
        if scope["type"] == "http":
            # Trace uploads (POST /v1/traces) have their own, larger limit.
            upload = scope.get("path", "").rstrip("/") == TRACE_UPLOAD_PATH
            self.max_body_size = self._trace_bytes if upload else self._body_bytes
            declared = Headers(scope=scope).get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > self.max_body_size:
                response = too_large_response(self.max_body_size, int(declared), upload)
                await response(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


def too_large_response(limit: int | None, size: int | None, upload: bool = False) -> JSONResponse:
    """413 naming the limit the body broke."""
    bound = f"{limit:,} bytes" if limit is not None else "the configured limit"
    told = f" ({size:,} bytes)" if size is not None else ""
    setting = "max_trace_bytes" if upload else "max_body_bytes"
    return JSONResponse(
        status_code=413,
        content={"detail": f"request body too large{told}; the limit is {bound} ({setting})"},
    )


async def body_too_large(request: Request, exc: Exception) -> JSONResponse:
    """The 413 of a body that passed the limit while being read."""
    limit = request.scope.get(MAX_BODY_SIZE_SCOPE_KEY)
    upload = request.url.path.rstrip("/") == TRACE_UPLOAD_PATH
    return too_large_response(limit if isinstance(limit, int) else None, None, upload)


def install_body_limit(application: FastAPI, max_body_bytes: int | None = None) -> None:
    """Limit request bodies of ``application`` (to the settings' ``max_body_bytes`` by default)."""
    application.add_middleware(BodySizeLimitMiddleware, max_body_bytes=max_body_bytes)
    application.add_exception_handler(413, body_too_large)
