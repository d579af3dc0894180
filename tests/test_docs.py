"""The design is in the repository: docs/architecture.md and docs/references.md exist, every
path they name exists, and nothing cites the design document a clone does not have."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from app.main import create_app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("docs/architecture.md", "docs/references.md")
# Written in two parts so that this file does not hold what it looks for.
OLD_CITATION = "DESIGN" + " §"
PATH_RE = re.compile(r"`((?:app|models|validation|tests|docs|benchmarks|notebooks)/[\w./-]*)`")


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    out = []
    for name in listed:
        path = ROOT / name.decode()
        if name and path.is_file() and path.suffix in {".py", ".md", ".toml", ".txt", ".html"}:
            out.append(path)
    return out


def test_no_file_cites_the_design_document() -> None:
    files = _tracked_text_files()
    assert len(files) > 100  # the listing worked
    citing = [str(p.relative_to(ROOT)) for p in files if OLD_CITATION in p.read_text("utf-8")]
    assert citing == []


def test_the_served_openapi_text_cites_no_design_document() -> None:
    text = json.dumps(create_app().openapi(), ensure_ascii=False)
    assert "/v1/recommend" in text
    assert OLD_CITATION not in text


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_a_doc_names_exists(doc: str) -> None:
    text = (ROOT / doc).read_text("utf-8")
    paths = PATH_RE.findall(text)
    assert paths, f"{doc} names no path"
    missing = [p for p in paths if not (ROOT / p.rstrip("/")).exists()]
    assert missing == []


def test_references_introduce_the_five_papers() -> None:
    text = (ROOT / "docs/references.md").read_text("utf-8")
    for short in ("000", "001", "002", "003", "004"):
        assert re.search(rf"^\| \*\*{short}\*\* \| .+\|$", text, re.MULTILINE), short
