"""Every import of every module of app, models and validation, read from the sources.

``python -m tests.import_graph`` (or ``make import-graph``) prints which use cases
(``app.services``) each edge imports: the graph docs/architecture.md shows, generated here and
checked there by tests/test_layers.py. The imports inside functions (the lazy ones) count.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "models", "validation")
SERVICES = "app.services"
#: The edges: the API's routers, the form, the command line and the background jobs.
EDGES = ("app.routers", "app.web", "app.cli", "app.jobs", "app.trace_jobs")


def module_name(path: Path) -> str:
    """``app/cli/trace.py`` -> ``app.cli.trace`` (a package's ``__init__`` is the package)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute (``from app import x`` counts as ``app.x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
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


def read_modules() -> dict[str, set[str]]:
    """Module name -> the modules it imports, for every module of :data:`PACKAGES`."""
    return {
        module_name(path): imports_of(path)
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def edge_to_services(modules: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each edge module that imports a use case -> the use cases (``app.services.<name>``)."""
    services = sorted(m for m in modules if within(m, SERVICES) and m != SERVICES)
    graph = {}
    for module in sorted(modules):
        if any(within(module, edge) for edge in EDGES):
            used = [s for s in services if any(within(n, s) for n in modules[module])]
            if used:
                graph[module] = [s.removeprefix(SERVICES + ".") for s in used]
    return graph


def render(graph: dict[str, list[str]]) -> str:
    """The graph as text: ``edge  ->  service, service``, one edge a line."""
    width = max(len(edge) for edge in graph)
    return "\n".join(f"{edge:<{width}}  ->  {', '.join(used)}" for edge, used in graph.items())


if __name__ == "__main__":
    print(render(edge_to_services(read_modules())))
