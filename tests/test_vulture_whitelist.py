"""The dead-code whitelist names only what exists: every import resolves and every attribute it
lists is one of that class's (or module's) attributes, dataclass fields or annotations."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path
from typing import Any

import pytest

WHITELIST = Path(__file__).resolve().parents[1] / "vulture_whitelist.py"
TREE = ast.parse(WHITELIST.read_text(encoding="utf-8"))
IMPORTS = [
    (node.module, alias.name)
    for node in TREE.body
    if isinstance(node, ast.ImportFrom) and node.module is not None
    for alias in node.names
]
# ``_.name`` lines stand for attributes of objects of libraries (dpkt, numba, pytest): skipped.
ACCESSES = [
    (node.value.value.id, node.value.attr)
    for node in TREE.body
    if isinstance(node, ast.Expr)
    and isinstance(node.value, ast.Attribute)
    and isinstance(node.value.value, ast.Name)
    and node.value.value.id != "_"
]


def _imported(name: str) -> Any:
    module, attr = next((m, a) for m, a in IMPORTS if a == name)
    return getattr(importlib.import_module(module), attr)


def test_the_whitelist_was_read() -> None:
    assert len(IMPORTS) >= 5 and len(ACCESSES) >= 10


@pytest.mark.parametrize(("module", "name"), IMPORTS)
def test_every_import_exists(module: str, name: str) -> None:
    assert hasattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("owner", "attr"), ACCESSES, ids=[f"{o}.{a}" for o, a in ACCESSES])
def test_every_listed_attribute_exists(owner: str, attr: str) -> None:
    obj = _imported(owner)
    annotated = any(attr in getattr(k, "__annotations__", {}) for k in getattr(obj, "__mro__", ()))
    fields = {f.name for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) else set()
    assert hasattr(obj, attr) or annotated or attr in fields
