"""The Postgres memory store: the facade over one connection, and opening it by URL.

``open_postgres_store(url, embedder)`` connects, migrates (``postgres.migrations``) and returns a
``PostgresMemoryStore`` with the same sub-stores and methods as the SQLite file's
``MemoryStore`` (``memory.protocol.Store`` is what both provide). What is SQLite-file specific
has no counterpart here: a ``key`` (memgpt-local encrypts only the file; use the server's
encryption at rest) is refused, and ``scrub`` (rewriting the file so deleted rows leave no
bytes) is replaced by ``vacuum`` (see there for what it does and does not promise).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memgpt_local.errors import StoreError
from memgpt_local.memory.common.embedding import ToEmbed
from memgpt_local.memory.common.query import SearchTuning
from memgpt_local.memory.common.schema import VECTORS_MISSING
from memgpt_local.memory.common.store import MemoryStoreBase
from memgpt_local.memory.embed import Embedder
from memgpt_local.memory.postgres import migrations
from memgpt_local.memory.postgres.agents import PgAgentStore
from memgpt_local.memory.postgres.archival import PgArchivalStore
from memgpt_local.memory.postgres.core import PgCoreMemoryStore
from memgpt_local.memory.postgres.db import PostgresDatabase, vector_text
from memgpt_local.memory.postgres.recall import PgRecallStore
from memgpt_local.memory.postgres.sources import PgSourceStore

if TYPE_CHECKING:
    from memgpt_local.memory.protocol import Store

SEARCHABLE = (("passages", "text"), ("messages", "search_text"))  # (table, the column it embeds)
TABLES = ("agents", "core_blocks", "messages", "sources", "passages", "meta")


class PostgresMemoryStore(MemoryStoreBase[PostgresDatabase, str]):
    """All memory stores over one Postgres connection; close it when done.

    Its vectors are kept by table (``messages``, ``passages``): a ``vector`` column of the row.
    """

    _schema = migrations

    def __init__(self, db: PostgresDatabase, embedder: Embedder, tuning: SearchTuning | None = None):
        super().__init__(db, embedder, tuning)
        self.core = PgCoreMemoryStore(db)
        self.agents = PgAgentStore(db, self.core)
        self.recall = PgRecallStore(db, embedder, self.tuning)
        self.archival = PgArchivalStore(db, embedder, self.tuning)
        self.sources = PgSourceStore(db)

    @property
    def location(self) -> str:
        """The server and database, as a URL without its password."""
        return self.db.where

    def integrity_check(self) -> str:
        """ "ok", or what is wrong: the vector columns' dimension against the stored embedder's,
        the search indexes (present and valid), and rows whose vector does not match their
        searchable text (a vector without text, or a searchable row without one)."""
        problems: list[str] = []
        _, dim = self.stored_embedder()
        for table, column in SEARCHABLE:
            declared = self.db.scalar(
                "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                "WHERE attrelid = to_regclass(%s) AND attname = 'embedding'",
                (table,),
            )
            if declared != f"vector({dim})":
                problems.append(f"{table}.embedding is {declared}, the embedder's vectors have {dim} dimensions")
            stray = self.db.scalar(f"SELECT count(*) FROM {table} WHERE {column} = '' AND embedding IS NOT NULL")
            missing = self.db.scalar(f"SELECT count(*) FROM {table} WHERE {column} != '' AND embedding IS NULL")
            if stray:
                problems.append(f"{table}: {stray} vectors of rows with no searchable text")
            if missing and self._get_meta(VECTORS_MISSING) != "1":
                problems.append(f"{table}: {missing} searchable rows without a vector")
        names = [index for index, _ in migrations.VECTOR_INDEXES] + list(migrations.TEXT_INDEXES)
        valid = {
            r["name"]: r["indisvalid"]
            for r in self.db.rows(
                "SELECT c.relname AS name, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                "WHERE c.relname = ANY(%s) AND pg_table_is_visible(c.oid)",
                (names,),
            )
        }
        problems += [f"index {n} is {'invalid' if n in valid else 'missing'}" for n in names if not valid.get(n)]
        return "; ".join(problems) or "ok"

    def vacuum(self) -> None:
        """What replaces the SQLite file's ``scrub``: ``VACUUM`` of the memory tables, so the
        space of deleted rows (and their index entries) is reclaimed and reused.

        It does not promise what ``scrub`` does for the file: old row versions stay in the
        server's WAL segments until the server recycles them, and in any WAL archive, replica
        or backup; erasing those is the server operator's job.
        """
        if self.db.in_transaction:
            raise StoreError("VACUUM inside a transaction", "this is a bug in memgpt-local")
        for table in TABLES:
            self.db.execute(f"VACUUM {table}")

    # ------------------------------------------------------------ MemoryStoreBase's hooks

    def _lock_schema(self) -> None:
        self.db.execute("SELECT pg_advisory_xact_lock(%s)", (migrations.MIGRATION_LOCK,))

    def _searchable(self) -> list[ToEmbed[str]]:
        return [
            ToEmbed.of_rows(
                table, self.db.rows(f"SELECT id, {column} AS text FROM {table} WHERE {column} != '' ORDER BY id")
            )
            for table, column in SEARCHABLE
        ]

    def _messages_without_vectors(self) -> ToEmbed[str]:
        rows = self.db.rows(
            "SELECT id, search_text AS text FROM messages WHERE search_text != '' AND embedding IS NULL ORDER BY id"
        )
        return ToEmbed.of_rows("messages", rows)

    def _write_vectors(self, kind: str, ids: list[int], vectors: np.ndarray) -> None:
        self.db.executemany(
            f"UPDATE {kind} SET embedding = %s::vector WHERE id = %s",
            [(vector_text(v), int(i)) for i, v in zip(ids, vectors)],
        )

    def _drop_vectors(self, new_dim: bool) -> None:
        """With another dimension the vector columns change type, and their HNSW indexes are
        dropped (``_vectors_rebuilt`` builds them again once the new vectors are in)."""
        if new_dim:
            for index, _ in migrations.VECTOR_INDEXES:
                self.db.execute(f"DROP INDEX {index}")
        for table, _ in SEARCHABLE:
            if new_dim:
                self.db.execute(
                    f"ALTER TABLE {table} ALTER COLUMN embedding TYPE vector({int(self.embedder.dim)}) USING NULL"
                )
            else:
                self.db.execute(f"UPDATE {table} SET embedding = NULL WHERE embedding IS NOT NULL")

    def _vectors_rebuilt(self, new_dim: bool) -> None:
        if new_dim:
            migrations.create_vector_indexes(self.db)


def open_postgres_store(
    url: str,
    embedder: Embedder,
    *,
    check_embedder: bool = True,
    tuning: SearchTuning | None = None,
    key: str | None = None,
) -> PostgresMemoryStore:
    """Connect to the database at ``url``, creating or migrating its tables.

    Raises ``StoreError`` when the server cannot be reached or lacks pgvector, or when a
    ``key`` is given (only the SQLite file is encrypted by memgpt-local), ``SchemaTooNewError``
    for tables written by a newer version and, unless ``check_embedder`` is false (as for
    ``reembed``), ``EmbedderMismatchError`` when the vectors came from another embedder.
    """
    if key is not None:
        raise StoreError(
            "a passphrase encrypts the SQLite memory file; a Postgres memory store is not encrypted by memgpt-local",
            "unset MEMGPT_LOCAL_PASSPHRASE (and the keyring entry) and use the server's encryption at rest",
        )
    return PostgresMemoryStore.opened(PostgresDatabase(url), embedder, check_embedder=check_embedder, tuning=tuning)


if TYPE_CHECKING:
    _POSTGRES_IS_A_STORE: type[Store] = PostgresMemoryStore  # mypy checks the facade against the protocol
