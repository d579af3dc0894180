"""Storage faults, named: the job database checked at start-up, probed for readiness, and its
errors answered with 503 and what to do instead of a generic 500.

- :func:`check_database` (``bufsize serve`` calls it before it listens, and the application's
  lifespan before the job pool starts): the database can be opened, passes ``PRAGMA
  quick_check`` (SQLite) and takes a write; otherwise :class:`DatabaseUnusable` carries one
  line naming the path, ``BUFSIZE_DATABASE_URL`` and the fix (:class:`DatabaseAtStartup` keeps
  it one line when the server reports the failed start-up).
- :func:`readiness`: the checks of ``GET /readyz`` (the database takes a write, the temporary
  directory takes a file, the simulation job pool runs); ``/healthz`` stays a liveness check.
- :func:`install_storage_errors`: a full disk is 503 with ``Retry-After``; a database that is
  read-only, corrupt or unreachable is 503 naming it.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import (
    DatabaseError,
    DataError,
    IntegrityError,
    ProgrammingError,
    SQLAlchemyError,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import internal_error_handler
from app.settings import settings_of

logger = logging.getLogger(__name__)

VARIABLE = "BUFSIZE_DATABASE_URL"
#: Bytes the temporary directory must have free to be ready (a trace upload is streamed there).
MIN_FREE_TEMP_BYTES = 64 * 1024 * 1024


class DatabaseUnusable(Exception):
    """The job database cannot be used; the message is one line saying why and what to do."""


def _where(database_url: str) -> str:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database:
        return str(Path(url.database).resolve())
    return url.render_as_string(hide_password=True)


def _cause(exc: BaseException) -> str:
    original = getattr(exc, "orig", None) or exc
    return str(original).strip().splitlines()[0] if str(original).strip() else type(exc).__name__


def _fix(cause: str) -> str:
    lowered = cause.lower()
    if "does not exist" in lowered:
        return "create the directory, or point the variable at an existing, writable one"
    if "full" in lowered:
        return "free disk space where it lives, or point the variable at another disk"
    if "malformed" in lowered or "not a database" in lowered or "quick_check" in lowered:
        return (
            "the file is damaged: restore it from a backup, or move it aside and start again "
            "(a new empty store is created)"
        )
    if "mounted read-only" in lowered:
        return "remount it read-write, or point the variable at a writable path"
    if "readonly" in lowered or "read-only" in lowered or "unable to open" in lowered:
        return (
            "make the file and its directory writable by this user, or point the variable at a "
            "writable path"
        )
    return "check that the database is reachable and writable, or point the variable elsewhere"


def unusable(database_url: str, cause: str) -> DatabaseUnusable:
    return DatabaseUnusable(
        f"the job database {_where(database_url)} cannot be used ({cause}); "
        f"{VARIABLE}={make_url(database_url).render_as_string(hide_password=True)}: {_fix(cause)}"
    )


def _write_probe(engine: Engine) -> None:
    """A write the database must take (SQLite: take the write lock; others: a temporary table)."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            connection.exec_driver_sql("BEGIN IMMEDIATE")
            connection.exec_driver_sql("CREATE TABLE IF NOT EXISTS bufsize_probe (x INTEGER)")
            connection.exec_driver_sql("INSERT INTO bufsize_probe VALUES (1)")
            connection.exec_driver_sql("DROP TABLE bufsize_probe")
            connection.exec_driver_sql("ROLLBACK")
        else:
            with connection.begin():
                connection.execute(text("CREATE TEMPORARY TABLE bufsize_probe (x INTEGER)"))
                connection.execute(text("DROP TABLE bufsize_probe"))


