"""Property-based tests of the whole API from its own OpenAPI schema.

Schemathesis generates valid and invalid requests for every operation and checks all it can
check of one answer: no server error, every status code, content type and header documented,
every response matches its schema, invalid data is refused, valid data is accepted, a 405
lists the path's methods. The simulation jobs run on the stand-in runner of
``test_api_simulations_runners`` (they finish at once), on a store of this test's own.

Valid data the server refuses is a failure. The rules between fields that JSON Schema can state
(one of two fields, fields that go together, a field only with another's value) are in the
schema itself, and the generated bodies keep them; the exceptions are what JSON Schema cannot
state, listed in docs/contract.md ("Rules between fields"): a quantity string outside its
field's bounds (the string branch's ``x-minimum``, ``x-maximum``, ... in the unit
``x-quantity`` names), and the rules that compare two fields' values, in :data:`FIELD_RULES`
(each in its field's description). Most are written out here; a device's memory limits and the
simulator's rules are decided by running the service's own code (``_device_limits``,
``_simulation_rules``), so a wrong rule there would not be caught by this test.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CheckContext, not_a_server_error
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from app.jobs.lifespan import simulation_runner
from app.main import create_app
from app.routers.device_config import config
from app.schemas.device_config import ConfigRequest
from app.schemas.recommend import RecommendRequest
from app.schemas.simulations import SimulationScenarioIn
from app.services.recommend import recommend_for
from app.services.simulate import build_scenario
from app.services.trace import TRACE_PACKET_BYTES
from app.settings import Settings, get_settings
from app.units import parse_fraction, parse_packets, parse_quantity
from models.errors import ParameterError
from models.recommend.scenario import AQM_INTERVAL_S, AQM_TARGET_S
from tests.app import test_api_simulations_runners as runners


def _settings(database: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{database}",
        workers=1,
        dask_scheduler=None,
        stale_job_after_s=0.0,
        # Room for every job the run submits: a 429 is documented, but a run that fills the
        # queue early would test nothing else of the simulation operations.
        max_pending_jobs=10_000,
        max_pending_jobs_per_client=10_000,
        # The stand-in runner finishes at once whatever the job's size: the size limits (422
        # past them, tested in test_result_size and test_api_simulations_limits) are lifted.
        max_packets_per_job=10**30,
        max_result_bytes=68_719_476_736,
    )


application = create_app()
schema = schemathesis.openapi.from_asgi("/openapi.json", application)


@pytest.fixture(scope="module", autouse=True)
def _own_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    database = tmp_path_factory.mktemp("schemathesis") / "jobs.sqlite3"
    own = _settings(database)
    application.dependency_overrides[get_settings] = lambda: own
    application.dependency_overrides[simulation_runner] = lambda: runners.quick_runner
    yield
    # Schemathesis keeps the application's lifespan (its worker pool) running for the rest of
    # the process; it is stopped here.
    asgi.shutdown_lifespans()
    application.dependency_overrides.clear()


def _given(body: dict[str, Any], name: str) -> bool:
    return body.get(name) is not None


def _codel_target_not_below_interval(body: dict[str, Any]) -> bool:
    # CoDel's target below its interval (RFC defaults 5 ms and 100 ms), as aqm_times refuses.
    if body.get("aqm") != "codel":
        return False
    try:
        target = _si(body, "aqm_target_s", "time", AQM_TARGET_S["codel"])
        interval = _si(body, "aqm_interval_s", "time", AQM_INTERVAL_S["codel"])
    except (TypeError, ValueError):
        return False
    return target >= interval


def _link_rules(body: dict[str, Any]) -> bool:
    # A link's rules that compare two fields' values: N_b at most N, and CoDel's target below
    # its interval. (One of rtt_s and rtts_s, and an AQM's times only with an AQM, are stated
    # in the schema.)
    scenario = body.get("scenario")
    if not isinstance(scenario, dict):
        return False
    flows, bottlenecked = _whole(scenario.get("flows")), _whole(scenario.get("bottlenecked_flows"))
    more = flows is not None and bottlenecked is not None and bottlenecked > flows
    return more or _codel_target_not_below_interval(scenario)


#: What a device's own limits refuse, by comparing the size with them: the chip's shared memory
#: must hold the congested queues at that size (SONiC, EOS), and IOS XR's queue-limit range.
DEVICE_LIMITS = ("chip_buffer_bytes", "buffer_bytes")


def _device_limits(body: dict[str, Any]) -> bool:
    # The size comes from the engine (with a scenario) or the request: the device configuration
    # is computed as the route computes it, and a refusal by a device limit is excused.
    try:
        if "device" in body:
            request = RecommendRequest.model_validate(body)
            if request.device is None:
                return False
            scenario, targets = request.to_domain()
            recommend_for(scenario, targets, request.device.to_domain())
        else:
            asyncio.run(config(ConfigRequest.model_validate(body)))
    except ParameterError as exc:
        return exc.name.removeprefix("device.") in DEVICE_LIMITS
    except ValueError:
        return False  # refused by the schema's own rules: not excused
    return False


def _recommend_rules(body: dict[str, Any]) -> bool:
    return _link_rules(body) or _device_limits(body)


def _config_rules(body: dict[str, Any]) -> bool:
    # A scenario's rules (_link_rules), or for a size given with its queue: CoDel's target
    # below its interval and DCTCP's threshold K below the buffer. (One size, what goes with a
    # scenario and what with a size, and an AQM's times only with an AQM, are stated in the
    # schema.)
    if _given(body, "scenario"):
        return _link_rules(body) or _device_limits(body)
    if _device_limits(body):
        return True
    if not _given(body, "ecn_threshold_bytes"):
        return _codel_target_not_below_interval(body)
    try:
        packet = _si(body, "packet_bytes", "size", 1500)
        size = (
            _si(body, "buffer_packets", "size", 0) * packet
            if _given(body, "buffer_packets")
            else _si(body, "buffer_bytes", "size", 0)
        )
        k = _si(body, "ecn_threshold_bytes", "size", 0)
    except (TypeError, ValueError):
        return False
    return k >= size or _codel_target_not_below_interval(body)


def _ps_rules(body: dict[str, Any]) -> bool:
    # background_load at most load, and with a phi table load below its last value. (Not both
    # peak_rate_fraction and phi: in the schema.)
    load, background = body.get("load"), body.get("background_load", 0.0)
    if not isinstance(load, int | float) or not isinstance(background, int | float):
        return False
    phi = body.get("phi")
    last = phi[-1] if isinstance(phi, list) and phi else None
    return background > load or (isinstance(last, int | float) and load >= last)


def _verification_rules(body: dict[str, Any]) -> bool:
    wanted, most = _whole(body.get("replications", 5)), _whole(body.get("max_replications"))
    return _link_rules(body) or (most is not None and wanted is not None and most < wanted)


def _si(body: dict[str, Any], name: str, kind: str, default: float) -> float:
    value = body.get(name)
    if value is None:
        return default
    return parse_quantity(name, value, kind) if isinstance(value, str) else float(value)


def _pacing_rules(body: dict[str, Any]) -> bool:
    # The paced flows' load N·W/(C·RTT) (windows in packets, C in packets/s) must stay below 1.
    try:
        packets_per_s = _si(body, "capacity_bps", "rate", 0) / (
            8 * _si(body, "packet_bytes", "size", 1500)
        )
        load = (
            body["flows"]
            * body["max_window_packets"]
            / (packets_per_s * _si(body, "rtt_s", "time", 0))
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False
    return not load < 1


def _optical_rules(body: dict[str, Any]) -> bool:
    # K <= N/2 with N the smallest power of two above buffer_packets.
    buffer, k = _whole(body.get("buffer_packets")), _whole(body.get("tradeoff_k", 1))
    if buffer is None or k is None:
        return False
    return k > 2 ** (max(1, buffer.bit_length()) - 1)


def _whole(value: Any) -> int | None:
    """An integer field's value (267 or 267.0, as the service reads both); None otherwise."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _simulation_rules(body: dict[str, Any]) -> bool:
    # The simulator's own rules between scenario fields (warm-up shorter than the run, one ECN
    # threshold, ...), stated in the fields' descriptions: Scenario.from_dict applies them.
    try:
        fields = SimulationScenarioIn.model_validate(body.get("scenario", {})).model_dump()
    except ValueError:
        return False  # refused by the schema's own bounds: not excused
    try:
        build_scenario(fields)
    except ParameterError:
        return True
    return False


