"""The SQLite connection: opening the file, loading sqlite-vec, pragmas and transactions.

This is the only module that talks to ``apsw`` directly. ``Database.transaction()`` is
nestable: the outermost level is ``BEGIN IMMEDIATE`` … ``COMMIT``, inner levels are
savepoints, so a caller can group several store calls into one atomic change.

``apsw`` here is the ``apsw-sqlite3mc`` build (SQLite3 Multiple Ciphers): a file opened
with a ``key`` is encrypted page by page (ChaCha20-Poly1305), WAL included; without a key
it is a plain SQLite file. ``is_encrypted`` tells the two apart by the file header.
Writers wait for each other: a busy timeout inside SQLite, then a few retries of
``BEGIN IMMEDIATE`` here, so two processes on one file never see "database is locked"
unless one holds the write lock for minutes.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import apsw
import sqlite_vec

from memgpt_local.errors import KeyRequiredError, StoreError, WrongKeyError

BUSY_TIMEOUT_MS = 10_000
BEGIN_RETRIES = 6  # after the busy timeout: 6 more waits of the timeout, about a minute in all
SQLITE_MAGIC = b"SQLite format 3\x00"
Params = Sequence[Any] | dict[str, Any]


def to_db_time(value: datetime) -> str:
    """A datetime as the stored form: ISO-8601 in UTC with microseconds (sorts lexically)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def day_start(value: date) -> str:
    """The stored form of midnight UTC at the start of ``value``."""
    return f"{value.isoformat()}T00:00:00.000000+00:00"


