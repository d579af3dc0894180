"""Each choice list is declared once: models/choices.py for the lists the engine, the simulator
and the service share, validation/simulator/fields.py for the simulator's own. A tuple, list,
set or ``Literal[...]`` anywhere else that spells three or more values of one list (both, for a
list of two) is a second declaration and fails here; the tables keyed by a list's values (a value
per choice) are checked to cover it. The API's fields and the command line's options are checked
to offer exactly the declared values.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import click
import pytest

from app.cli.recommend import recommend as recommend_command
from app.cli.simulate import simulate as simulate_command
from app.schemas.recommend import ScenarioIn, TargetsIn
from app.schemas.simulations import SimulationScenarioIn
from app.web.fields import BY_NAME
from models import choices
from models.recommend.scenario import MD_BETA
from validation.simulator import fields as sim

ROOT = Path(__file__).resolve().parents[1]
SHARED = "models/choices.py"
SIMULATOR = "validation/simulator/fields.py"
LISTS: dict[str, tuple[tuple[str, ...], str]] = {
    "congestion controls": (choices.CONGESTION_CONTROLS, SHARED),
    "AQMs": (choices.AQMS, SHARED),
    "media": (choices.MEDIA, SHARED),
    "priorities": (choices.PRIORITIES, SHARED),
    "recoveries": (choices.RECOVERIES, SHARED),
    "vendors": (choices.VENDORS, SHARED),
    "tc qdiscs": (choices.TC_QDISCS, SHARED),
    "traffic kinds": (sim.TRAFFIC_KINDS, SIMULATOR),
    "window growth": (sim.CA_INCREASE_KINDS, SIMULATOR),
    "flow sizes": (sim.SIZE_KINDS, SIMULATOR),
    "disciplines": (sim.DISCIPLINES, SIMULATOR),
    "open-loop arrivals": (sim.OPEN_LOOP_ARRIVALS, SIMULATOR),
    "open-loop sizes": (sim.OPEN_LOOP_SIZES, SIMULATOR),
}
#: Subsets written out on purpose, each checked below to be part of its list (none today).
SUBSETS: set[tuple[str, str]] = set()


def _strings(node: ast.AST) -> set[str]:
    # A Literal[...] of two or more values holds them in a tuple: found as one.
    elements: list[ast.expr] = []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        elements = list(node.elts)
    return {e.value for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)}


def declarations(sources: dict[str, str]) -> dict[str, list[str]]:
    """Where each list is spelled out (two or more of its values in one sequence), by file."""
    found: dict[str, list[str]] = {name: [] for name in LISTS}
    for path, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            strings = _strings(node)
            for name, (values, _) in LISTS.items():
                # Three values (two for a list of two): lists that share values (the AQMs and
                # tc's qdiscs share codel and pie) are not taken for one another.
                if len(strings & set(values)) >= min(3, len(values)):
                    found[name].append(f"{path}:{getattr(node, 'lineno', 0)}")
    return found


def _sources() -> dict[str, str]:
    return {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for package in ("app", "models", "validation")
        for path in sorted((ROOT / package).rglob("*.py"))
    }


SOURCES = _sources()
FOUND = declarations(SOURCES)


def test_the_scan_finds_the_declarations() -> None:
    # The declarations themselves are found: the scan is not blind.
    assert any(place.startswith(SHARED) for place in FOUND["congestion controls"])
    assert any(place.startswith(SIMULATOR) for place in FOUND["traffic kinds"])


@pytest.mark.parametrize("name", LISTS)
def test_each_choice_list_is_declared_once(name: str) -> None:
    home = LISTS[name][1]
    elsewhere = [
        place
        for place in FOUND[name]
        if not place.startswith(home + ":") and (place.split(":")[0], name) not in SUBSETS
    ]
    assert elsewhere == []
    assert any(p.startswith(home + ":") for p in FOUND[name])


def test_tables_per_choice_cover_exactly_the_choices() -> None:
    assert set(choices.CONGESTION_CONTROL_NAMES) == set(choices.CONGESTION_CONTROLS)
    assert set(MD_BETA) == set(choices.CONGESTION_CONTROLS)
    assert set(choices.VENDOR_NAMES) == set(choices.VENDORS)
    assert set(choices.SIMULATED_AQMS) <= set(choices.AQMS)
    assert set(choices.AQM_NAMES) == set(choices.AQMS)
    assert set(sim.GROUP_TRAFFIC_KINDS) < set(sim.TRAFFIC_KINDS)


def _literal_values(model: type, field: str) -> set[str]:
    annotation = model.model_fields[field].annotation  # type: ignore[attr-defined]
    # An optional field (Literal[...] | None) offers the values of its Literal.
    args = [a for part in get_args(annotation) for a in (get_args(part) or (part,))]
    return {a for a in args if isinstance(a, str)}


@pytest.mark.parametrize(
    ("model", "field", "values"),
    [
        (ScenarioIn, "congestion_control", choices.CONGESTION_CONTROLS),
        (ScenarioIn, "aqm", choices.AQMS),
        (ScenarioIn, "medium", choices.MEDIA),
        (TargetsIn, "priority", choices.PRIORITIES),
        (SimulationScenarioIn, "congestion_control", choices.CONGESTION_CONTROLS),
        (SimulationScenarioIn, "aqm", choices.SIMULATED_AQMS),
        (SimulationScenarioIn, "recovery", choices.RECOVERIES),
    ],
)
def test_the_api_offers_the_declared_values(
    model: type, field: str, values: tuple[str, ...]
) -> None:
    assert _literal_values(model, field) == set(values)


def _option_choices(command: click.Command, name: str) -> set[str]:
    param = next(p for p in command.params if p.name == name)
    assert isinstance(param.type, click.Choice)
    return set(param.type.choices)


@pytest.mark.parametrize(
    ("command", "option", "values"),
    [
        (recommend_command, "cc", choices.CONGESTION_CONTROLS),
        (recommend_command, "aqm", choices.AQMS),
        (recommend_command, "priority", choices.PRIORITIES),
        (simulate_command, "cc", choices.CONGESTION_CONTROLS),
        (simulate_command, "aqm", choices.SIMULATED_AQMS),
        (simulate_command, "recovery", choices.RECOVERIES),
    ],
)
def test_the_command_line_offers_the_declared_values(
    command: click.Command, option: str, values: tuple[str, ...]
) -> None:
    assert _option_choices(command, option) == set(values)


def test_the_form_offers_declared_values() -> None:
    assert {v for v, _ in BY_NAME["vendor"].choices} == set(choices.VENDORS)
    assert {v for v, _ in BY_NAME["medium"].choices} == set(choices.MEDIA)
    # The congestion control's first choice, the default, is "not given" (an unknown).
    assert BY_NAME["cc"].choices[0][0] == BY_NAME["cc"].default == ""
    assert {v for v, _ in BY_NAME["cc"].choices[1:]} == set(choices.CONGESTION_CONTROLS)
    assert {v for v, _ in BY_NAME["aqm"].choices} == set(choices.AQMS)
