"""`memgpt-local export|import`: an agent as one versioned JSON document, and back."""

from __future__ import annotations

import os
from pathlib import Path

import click

from memgpt_local.cli.common import App, with_app


@click.command("export")
@click.option("--agent", "agent_name", required=True, help="Agent name.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File to write (default: standard output).",
)
@with_app
def export(app: App, agent_name: str, output: Path | None) -> None:
    """Write an agent (settings, core memory, summary, all messages, sources and passages)
    as one JSON document. It is not encrypted: keep it somewhere safe."""
    from memgpt_local.portability.agentfile import dumps, export_agent

    text = dumps(export_agent(app.store(), agent_name))
    if output is None:
        click.echo(text, nl=False)
        return
    tmp = output.with_name(output.name + ".part")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, output)
    click.echo(f"exported agent {agent_name} to {output}", err=True)


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--as", "name", default=None, help="Name for the imported agent.")
@with_app
def import_(app: App, file: Path, name: str | None) -> None:
    """Create an agent from a file written by `export`; vectors are rebuilt locally."""
    from memgpt_local.portability.agentfile import import_agent, read_document

    document = read_document(file)
    created = import_agent(app.store(), document, name)
    click.echo(
        f"imported agent {created}: {len(document.messages)} messages, "
        f"{len(document.passages)} passages, {len(document.sources)} sources"
    )


def register(cli: click.Group) -> None:
    cli.add_command(export)
    cli.add_command(import_, name="import")
