"""The layers import one way, and the edges meet the domain only through app.services.

Every import of every module is read from its source (those inside functions too, the lazy
ones; :mod:`tests.import_graph`), so a new cross-import fails here before review.
"""

from __future__ import annotations

import pytest

from tests.import_graph import ROOT, edge_to_services, read_modules, render, within

MODULES = read_modules()
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _importers(prefix: str) -> set[str]:
    return {
        module
        for module, imported in MODULES.items()
        if any(name == prefix or name.startswith(prefix + ".") for name in imported)
    }


def test_the_modules_were_read() -> None:
    # A wrong root would make every rule below pass on nothing.
    assert {"app.cli.trace", "app.routers.traces", "app.services.trace", "app.web.form"} <= set(
        MODULES
    )
    assert "app.services.trace" in MODULES["app.cli.trace"]


def test_only_the_command_line_imports_the_command_line() -> None:
    outside = {m for m in _importers("app.cli") if not within(m, "app.cli")}
    assert outside == set()


def test_only_the_app_factory_imports_the_routers() -> None:
    # app.api gathers the routers under /v1; app.main (create_app) includes app.api.
    outside = {m for m in _importers("app.routers") if m not in ("app.api", "app.main")}
    assert outside == set()


@pytest.mark.parametrize(
    "edge",
    ["app.services", "app.cli", "app.routers", "app.web", "app.jobs.worker", "app.jobs.pool"],
)
def test_the_domain_imports_no_edge(edge: str) -> None:
    for layer in ("models", "validation"):
        assert {m for m in _importers(edge) if within(m, layer)} == set()


@pytest.mark.parametrize("edge", ["app.cli", "app.routers", "app.web", "app.schemas", "fastapi"])
def test_the_services_import_no_edge(edge: str) -> None:
    assert {m for m in _importers(edge) if within(m, "app.services")} == set()


def test_models_import_nothing_of_ours() -> None:
    for other in ("app", "validation"):
        assert {m for m in _importers(other) if within(m, "models")} == set()


def test_validation_imports_no_app() -> None:
    assert {m for m in _importers("app") if within(m, "validation")} == set()


@pytest.mark.parametrize(
    ("edge", "service"),
    [
        ("app.web.form", "app.services.recommend"),
        ("app.trace_jobs", "app.services.trace"),
        ("app.jobs.runner", "app.services.simulate"),
        ("app.routers.recommend", "app.services.recommend"),
        ("app.routers.traces", "app.services.trace"),
        ("app.routers.verifications", "app.services.verify"),
        ("app.routers.simulations", "app.services.simulate"),
        ("app.routers.device_config", "app.services.device"),
        ("app.cli.recommend", "app.services.recommend"),
        ("app.cli.verify", "app.services.verify"),
        ("app.cli.trace", "app.services.trace"),
        ("app.cli.simulate", "app.services.simulate"),
        ("app.cli.config", "app.services.device"),
    ],
)
def test_each_edge_calls_its_service(edge: str, service: str) -> None:
    assert service in MODULES[edge]


def test_the_architecture_page_shows_the_generated_graph() -> None:
    # docs/architecture.md shows `make import-graph`'s output verbatim: regenerate it there
    # when an edge starts or stops calling a use case.
    graph = render(edge_to_services(MODULES))
    assert "app.routers.recommend" in graph and "app.web.form" in graph
    assert f"```\n{graph}\n```" in ARCHITECTURE.read_text(encoding="utf-8")
