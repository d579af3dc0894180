"""Service settings, read from ``BUFSIZE_*`` environment variables and checked at start-up."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BUFSIZE_", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./bufsize.sqlite3",
        description="SQLAlchemy URL of the job store (SQLite by default, PostgreSQL supported).",
    )
    dask_scheduler: str | None = Field(
        default=None, description="Address of a Dask scheduler; simulations run locally if unset."
    )


def get_settings() -> Settings:
    return Settings()
