"""The form's inputs become the /v1/recommend body, and the API's error locations map back."""

from __future__ import annotations

from typing import get_args

from pydantic import BaseModel

from app.routers.verifications import VerificationRequest
from app.schemas.recommend import RecommendRequest
from app.web.fields import BY_NAME, FIELDS, field_for_location
from app.web.form import read_values, request_body
from app.web.simulation import verification_plan


def _section_model(name: str) -> type[BaseModel]:
    """The request model of a body section (``device`` is optional: ``DeviceIn | None``)."""
    annotation = RecommendRequest.model_fields[name].annotation
    models = [a for a in (annotation, *get_args(annotation)) if isinstance(a, type)]
    return next(m for m in models if issubclass(m, BaseModel))


def test_every_field_path_is_a_request_field() -> None:
    for f in FIELDS:
        model = _section_model(f.path[0])
        for path in (f.path, *f.also):
            assert path[1] in model.model_fields, path


def test_defaults_make_a_valid_request() -> None:
    body, errors = request_body(read_values({}))
    assert errors == {}
    request = RecommendRequest.model_validate(body)
    assert request.scenario.capacity_bps == 10e9  # "10 Gbit/s"
    assert request.scenario.rtt_s == 0.1
    assert request.scenario.flows == 1000


def test_the_check_by_simulation_body_is_the_same_request_with_replications() -> None:
    body, _ = request_body(read_values({}))
    request = RecommendRequest.model_validate(body)
    sent = verification_plan(request)["request"]
    # What the page posts to /v1/verifications reads back as the same link and targets.
    again = VerificationRequest.model_validate(sent)
    assert again.scenario == request.scenario
    assert again.targets == request.targets
    assert (again.replications, again.seed) == (5, 1)


def test_a_list_of_rtts_goes_to_rtts_s() -> None:
    values = read_values({}) | {"rtt": "20 ms, 80 ms; 250 ms"}
    body, errors = request_body(values)
    assert errors == {}
    assert body["scenario"]["rtts_s"] == ["20 ms", "80 ms", "250 ms"]
    assert "rtt_s" not in body["scenario"]


def test_unreadable_numbers_are_refused_at_their_input() -> None:
    values = read_values({}) | {"flows": "many", "utilization": "high"}
    _, errors = request_body(values)
    assert set(errors) == {"flows", "utilization"}


def test_error_locations_map_back_to_inputs() -> None:
    assert field_for_location(("body", "scenario", "flows")) is BY_NAME["flows"]
    assert field_for_location(("scenario", "rtts_s", 2)) is BY_NAME["rtt"]
    assert field_for_location(("targets", "max_loss")) is BY_NAME["loss"]
    assert field_for_location(("body", "scenario")) is None


def test_a_plain_visit_shows_defaults_and_a_sent_form_keeps_empty_inputs() -> None:
    assert read_values({})["capacity"] == "10 Gbit/s"
    sent = read_values({"capacity": "1 Gbit/s"})
    assert sent["capacity"] == "1 Gbit/s" and sent["flows"] == ""


def test_the_device_goes_to_the_request_and_its_errors_come_back() -> None:
    body, errors = request_body(read_values({}) | {"vendor": "sonic", "chip": "64 MiB"})
    assert errors == {}
    assert body["device"] == {"vendor": "sonic", "chip_buffer_bytes": "64 MiB"}
    assert RecommendRequest.model_validate(body).device is not None
    assert field_for_location(("body", "device", "chip_buffer_bytes")) is BY_NAME["chip"]
    # A link from before the device input existed gets Linux tc.
    assert read_values({"capacity": "1 Gbit/s"})["vendor"] == "tc"
