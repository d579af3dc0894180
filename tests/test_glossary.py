"""One name per quantity: the glossary lists every public name, and no old spelling survives.

docs/glossary.md is a markdown table per section (| name | symbol | unit | meaning |). Every
parameter of a public function of a ``models`` module and every field of the API's OpenAPI
schema must have a row; the renamed fields of README's "Renamed fields" table must appear
nowhere else in the repository.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

import models

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "docs" / "glossary.md"


def _rows() -> list[list[str]]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _glossary_names() -> set[str]:
    return {row[0].strip("`") for row in _rows()}


def _models_parameters() -> dict[str, str]:
    """Parameter name -> one function that takes it, over every public models function."""
    found: dict[str, str] = {}
    for info in pkgutil.walk_packages(models.__path__, "models."):
        module = importlib.import_module(info.name)
        for fname, func in inspect.getmembers(module, inspect.isfunction):
            if fname.startswith("_") or func.__module__ != module.__name__:
                continue
            for pname in inspect.signature(func).parameters:
                found.setdefault(pname, f"{module.__name__}.{fname}")
    return found


def _schema_fields(node: Any, out: set[str]) -> None:
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            out.update(properties)
        for value in node.values():
            _schema_fields(value, out)
    elif isinstance(node, list):
        for value in node:
            _schema_fields(value, out)


def _api_fields() -> set[str]:
    from app.main import app

    schema = app.openapi()
    fields: set[str] = set()
    _schema_fields(schema.get("components", {}), fields)
    for path in schema["paths"].values():
        for operation in path.values():
            for parameter in operation.get("parameters", []):
                fields.add(parameter["name"])
            # Bodies declared inline (the multipart form of /v1/traces), not as components.
            _schema_fields(operation.get("requestBody", {}), fields)
    return fields


def test_glossary_rows_are_complete_unique_and_sorted() -> None:
    rows = _rows()
    assert len(rows) > 100
    names = [row[0].strip("`") for row in rows]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    for row in rows:
        assert len(row) == 4 and all(row), row
    sections = GLOSSARY.read_text(encoding="utf-8").split("\n## ")[1:]
    for section in sections:
        in_section = [
            line.split("|")[1].strip().strip("`")
            for line in section.splitlines()
            if line.startswith("| `")
        ]
        assert in_section == sorted(in_section), section.splitlines()[0]


def test_every_models_parameter_is_in_the_glossary() -> None:
    parameters = _models_parameters()
    # Reference points the walk must see (so an empty walk cannot pass).
    assert {"capacity_bps", "bottlenecked_share", "max_loss", "min_utilization"} <= set(parameters)
    missing = {name: where for name, where in parameters.items() if name not in _glossary_names()}
    assert not missing, missing


def test_every_api_field_is_in_the_glossary() -> None:
    fields = _api_fields()
    assert {"buffer_s", "bottlenecked_share", "software_versions", "kp_packets", "verify"} <= fields
    missing = sorted(fields - _glossary_names())
    assert not missing, missing


#: Old spellings (README, "Renamed fields") and their one name now. The old names are written
#: split so that this file does not hold them whole.
RENAMED = {
    "buffer" + "_seconds": "buffer_s",
    "lbp_capacity" + "_fraction": "bottlenecked_share",
    "lbp_capacity" + "_bps": "bottlenecked_capacity_bps",
    "mss" + "_bytes": "packet_bytes",
    "max_loss" + "_rate": "max_loss",
    "target" + "_utilization": "min_utilization",
    "line_rate" + "_bps": "capacity_bps",
    "long_lived" + "_flows": "bottlenecked_flows",
    "fifo_capacity" + "_seconds": "fifo_capacity_s",
    "total_length" + "_seconds": "total_length_s",
}


def _tracked_text_files() -> list[Path]:
    listing = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    suffixes = {".py", ".md", ".toml", ".json", ".html", ".j2", ".js", ".txt", ".cfg", ".yml"}
    return [ROOT / name for name in listing if Path(name).suffix in suffixes]


def test_readme_lists_every_renamed_field() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Renamed fields", 1)[1].split("\n## ", 1)[0]
    for old, new in RENAMED.items():
        assert f"| `{old}` | `{new}` |" in table, old


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_no_second_spelling_of_a_renamed_field(old: str) -> None:
    pattern = re.compile(rf"\b{old}\b")
    hits = []
    for path in _tracked_text_files():
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            in_rename_table = path.name == "README.md" and line.startswith(f"| `{old}` |")
            if pattern.search(line) and not in_rename_table:
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, hits
