"""Shared CLI plumbing: the per-invocation ``App`` context, ``--data-dir`` and error display.

Commands stay thin: they parse, call into ``memory``/``runtime``/``agent`` and print.
Every user-facing failure is a ``MemGPTLocalError`` turned into one line on stderr and
exit status 1 by ``ErrorHandlingGroup``; nothing reaches the user as a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memgpt_local.config import DB_NAME, Settings, load_settings, resolve_data_dir
from memgpt_local.errors import MemGPTLocalError

if TYPE_CHECKING:  # memory/ loads numpy and SQLite: imported when first used
    from memgpt_local.memory import MemoryStore
    from memgpt_local.memory.embed import Embedder

F = TypeVar("F", bound=Callable[..., Any])


class App:
    """What one CLI invocation works with; heavy parts (db, embedder) open lazily."""

    def __init__(self, data_dir: str | Path | None = None) -> None:
        self._explicit_dir = data_dir
        self._data_dir: Path | None = None
        self._settings: Settings | None = None
        self._embedder: Embedder | None = None
        self._store: MemoryStore | None = None
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

            self._key = key_for(self.db_path)
            self._key_known = True
        return self._key

    def store(self) -> MemoryStore:
        if self._store is None:
            from memgpt_local.memory import open_store

            key = self.db_key()
            self._store = open_store(self.db_path, self.embedder(), key=key)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def with_app(func: F) -> F:
    """Add ``--data-dir`` to a command and pass it an ``App`` as first argument.

    ``--data-dir`` works both on the top-level group and on each command; the command's
    own flag wins.
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
    def wrapper(ctx: click.Context, *args: Any, data_dir: Path | None = None, **kwargs: Any) -> Any:
        root = ctx.find_root()
        chosen = data_dir or (root.obj or {}).get("data_dir")
        app = App(chosen)
        try:
            return func(app, *args, **kwargs)
        finally:
            app.close()

    return wrapper  # type: ignore[return-value]


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
