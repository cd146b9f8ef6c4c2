"""The PostgreSQL connection: connecting by URL, rows as dicts, errors and transactions.

This is the only module that talks to ``psycopg`` directly, and it is imported only when a
store is opened by a ``postgresql://`` URL (a SQLite user never loads psycopg). The method
surface is the one the sub-stores use on the SQLite ``Database``: ``execute``,
``executemany``, ``rows``, ``one``, ``scalar`` and a nestable ``transaction()`` (the outermost
level is ``BEGIN`` … ``COMMIT``, inner levels are savepoints). Parameters use psycopg's
placeholders (``%s``, ``%(name)s``). Every database error comes out as a ``StoreError`` with
one line saying what failed and how to fix it; the URL in messages never shows a password.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np
import psycopg
from psycopg.rows import dict_row

from memgpt_local.config import redacted_url
from memgpt_local.errors import StoreError

Params = Sequence[Any] | Mapping[str, Any]


def vector_text(vector: np.ndarray) -> str:
    """A float32 vector in pgvector's text form (``[0.1,0.2,...]``), exact for float32."""
    return "[" + ",".join(map(str, np.asarray(vector, dtype=np.float32).reshape(-1).tolist())) + "]"


def utc(value: datetime) -> datetime:
    """A timestamptz as read back, in UTC (as the SQLite file gives it)."""
    return value.astimezone(timezone.utc)


def stored_time(value: datetime) -> datetime:
    """A datetime to store: naive ones are taken as UTC (as ``db.to_db_time`` does)."""
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


class PostgresDatabase:
    """One psycopg connection to the memory database (autocommit outside ``transaction()``)."""

    def __init__(self, url: str):
        self.url = url
        self.where = redacted_url(url)
        self._lock = threading.RLock()
        self._depth = 0
        try:
            self.conn = psycopg.connect(url, autocommit=True, row_factory=dict_row)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot connect to the Postgres memory store {self.where}: {_first_line(exc)}",
                "check that the server runs and the URL (host, port, database, user) is right",
            ) from exc
        self.execute("SET TIME ZONE 'UTC'")

    # ------------------------------------------------------------------ queries

    def execute(self, sql: str, params: Params | None = None) -> None:
        with self._lock, self._wrap_errors():
            self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        if not rows:
            return
        with self._lock, self._wrap_errors(), self.conn.cursor() as cursor:
            cursor.executemany(sql, rows)

    def insert_returning(self, sql: str, rows: Sequence[Params]) -> list[int]:
        """Run an ``INSERT … RETURNING id`` once per row (pipelined); the ids, in row order."""
        if not rows:
            return []
        ids: list[int] = []
        with self._lock, self._wrap_errors(), self.conn.cursor() as cursor:
            cursor.executemany(sql, rows, returning=True)
            while True:
                row = cursor.fetchone()
                assert row is not None, "INSERT … RETURNING gave no row"
                ids.append(int(next(iter(row.values()))))
                if not cursor.nextset():
                    break
        return ids

    def rows(self, sql: str, params: Params | None = None) -> list[dict[str, Any]]:
        with self._lock, self._wrap_errors():
            return self.conn.execute(sql, params).fetchall()

    def one(self, sql: str, params: Params | None = None) -> dict[str, Any] | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def scalar(self, sql: str, params: Params | None = None) -> Any:
        row = self.one(sql, params)
        return None if row is None else next(iter(row.values()))

    def table_exists(self, name: str) -> bool:
        return self.scalar("SELECT to_regclass(%s) IS NOT NULL", (name,)) is True

    @contextlib.contextmanager
    def _wrap_errors(self) -> Iterator[None]:
        try:
            yield
        except psycopg.errors.UndefinedFile as exc:  # CREATE EXTENSION vector on a server without it
            raise StoreError(
                f"the Postgres server at {self.where} lacks an extension: {_first_line(exc)}",
                "install pgvector on the server (or use the pgserver package, which ships it)",
            ) from exc
        except psycopg.errors.InsufficientPrivilege as exc:
            raise StoreError(
                f"the Postgres user may not do this at {self.where}: {_first_line(exc)}",
                "connect as the database's owner, or have an admin run CREATE EXTENSION vector",
            ) from exc
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"lost the connection to the Postgres memory store {self.where}: {_first_line(exc)}",
                "check that the server runs, then retry",
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(
                f"the Postgres memory store {self.where} refused a statement: {_first_line(exc)}",
                "if this repeats, report it as a bug in memgpt-local",
            ) from exc
        except (ValueError, TypeError) as exc:  # psycopg refuses some values before sending them
            raise StoreError(
                f"cannot send a value to the Postgres memory store: {exc}",
                "remove NUL characters from the text",
            ) from exc

    # ------------------------------------------------------------- transactions

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Commit everything inside on success, roll it all back on error; nestable."""
        with self._lock:
            tx = self.conn.transaction()
            with self._wrap_errors():
                tx.__enter__()
            self._depth += 1
            try:
                yield
            except BaseException as exc:
                self._depth -= 1
                with self._wrap_errors():
                    tx.__exit__(type(exc), exc, exc.__traceback__)
                raise
            self._depth -= 1
            with self._wrap_errors():
                tx.__exit__(None, None, None)

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def close(self) -> None:
        self.conn.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
