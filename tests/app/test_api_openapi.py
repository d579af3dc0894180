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
