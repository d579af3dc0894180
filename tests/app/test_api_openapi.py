"""The OpenAPI document: every operation has a runnable example; every number a unit and bounds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import app

client = TestClient(app)
SPEC: dict[str, Any] = client.get("/openapi.json").json()
SCHEMAS: dict[str, Any] = SPEC["components"]["schemas"]

MODEL_OPERATIONS = [
    path
    for path, ops in SPEC["paths"].items()
    # Job resources (simulations, verifications, traces) need a job pool or an upload; their
    # own tests cover them.
    if path.startswith("/v1/")
    and not path.startswith(("/v1/simulations", "/v1/verifications", "/v1/traces"))
    and "post" in ops
]


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    return dict(SCHEMAS[ref.rsplit("/", 1)[-1]]) if ref else schema


def request_schema(path: str) -> dict[str, Any]:
    body = SPEC["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    return resolve(body["schema"])


def numeric_leaves(
    schema: dict[str, Any], name: str = "", description: str = ""
) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(field, numeric JSON schema, the field's description) of every number in a schema."""
    schema = resolve(schema)
    description = schema.get("description", description)
    if schema.get("type") in ("number", "integer"):
        yield name, schema, description
    for branch in schema.get("anyOf", []):
        yield from numeric_leaves(branch, name, description)
    if "items" in schema:
        yield from numeric_leaves(schema["items"], name, description)
    for key, prop in schema.get("properties", {}).items():
        yield from numeric_leaves(prop, key, "")


def test_all_families_are_served() -> None:
    expected = {
        "/v1/rules/bdp",
        "/v1/rules/sqrt-n",
        "/v1/rules/tiny",
        "/v1/rules/bscl",
        "/v1/queues/mm1b",
        "/v1/queues/md1b",
        "/v1/flow-level/ps",
        "/v1/pacing/bound",
        "/v1/optical/fifo",
        "/v1/recommend",
        "/v1/config",
    }
    assert expected <= set(MODEL_OPERATIONS)
    assert client.get("/docs").status_code == 200


@pytest.mark.parametrize("path", MODEL_OPERATIONS)
def test_examples_are_valid_requests(path: str) -> None:
    # Examples are kept runnable: each one is answered with 200.
    examples = request_schema(path).get("examples")
    assert examples, f"{path} has no request example"
    for example in examples:
        response = client.post(path, json=example)
        assert response.status_code == 200, (path, example, response.text)


@pytest.mark.parametrize("path", MODEL_OPERATIONS)
def test_numbers_are_bounded_and_described(path: str) -> None:
    leaves = list(numeric_leaves(request_schema(path)))
    assert leaves
    for name, leaf, description in leaves:
        assert {"minimum", "exclusiveMinimum"} & leaf.keys(), f"{path}: {name} has no lower bound"
        assert description, f"{path}: {name} has no description"


def test_quantity_fields_accept_unit_strings() -> None:
    capacity = request_schema("/v1/rules/bdp")["properties"]["capacity_bps"]
    kinds = {branch["type"] for branch in capacity["anyOf"]}
    assert kinds == {"number", "string"}
    text = next(b for b in capacity["anyOf"] if b["type"] == "string")
    assert "10 Gbit/s" in text["description"]


def test_health_example() -> None:
    op = SPEC["paths"]["/healthz"]["get"]
    assert op["responses"]["200"]["content"]["application/json"]["example"] == {"status": "ok"}


def test_a_405_lists_every_method_of_the_path() -> None:
    # FastAPI declares GET and DELETE of a job as two routes; Starlette's 405 named only GET.
    response = client.put("/v1/simulations/" + "0" * 32)
    assert response.status_code == 405
    assert response.headers["allow"] == "DELETE, GET"
    assert client.get("/v1/rules/bdp").headers["allow"] == "POST"


def test_a_whole_number_with_a_fraction_is_an_integer() -> None:
    # JSON Schema's "integer" holds 267.0; true and "267" stay refused.
    accepted = client.post("/v1/queues/md1b", json={"load": 0.5, "buffer_packets": 267.0})
    assert accepted.status_code == 200, accepted.text
    assert (
        accepted.json()
        == client.post("/v1/queues/md1b", json={"load": 0.5, "buffer_packets": 267}).json()
    )
    for value in (267.5, True, "267"):
        refused = client.post("/v1/queues/md1b", json={"load": 0.5, "buffer_packets": value})
        assert refused.status_code == 422, value


def test_seeds_stop_where_json_numbers_are_exact() -> None:
    # 2**63 - 1 as a bound is read as 2**63 by a double: 2**63 + 192 passed a client's check.
    for name in ("SimulationRequest", "VerificationRequest"):
        assert SCHEMAS[name]["properties"]["seed"]["maximum"] == 2**53 - 1


def test_the_replication_limit_is_the_service_s() -> None:
    # BUFSIZE_MAX_REPLICATIONS (default 100) bounds the fields in the document, not only in
    # the server.
    limited = SCHEMAS["SimulationRequest"]["properties"]["replications"]
    assert limited["maximum"] == 100
    assert "BUFSIZE_MAX_REPLICATIONS" in limited["description"]
    most = SCHEMAS["VerificationRequest"]["properties"]["max_replications"]["anyOf"][0]
    assert most["maximum"] == 100


def test_quantity_strings_state_the_bounds_of_their_value() -> None:
    capacity = request_schema("/v1/rules/bdp")["properties"]["capacity_bps"]["anyOf"]
    number, text = capacity
    assert text["x-quantity"] == "rate"
    assert (text["x-minimum"], text["x-maximum"]) == (number["minimum"], number["maximum"])
    assert "converted to bit / second: >= 1000" in text["description"]
