"""Property-based tests of the whole API from its own OpenAPI schema.

Schemathesis generates valid and invalid requests for every operation (the simulation jobs
excepted: they start background work and have their own tests) and checks that no answer is a
server error, every status code and content type is documented, every response matches its
schema, and invalid data is rejected.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from app.main import app

schema = schemathesis.openapi.from_asgi("/openapi.json", app).exclude(
    path_regex=r"^/v1/simulations"
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate(checks=CHECKS)
