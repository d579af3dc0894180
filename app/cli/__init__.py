"""The ``bufsize`` command line: one subcommand per module, imported only when it runs.

Each subcommand is a line of :data:`COMMANDS`: its name, the module and attribute of its
:class:`click.Command`, and the one-line help ``bufsize --help`` shows. ``bufsize --help`` and
``bufsize --version`` import none of them, and ``bufsize recommend`` imports only the recommendation
engine (not the simulator or the service). A new subcommand is one line of the table.
"""

from __future__ import annotations

import click

from app.cli.lazy import LazyGroup, Subcommand

#: name -> where its command lives and what ``bufsize --help`` says of it.
COMMANDS = {
    "config": Subcommand(
        "app.cli.config:config", "The recommended buffer as device configuration."
    ),
    "recommend": Subcommand(
        "app.cli.recommend:recommend", "Recommend a buffer size for a link, rule by rule."
    ),
    "serve": Subcommand("app.cli.serve:serve", "Start the bufsize service (OpenAPI at /docs)."),
    "simulate": Subcommand(
        "app.cli.simulate:simulate", "Simulate TCP flows through one bottleneck for each buffer."
    ),
    "trace": Subcommand(
        "app.cli.trace:trace", "BSCL's parameters from a packet trace, and the BSCL size."
    ),
    "verify": Subcommand(
        "app.cli.verify:verify_command",
        "Check the recommended size by simulation (--kernel: Linux).",
    ),
    "validate": Subcommand(
        "app.cli.validate:validate", "The papers' measurements against models and simulator."
    ),
}


@click.group(
    cls=LazyGroup,
    subcommands=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--version",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=lambda ctx, _param, value: _print_version(ctx, value),
    help="Show the version and exit.",
)
def main() -> None:
    """How much packet buffer does this link need?"""


def _print_version(ctx: click.Context, asked: bool) -> None:
    """``bufsize --version``: read from the package metadata only when asked (it is slow)."""
    if not asked or ctx.resilient_parsing:
        return
    from models.provenance import bufsize_version

    click.echo(f"bufsize, version {bufsize_version()}")
    ctx.exit()
