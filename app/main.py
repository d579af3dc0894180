"""The FastAPI application: routers are gathered in :mod:`app.api`."""

from __future__ import annotations

from fastapi import FastAPI

from app import __doc__ as app_doc


def create_app() -> FastAPI:
    application = FastAPI(
        title="bufsize",
        version="0.1.0",
        description=(
            "How much packet buffer does this link need? Every buffer-sizing rule from the "
            "literature, its assumptions checked, one recommendation. " + (app_doc or "")
        ),
    )

    @application.get("/healthz", tags=["health"], summary="Liveness check")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return application


app = create_app()
