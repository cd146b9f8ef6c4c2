"""Long-term memory of every agent in one SQLite file (or, experimentally, a Postgres database).

``open_store(path, embedder)`` opens (creating and migrating) the file and returns a
``MemoryStore`` with one sub-store per kind of memory: agents, core blocks, recall
(messages), archival (passages) and sources (documents). Given a ``postgresql://`` URL it
opens a ``memory.postgres`` store instead; both satisfy ``memory.protocol.Store``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, overload

import numpy as np

from memgpt_local.config import POSTGRES_SCHEMES
from memgpt_local.memory import migrations
from memgpt_local.memory.agents import AgentStore
from memgpt_local.memory.archival import ArchivalStore
from memgpt_local.memory.cells import cells_sql, drop_cells_sql
from memgpt_local.memory.common.archival import NewPassage
from memgpt_local.memory.common.embedding import ToEmbed
from memgpt_local.memory.common.query import SearchTuning
from memgpt_local.memory.common.store import MemoryStoreBase
from memgpt_local.memory.core import CoreMemoryStore
from memgpt_local.memory.db import Database
from memgpt_local.memory.embed import Embedder
from memgpt_local.memory.protocol import Store
from memgpt_local.memory.recall import RecallStore
from memgpt_local.memory.search import MESSAGES, PASSAGES, Target, write_vectors
from memgpt_local.memory.sources import SourceStore

if TYPE_CHECKING:
    from memgpt_local.memory.postgres.store import PostgresMemoryStore

__all__ = ["MemoryStore", "open_store", "SearchTuning", "NewPassage", "Embedder", "Store", "POSTGRES_SCHEMES"]


class MemoryStore(MemoryStoreBase[Database, Target]):
    """All memory stores over one database connection; close it when done."""

    _schema = migrations

    def __init__(self, db: Database, embedder: Embedder, tuning: SearchTuning | None = None):
        super().__init__(db, embedder, tuning)
        self.core = CoreMemoryStore(db)
        self.agents = AgentStore(db, self.core)
        self.recall = RecallStore(db, embedder, self.tuning)
        self.archival = ArchivalStore(db, embedder, self.tuning)
        self.sources = SourceStore(db)

    @property
    def path(self) -> Path:
        return self.db.path

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
            clustered = [r["agent_id"] for r in self.db.rows("SELECT agent_id FROM passage_clusters")]
            for target in (MESSAGES, PASSAGES):
                self.db.execute(f"INSERT INTO {target.fts}({target.fts}) VALUES ('rebuild')")
                self.db.execute(f"INSERT INTO {target.fts}({target.fts}) VALUES ('optimize')")
                self._new_bit_index(target, dim)
                self.db.execute(
                    f"INSERT INTO {target.bits}(rowid, agent_id, embedding) "
                    f"SELECT e.{target.key}, b.agent_id, vec_quantize_binary(e.embedding) "
                    f"FROM {target.embeddings} e JOIN {target.base} b ON b.id = e.{target.key}"
                )
            for agent_id in clustered:  # the clusters' tables were made anew: cluster again
                self.archival.cells.build(agent_id)
        emptied = self.db.checkpoint_truncate()
        self.db.vacuum()
        return self.db.checkpoint_truncate() and emptied

    def _new_bit_index(self, target: Target, dim: int) -> None:
        """Replace ``target``'s bit-vector index with an empty one for ``dim`` dimensions (for
        passages, the clusters' tables too: memory/cells.py)."""
        self.db.execute(f"DROP TABLE {target.bits}")
        self.db.execute(
            f"CREATE VIRTUAL TABLE {target.bits} USING vec0(agent_id integer partition key, embedding bit[{dim}])"
        )
        if target is PASSAGES:
            self.db.execute(drop_cells_sql())
            self.db.execute(cells_sql(dim))

    # ------------------------------------------------------------ MemoryStoreBase's hooks

    def _searchable(self) -> list[ToEmbed[Target]]:
        return [
            ToEmbed.of_rows(
                target, self.db.rows(f"SELECT id, {column} AS text FROM {target.base} WHERE {column} != '' ORDER BY id")
            )
            for target, column in ((PASSAGES, "text"), (MESSAGES, "search_text"))
        ]

    def _messages_without_vectors(self) -> ToEmbed[Target]:
        rows = self.db.rows(
            "SELECT m.id, m.search_text AS text FROM messages m LEFT JOIN message_embeddings e "
            "ON e.message_id = m.id WHERE m.search_text != '' AND e.message_id IS NULL ORDER BY m.id"
        )
        return ToEmbed.of_rows(MESSAGES, rows)

    def _write_vectors(self, kind: Target, ids: list[int], vectors: np.ndarray) -> None:
        write_vectors(self.db, kind, ids, vectors)

    def _drop_vectors(self, new_dim: bool) -> None:
        for target in (PASSAGES, MESSAGES):
            self.db.execute(f"DELETE FROM {target.embeddings}")
            if new_dim:
                self._new_bit_index(target, self.embedder.dim)
        if not new_dim:  # centroids of another embedder's vectors: the next insert clusters anew
            self.db.execute(drop_cells_sql())
            self.db.execute(cells_sql(self.embedder.dim))


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
    return MemoryStore.opened(Database(Path(path), key=key), embedder, check_embedder=check_embedder, tuning=tuning)


if TYPE_CHECKING:
    _SQLITE_IS_A_STORE: type[Store] = MemoryStore  # mypy checks the facade against the protocol
