"""The facade both backends' memory stores share: opening, transactions and the upkeep of the
stored vectors, with the SQL left to each backend.

``memory.MemoryStore`` (the SQLite file) and ``memory.postgres.store.PostgresMemoryStore``
subclass ``MemoryStoreBase``; each builds its sub-stores, names its migrations module (its
``meta`` table and migrations), supplies the hooks (how it finds, writes and drops vectors) and
adds what only it has (``scrub``, ``vacuum``, its own ``integrity_check``).
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

import numpy as np

from memgpt_local.errors import EmbedderMismatchError
from memgpt_local.memory.common.connection import DB
from memgpt_local.memory.common.embedding import Progress, ToEmbed, embed_and_write
from memgpt_local.memory.common.query import SearchTuning
from memgpt_local.memory.common.schema import EMBEDDER_DIM, EMBEDDER_NAME, VECTORS_MISSING, Bookkeeping
from memgpt_local.memory.embed import Embedder

K = TypeVar("K")  # how the backend names where a kind of vector is stored
S = TypeVar("S", bound="MemoryStoreBase[Any, Any]")


class MemoryStoreBase(ABC, Generic[DB, K]):
    """All memory stores over one connection; close it when done.

    A subclass names its migrations module (``_schema``: the ``meta`` table and the
    migrations) and supplies the hooks: ``_lock_schema`` where migrating writers need a lock,
    and for its vectors which rows need one (``_searchable``, ``_messages_without_vectors``),
    how to store one (``_write_vectors``) and how to clear them all for ``reembed``
    (``_drop_vectors``, then ``_vectors_rebuilt``).
    """

    _schema: Bookkeeping[DB]  # the backend's migrations module, set by the subclass

    def __init__(self, db: DB, embedder: Embedder, tuning: SearchTuning | None = None):
        self.db = db
        self.embedder = embedder
        self.tuning = tuning or SearchTuning()

    @classmethod
    def opened(
        cls: type[S], db: DB, embedder: Embedder, *, check_embedder: bool = True, tuning: SearchTuning | None = None
    ) -> S:
        """The store over a just-opened ``db``, migrated; the connection is closed if that fails.

        A new store records ``embedder`` as the one its vectors are made with. Unless
        ``check_embedder`` is false (as for ``reembed``), an ``EmbedderMismatchError`` when the
        stored vectors came from another embedder, and the vectors a migration left missing are
        embedded now.
        """
        store = cls(db, embedder, tuning)
        try:
            store._bring_up_to_date(check_embedder)
        except BaseException:
            db.close()
            raise
        return store

    def _bring_up_to_date(self, check_embedder: bool) -> None:
        # before anything is written: the bookkeeping tables, and whether a newer version wrote them
        self._schema.ensure_bookkeeping(self.db)
        self._schema.check_version(self.db)
        with self.db.transaction():
            self._lock_schema()
            if self._get_meta(EMBEDDER_NAME) is None:
                self._set_meta(EMBEDDER_NAME, self.embedder.name)
                self._set_meta(EMBEDDER_DIM, self.embedder.dim)
        stored_name, stored_dim = self.stored_embedder()
        self._schema.migrate(self.db, stored_dim)
        if check_embedder and (stored_name, stored_dim) != (self.embedder.name, self.embedder.dim):
            raise EmbedderMismatchError(stored_name, stored_dim, self.embedder.name, self.embedder.dim)
        if check_embedder and self._get_meta(VECTORS_MISSING) == "1":
            self.embed_missing()

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Everything inside commits or rolls back together; nestable (savepoints)."""
        return self.db.transaction()

    def stored_embedder(self) -> tuple[str, int]:
        """(name, dimension) of the embedder the stored vectors were made with."""
        return self._get_meta(EMBEDDER_NAME) or "", int(self._get_meta(EMBEDDER_DIM) or 0)

    def embed_missing(self) -> int:
        """Embed the searchable messages that have no vector (a migration changed their text);
        returns how many, and clears the ``vectors_missing`` flag that asks for it."""
        work = self._messages_without_vectors()
        with self.db.transaction():
            embed_and_write(self.embedder, [work], self._write_vectors)
            self._set_meta(VECTORS_MISSING, 0)
        return len(work.ids)

    def reembed(self, progress: Progress | None = None) -> int:
        """Rebuild every vector with the current embedder in one transaction; return the count."""
        with self.db.transaction():
            work = self._searchable()
            _, stored_dim = self.stored_embedder()
            new_dim = stored_dim != self.embedder.dim
            self._drop_vectors(new_dim)
            total = embed_and_write(self.embedder, work, self._write_vectors, progress)
            self._vectors_rebuilt(new_dim)
            self._set_meta(EMBEDDER_NAME, self.embedder.name)
            self._set_meta(EMBEDDER_DIM, self.embedder.dim)
        return total

    def close(self) -> None:
        self.db.close()

    def __enter__(self: S) -> S:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _get_meta(self, key: str) -> str | None:
        return self._schema.get_meta(self.db, key)

    def _set_meta(self, key: str, value: str | int) -> None:
        self._schema.set_meta(self.db, key, value)

    # ------------------------------------------------------------ the backend's hooks

    def _lock_schema(self) -> None:
        """Inside a transaction: keep other processes from migrating until it ends (nothing to
        do where a write transaction already excludes other writers)."""

    @abstractmethod
    def _searchable(self) -> list[ToEmbed[K]]:
        """Every row with searchable text, of each kind that has vectors, by id."""

    @abstractmethod
    def _messages_without_vectors(self) -> ToEmbed[K]:
        """The searchable messages that have no vector, by id."""

    @abstractmethod
    def _write_vectors(self, kind: K, ids: list[int], vectors: np.ndarray) -> None:
        """Store (or replace) the vectors of the rows ``ids`` of ``kind``."""

    @abstractmethod
    def _drop_vectors(self, new_dim: bool) -> None:
        """Drop every stored vector; with ``new_dim``, make room for the embedder's dimension."""

    def _vectors_rebuilt(self, new_dim: bool) -> None:
        """After ``reembed`` wrote every vector: what the backend builds over them (nothing by
        default)."""
