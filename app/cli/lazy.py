"""A click group that imports a subcommand's module only when that subcommand is used."""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import click


class Subcommand(NamedTuple):
    """Where a subcommand lives (``"package.module:attribute"``) and its one-line help."""

    target: str
    short_help: str


class LazyGroup(click.Group):
    """A :class:`click.Group` whose subcommands are imported on first use.

    ``bufsize --help`` lists the subcommands with the short help of their table entry, so listing
    them imports nothing; running one (or asking for its ``--help``) imports its module.
    """

    def __init__(self, *args: Any, subcommands: dict[str, Subcommand], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.subcommands = dict(subcommands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in self.subcommands:
            return super().get_command(ctx, cmd_name)
        module_name, _, attribute = self.subcommands[cmd_name].target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.subcommands[cmd_name].target} is not a click command")
        self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The subcommands and their table help, without importing them."""
        rows = [(name, self.subcommands[name].short_help) for name in sorted(self.subcommands)]
        rows += [
            (name, command.get_short_help_str(formatter.width))
            for name, command in sorted(self.commands.items())
            if name not in self.subcommands and not command.hidden
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
