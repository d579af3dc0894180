"""OpenAPI operation ids are short and stable, for client generators."""

from __future__ import annotations

from app.main import app

# Written out by hand: a client generator's method names; changing one breaks clients.
EXPECTED = {
    ("post", "/v1/rules/bdp"): "rules-bdp",
    ("post", "/v1/rules/sqrt-n"): "rules-sqrt-n",
    ("post", "/v1/rules/tiny"): "rules-tiny",
    ("post", "/v1/rules/bscl"): "rules-bscl",
    ("post", "/v1/queues/mm1b"): "queues-mm1b",
    ("post", "/v1/queues/md1b"): "queues-md1b",
    ("post", "/v1/flow-level/ps"): "flow-level-ps",
    ("post", "/v1/pacing/bound"): "pacing-bound",
    ("post", "/v1/optical/fifo"): "optical-fifo",
    ("post", "/v1/recommend"): "recommend",
    ("post", "/v1/simulations"): "simulations-create",
    ("get", "/v1/simulations/{job_id}"): "simulations-get",
    ("delete", "/v1/simulations/{job_id}"): "simulations-cancel",
    ("post", "/v1/config"): "config",
    ("post", "/v1/verifications"): "verifications-create",
    ("post", "/v1/traces"): "traces-create",
    ("get", "/v1/traces/{job_id}"): "traces-get",
    ("delete", "/v1/traces/{job_id}"): "traces-cancel",
    ("get", "/healthz"): "healthz",
}


def test_operation_ids_are_short_and_stable() -> None:
    paths = app.openapi()["paths"]
    ids = {
        (method, path): operation["operationId"]
        for path, operations in paths.items()
        for method, operation in operations.items()
    }
    assert {key: ids.get(key) for key in EXPECTED} == EXPECTED
    # Every operation has one, and no two share it.
    assert len(set(ids.values())) == len(ids)
    assert all(len(operation_id) <= 32 for operation_id in ids.values())
