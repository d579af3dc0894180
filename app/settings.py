"""Service settings, read from ``BUFSIZE_*`` environment variables and checked at start-up.

A setting that cannot work (an unreadable database URL, a limit of zero, fewer pending jobs
allowed than workers to run them) stops the service at start-up with a message naming the
variable, rather than failing on the first request.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Annotated, Any, Self

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError


def _default_workers() -> int:
    # Leave one core to the web process itself; more than 8 by default only if asked.
    return min(8, max(1, (os.cpu_count() or 2) - 1))


def default_answer_workers() -> int:
    """``bufsize serve``'s processes for /v1/recommend's answers: one per core, at most 4;
    none on a single core (they would only add the hand-over to the web process's work)."""
    cores = os.cpu_count() or 1
    return 0 if cores < 2 else min(4, cores)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BUFSIZE_", extra="ignore", frozen=True)

    database_url: str = Field(
        default="sqlite:///./bufsize.sqlite3",
        description=(
            "SQLAlchemy URL of the job store: SQLite by default, PostgreSQL with "
            "'postgresql+psycopg://user:password@host/dbname'."
        ),
    )
    dask_scheduler: str | None = Field(
        default=None,
        description=(
            "Address of a Dask scheduler ('tcp://host:8786'); simulations run on a local "
            "process pool if unset. Dask workers must reach the same database."
        ),
    )
    workers: int = Field(
        default_factory=_default_workers,
        ge=1,
        le=256,
        description=(
            "Jobs run at once: simulation workers (local processes or Dask tasks) and trace "
            "jobs' processes together."
        ),
    )
    max_pending_jobs: int = Field(
        default=16,
        ge=1,
        le=10_000,
        description="Jobs queued or running at once; one more is refused with 429.",
    )
    max_body_bytes: int = Field(
        default=1_048_576,
        ge=1_024,
        le=1_073_741_824,
        description="Largest request body accepted, in bytes; a larger one gets 413.",
    )
    max_trace_bytes: int = Field(
        default=1_073_741_824,
        ge=1_024,
        le=68_719_476_736,
        description="Largest trace upload to POST /v1/traces, in bytes; a larger one gets 413.",
    )
    trace_job_memory_bytes: int = Field(
        default=6 * 1_073_741_824,
        ge=268_435_456,
        le=1_099_511_627_776,
        description=(
            "Address space the process of one trace job may use, in bytes (its check's "
            "simulator runs included: they run in that process); a trace that needs more fails "
            "with that reason, and the service goes on."
        ),
    )
    max_packets_per_job: int = Field(
        default=200_000_000,
        ge=1_000,
        description=(
            "Bottleneck packets one simulation job may simulate (estimate per run x "
            "replications x buffer sizes); a larger job gets 422."
        ),
    )
    max_result_bytes: int = Field(
        default=134_217_728,
        ge=1_048_576,
        le=68_719_476_736,
        description=(
            "Most bytes one simulation job's stored results may take (estimated at submission "
            "from its runs, each run's long series cut to 1,000 points); a larger job gets 422."
        ),
    )
    max_replications: int = Field(
        default=100, ge=1, le=10_000, description="Most replications per buffer size in a job."
    )
    retry_after_s: int = Field(
        default=10,
        ge=1,
        le=3_600,
        description="Seconds a client is told to wait (Retry-After) when the job queue is full.",
    )
    max_job_restarts: int = Field(
        default=3,
        ge=0,
        le=100,
        description=(
            "Times a job interrupted by the service stopping is resumed before it is marked "
            "failed (a run that keeps bringing the service down is not retried forever)."
        ),
    )
    stale_job_after_s: float = Field(
        default=30.0,
        ge=0.0,
        le=86_400.0,
        description=(
            "A job marked running whose worker has not reported for this long, and that this "
            "service is not running, was interrupted (the service or its worker stopped): it "
            "is resumed, or failed once max_job_restarts is reached. Workers report about "
            "every second; 0 suits a single service process per database."
        ),
    )
    jobs_per_worker_process: int | None = Field(
        default=1,
        ge=1,
        description=(
            "Jobs a local worker process runs before it is replaced by a fresh one (1: a "
            "process per job, its memory returned when the job ends; unset: never replaced)."
        ),
    )

    api_keys: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description=(
            "API keys, comma-separated, each 'name:secret' (or a bare secret, named by its "
            "first 4 characters): when set, every POST and DELETE under /v1 needs one in the "
            "X-API-Key header (401 without), and quotas are counted per key. Unset: open, and "
            "quotas are counted per client address."
        ),
    )
    max_pending_jobs_per_client: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        description=(
            "Simulation jobs one client (API key, or address without keys) may have queued or "
            "running; one more is refused with 429. Unset: half of max_pending_jobs (rounded "
            "up), so one client never takes the whole queue."
        ),
    )
    max_pending_packets_per_client: int | None = Field(
        default=None,
        ge=1_000,
        description=(
            "Bottleneck packets of one client's queued and running jobs together (the work "
            "quota); a job that would pass it gets 429. Unset: no work quota beyond "
            "max_packets_per_job per job."
        ),
    )
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        default=("127.0.0.1", "localhost"),
        description=(
            "Host names the service answers to, comma-separated ('bufsize.example.net', "
            "'*.example.net', or '*' for any); a request with another Host header gets 400 "
            "(a page that rebinds its DNS name to 127.0.0.1 cannot reach the service)."
        ),
    )

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _host_list(cls, value: Any) -> tuple[str, ...]:
        names = value.split(",") if isinstance(value, str) else list(value)
        hosts = tuple(str(name).strip().lower() for name in names if str(name).strip())
        if not hosts:
            raise ValueError(
                "allowed_hosts: give at least one host name (e.g. '127.0.0.1,localhost')"
            )
        for host in hosts:
            if "/" in host or " " in host or (":" in host and not host.startswith("[")):
                raise ValueError(
                    f"allowed_hosts: {host!r} is not a host name (no scheme, port or path; "
                    "an IPv6 address in brackets)"
                )
        return hosts

    answer_workers: int = Field(
        default=0,
        ge=0,
        le=64,
        description=(
            "Processes computing /v1/recommend's answers beside the web process, so that "
            "answers to different clients use every core (``bufsize serve``: one per core, at "
            "most 4; 0: computed on the web process's event loop, one at a time)."
        ),
    )
    warm_simulator: bool = Field(
        default=False,
        description=(
            "Compile the packet simulator in the background when the service starts (``bufsize "
            "serve`` turns it on), so that the first check by simulation does not wait for it; "
            "jobs wait in the queue, saying so, until it is done."
        ),
    )

    @field_validator("api_keys", mode="before")
    @classmethod
    def _key_list(cls, value: Any) -> tuple[str, ...]:
        entries = value.split(",") if isinstance(value, str) else list(value)
        keys = tuple(str(entry).strip() for entry in entries if str(entry).strip())
        for entry in keys:
            secret = entry.split(":", 1)[1] if ":" in entry else entry
            if len(secret) < 16:
                raise ValueError(
                    "api_keys: each secret must be at least 16 characters (e.g. the output of "
                    "'python -c \"import secrets; print(secrets.token_urlsafe())\"')"
                )
        return keys

    @property
    def key_names(self) -> dict[str, str]:
        """``{secret: name}`` of :attr:`api_keys`."""
        names = {}
        for entry in self.api_keys:
            name, secret = entry.split(":", 1) if ":" in entry else (entry[:4] + "…", entry)
            names[secret] = name
        return names

    @property
    def client_pending_jobs(self) -> int:
        """:attr:`max_pending_jobs_per_client`, or its default (half the queue, rounded up)."""
        if self.max_pending_jobs_per_client is not None:
            return self.max_pending_jobs_per_client
        return max(1, -(-self.max_pending_jobs // 2))

    @field_validator("database_url")
    @classmethod
    def _readable_database_url(cls, value: str) -> str:
        try:
            url = make_url(value)
        except ArgumentError as exc:
            raise ValueError(
                f"database_url: cannot read {value!r} as an SQLAlchemy URL "
                "(e.g. 'sqlite:///./bufsize.sqlite3')"
            ) from exc
        if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
            raise ValueError(
                "database_url: an in-memory SQLite database is neither shared with the worker "
                "processes nor kept across restarts; give a file, e.g. 'sqlite:///./bufsize.sqlite3'"
            )
        return value

    @field_validator("dask_scheduler")
    @classmethod
    def _scheduler_address(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        if "://" not in value and ":" not in value:
            raise ValueError(
                f"dask_scheduler: {value!r} is not a scheduler address (e.g. 'tcp://host:8786')"
            )
        return value

    @model_validator(mode="after")
    def _enough_pending_for_workers(self) -> Self:
        if self.max_pending_jobs < self.workers:
            raise ValueError(
                f"max_pending_jobs ({self.max_pending_jobs}) must be >= workers "
                f"({self.workers}), or some workers could never be busy"
            )
        return self


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings from the environment, read once per process.

    Tests override this dependency (``app.dependency_overrides[get_settings]``) or call
    ``get_settings.cache_clear()`` after changing the environment.
    """
    return Settings()


def settings_of(application: Any) -> Settings:
    """The settings ``application`` runs with: ``get_settings`` or its dependency override (for
    code outside the routes: middleware, exception handlers)."""
    overrides = getattr(application, "dependency_overrides", {})
    settings: Settings = overrides.get(get_settings, get_settings)()
    return settings
