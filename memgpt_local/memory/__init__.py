"""Long-term memory of every agent in one SQLite file (or, experimentally, a Postgres database).

``open_store(path, embedder)`` opens (creating and migrating) the file and returns a
``MemoryStore`` with one sub-store per kind of memory: agents, core blocks, recall
(messages), archival (passages) and sources (documents). Given a ``postgresql://`` URL it
opens a ``memory.postgres`` store instead; both satisfy ``memory.protocol.Store``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, overload

from memgpt_local.errors import EmbedderMismatchError
from memgpt_local.memory import migrations
from memgpt_local.memory.agents import AgentStore
from memgpt_local.memory.archival import ArchivalStore, NewPassage
from memgpt_local.memory.core import CoreMemoryStore
from memgpt_local.memory.db import Database
from memgpt_local.memory.embed import Embedder
from memgpt_local.memory.protocol import Store
from memgpt_local.memory.recall import RecallStore
from memgpt_local.memory.search import MESSAGES, PASSAGES, SearchTuning, Target, write_vectors
from memgpt_local.memory.sources import SourceStore

if TYPE_CHECKING:
    from memgpt_local.memory.postgres.store import PostgresMemoryStore

__all__ = ["MemoryStore", "open_store", "SearchTuning", "NewPassage", "Embedder", "Store"]

Progress = Callable[[int, int], None]
POSTGRES_SCHEMES = ("postgresql://", "postgres://")  # a string starting so names a server, not a file


class MemoryStore:
    """All memory stores over one database connection; close it when done."""

    def __init__(self, db: Database, embedder: Embedder, tuning: SearchTuning | None = None):
        self.db = db
        self.embedder = embedder
        self.tuning = tuning or SearchTuning()
        self.core = CoreMemoryStore(db)
        self.agents = AgentStore(db, self.core)
        self.recall = RecallStore(db, embedder, self.tuning)
        self.archival = ArchivalStore(db, embedder, self.tuning)
        self.sources = SourceStore(db)

    @property
    def path(self) -> Path:
        return self.db.path

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Everything inside commits or rolls back together; nestable (savepoints)."""
        return self.db.transaction()

    def integrity_check(self) -> str:
        """ "ok", or what is wrong: SQLite's check, both FTS5 indexes and the vector index."""
        problems = [] if (res := self.db.integrity_check()) == "ok" else [res]
        for target in (MESSAGES, PASSAGES):
            try:
                self.db.execute(f"INSERT INTO {target.fts}({target.fts}) VALUES ('integrity-check')")
            except Exception as exc:  # apsw reports a broken index as CorruptError
                problems.append(f"{target.fts}: {exc}")
            vectors = self.db.scalar(f"SELECT count(*) FROM {target.embeddings}")
            bits = self.db.scalar(f"SELECT count(*) FROM {target.bits}")
            orphans = self.db.scalar(
                f"SELECT count(*) FROM {target.embeddings} e LEFT JOIN "
                f"{target.base} b ON b.id = e.{target.key} WHERE b.id IS NULL"
            )
            if vectors != bits or orphans:
                problems.append(f"{target.bits}: {bits} bit vectors for {vectors} vectors, {orphans} without a row")
        return "; ".join(problems) or "ok"

    def scrub(self) -> bool:
        """Leave no trace of deleted rows in the file; False if another process's reader
        kept the WAL from being emptied (it is emptied when that process closes the file).

        Rebuilds both FTS5 indexes from their tables and merges them into one segment (old
        terms gone), rebuilds both bit-vector indexes, then checkpoints the WAL with TRUNCATE,
        rewrites the whole file with VACUUM and truncates the WAL again. Call it after
        deleting with ``db.set_secure_delete(True)``.
        """
        _, dim = self.stored_embedder()
        with self.db.transaction():
            for target in (MESSAGES, PASSAGES):
                self.db.execute(f"INSERT INTO {target.fts}({target.fts}) VALUES ('rebuild')")
                self.db.execute(f"INSERT INTO {target.fts}({target.fts}) VALUES ('optimize')")
                self.db.execute(f"DROP TABLE {target.bits}")
                self.db.execute(
                    f"CREATE VIRTUAL TABLE {target.bits} USING vec0("
                    f"agent_id integer partition key, embedding bit[{dim}])"
                )
                self.db.execute(
                    f"INSERT INTO {target.bits}(rowid, agent_id, embedding) "
                    f"SELECT e.{target.key}, b.agent_id, vec_quantize_binary(e.embedding) "
                    f"FROM {target.embeddings} e JOIN {target.base} b ON b.id = e.{target.key}"
                )
        emptied = self.db.checkpoint_truncate()
        self.db.vacuum()
        return self.db.checkpoint_truncate() and emptied

    def stored_embedder(self) -> tuple[str, int]:
        """(name, dimension) of the embedder the stored vectors were made with."""
        return (
            migrations.get_meta(self.db, "embedder_name") or "",
            int(migrations.get_meta(self.db, "embedder_dim") or 0),
        )

    def embed_missing(self) -> int:
        """Embed the searchable messages that have no vector (a migration changed their text);
        returns how many, and clears the ``vectors_missing`` flag that asks for it."""
        rows = self.db.rows(
            "SELECT m.id, m.search_text AS text FROM messages m LEFT JOIN message_embeddings e "
            "ON e.message_id = m.id WHERE m.search_text != '' AND e.message_id IS NULL ORDER BY m.id"
        )
        with self.db.transaction():
            for start in range(0, len(rows), 256):
                chunk = rows[start : start + 256]
                vectors = self.embedder.embed([r["text"] for r in chunk])
                write_vectors(self.db, MESSAGES, [r["id"] for r in chunk], vectors)
            migrations.set_meta(self.db, migrations.VECTORS_MISSING, 0)
        return len(rows)

    def reembed(self, progress: Progress | None = None) -> int:
        """Rebuild every vector with the current embedder in one transaction; return the count."""
        with self.db.transaction():
            work: list[tuple[Target, list[int], list[str]]] = []
            for target, column in ((PASSAGES, "text"), (MESSAGES, "search_text")):
                rows = self.db.rows(f"SELECT id, {column} AS text FROM {target.base} WHERE {column} != '' ORDER BY id")
                work.append((target, [r["id"] for r in rows], [r["text"] for r in rows]))
            total = sum(len(ids) for _, ids, _ in work)
            done = 0
            _, stored_dim = self.stored_embedder()
            for target, ids, texts in work:
                self.db.execute(f"DELETE FROM {target.embeddings}")
                if stored_dim != self.embedder.dim:
                    self.db.execute(f"DROP TABLE {target.bits}")
                    self.db.execute(
                        f"CREATE VIRTUAL TABLE {target.bits} USING vec0("
                        f"agent_id integer partition key, "
                        f"embedding bit[{self.embedder.dim}])"
                    )
                for start in range(0, len(ids), 256):
                    chunk = slice(start, start + 256)
                    write_vectors(self.db, target, ids[chunk], self.embedder.embed(texts[chunk]))
                    done += len(ids[chunk])
                    if progress is not None:
                        progress(done, total)
            migrations.set_meta(self.db, "embedder_name", self.embedder.name)
            migrations.set_meta(self.db, "embedder_dim", self.embedder.dim)
        return total

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@overload
def open_store(
    path: Path,
    embedder: Embedder,
    *,
    check_embedder: bool = True,
    tuning: SearchTuning | None = None,
    key: str | None = None,
) -> MemoryStore: ...