def check_database(database_url: str) -> None:
    """Raise :class:`DatabaseUnusable` unless the database opens, is intact and takes a write."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database:
        path = Path(url.database)
        directory = path.resolve().parent
        if not directory.is_dir():
            raise unusable(database_url, f"its directory {directory} does not exist")
        if os.statvfs(directory).f_flag & os.ST_RDONLY:
            raise unusable(database_url, f"its file system ({directory}) is mounted read-only")
        if path.exists() and not os.access(path, os.R_OK | os.W_OK):
            raise unusable(database_url, "the file is read-only for this user")
        if not path.exists() and not os.access(directory, os.W_OK | os.X_OK):
            raise unusable(database_url, f"its directory {directory} is read-only for this user")
    engine = create_engine(url)
    try:
        if engine.dialect.name == "sqlite":
            with engine.connect() as connection:
                rows = [r[0] for r in connection.exec_driver_sql("PRAGMA quick_check").fetchall()]
            if rows != ["ok"]:
                # a row may hold several lines ("*** in database main ***\nPage 27: ...")
                found = "; ".join(" ".join(str(row).split()) for row in rows[:3])
                raise unusable(database_url, f"PRAGMA quick_check: {found}")
        _write_probe(engine)
    except DatabaseUnusable:
        raise
    except SQLAlchemyError as exc:
        raise unusable(database_url, _cause(exc)) from exc
    finally:
        engine.dispose()


def _temp_ready() -> str | None:
    directory = tempfile.gettempdir()
    try:
        with tempfile.NamedTemporaryFile(dir=directory) as probe:
            probe.write(b"ready")
            probe.flush()
        free = os.statvfs(directory).f_bavail * os.statvfs(directory).f_frsize
    except OSError as exc:
        return f"the temporary directory {directory} takes no file: {exc}"
    if free < MIN_FREE_TEMP_BYTES:
        return f"the temporary directory {directory} has {free:,} bytes free"
    return None


def readiness(application: FastAPI) -> dict[str, str]:
    """``{check: "ok" or why not}`` for the database, the temporary directory and the pool."""
    checks: dict[str, str] = {}
    pool: Any = getattr(application.state, "job_pool", None)
    if pool is None:
        checks["database"] = "the simulation job pool (and its store) is not running"
        checks["workers"] = "the simulation job pool is not running"
    else:
        try:
            _write_probe(pool.store.engine)
            checks["database"] = "ok"
        except SQLAlchemyError as exc:
            checks["database"] = str(unusable(pool.store.database_url, _cause(exc)))
        checks["workers"] = "ok" if pool.alive() else "the simulation job pool has stopped"
    checks["temporary_directory"] = _temp_ready() or "ok"
    return checks


async def storage_error(request: Request, exc: Exception) -> JSONResponse:
    """503 naming the store's fault; a full disk says when to retry."""
    if isinstance(exc, IntegrityError | ProgrammingError | DataError):
        return await internal_error_handler(request, exc)  # the service's bug, not the store's
    cause = _cause(exc)
    settings = settings_of(request.app)
    detail = str(unusable(settings.database_url, cause))
    logger.error("job store fault on %s %s: %s", request.method, request.url.path, cause)
    headers = {"Retry-After": str(settings.retry_after_s)}
    return JSONResponse({"detail": detail}, status_code=503, headers=headers)


class DatabaseAtStartup:
    """ASGI middleware: a start-up refused for an unusable database is reported in one line.

    The lifespan checks the database first (:func:`check_database`), so a service started any
    way (``uvicorn app.main:app`` too, not only ``bufsize serve``) stops before it listens. The
    server logs a failed start-up's message, which Starlette makes the whole traceback; for
    :class:`DatabaseUnusable` the message is its one line (path, variable, fix).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def one_line(message: Message) -> None:
            text = message.get("message") or ""
            marker = f"{DatabaseUnusable.__name__}: "
            if message["type"] == "lifespan.startup.failed" and marker in text:
                message = {**message, "message": text.rsplit(marker, 1)[1].strip()}
            await send(message)

        await self.app(scope, receive, one_line)


def install_storage_errors(application: FastAPI) -> None:
    application.add_exception_handler(DatabaseError, storage_error)
    application.add_middleware(DatabaseAtStartup)
