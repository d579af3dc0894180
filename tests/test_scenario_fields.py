"""The simulation scenario's fields are declared once: name and default on
:class:`validation.simulator.Scenario` (and :class:`~validation.simulator.FlowGroup`), unit,
bounds, choices and help in :data:`validation.simulator.fields.FIELDS`. The API's request schema
has exactly those fields with the same defaults, descriptions that start with the field's help,
and bounds no wider than the simulator's; every option of ``bufsize simulate`` that sets one is
named in :data:`app.services.names.OPTION_OF`, defaults to the scenario's default and starts its
help with the field's. A field added to the scenario fails here until the table, the API and the
command line (or the list of file-only fields) take it.
"""

from __future__ import annotations

import dataclasses
import math
import typing

import click
import pydantic
import pytest
from click.core import UNSET

from app.cli.simulate import simulate as simulate_command
from app.schemas.simulations import FlowGroupIn, SimulationScenarioIn
from app.services.names import OPTION_OF
from app.units import parse_quantity
from models.errors import ParameterError
from validation.simulator.fields import FIELDS, FieldSpec
from validation.simulator.scenario import SCENARIO_DEFAULTS, FlowGroup, Scenario

SCENARIO_FIELDS = {f.name for f in dataclasses.fields(Scenario)}
#: The packet budget is the service's limit (max_packets_per_job), not the client's to set.
NOT_IN_THE_API = {"packet_budget"}
#: Fields only a scenario file (``--scenario``) sets: the traffic mixes, groups and the
#: measurement's details, which would make the command line unreadable.
FILE_ONLY = {
    "byte_mode",
    "delayed_ack_timeout_s",
    "discipline",
    "flow_arrival_rate_per_s",
    "flow_size_distribution",
    "flow_size_packets",
    "groups",
    "initial_rto_s",
    "interval_s",
    "open_loop_arrivals",
    "open_loop_load",
    "open_loop_sizes",
    "pareto_shape",
    "sample_interval_s",
    "start_spread_s",
    "traced_flows",
    "traffic",
}
#: The flags of the command line, which need no name in error messages.
FLAGS = {"pacing": "pacing", "ecn": "ecn"}
KINDS = (("_bps", "rate"), ("_s", "time"), ("_bytes", "size"))


def test_the_api_takes_exactly_the_scenario_fields() -> None:
    assert set(SimulationScenarioIn.model_fields) == SCENARIO_FIELDS - NOT_IN_THE_API
    assert set(FlowGroupIn.model_fields) == {f.name for f in dataclasses.fields(FlowGroup)}


@pytest.mark.parametrize("name", sorted(SCENARIO_FIELDS - NOT_IN_THE_API - {"groups"}))
def test_the_api_defaults_are_the_scenarios(name: str) -> None:
    assert SimulationScenarioIn.model_fields[name].default == SCENARIO_DEFAULTS[name]


def _options() -> dict[str, click.Parameter]:
    by_opt = {param.opts[0]: param for param in simulate_command.params}
    named = {field: by_opt[option] for field, option in OPTION_OF.items() if option in by_opt}
    named.update({field: by_opt[f"--{flag}"] for field, flag in FLAGS.items()})
    return {field: param for field, param in named.items() if field in SCENARIO_FIELDS}


def test_every_scenario_field_has_an_option_or_is_file_only() -> None:
    with_option = set(_options())
    assert with_option & FILE_ONLY == set()
    assert with_option | FILE_ONLY == SCENARIO_FIELDS


@pytest.mark.parametrize("name", sorted(_options()))
def test_each_option_defaults_to_the_scenarios_default(name: str) -> None:
    param = _options()[name]
    default = param.get_default(click.Context(simulate_command), call=True)
    if default is UNSET:  # an option with no default: required, or computed from another
        default = None
    expected = SCENARIO_DEFAULTS[name]
    if default is None or expected is None:
        # Required options (capacity, flows, rtt) and defaults computed from another field
        # (the RTT jitter from the RTT, the ECN threshold from the mode) have none to compare.
        assert default is None
        return
    if isinstance(expected, str | bool):  # a choice or a flag
        assert default == expected
        return
    kind = next((k for suffix, k in KINDS if name.endswith(suffix)), None)
    value = parse_quantity(param.opts[0], default, kind) if kind else default
    assert math.isclose(float(value), float(expected), rel_tol=1e-9), (default, expected)


