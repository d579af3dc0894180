"""The FastAPI application: routers are gathered in :mod:`app.api`."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi_standalone_docs import StandaloneDocs

from app import __doc__ as app_doc
from app.api import api_router
from app.deps import SettingsDep
from app.errors import install_error_handlers
from app.jobs.lifespan import jobs_lifespan
from app.limits import install_body_limit
from app.operation_ids import operation_id
from app.security import SecurityMiddleware
from app.settings import Settings, settings_of
from app.storage import install_storage_errors, readiness
from app.web.notebooks import router as notebooks_router
from app.web.routes import router as web_router
from models.provenance import bufsize_version


def create_app() -> FastAPI:
    application = FastAPI(
        title="bufsize",
        version=bufsize_version(),
        lifespan=jobs_lifespan,
        generate_unique_id_function=operation_id,
        description=(
            "How much packet buffer does this link need? Every buffer-sizing rule from the "
            "literature, its assumptions checked, one recommendation. "
            + (app_doc or "")
            + "\n\nNumbers are SI (bit/s, seconds, bytes, packets) unless the field name says "
            "otherwise; a rate, time or size may also be sent as a string with its unit, such "
            'as "10 Gbit/s", "100 ms" or "1500 B". Invalid input gets a 422 whose detail '
            "names the field and the bound it broke."
        ),
    )
    # /docs and /redoc load Swagger UI, ReDoc (its logo included) and the favicon from the
    # installed fastapi-standalone-docs package, not from a CDN: they work with no way out.
    StandaloneDocs(app=application)
    install_error_handlers(application)
    install_storage_errors(application)
    install_body_limit(application)
    # Added last, so it runs first: a request for a foreign host is refused before anything else.
    application.add_middleware(SecurityMiddleware)
    application.include_router(api_router)
    application.include_router(web_router)
    application.include_router(notebooks_router)

    @application.get(
        "/healthz",
        tags=["health"],
        summary="Liveness check",
        responses={200: {"content": {"application/json": {"example": {"status": "ok"}}}}},
    )
    async def healthz() -> dict[str, str]:
        # On the event loop: answered between two requests' work, with no hop to a thread
        # (which would wait for the interpreter while a large body is read).
        return {"status": "ok"}

    @application.get(
        "/readyz",
        tags=["health"],
        summary="Readiness check",
        description="200 when the job database takes a write, the temporary directory takes a "
        "file and the simulation job pool runs; 503 naming what is not (with Retry-After). "
        "/healthz only says the process answers.",
        responses={
            200: {
                "content": {
                    "application/json": {
                        "example": {
                            "status": "ready",
                            "checks": {
                                "database": "ok",
                                "workers": "ok",
                                "temporary_directory": "ok",
                            },
                        }
                    }
                }
            },
            503: {"description": "Not ready: `checks` names what failed."},
        },
    )
    def readyz(request: Request, settings: SettingsDep) -> JSONResponse:
        checks = readiness(request.app)
        ready = all(value == "ok" for value in checks.values())
        return JSONResponse(
            {"status": "ready" if ready else "not ready", "checks": checks},
            status_code=200 if ready else 503,
            headers=None if ready else {"Retry-After": str(settings.retry_after_s)},
        )

    _optional_api_key(application)
    return application


def _optional_api_key(application: FastAPI) -> None:
    """The OpenAPI document's security: an operation's API key (``ApiKey``) is optional, as it
    is unless the service is started with BUFSIZE_API_KEYS, and every other scheme it names (the
    job token of DELETE) is required with or without it. FastAPI lists the schemes of an
    operation as alternatives; this states the requirement as it is. The limits that settings
    lower (replications) are the service's (:func:`_service_limits`)."""
    generate = application.openapi

    def openapi() -> dict[str, Any]:
        if application.openapi_schema is not None:
            return application.openapi_schema
        schema = generate()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                if not isinstance(operation, dict) or "security" not in operation:
                    continue
                names = {name for requirement in operation["security"] for name in requirement}
                required: dict[str, list[str]] = {n: [] for n in sorted(names - {"ApiKey"})}
                operation["security"] = [{"ApiKey": [], **required}, required]
        _service_limits(schema, settings_of(application))
        application.openapi_schema = schema
        return schema

    application.openapi = openapi  # type: ignore[method-assign]


#: Request fields bounded by a setting of the service as well as by their schema.
_SETTING_BOUNDS = {
    ("SimulationRequest", "replications"): "max_replications",
    ("VerificationRequest", "replications"): "max_replications",
    ("VerificationRequest", "max_replications"): "max_replications",
}


def _service_limits(schema: dict[str, Any], settings: Settings) -> None:
    """Lower each field's ``maximum`` in ``schema`` to the setting that bounds it, so that the
    document states the limit this service applies (BUFSIZE_MAX_REPLICATIONS, say)."""
    models = schema.get("components", {}).get("schemas", {})
    for (model, field), setting in _SETTING_BOUNDS.items():
        node = models.get(model, {}).get("properties", {}).get(field)
        if node is None:
            continue
        limit = getattr(settings, setting)
        for branch in [node, *node.get("anyOf", [])]:
            if "maximum" in branch:
                branch["maximum"] = min(branch["maximum"], limit)
        node["description"] = (
            node.get("description", "") + f" At most {limit} here (BUFSIZE_{setting.upper()})."
        ).strip()


app = create_app()
