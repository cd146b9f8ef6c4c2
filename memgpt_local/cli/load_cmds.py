"""`memgpt-local load|sources`: read files into an agent's archival memory and manage them."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click

from memgpt_local.cli.common import App, print_json, progress_enabled, with_app
from memgpt_local.errors import NotFoundError

agent_option = click.option("--agent", "agent_name", required=True, help="Agent name.")

ProgressFn = Callable[..., None]


@contextlib.contextmanager
def load_display(files: int) -> Iterator[tuple[ProgressFn | None, ProgressFn]]:
    """(progress callback or None, warning callback): a bar on stderr when it is a terminal."""
    if not progress_enabled():
        yield None, lambda outcome: click.echo(outcome.warning(), err=True)
        return
    from tqdm import tqdm

    with tqdm(total=files, desc="loading", unit="file", leave=False, file=sys.stderr) as bar:

        def progress(state) -> None:
            bar.update(state.files_done - bar.n)
            bar.set_postfix_str(f"{state.chunks} chunks, {state.passages_per_s:.0f} passages/s")

        yield progress, lambda outcome: bar.write(outcome.warning(), file=sys.stderr)


@click.command("load")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@agent_option
@click.option("--recursive", "-r", is_flag=True, help="Walk subfolders of folders too.")
@click.option(
    "--glob",
    "globs",
    multiple=True,
    metavar="PATTERN",
    help="Only files of folders matching this pattern (e.g. '*.md'); repeatable.",
)
@with_app
def load(app: App, paths: tuple[Path, ...], agent_name: str, recursive: bool, globs: tuple[str, ...]) -> None:
    """Load files and folders (.txt, .md, .pdf, .html, source code) into archival memory.

    Unchanged files are skipped, changed ones replace their old passages; unreadable
    files are skipped with a warning.
    """
    from memgpt_local.documents.loader import DocumentLoader, collect_files

    files = collect_files(paths, recursive=recursive, globs=globs)
    if not files:
        raise NotFoundError(
            f"no files to load in {', '.join(map(str, paths))}", "add --recursive for subfolders or loosen --glob"
        )
    store = app.store()
    agent = store.agents.get(agent_name)
    with load_display(len(files)) as (progress, warn):
        report = DocumentLoader(store, agent.id).load(files, progress=progress, warn=warn)
    click.echo(report.summary())


@click.group("sources")
def sources_group() -> None:
    """List and remove the documents loaded into an agent's archival memory."""


@sources_group.command("list")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@with_app
def sources_list(app: App, agent_name: str, as_json: bool) -> None:
    """List an agent's sources with their passage counts."""
    store = app.store()
    agent = store.agents.get(agent_name)
    sources = store.sources.list(agent.id)
    if as_json:
        print_json([s.model_dump(mode="json") for s in sources])
    elif not sources:
        click.echo(f"no sources for {agent.name} (load some with `memgpt-local load PATH --agent {agent.name}`)")
    for source in [] if as_json else sources:
        noun = "passage" if source.passages == 1 else "passages"
        click.echo(f"{source.id}\t{source.passages} {noun}\t{source.created_at:%Y-%m-%d %H:%M}\t{source.path}")


@sources_group.command("rm")
@agent_option
@click.argument("source")
@with_app
def sources_rm(app: App, agent_name: str, source: str) -> None:
    """Remove SOURCE (id, path or file name) with its passages, vectors and index rows."""
    from memgpt_local.documents.loader import find_source

    store = app.store()
    agent = store.agents.get(agent_name)
    found = find_source(store, agent.id, source)
    removed = store.sources.delete(agent.id, found.id)
    click.echo(f"removed {found.path} ({removed} passages)")


def register(cli: click.Group) -> None:
    for command in (load, sources_group):
        cli.add_command(command)
