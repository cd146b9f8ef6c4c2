"""`memgpt-local agents|archival|recall|reembed`: manage agents and their long-term memory."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memgpt_local.cli.common import App, print_json, progress_enabled, with_app
from memgpt_local.errors import InvalidInputError
from memgpt_local.schemas import SearchPage

if TYPE_CHECKING:
    from memgpt_local.memory.search import SearchMode

ReadableFile = click.Path(exists=True, dir_okay=False, path_type=Path)
MODES = click.Choice(["hybrid", "text", "vector"])  # the values of memory.search.SearchMode


@contextlib.contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A (done, total) callback drawing a bar on stderr, or None when stderr is no terminal."""
    if not progress_enabled():
        yield None
        return
    from tqdm import tqdm

    with tqdm(desc=label, unit="item", leave=False) as bar:

        def update(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        yield update


def echo_page(page: SearchPage, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "total": page.total,
                "page": page.page + 1,
                "pages": page.pages,
                "items": [hit.model_dump(mode="json") for hit in page.items],
            }
        )
        return
    click.echo(page.describe())
    for hit in page.items:
        where = f" [{hit.citation}]" if hit.citation else (f" [{hit.role}]" if hit.role else "")
        click.echo(f"- {hit.created_at:%Y-%m-%d %H:%M}{where} {hit.text}")


def page_index(page: int) -> int:
    """The 1-based --page as the store's 0-based index."""
    return page - 1


def check_page(page: SearchPage) -> None:
    if page.total and page.page >= page.pages:
        raise InvalidInputError(f"page {page.page + 1} is past the last page ({page.pages})", "pass a smaller --page")