#: The rules between fields a request must also keep, by operation: each returns True when the
#: body breaks its rule (the server's 422 is then right, though the body matches the schema).
FIELD_RULES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "POST /v1/recommend": _recommend_rules,
    "POST /v1/verifications": _verification_rules,
    "POST /v1/config": _config_rules,
    "POST /v1/flow-level/ps": _ps_rules,
    "POST /v1/pacing/bound": _pacing_rules,
    "POST /v1/optical/fifo": _optical_rules,
    "POST /v1/simulations": _simulation_rules,
}

_READERS: dict[str, Callable[[str], float]] = {
    "rate": lambda text: parse_quantity("field", text, "rate"),
    "time": lambda text: parse_quantity("field", text, "time"),
    "size": lambda text: parse_quantity("field", text, "size"),
    "packets": lambda text: parse_packets("field", text, TRACE_PACKET_BYTES),
    "fraction": lambda text: parse_fraction("field", text),
}
_WITHIN: dict[str, Callable[[float, float], bool]] = {
    "x-minimum": lambda value, bound: value >= bound,
    "x-exclusiveMinimum": lambda value, bound: value > bound,
    "x-maximum": lambda value, bound: value <= bound,
    "x-exclusiveMaximum": lambda value, bound: value < bound,
}


def _resolve(node: Any, components: dict[str, Any]) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = components[node["$ref"].rsplit("/", 1)[-1]]
    return node


