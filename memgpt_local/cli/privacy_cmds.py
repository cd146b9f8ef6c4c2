"""`memgpt-local init|encrypt|decrypt|rekey|key|forget`: encryption at rest and forgetting."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from memgpt_local.cli.common import App, with_app
from memgpt_local.errors import InvalidInputError, MemGPTLocalError, StoreError

if TYPE_CHECKING:
    from memgpt_local.privacy.forget import Summarize

keyring_option = click.option(
    "--keyring/--no-keyring",
    "use_keyring",
    default=False,
    show_default=True,
    help="Also store the new passphrase in the OS keyring.",
)


def _remember(app: App, key: str, use_keyring: bool) -> None:
    from memgpt_local.privacy import keys

    if not use_keyring:
        return
    if keys.keyring_set(app.db_path, key):
        click.echo("stored the passphrase in the OS keyring")
    else:
        click.echo(f"no usable OS keyring here: keep the passphrase yourself (e.g. in {keys.PASSPHRASE_ENV})", err=True)


@click.command("init")
@click.option("--encrypt", "encrypt", is_flag=True, help="Create the memory file encrypted.")
@keyring_option
@with_app
def init(app: App, encrypt: bool, use_keyring: bool) -> None:
    """Create the memory file (migrated, empty), optionally encrypted.

    The passphrase of --encrypt comes from MEMGPT_LOCAL_PASSPHRASE or is typed twice.
    """
    from memgpt_local.memory import open_store
    from memgpt_local.privacy import keys

    if app.store_url is not None:
        if encrypt:
            app.require_file("init --encrypt")
        app.store()  # creates (or migrates) the tables
        click.echo(f"memory tables ready in {app.store_name}")
        return
    if app.db_path.exists():
        hint = "use `memgpt-local encrypt` to encrypt it" if encrypt else "nothing to do"
        raise InvalidInputError(f"{app.db_path} already exists", hint)
    key = keys.new_passphrase(str(app.db_path)) if encrypt else None
    open_store(app.db_path, app.embedder(), key=key).close()
    if key is not None:
        _remember(app, key, use_keyring)
    click.echo(f"created {'encrypted ' if key else ''}memory file {app.db_path}")


def _convert(app: App, new_key: str | None) -> None:
    from memgpt_local.privacy.crypto import convert

    done = convert(app.db_path, old_key=app.db_key(), new_key=new_key)
    click.echo(done.describe())
    if new_key is not None:
        _remove_model_states(app)


def _remove_model_states(app: App) -> None:
    """Delete the saved KV states (runtime/kv_state.py): derived from the conversation's text,
    they must not outlive an encryption or a forget."""
    from memgpt_local.runtime.kv_state import remove_states

    if removed := remove_states(app.state_anchor):
        click.echo(f"deleted {removed} saved model state file(s)")


@click.command("encrypt")
@keyring_option
@with_app
def encrypt(app: App, use_keyring: bool) -> None:
    """Encrypt the plain memory file: write an encrypted copy, verify it, swap it in.

    Close other memgpt-local processes first. The passphrase comes from
    MEMGPT_LOCAL_PASSPHRASE or is typed twice.
    """
    from memgpt_local.memory.db import is_encrypted
    from memgpt_local.privacy import keys

    app.require_file("encrypt")
    if is_encrypted(app.db_path):
        raise InvalidInputError(
            f"{app.db_path} is already encrypted", "use `memgpt-local rekey` to change the passphrase"
        )
    key = keys.new_passphrase(str(app.db_path))
    _convert(app, key)
    _remember(app, key, use_keyring)


@click.command("decrypt")
@with_app
def decrypt(app: App) -> None:
    """Turn the encrypted memory file back into a plain one (verified copy, then swap)."""
    from memgpt_local.memory.db import is_encrypted
    from memgpt_local.privacy import keys

    app.require_file("decrypt")
    if not is_encrypted(app.db_path):
        raise InvalidInputError(f"{app.db_path} is not encrypted", "nothing to do")
    _convert(app, None)
    keys.keyring_delete(app.db_path)


@click.command("rekey")
@keyring_option
@with_app
def rekey(app: App, use_keyring: bool) -> None:
    """Change the passphrase: the old one as usual (keyring, MEMGPT_LOCAL_PASSPHRASE,
    prompt), the new one from MEMGPT_LOCAL_NEW_PASSPHRASE or typed twice."""
    from memgpt_local.memory.db import Database, is_encrypted
    from memgpt_local.privacy import keys

    app.require_file("rekey")
    if not is_encrypted(app.db_path):
        raise InvalidInputError(f"{app.db_path} is not encrypted", "use `memgpt-local encrypt`")
    Database(app.db_path, key=app.db_key()).close()  # a wrong old key fails before asking
    new = keys.new_passphrase(str(app.db_path), keys.NEW_PASSPHRASE_ENV)
    _convert(app, new)
    had_entry = keys.keyring_get(app.db_path) is not None
    _remember(app, new, use_keyring or had_entry)


@click.group("key")
def key_group() -> None:
    """Keep the passphrase of the encrypted memory file in the OS keyring."""


@key_group.command("store")
@with_app
def key_store(app: App) -> None:
    """Check the passphrase (MEMGPT_LOCAL_PASSPHRASE or prompt) and store it in the keyring."""
    from memgpt_local.memory.db import Database
    from memgpt_local.privacy import keys

    app.require_file("key store")
    found = keys.find_key(app.db_path)
    if found is None:
        raise InvalidInputError("no passphrase given", f"set {keys.PASSPHRASE_ENV} or run in a terminal")
    Database(app.db_path, key=found.key).close()
    if not keys.keyring_set(app.db_path, found.key):
        raise StoreError("no usable OS keyring on this machine", f"use {keys.PASSPHRASE_ENV} instead")
    click.echo(f"stored the passphrase of {app.db_path} in the OS keyring")


@key_group.command("forget")
@with_app
def key_forget(app: App) -> None:
    """Remove the passphrase of the memory file from the OS keyring."""
    from memgpt_local.privacy import keys

    app.require_file("key forget")
    gone = keys.keyring_delete(app.db_path)
    click.echo("removed the keyring entry" if gone else "no keyring entry to remove")


# ------------------------------------------------------------------------- forget


def _summarizer(app: App, model: str | None, agent_model: str | None) -> Summarize | None:
    """A summarize(previous, messages) function on ``model`` (or the agent's/default model
    when it is installed), or None when no model can be loaded. Never downloads."""
    from memgpt_local.agent.summarizer import Summarizer
    from memgpt_local.cli.session import SCRIPTED_PREFIX, open_backend
    from memgpt_local.runtime.catalog import resolve_model_path

    name = model or agent_model or app.settings.model.default
    try:
        if not name.startswith(SCRIPTED_PREFIX):
            resolve_model_path(app.data_dir, name)
        backend = open_backend(name, app, interactive=False)
    except MemGPTLocalError as exc:
        if model:
            raise
        click.echo(f"no model to rebuild the summary ({exc})", err=True)
        return None
    return Summarizer(backend).summarize


@click.command("forget")
@click.option("--agent", "agent_name", required=True, help="Agent name.")
@click.option("--search", default=None, help="Forget every message and passage holding TEXT.")
@click.option("--message", "message_id", type=int, default=None, help="Forget one message by id.")
@click.option("--passage", "passage_id", type=int, default=None, help="Forget one passage by id.")
@click.option("--before", default=None, metavar="YYYY-MM-DD", help="Forget everything older.")
@click.option("--source", default=None, help="Forget a loaded document (id, path or name).")
@click.option("--all", "everything", is_flag=True, help="Forget all messages, passages, sources.")
@click.option("--model", default=None, help="Model that rewrites the summary (or scripted:FILE).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@with_app
def forget(
    app: App,
    agent_name: str,
    search: str | None,
    message_id: int | None,
    passage_id: int | None,
    before: str | None,
    source: str | None,
    everything: bool,
    model: str | None,
    yes: bool,
) -> None:
    """Remove memories for good: rows, vectors, index entries, summary, and no trace in the file."""
    from memgpt_local.privacy.forget import Forgetter, Selection

    selection = Selection(search, message_id, passage_id, before, source, everything)
    store = app.store()
    forgetter = Forgetter(store)
    plan = forgetter.plan(agent_name, selection)
    if plan.empty:
        click.echo("nothing to forget")
        return
    click.echo("\n".join(plan.describe()))
    if not yes:
        click.confirm("forget all of this?", abort=True, err=True)
    summarize = _summarizer(app, model, plan.agent.model) if plan.summary_affected and not everything else None
    result = forgetter.apply(plan, summarize)
    _report(result)
    chosen = [
        c
        for c in plan.core_lines
        if yes or click.confirm(f"remove core memory line [{c.label}] {c.line!r}?", default=True, err=True)
    ]
    forgetter.remove_core_lines(plan.agent.id, chosen)
    _remove_model_states(app)
    emptied = forgetter.scrub()
    if app.store_url is not None:
        click.echo(
            f"removed {len(chosen)} core memory line(s); memory tables vacuumed (old row versions may stay "
            "in the database server's WAL, archive and backups until it recycles them)"
        )
        return
    click.echo(
        f"removed {len(chosen)} core memory line(s); file rewritten"
        + ("" if emptied else " (another process still reads the WAL; it is emptied when that process closes)")
    )


def _report(result) -> None:
    click.echo(f"forgot {result.messages} message(s), {result.passages} passage(s), {result.sources} source(s)")
    if result.summary_rebuilt:
        click.echo("the recursive summary was rebuilt without them")
    elif result.summary_flagged:
        click.echo(
            "no model was available: the summary lost the sentences naming the "
            "forgotten text and is flagged as stale (summary_stale in the agent state); "
            "it now reads:",
            err=True,
        )
        click.echo(result.summary or "(empty)", err=True)


def register(cli: click.Group) -> None:
    for command in (init, encrypt, decrypt, rekey, key_group, forget):
        cli.add_command(command)