page_option = click.option(
    "--page", type=click.IntRange(min=1), default=1, show_default=True, help="Result page, starting at 1."
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
agent_option = click.option("--agent", "agent_name", required=True, help="Agent name.")


# ------------------------------------------------------------------------- agents


@click.group("agents")
def agents_group() -> None:
    """Create, list, show and delete agents."""


@agents_group.command("create")
@click.argument("name")
@click.option("--persona", type=ReadableFile, help="File with the persona block text.")
@click.option("--human", type=ReadableFile, help="File with the human block text.")
@with_app
def agents_create(app: App, name: str, persona: Path | None, human: Path | None) -> None:
    """Create an agent with persona and human core memory blocks."""
    from memgpt_local.memory.core import default_blocks

    blocks = default_blocks(
        app.settings.agent.core_memory_limit,
        persona=persona.read_text(encoding="utf-8").strip() if persona else None,
        human=human.read_text(encoding="utf-8").strip() if human else None,
    )
    agent = app.store().agents.create(name, blocks=blocks)
    click.echo(f"created agent {agent.name}")


@agents_group.command("list")
@json_option
@with_app
def agents_list(app: App, as_json: bool) -> None:
    """List agents."""
    agents = app.store().agents.list()
    if as_json:
        print_json([a.model_dump(mode="json") for a in agents])
    elif not agents:
        click.echo("no agents yet (create one with `memgpt-local agents create NAME`)")
    for agent in [] if as_json else agents:
        click.echo(f"{agent.name}\tcreated {agent.created_at:%Y-%m-%d %H:%M}")


@agents_group.command("show")
@click.argument("name")
@json_option
@with_app
def agents_show(app: App, name: str, as_json: bool) -> None:
    """Show an agent: core memory and memory sizes."""
    store = app.store()
    agent = store.agents.get(name)
    blocks = store.core.blocks(agent.id)
    counts = {
        "messages": store.recall.count(agent.id),
        "passages": store.archival.count(agent.id),
        "sources": len(store.sources.list(agent.id)),
    }
    if as_json:
        print_json({**agent.model_dump(mode="json"), **counts, "blocks": [b.model_dump() for b in blocks]})
        return
    click.echo(f"agent {agent.name} (created {agent.created_at:%Y-%m-%d %H:%M} UTC)")
    click.echo(", ".join(f"{n} {k}" for k, n in counts.items()))
    for block in blocks:
        flag = ", read-only" if block.read_only else ""
        click.echo(f"[{block.label}] ({len(block.value)}/{block.limit} chars{flag})")
        click.echo(block.value)


@agents_group.command("delete")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@with_app
def agents_delete(app: App, name: str, yes: bool) -> None:
    """Delete an agent and all of its memory."""
    from memgpt_local.runtime.kv_state import state_path

    store = app.store()
    agent = store.agents.get(name)
    if not yes:
        click.confirm(f"delete agent {name} and all of its memory?", abort=True, err=True)
    store.agents.delete(name)
    state_path(app.state_anchor, agent.id).unlink(missing_ok=True)  # its saved model state holds its text
    click.echo(f"deleted agent {name}")


# ----------------------------------------------------------------------- archival


@click.group("archival")
def archival_group() -> None:
    """Insert into and search an agent's archival memory."""


@archival_group.command("insert")
@agent_option
@click.argument("text", required=False)
@click.option("--file", "file", type=ReadableFile, help='JSON Lines file, one {"text": ...} per line.')
@with_app
def archival_insert(app: App, agent_name: str, text: str | None, file: Path | None) -> None:
    """Insert TEXT, or every passage of --file in one transaction."""
    from memgpt_local.memory.importing import read_passages_jsonl

    if (text is None) == (file is None):
        raise click.UsageError("give either TEXT or --file")
    items = read_passages_jsonl(file) if file else [{"text": text}]
    store = app.store()
    agent = store.agents.get(agent_name)
    with progress_bar("embedding") as progress:
        passages = store.archival.insert_many(agent.id, items, progress=progress)
    click.echo(f"inserted {len(passages)} passage(s) for {agent.name}")


@archival_group.command("search")
@agent_option
@click.argument("query")
@page_option
@click.option("--mode", type=MODES, default="hybrid", show_default=True, help="Ranking used.")
@json_option
@with_app
def archival_search(app: App, agent_name: str, query: str, page: int, mode: SearchMode, as_json: bool) -> None:
    """Search archival memory by words and meaning."""
    store = app.store()
    agent = store.agents.get(agent_name)
    result = store.archival.search(agent.id, query, page=page_index(page), mode=mode)
    check_page(result)
    echo_page(result, as_json)


# ------------------------------------------------------------------------- recall


@click.group("recall")
def recall_group() -> None:
    """Search and import an agent's conversation history."""


@recall_group.command("search")
@agent_option
@click.argument("query")
@page_option
@click.option("--mode", type=MODES, default="hybrid", show_default=True, help="Ranking used.")
@json_option
@with_app
def recall_search(app: App, agent_name: str, query: str, page: int, mode: SearchMode, as_json: bool) -> None:
    """Search user and assistant messages by words and meaning."""
    store = app.store()
    agent = store.agents.get(agent_name)
    result = store.recall.search(agent.id, query, page=page_index(page), mode=mode)
    check_page(result)
    echo_page(result, as_json)


@recall_group.command("dates")
@agent_option
@click.argument("start")
@click.argument("end")
@page_option
@json_option
@with_app
def recall_dates(app: App, agent_name: str, start: str, end: str, page: int, as_json: bool) -> None:
    """Messages from START to END (YYYY-MM-DD, inclusive, UTC)."""
    store = app.store()
    agent = store.agents.get(agent_name)
    result = store.recall.search_date(agent.id, start, end, page=page_index(page))
    check_page(result)
    echo_page(result, as_json)


@recall_group.command("import")
@agent_option
@click.argument("file", type=ReadableFile)
@with_app
def recall_import(app: App, agent_name: str, file: Path) -> None:
    """Import a chat history: JSON Lines of {"role", "content", "timestamp"}."""
    from memgpt_local.memory.importing import read_chat_jsonl

    messages = read_chat_jsonl(file)
    store = app.store()
    agent = store.agents.get(agent_name)
    with progress_bar("embedding") as progress:
        stored = store.recall.append(agent.id, messages, progress=progress)
    click.echo(f"imported {len(stored)} message(s) for {agent.name} (searchable, not in context)")


# ------------------------------------------------------------------------ reembed


@click.command("reembed")
@with_app
def reembed(app: App) -> None:
    """Rebuild every stored vector with the configured embedder (in one transaction)."""
    with app.open_store(check_embedder=False) as store:
        before = store.stored_embedder()
        with progress_bar("re-embedding") as progress:
            count = store.reembed(progress=progress)
        after = store.stored_embedder()
    click.echo(f"re-embedded {count} text(s): {before[0]} ({before[1]} d) -> {after[0]} ({after[1]} d)")


def register(cli: click.Group) -> None:
    for command in (agents_group, archival_group, recall_group, reembed):
        cli.add_command(command)