def _quantity_out_of_bounds(node: Any, value: Any, components: dict[str, Any]) -> bool:
    """Whether ``value`` holds a quantity string outside the bounds its schema ``node`` states."""
    node = _resolve(node, components)
    if not isinstance(node, dict):
        return False
    if isinstance(value, str) and "x-quantity" in node:
        try:
            number = _READERS[node["x-quantity"]](value)
        except ValueError:  # not a quantity: refused by its pattern, not by a bound
            return False
        return not math.isfinite(number) or not all(
            within(number, node[key]) for key, within in _WITHIN.items() if key in node
        )
    branches = node.get("anyOf", []) + node.get("oneOf", []) + node.get("allOf", [])
    if any(_quantity_out_of_bounds(branch, value, components) for branch in branches):
        return True
    if isinstance(value, dict):
        properties = node.get("properties", {})
        return any(
            _quantity_out_of_bounds(properties[name], item, components)
            for name, item in value.items()
            if name in properties
        )
    if isinstance(value, list) and "items" in node:
        return any(_quantity_out_of_bounds(node["items"], item, components) for item in value)
    return False


def _breaks_an_unstated_rule(case: schemathesis.Case[Any]) -> bool:
    body = case.body
    if not isinstance(body, dict):
        return False
    operation = case.operation
    rule = FIELD_RULES.get(f"{operation.method.upper()} {operation.path}")
    if rule is not None and rule(body):
        return True
    document = application.openapi()
    components = document.get("components", {}).get("schemas", {})
    content = document["paths"][operation.path][operation.method.lower()]["requestBody"]
    return any(
        _quantity_out_of_bounds(media["schema"], body, components)
        for media in content["content"].values()
    )


@schemathesis.check
def valid_data_accepted(ctx: CheckContext, response: Any, case: schemathesis.Case[Any]) -> Any:
    """Schemathesis' positive_data_acceptance, but for a body that breaks a bound or rule
    the schema states only in words (see the module's docstring)."""
    if response.status_code == 422 and _breaks_an_unstated_rule(case):
        return None
    return positive_data_acceptance(ctx, response, case)


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    valid_data_accepted,
    unsupported_method,
    allow_header_conformance,
]


@schema.parametrize()
@settings(
    # A fixed, bounded run: the same examples every time (derandomize), 25 generated per
    # operation besides the schema's own examples and the coverage phase's boundary cases.
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate(checks=CHECKS)
