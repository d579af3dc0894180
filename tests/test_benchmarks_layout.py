"""benchmarks/ holds the speed and memory benchmarks, studies/ the accuracy studies; both import
the package as any script does (no ``sys.path`` edits), and studies/README.md lists every study
with a result file that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "studies").glob("*.py")])
README = (ROOT / "studies" / "README.md").read_text(encoding="utf-8")


def test_there_are_scripts_in_both_folders() -> None:
    folders = {path.parent.name for path in SCRIPTS}
    assert folders == {"benchmarks", "studies"}


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_script_edits_the_import_path(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "sys.path" not in text
    assert "from tests" not in text and "import tests" not in text


@pytest.mark.parametrize("path", sorted((ROOT / "studies").glob("*.py")), ids=lambda p: p.name)
def test_the_readme_lists_each_study(path: Path) -> None:
    assert f"`{path.name}`" in README


def test_every_result_file_the_readme_names_exists() -> None:
    named = re.findall(r"`(results/[\w.*]+)`", README)
    assert len(named) >= 8
    for pattern in named:
        assert list((ROOT / "studies").glob(pattern)), pattern
