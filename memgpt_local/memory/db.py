"""The SQLite connection: opening the file, loading sqlite-vec, pragmas and transactions.

This is the only module that talks to ``apsw`` directly. ``Database.transaction()`` is
nestable: the outermost level is ``BEGIN IMMEDIATE`` … ``COMMIT``, inner levels are
savepoints, so a caller can group several store calls into one atomic change.
"""

from __future__ import annotations

import contextlib
import threading
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

import apsw
import sqlite_vec

from memgpt_local.errors import StoreError

BUSY_TIMEOUT_MS = 10_000
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


def _dict_rows(cursor: apsw.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip((d[0] for d in cursor.get_description()), row))


class Database:
    """One apsw connection to the memory file with sqlite-vec loaded."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._depth = 0
        self._lock = threading.RLock()
        try:
            self.conn = apsw.Connection(str(self.path))
        except apsw.Error as exc:
            raise StoreError(f"cannot open the memory file {self.path}: {exc}",
                             "check the path and its permissions") from exc
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
            raise StoreError(f"cannot switch {self.path} to WAL mode (got {mode})",
                             "put the data dir on a local file system")

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
            raise StoreError(f"the memory file {self.path} is corrupt: {exc}",
                             "restore it from a backup or move it away") from exc
        except apsw.BusyError as exc:
            raise StoreError(f"the memory file {self.path} is locked by another process",
                             "close the other memgpt-local process and retry") from exc

    # ------------------------------------------------------------ transactions

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Commit everything inside on success, roll it all back on error; nestable."""
        with self._lock:
            depth = self._depth
            name = f"sp_{depth}"
            with self._wrap_errors():
                self.conn.execute("BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT {name}")
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

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def integrity_check(self) -> str:
        results = [row[0] for row in self.conn.execute("PRAGMA integrity_check")]
        return "ok" if results == ["ok"] else "; ".join(str(r) for r in results)

    def close(self) -> None:
        self.conn.close()
