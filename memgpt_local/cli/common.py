"""Shared CLI plumbing: the per-invocation ``App`` context, ``--data-dir`` and error display.

Commands stay thin: they parse, call into ``memory``/``runtime``/``agent`` and print.
Every user-facing failure is a ``MemGPTLocalError`` turned into one line on stderr and
exit status 1 by ``ErrorHandlingGroup``; nothing reaches the user as a traceback.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memgpt_local.config import (
    DB_NAME,
    POSTGRES_SCHEMES,
    STORE_ENV,
    Settings,
    load_settings,
    redacted_url,
    resolve_data_dir,
)
from memgpt_local.errors import InvalidInputError, MemGPTLocalError

if TYPE_CHECKING:  # memory/ loads numpy and SQLite: imported when first used
    from memgpt_local.memory.embed import Embedder
    from memgpt_local.memory.protocol import Store

F = TypeVar("F", bound=Callable[..., Any])

STORE_HELP = (
    "Keep the memory in this PostgreSQL database (postgresql://USER:PASSWORD@HOST:PORT/DBNAME; "
    "default: $MEMGPT_LOCAL_STORE, else store.url in config.toml, else memory.db in the data dir)."
)


class App:
    """What one CLI invocation works with; heavy parts (db, embedder) open lazily."""

    def __init__(self, data_dir: str | Path | None = None, store_url: str | None = None) -> None:
        self._explicit_dir = data_dir
        self._explicit_store = store_url
        self._data_dir: Path | None = None
        self._settings: Settings | None = None
        self._embedder: Embedder | None = None
        self._store: Store | None = None
        self._key: str | None = None
        self._key_known = False

    @property
    def data_dir(self) -> Path:
        if self._data_dir is None:
            self._data_dir = resolve_data_dir(self._explicit_dir)
        return self._data_dir

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings(self.data_dir)
        return self._settings

    @property
    def db_path(self) -> Path:
        return self.data_dir / DB_NAME

    @property
    def store_url(self) -> str | None:
        """The Postgres database the memory lives in (--store, else $MEMGPT_LOCAL_STORE, else
        ``store.url`` in config.toml); None for the memory file ``db_path``."""
        url = self._explicit_store or os.environ.get(STORE_ENV) or self.settings.store.url
        if url and not url.startswith(POSTGRES_SCHEMES):
            raise InvalidInputError(
                f"{redacted_url(url)} is not a store URL",
                "give a postgresql://USER:PASSWORD@HOST:PORT/DBNAME URL, or leave --store out for the memory file",
            )
        return url or None

    @property
    def store_name(self) -> str:
        """Where the memory lives, for messages: the file's path or the URL without its password."""
        url = self.store_url
        return redacted_url(url) if url else str(self.db_path)

    @property
    def state_anchor(self) -> Path:
        """The name the agents' saved model states are kept beside (``runtime.kv_state``): the
        memory file, or for a database a name in the data dir derived from its URL."""
        url = self.store_url
        if url is None:
            return self.db_path
        digest = hashlib.sha256(redacted_url(url).encode()).hexdigest()[:12]
        return self.data_dir / f"postgres-{digest}"

    def require_file(self, command: str) -> None:
        """A one-line error when the memory lives in a database, for ``command``, which works
        on the memory file only."""
        if self.store_url is not None:
            raise InvalidInputError(
                f"`{command}` works on the memory file, and this memory lives in {self.store_name}",
                "leave out --store (and MEMGPT_LOCAL_STORE, store.url) to use the file; "
                "for a database, use the server's own tools",
            )

    def embedder(self) -> Embedder:
        if self._embedder is None:
            from memgpt_local.memory.embed import make_embedder

            self._embedder = make_embedder(self.settings.embedder)
        return self._embedder

    def db_key(self) -> str | None:
        """The passphrase of an encrypted memory file (keyring, environment, prompt);
        None for a plain one."""
        if not self._key_known:
            from memgpt_local.privacy.keys import key_for

            self._key = None if self.store_url else key_for(self.db_path)
            self._key_known = True
        return self._key

    def open_store(self, *, check_embedder: bool = True) -> Store:
        """A new connection to the memory (the file or the database); the caller closes it."""
        from memgpt_local.memory import open_store

        url = self.store_url
        if url is not None:
            return open_store(url, self.embedder(), check_embedder=check_embedder)
        return open_store(self.db_path, self.embedder(), check_embedder=check_embedder, key=self.db_key())

    def store(self) -> Store:
        """The invocation's connection to the memory, opened on first use."""
        if self._store is None:
            self._store = self.open_store()
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def with_data_dir(func: F) -> F:
    """Add ``--data-dir`` to a command and pass it an ``App`` as first argument.

    ``--data-dir`` works both on the top-level group and on each command; the command's
    own flag wins. For commands that never open the memory (models, config, evaluations,
    which build their own stores); the others use ``with_app``.
    """

    @click.option(
        "--data-dir",
        "data_dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Data directory (default: $MEMGPT_LOCAL_HOME or the user data dir).",
    )
    @click.pass_context
    @functools.wraps(func)
    def wrapper(
        ctx: click.Context, *args: Any, data_dir: Path | None = None, store_url: str | None = None, **kwargs: Any
    ) -> Any:
        root = ctx.find_root().obj or {}
        app = App(data_dir or root.get("data_dir"), store_url or root.get("store_url"))
        try:
            return func(app, *args, **kwargs)
        finally:
            app.close()

    return wrapper  # type: ignore[return-value]


def with_app(func: F) -> F:
    """``with_data_dir`` and ``--store URL`` (like ``--data-dir``, on the group or the
    command): for commands that read or write the memory."""
    return click.option("--store", "store_url", default=None, metavar="URL", help=STORE_HELP)(with_data_dir(func))


class ErrorHandlingGroup(click.Group):
    """A click group that prints ``MemGPTLocalError`` as one line and exits 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemGPTLocalError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def progress_enabled() -> bool:
    """Progress bars go to stderr, only when it is a terminal."""
    return sys.stderr.isatty()