@overload
def open_store(
    path: str,
    embedder: Embedder,
    *,
    check_embedder: bool = True,
    tuning: SearchTuning | None = None,
    key: str | None = None,
) -> MemoryStore | PostgresMemoryStore: ...


def open_store(
    path: Path | str,
    embedder: Embedder,
    *,
    check_embedder: bool = True,
    tuning: SearchTuning | None = None,
    key: str | None = None,
) -> MemoryStore | PostgresMemoryStore:
    """Open the memory file, creating or migrating it; a ``postgresql://`` URL (a string)
    opens a Postgres store instead (``memory.postgres.store.open_postgres_store``).

    Raises ``StoreError`` for a file that is not a usable database, ``SchemaTooNewError``
    for one written by a newer version and, unless ``check_embedder`` is false (as for
    ``reembed``), ``EmbedderMismatchError`` when its vectors came from another embedder.
    ``key`` opens (or creates) an encrypted file; ``KeyRequiredError``/``WrongKeyError``
    when it is missing or wrong.
    """
    if isinstance(path, str) and path.startswith(POSTGRES_SCHEMES):
        from memgpt_local.memory.postgres.store import open_postgres_store

        return open_postgres_store(path, embedder, check_embedder=check_embedder, tuning=tuning, key=key)
    db = Database(Path(path), key=key)
    try:
        migrations.ensure_bookkeeping(db)
        migrations.check_version(db)
        with db.transaction():
            if migrations.get_meta(db, "embedder_name") is None:
                migrations.set_meta(db, "embedder_name", embedder.name)
                migrations.set_meta(db, "embedder_dim", embedder.dim)
        stored_name = migrations.get_meta(db, "embedder_name") or ""
        stored_dim = int(migrations.get_meta(db, "embedder_dim") or 0)
        migrations.migrate(db, stored_dim)
        if check_embedder and (stored_name, stored_dim) != (embedder.name, embedder.dim):
            raise EmbedderMismatchError(stored_name, stored_dim, embedder.name, embedder.dim)
        store = MemoryStore(db, embedder, tuning)
        if check_embedder and migrations.get_meta(db, migrations.VECTORS_MISSING) == "1":
            store.embed_missing()
        return store
    except BaseException:
        db.close()
        raise


if TYPE_CHECKING:
    _SQLITE_IS_A_STORE: type[Store] = MemoryStore  # mypy checks the facade against the protocol
