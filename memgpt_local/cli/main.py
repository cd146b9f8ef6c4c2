"""The ``memgpt-local`` command: the top-level group and the registration of every command."""

from __future__ import annotations

from pathlib import Path

import click

from memgpt_local import __version__
from memgpt_local.cli.common import STORE_HELP, ErrorHandlingGroup


@click.group(cls=ErrorHandlingGroup)
@click.version_option(__version__, prog_name="memgpt-local")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Data directory for every subcommand (default: $MEMGPT_LOCAL_HOME or the user data dir).",
)
@click.option("--store", "store_url", default=None, metavar="URL", help=STORE_HELP)
@click.pass_context
def cli(ctx: click.Context, data_dir: Path | None, store_url: str | None) -> None:
    """memgpt-local: an offline assistant with long-term memory (MemGPT on local models)."""
    ctx.obj = {"data_dir": data_dir, "store_url": store_url}


def _register() -> None:
    from memgpt_local.cli import chat_cmds, config_cmds, eval_cmds, load_cmds, memory_cmds, models_cmds

    for module in (config_cmds, memory_cmds, chat_cmds, models_cmds, load_cmds, eval_cmds):
        module.register(cli)
    from memgpt_local.cli import portability_cmds, privacy_cmds, serve_cmds

    for module in (privacy_cmds, portability_cmds, serve_cmds):
        module.register(cli)


_register()


def main() -> None:
    cli(prog_name="memgpt-local")


if __name__ == "__main__":
    main()
