"""docs/contract.md is the API contract: its table must say what the OpenAPI schema says.

Each row names a method and path, its operation id, the top-level request fields and the
top-level fields of the 2xx responses. A field, a path or an operation id that exists on one
side only fails here, so the document cannot drift from the service.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from app.main import create_app

CONTRACT = Path(__file__).resolve().parent.parent / "docs" / "contract.md"
ROW = re.compile(r"^\| (GET|POST|DELETE|PUT|PATCH) `([^`]+)` \| `([^`]+)` \| (.*) \| (.*) \|$")


def _names(cell: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", cell))


def _documented() -> dict[tuple[str, str], tuple[str, set[str], set[str]]]:
    rows = {}
    for line in CONTRACT.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            method, path, operation, request, response = match.groups()
            rows[(method.lower(), path)] = (operation, _names(request), _names(response))
    return rows


def _served() -> dict[tuple[str, str], tuple[str, set[str], set[str]]]:
    schema = create_app().openapi()
    components = schema["components"]["schemas"]

    def properties(node: dict[str, Any]) -> set[str]:
        if "$ref" in node:
            node = components[node["$ref"].rsplit("/", 1)[-1]]
        return set(node.get("properties", {}))

    served = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            request: set[str] = set()
            for content in operation.get("requestBody", {}).get("content", {}).values():
                request |= properties(content["schema"])
            response: set[str] = set()
            for code, answer in operation["responses"].items():
                if code.startswith("2"):
                    json_body = (answer.get("content") or {}).get("application/json", {})
                    response |= properties(json_body.get("schema", {}))
            served[(method, path)] = (operation["operationId"], request, response)
    return served


def test_the_contract_lists_every_path_the_service_serves() -> None:
    assert sorted(_documented()) == sorted(_served())


@pytest.mark.parametrize("key", sorted(_served()))
def test_each_row_names_the_served_operation_and_fields(key: tuple[str, str]) -> None:
    documented = _documented().get(key)
    assert documented is not None, f"{key} is not in docs/contract.md"
    operation, request, response = _served()[key]
    assert documented[0] == operation
    assert documented[1] == request, f"request fields of {key}"
    assert documented[2] == response, f"response fields of {key}"
