"""Encrypting, decrypting and re-keying a memory file, safely.

A conversion never rewrites the file in place: it copies it (SQLite's online backup)
into ``memory.db.converting`` with the new key (or none), checks the copy (integrity and
the row count of every table, FTS5 and vector shadow tables included), and only then
renames it over the original, an atomic step. An interruption at any point before the
rename leaves the original untouched; the stray copy is removed by the next conversion.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from memgpt_local.errors import StoreError
from memgpt_local.memory.db import Database, fsync_path

SIDECARS = ("", "-wal", "-shm", "-journal")


@dataclass
class Conversion:
    path: Path
    was_encrypted: bool
    now_encrypted: bool
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return sum(self.counts.values())

    def describe(self) -> str:
        state = {True: "encrypted", False: "plain"}
        return (
            f"{self.path}: {state[self.was_encrypted]} -> {state[self.now_encrypted]}, "
            f"{len(self.counts)} tables, {self.rows} rows verified"
        )


def temp_path(path: Path) -> Path:
    return path.with_name(path.name + ".converting")


def _remove(path: Path) -> None:
    for suffix in SIDECARS:
        Path(str(path) + suffix).unlink(missing_ok=True)


def verify_copy(path: Path, key: str | None, expected: dict[str, int]) -> None:
    """Open the copy with its new key; its integrity and row counts must match."""
    copy = Database(path, key=key)
    try:
        problem = copy.integrity_check()
        counts = copy.table_counts()
    finally:
        copy.close()
    if problem != "ok":
        raise StoreError(
            f"the converted copy failed its integrity check: {problem}",
            "the original was kept; check free disk space and retry",
        )
    if counts != expected:
        diff = {
            k: (expected.get(k), counts.get(k)) for k in set(expected) | set(counts) if expected.get(k) != counts.get(k)
        }
        raise StoreError(f"the converted copy lost rows: {diff}", "the original was kept")


def convert(path: Path, *, old_key: str | None, new_key: str | None) -> Conversion:
    """Rewrite ``path`` under ``new_key`` (None: plain) via a verified copy and a rename."""
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"no memory file at {path}", "create one with `memgpt-local init`")
    tmp = temp_path(path)
    _remove(tmp)
    source = Database(path, key=old_key)
    try:
        problem = source.integrity_check()
        if problem != "ok":
            raise StoreError(
                f"{path} failed its integrity check ({problem}); not converting", "restore it from a backup first"
            )
        counts = source.table_counts()
        source.copy_to(tmp, new_key)
        verify_copy(tmp, new_key, counts)
        if source.table_counts() != counts:
            raise StoreError(
                f"{path} changed while it was being converted", "close other memgpt-local processes and retry"
            )
    except BaseException:
        source.close()
        _remove(tmp)
        raise
    source.close()
    if Path(str(path) + "-wal").exists():
        _remove(tmp)
        raise StoreError(f"another process has {path} open", "close it and retry")
    try:
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise
    fsync_path(path.parent)
    Path(str(path) + "-shm").unlink(missing_ok=True)
    return Conversion(path, old_key is not None, new_key is not None, counts)
