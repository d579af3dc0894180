"""models.errors: every argument check raises ParameterError naming the parameter and the bound."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import pytest

from models import checks
from models.errors import ParameterError
from models.queues import md1b_queue
from models.recommend import LinkScenario
from validation.simulator.scenario import Scenario

CASES: list[tuple[Callable[[], Any], str, str]] = [
    (lambda: checks.positive("capacity_bps", 0.0), "capacity_bps", "> 0"),
    (lambda: checks.non_negative("buffer_packets", -1), "buffer_packets", ">= 0"),
    (lambda: checks.at_least("flows", 0.5, 1.0), "flows", ">= 1"),
    (lambda: checks.in_range("load", 1.2, 0.0, 1.0, high_inclusive=False), "load", "in [0, 1)"),
    (lambda: checks.probability("max_loss", 0.0), "max_loss", "in (0, 1)"),
    (lambda: checks.integer_at_least("flows", 2.5, 1), "flows", "an integer"),
    (lambda: checks.integer_at_least("flows", 0, 1), "flows", ">= 1"),
    (lambda: checks.finite("rtt_s", float("nan")), "rtt_s", "finite"),
    (lambda: checks.finite("rtt_s", "fast"), "rtt_s", "a number"),
    (lambda: checks.finite("rtts_s", []), "rtts_s", "non-empty"),
    (lambda: md1b_queue(0.5, 2.5), "buffer_packets", "a whole number of packets"),
    (
        lambda: LinkScenario(capacity_bps=1e9, rtts_s=(0.1,), flows=10, bottlenecked_flows=20),
        "bottlenecked_flows",
        "<= flows (10)",
    ),
    (lambda: Scenario(rtt_s=0.1, rtt_jitter_s=0.2).validate(), "rtt_jitter_s", "< rtt_s (0.1)"),
    (lambda: Scenario(traffic="bursty").validate(), "traffic", "one of"),  # type: ignore[arg-type]
    (lambda: Scenario.from_dict({"bogus": 1}), "bogus", "absent"),
]


@pytest.mark.parametrize(("call", "name", "bound"), CASES)
def test_checks_raise_parameter_error_with_name_and_bound(
    call: Callable[[], Any], name: str, bound: str
) -> None:
    with pytest.raises(ParameterError) as caught:
        call()
    assert caught.value.name == name
    assert caught.value.bound.startswith(bound)
    assert name in str(caught.value)


def test_a_derived_quantity_names_the_parameter_and_says_the_quantity() -> None:
    with pytest.raises(ParameterError) as caught:
        checks.in_range("flows", 1.54, 0.0, 1.0, high_inclusive=False, label="load N·W/M")
    assert caught.value.name == "flows"
    assert str(caught.value) == "load N·W/M must be in [0, 1), got 1.54"


def test_parameter_error_is_a_value_error_and_survives_pickling() -> None:
    # Worker processes send exceptions back pickled; the name and bound must come along.
    error = ParameterError.got("load", "in (0, 1)", 1.2)
    assert isinstance(error, ValueError)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.name, copy.bound, str(copy)) == ("load", "in (0, 1)", str(error))
    assert str(error) == "load must be in (0, 1), got 1.2"
