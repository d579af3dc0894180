"""The simulation scenario's fields are declared once, on :class:`validation.simulator.Scenario`
(and :class:`~validation.simulator.FlowGroup`): the API's request schema has exactly those fields
with the same defaults, and every option of ``bufsize simulate`` that sets one is named in
:data:`app.services.names.OPTION_OF` and defaults to the scenario's default. A field added to the
scenario fails here until the API and the command line (or the list of file-only fields) take it.
"""

from __future__ import annotations

import dataclasses
import math

import click
import pytest
from click.core import UNSET

from app.cli.simulate import simulate as simulate_command
from app.schemas.simulations import FlowGroupIn, SimulationScenarioIn
from app.services.names import OPTION_OF
from app.units import parse_quantity
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