def test_the_table_has_exactly_the_scenario_fields() -> None:
    assert list(FIELDS) == [f.name for f in dataclasses.fields(Scenario)]  # and in its order
    group_fields = {f.name for f in dataclasses.fields(FlowGroup)} - {"name"}
    assert group_fields <= set(FIELDS)


API_FIELDS = sorted(SCENARIO_FIELDS - NOT_IN_THE_API)


@pytest.mark.parametrize("name", API_FIELDS)
def test_the_api_describes_each_field_with_its_help(name: str) -> None:
    description = SimulationScenarioIn.model_fields[name].description
    assert description is not None and description.startswith(FIELDS[name].help), description
    if name in FlowGroupIn.model_fields:
        group = FlowGroupIn.model_fields[name].description
        assert group is not None and group.startswith(FIELDS[name].help)


@pytest.mark.parametrize("name", sorted(_options()))
def test_each_option_starts_its_help_with_the_fields(name: str) -> None:
    param = _options()[name]
    assert isinstance(param, click.Option) and param.help is not None
    # One option may set two fields (--ecn-threshold: packets or bytes): it says the first's.
    fields = [f for f, option in OPTION_OF.items() if option == param.opts[0]] or [name]
    assert param.help.startswith(FIELDS[fields[0]].help), param.help


def _outside(spec: FieldSpec) -> list[float]:
    """Values just outside each bound of ``spec`` (the smallest step its kind allows)."""
    step = 1.0 if spec.kind == "int" else None
    out = []
    if spec.low is not None:
        out.append(spec.low if spec.low_open else spec.low - (step or max(abs(spec.low), 1) * 1e-9))
    if spec.high is not None:
        out.append(
            spec.high if spec.high_open else spec.high + (step or max(abs(spec.high), 1) * 1e-9)
        )
    return out


BOUNDED = sorted(
    name
    for name, spec in FIELDS.items()
    if spec.kind in ("int", "float") and (spec.low is not None or spec.high is not None)
)
#: Other fields a value needs to be checked alone (the modes in which it is read).
CONTEXT = {"open_loop_load": {"traffic": "open_loop"}}


@pytest.mark.parametrize("name", BOUNDED)
def test_the_simulator_and_the_api_refuse_what_the_table_bounds_out(name: str) -> None:
    spec = FIELDS[name]
    values = _outside(spec)
    assert values  # a bounded field has a bound to cross
    for value in values:
        number: float = int(value) if spec.kind == "int" else value
        with pytest.raises(ParameterError) as refused:
            Scenario.from_dict({**CONTEXT.get(name, {}), name: number})
        assert refused.value.name == name
        if name in SimulationScenarioIn.model_fields:
            # The API may cap tighter (the service's limits), never wider.
            with pytest.raises(pydantic.ValidationError) as invalid:
                SimulationScenarioIn.model_validate({name: number})
            assert invalid.value.errors()[0]["loc"][0] == name


@pytest.mark.parametrize("name", BOUNDED)
def test_the_simulator_takes_a_closed_bound(name: str) -> None:
    spec = FIELDS[name]
    for bound, is_open in ((spec.low, spec.low_open), (spec.high, spec.high_open)):
        if bound is None or is_open or not math.isfinite(bound):
            continue
        number = int(bound) if spec.kind == "int" else float(bound)
        Scenario.from_dict({**CONTEXT.get(name, {}), name: number})


@pytest.mark.parametrize("name", sorted(n for n, s in FIELDS.items() if s.kind == "choice"))
def test_the_api_and_the_options_offer_the_tables_choices(name: str) -> None:
    annotation = SimulationScenarioIn.model_fields[name].annotation
    assert set(typing.get_args(annotation)) == set(FIELDS[name].choices)
    param = _options().get(name)
    if param is not None:
        assert isinstance(param.type, click.Choice)
        assert set(param.type.choices) == set(FIELDS[name].choices)
