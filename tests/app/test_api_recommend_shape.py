"""One result shape: the API's recommendation models are the engine's dataclasses, field for field.

The router builds :class:`app.schemas.recommend.RecommendResponse` from the engine's
:class:`models.recommend.Recommendation` with ``model_validate(..., from_attributes=True)``; the
CLI's ``--json`` is the same dataclasses' ``to_dict()``. These tests fail when a field is added,
removed or renamed on one side only.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter

from app.cli import main as cli
from app.main import app
from app.schemas import recommend as out
from app.schemas.optical import OpticalDesignOut
from app.schemas.recommend import ScenarioIn, TargetsIn, link_and_targets
from models import optical
from models.recommend import recommend, result

PAIRS: list[tuple[type[BaseModel], type[Any]]] = [
    (out.AssumptionOut, result.Assumption),
    (out.PredictionOut, result.Prediction),
    (out.RuleOut, result.RuleResult),
    (out.RegimeOut, result.RegimeInfo),
    (out.RecommendedOut, result.RecommendedSize),
    (out.TradeOffOut, result.TradeOff),
    (out.CurvesOut, result.Curves),
    (out.DerivedInputsOut, result.DerivedInputs),
    (out.RecommendResponse, result.Recommendation),
    (OpticalDesignOut, optical.OpticalFifoDesign),
]


@pytest.mark.parametrize(("model", "dataclass"), PAIRS, ids=lambda x: x.__name__)
def test_response_model_has_the_dataclass_fields(
    model: type[BaseModel], dataclass: type[Any]
) -> None:
    assert list(model.model_fields) == [f.name for f in dataclasses.fields(dataclass)]


def _keys(value: Any, prefix: str = "") -> set[str]:
    """Every key path of a JSON value (list items share their parent's path)."""
    keys: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            keys.add(prefix + key)
            keys |= _keys(item, prefix + key + ".")
    elif isinstance(value, list):
        for item in value:
            keys |= _keys(item, prefix)
    return keys


def test_cli_json_and_api_answer_have_the_same_names() -> None:
    body = {
        "scenario": {
            "capacity_bps": 1e10,
            "rtt_s": 0.1,
            "flows": 1000,
            "packet_bytes": 1000.0,
            "max_window_packets": 64.0,
        },
        "targets": {"max_queueing_delay_s": 1e-5, "min_utilization": 0.9},
    }
    with TestClient(app) as client:
        response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    api = response.json()
    run = CliRunner().invoke(
        cli,
        "recommend --capacity 10Gbit/s --rtt 100ms --flows 1000 --packet 1000B "
        "--max-window 64 --max-delay 0.01ms --min-utilization 0.9 --json".split(),
    )
    assert run.exit_code == 0, run.output
    cli_json = json.loads(run.output)
    assert api["trade_off"] is not None  # the nested trade-off is compared too
    assert _keys(cli_json) == _keys(api)
    assert cli_json["recommended"]["buffer_packets"] == api["recommended"]["buffer_packets"]
    assert api["software_versions"].keys() == {"bufsize", "numpy", "scipy", "numba"}


def test_curve_points_that_are_not_finite_are_sent_as_null() -> None:
    # JSON has no infinity: a curve point the models leave infinite or undefined is null, both
    # in the response model (the answer with a device) and as /v1/recommend writes the engine's
    # answer straight from its dataclasses.
    points = {
        "buffer_packets": (1.0, 2.0, 3.0),
        "utilization": (0.5, float("nan"), 1.0),
        "normalized_utilization": (0.5, 0.9, 1.0),
        "loss_probability": (None, 0.01, 0.0),
        "queueing_delay_s": (float("inf"), 0.002, 0.003),
    }
    for sent in (
        json.loads(out.CurvesOut.model_validate(points).model_dump_json()),
        json.loads(TypeAdapter(result.Curves).dump_json(result.Curves(**points))),
    ):
        assert sent["utilization"] == [0.5, None, 1.0]
        assert sent["loss_probability"] == [None, 0.01, 0.0]
        assert sent["queueing_delay_s"] == [None, 0.002, 0.003]


@pytest.mark.parametrize(
    "scenario",
    [
        # 000 §3.2's link: window-limited, every rule; the loss of N_b unknown is null.
        {
            "capacity_bps": 1e10,
            "rtt_s": 0.1,
            "flows": 1000,
            "packet_bytes": 1000.0,
            "max_window_packets": 64.0,
        },
        # Congestion control not given, few flows: both candidates, a what-if.
        {"capacity_bps": 1e9, "rtt_s": 0.05, "flows": 3},
        # N_b given, CUBIC, an AQM, an optical buffer, a CIOQ switch.
        {
            "capacity_bps": "40 Gbit/s",
            "rtts_s": ["20 ms", "80 ms"],
            "flows": 5000,
            "bottlenecked_flows": 400,
            "congestion_control": "cubic",
            "aqm": "codel",
            "medium": "optical",
            "input_queued": True,
            "ports": 16,
            "load": 0.7,
        },
    ],
)
def test_recommend_writes_what_the_response_model_writes(scenario: dict[str, Any]) -> None:
    # /v1/recommend writes the engine's answer without validating it into RecommendResponse:
    # its bytes must be the ones the response model (the documented schema) would write.
    with TestClient(app) as client:
        response = client.post("/v1/recommend", json={"scenario": scenario})
    assert response.status_code == 200, response.text
    link, goals = link_and_targets(ScenarioIn.model_validate(scenario), TargetsIn())
    expected = out.RecommendResponse.of(recommend(link, goals)).model_dump_json().encode()
    assert response.content == expected
