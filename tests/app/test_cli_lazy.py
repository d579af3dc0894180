"""The command line imports a subcommand's module only when that subcommand runs."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from app.cli import COMMANDS, main

HEAVY = ("app.cli.recommend", "app.cli.simulate", "app.cli.serve", "pint", "scipy", "numba")

PROBE = """
import sys
from app.cli import main
try:
    main([{args}])
except SystemExit:
    pass
print("LOADED:" + ",".join(sorted(name for name in {heavy!r} if name in sys.modules)))
"""


def imported_by(*args: str) -> list[str]:
    """The heavy modules a fresh interpreter has imported after ``bufsize <args>``."""
    code = PROBE.format(args=", ".join(repr(a) for a in args), heavy=HEAVY)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    last = out.strip().splitlines()[-1]
    assert last.startswith("LOADED:"), out
    return [name for name in last.removeprefix("LOADED:").split(",") if name]


def test_help_and_version_import_no_subcommand() -> None:
    assert imported_by("--help") == []
    assert imported_by("--version") == []


def test_recommend_imports_neither_the_simulator_nor_the_service() -> None:
    loaded = imported_by("recommend", "--help")
    assert "app.cli.recommend" in loaded
    assert not {"app.cli.simulate", "app.cli.serve", "numba"} & set(loaded)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_table_entry_is_a_command_listed_in_help(name: str) -> None:
    ctx = click.Context(main)
    command = main.get_command(ctx, name)
    assert isinstance(command, click.Command)
    help_text = " ".join(CliRunner().invoke(main, ["--help"]).output.split())
    assert f"{name} {COMMANDS[name].short_help}" in help_text


def test_version_is_the_package_metadata() -> None:
    from importlib import metadata

    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"bufsize, version {metadata.version('bufsize')}\n"
