"""Property-based tests of /v1/simulations from the service's own OpenAPI schema.

Schemathesis generates valid and invalid requests for the three operations and checks that no
answer is a server error, every status code and content type is documented, every response
matches its schema, and invalid data is rejected. The job pool runs (started through the
application's lifespan) on a temporary SQLite file with the quick stand-in runner and small
limits, so that accepted jobs finish at once and the 429 path is reachable.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from app.jobs.lifespan import simulation_runner
from app.main import create_app
from app.settings import Settings, get_settings
from tests.app import test_api_simulations_runners as runners

_DATABASE = Path(tempfile.mkdtemp(prefix="bufsize-schema-")) / "jobs.db"
_SETTINGS = Settings(
    database_url=f"sqlite:///{_DATABASE}",
    workers=1,
    max_pending_jobs=2,
    max_replications=20,
    max_packets_per_job=10**9,
    dask_scheduler=None,
)

app = create_app()
app.dependency_overrides[get_settings] = lambda: _SETTINGS
app.dependency_overrides[simulation_runner] = lambda: runners.quick_runner

schema = schemathesis.openapi.from_asgi("/openapi.json", app).include(
    path_regex=r"^/v1/simulations"
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@pytest.fixture(scope="module", autouse=True)
def job_pool() -> Iterator[None]:
    # Entering the client runs the lifespan: the pool is on app.state for every call below.
    with TestClient(app):
        yield
    shutil.rmtree(_DATABASE.parent, ignore_errors=True)


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_simulations_conform_to_their_schema(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate(checks=CHECKS)
