"""The layers import one way, and the edges meet the domain only through app.services.

Every import of every module is read from its source (those inside functions too, the lazy
ones), so a new cross-import fails here before review.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "models", "validation")


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute (``from app import x`` counts as ``app.x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


MODULES = {
    _module(path): _imports(path)
    for package in PACKAGES
    for path in sorted((ROOT / package).rglob("*.py"))
}


def _importers(prefix: str) -> set[str]:
    return {
        module
        for module, imported in MODULES.items()
        if any(name == prefix or name.startswith(prefix + ".") for name in imported)
    }


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_modules_were_read() -> None:
    # A wrong root would make every rule below pass on nothing.
    assert {"app.cli.trace", "app.routers.traces", "app.services.trace", "app.web.form"} <= set(
        MODULES
    )
    assert "app.services.trace" in MODULES["app.cli.trace"]


def test_only_the_command_line_imports_the_command_line() -> None:
    outside = {m for m in _importers("app.cli") if not _within(m, "app.cli")}
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
        assert {m for m in _importers(edge) if _within(m, layer)} == set()


@pytest.mark.parametrize("edge", ["app.cli", "app.routers", "app.web", "app.schemas", "fastapi"])
def test_the_services_import_no_edge(edge: str) -> None:
    assert {m for m in _importers(edge) if _within(m, "app.services")} == set()


def test_models_import_nothing_of_ours() -> None:
    for other in ("app", "validation"):
        assert {m for m in _importers(other) if _within(m, "models")} == set()


def test_validation_imports_no_app() -> None:
    assert {m for m in _importers("app") if _within(m, "validation")} == set()


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
