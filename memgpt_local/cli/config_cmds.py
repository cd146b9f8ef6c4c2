"""`memgpt-local config ...`: show and create the config file."""

from __future__ import annotations

import click

from memgpt_local.cli.common import App, with_data_dir
from memgpt_local.config import CONFIG_NAME, render_settings_toml


@click.group("config")
def config_group() -> None:
    """Show or create the config file (config.toml in the data dir)."""


@config_group.command("show")
@with_data_dir
def show(app: App) -> None:
    """Print the effective settings as TOML."""
    click.echo(f"# {app.data_dir / CONFIG_NAME}")
    click.echo(render_settings_toml(app.settings))


@config_group.command("init")
@click.option("--force", is_flag=True, help="Overwrite an existing config file.")
@with_data_dir
def init(app: App, force: bool) -> None:
    """Write a config file with every default spelled out."""
    path = app.data_dir / CONFIG_NAME
    if path.exists() and not force:
        raise click.UsageError(f"{path} exists; pass --force to overwrite it")
    path.write_text(render_settings_toml(app.settings), encoding="utf-8")
    click.echo(f"wrote {path}")


@config_group.command("path")
@with_data_dir
def data_path(app: App) -> None:
    """Print the data directory in use."""
    click.echo(str(app.data_dir))


def register(cli: click.Group) -> None:
    cli.add_command(config_group)