def from_db_time(text: str) -> datetime:
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def is_encrypted(path: Path) -> bool:
    """Whether ``path`` is a non-empty file that does not start with the SQLite header
    (an encrypted file, or not a database at all: opening it with a key tells which)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except (FileNotFoundError, IsADirectoryError):
        return False
    except OSError as exc:
        raise StoreError(f"cannot read the memory file {path}: {exc.strerror or exc}", "check its permissions") from exc
    return bool(head) and head != SQLITE_MAGIC


def _sql_key(key: str) -> str:
    """A passphrase as the hex literal of its UTF-8 bytes (no quoting problems)."""
    return key.encode("utf-8").hex()


def _dict_rows(cursor: apsw.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip((d[0] for d in cursor.get_description()), row))


class Database:
    """One apsw connection to the memory file with sqlite-vec loaded."""

    def __init__(self, path: Path, *, key: str | None = None):
        """Open ``path``; ``key`` (a passphrase) for an encrypted file or to create one.

        A missing key for an encrypted file raises ``KeyRequiredError``, a wrong one
        ``WrongKeyError``; neither writes anything to the file.
        """
        self.path = Path(path)
        self.encrypted = key is not None
        self._key_hex = _sql_key(key) if key else ""
        self._depth = 0
        self._lock = threading.RLock()
        if key is None and is_encrypted(self.path):
            raise KeyRequiredError(str(self.path))
        try:
            self.conn = apsw.Connection(str(self.path))
        except apsw.Error as exc:
            raise StoreError(
                f"cannot open the memory file {self.path}: {exc}", "check the path and its permissions"
            ) from exc
        if key is not None:
            self._unlock(key)
        try:
            self.conn.enable_load_extension(True)
            self.conn.load_extension(sqlite_vec.loadable_path())
            self.conn.enable_load_extension(False)
            self.conn.set_busy_timeout(BUSY_TIMEOUT_MS)
            # Reading the schema is the first thing that fails on a file that is not SQLite.
            self.conn.execute("SELECT count(*) FROM sqlite_schema").fetchall()
            mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchall()[0][0]
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
        except apsw.Error as exc:
            self.conn.close()
            raise StoreError(
                f"{self.path} is not a usable memory database ({type(exc).__name__}: {exc})",
                "move the file away to start fresh, or restore it from a backup",
            ) from exc
        if str(mode).lower() != "wal" and str(self.path) != ":memory:":
            self.conn.close()
            raise StoreError(
                f"cannot switch {self.path} to WAL mode (got {mode})", "put the data dir on a local file system"
            )

    def _unlock(self, key: str) -> None:
        """Give the key, then read the schema: a wrong key fails here, before any write."""
        if not key:
            self.conn.close()
            raise WrongKeyError(str(self.path), "the passphrase is empty")
        try:
            self.conn.execute(f"PRAGMA hexkey='{_sql_key(key)}'")
            self.conn.execute("SELECT count(*) FROM sqlite_schema").fetchall()
        except apsw.Error as exc:
            self.conn.close()
            if self.path.exists() and not is_encrypted(self.path):
                raise StoreError(
                    f"{self.path} is not encrypted but a key was given",
                    "open it without a key, or run `memgpt-local encrypt`",
                ) from exc
            raise WrongKeyError(str(self.path)) from exc

    # ------------------------------------------------------------------ queries

    def execute(self, sql: str, params: Params = ()) -> None:
        with self._wrap_errors():
            for _ in self.conn.execute(sql, params):
                pass

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        if rows:
            with self._wrap_errors():
                self.conn.executemany(sql, rows)

    def rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        with self._wrap_errors():
            cursor = self.conn.cursor()
            cursor.row_trace = _dict_rows
            return list(cursor.execute(sql, params))

    def one(self, sql: str, params: Params = ()) -> dict[str, Any] | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def scalar(self, sql: str, params: Params = ()) -> Any:
        with self._wrap_errors():
            row = self.conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def last_rowid(self) -> int:
        return self.conn.last_insert_rowid()

    def table_exists(self, name: str) -> bool:
        return bool(self.scalar("SELECT count(*) FROM sqlite_schema WHERE name = ?", (name,)))

    @contextlib.contextmanager
    def _wrap_errors(self) -> Iterator[None]:
        try:
            yield
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            raise StoreError(
                f"the memory file {self.path} is corrupt: {exc}", "restore it from a backup or move it away"
            ) from exc
        except apsw.BusyError as exc:
            raise StoreError(
                f"the memory file {self.path} is locked by another process",
                "close the other memgpt-local process and retry",
            ) from exc

    # ------------------------------------------------------------ transactions

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Commit everything inside on success, roll it all back on error; nestable."""
        with self._lock:
            depth = self._depth
            name = f"sp_{depth}"
            if depth == 0:
                self._begin_immediate()
            else:
                with self._wrap_errors():
                    self.conn.execute(f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if depth == 0:
                    self.conn.execute("ROLLBACK")
                else:
                    self.conn.execute(f"ROLLBACK TO {name}; RELEASE {name}")
                raise
            self._depth -= 1
            with self._wrap_errors():
                self.conn.execute("COMMIT" if depth == 0 else f"RELEASE {name}")

    def _begin_immediate(self) -> None:
        """Take the write lock, waiting out another process's write transaction."""
        for attempt in range(BEGIN_RETRIES + 1):
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                return
            except apsw.BusyError:
                if attempt == BEGIN_RETRIES:
                    break
                time.sleep(0.05 * (attempt + 1))
        with self._wrap_errors():
            self.conn.execute("BEGIN IMMEDIATE")

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def integrity_check(self) -> str:
        results = [row[0] for row in self.conn.execute("PRAGMA integrity_check")]
        return "ok" if results == ["ok"] else "; ".join(str(r) for r in results)

    # ------------------------------------------------------------- file upkeep

    def set_secure_delete(self, on: bool) -> None:
        """With secure_delete on, SQLite overwrites deleted content with zeros."""
        with self._wrap_errors():
            self.conn.execute(f"PRAGMA secure_delete={'ON' if on else 'OFF'}").fetchall()

    def checkpoint_truncate(self) -> bool:
        """Copy the WAL into the file and truncate it to zero bytes; False if a reader
        in another process kept part of it alive."""
        with self._wrap_errors():
            busy, _log, _done = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()[0]
        return not busy

    def vacuum(self) -> None:
        """Rewrite the whole file from its live rows (no free pages keep old data)."""
        if self.in_transaction:
            raise StoreError("VACUUM inside a transaction", "this is a bug in memgpt-local")
        with self._lock, self._wrap_errors():
            self.conn.execute("VACUUM")

    def table_counts(self) -> dict[str, int]:
        """Row counts of every real table (FTS5 and vec0 shadow tables included)."""
        names = [
            r["name"]
            for r in self.rows(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE "
                "'CREATE VIRTUAL TABLE%' ORDER BY name"
            )
        ]
        return {n: self.scalar(f'SELECT count(*) FROM "{n}"') for n in names}

    def copy_to(self, dest: Path, key: str | None) -> None:
        """Write a consistent copy of this file to ``dest`` (which must not exist),
        encrypted with ``key`` or plain when ``key`` is None, and fsync it.

        The copy is made by SQLite's online backup into a file with the source's own key,
        then re-keyed in place (rollback journal mode, as re-keying needs) and put back
        into WAL mode. An interruption leaves at most a stray ``dest``.
        """
        dest = Path(dest)
        if dest.exists():
            raise StoreError(f"{dest} exists", "remove the leftover file and retry")
        target = apsw.Connection(str(dest))
        try:
            if self.encrypted:
                target.execute(f"PRAGMA hexkey='{self._key_hex}'")
            with self._wrap_errors(), target.backup("main", self.conn, "main") as backup:
                while not backup.done:
                    backup.step(1024)
            target.execute("PRAGMA journal_mode=DELETE").fetchall()
            target.execute(f"PRAGMA hexrekey='{_sql_key(key) if key else ''}'").fetchall()
            target.execute("PRAGMA journal_mode=WAL").fetchall()
        except apsw.Error as exc:
            raise StoreError(
                f"cannot write a copy of {self.path} to {dest}: {exc}", "check free disk space and retry"
            ) from exc
        finally:
            target.close()
        fsync_path(dest)

    def close(self) -> None:
        self.conn.close()


def fsync_path(path: Path) -> None:
    """fsync a file, or a directory (so a rename in it is durable)."""
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if Path(path).is_dir() else 0)
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
