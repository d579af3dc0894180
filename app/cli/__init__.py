"""The ``bufsize`` command line: ``serve``, ``recommend``, ``simulate``, ``config``, ``validate``.

Each subcommand lives in its own module and is registered on :data:`main` here.
"""

from __future__ import annotations

import click

from app.cli.config import config
from app.cli.recommend import recommend
from app.cli.serve import serve
from app.cli.simulate import simulate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="bufsize")
def main() -> None:
    """How much packet buffer does this link need?"""


main.add_command(serve)
main.add_command(recommend)
main.add_command(simulate)
main.add_command(config)
