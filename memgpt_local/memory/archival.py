"""Archival storage in the SQLite file: passages with FTS5 over their text and vectors in
``passage_embeddings``; the rules and the methods are ``common.archival``'s, this is their SQL.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memgpt_local.memory.cells import ArchivalCells
from memgpt_local.memory.common.archival import ArchivalStoreBase, NewPassage
from memgpt_local.memory.common.fusion import Found, FusedSearch
from memgpt_local.memory.common.query import SearchTuning
from memgpt_local.memory.common.rows import Row, citation, passage_from_row
from memgpt_local.memory.db import Database, from_db_time, to_db_time
from memgpt_local.memory.embed import Embedder
from memgpt_local.memory.search import PASSAGES, hybrid_search, nearest, phrase_match, write_vectors
from memgpt_local.schemas import Passage

__all__ = ["ArchivalStore", "NewPassage", "citation"]  # NewPassage and citation were defined here first

PASSAGE_SELECT = """
SELECT p.*, s.path AS source_path FROM passages p LEFT JOIN sources s ON s.id = p.source_id
"""


def _passage(row: Row) -> Passage:
    return passage_from_row(row, from_db_time)


class ArchivalStore(ArchivalStoreBase[Database]):
    def __init__(self, db: Database, embedder: Embedder, tuning: SearchTuning):
        super().__init__(db, embedder, tuning)
        self.cells = ArchivalCells(db)  # a large archive's clusters (memory/cells.py)

    def insert_many(
        self,
        agent_id: int,
        items: Sequence[NewPassage | Mapping[str, Any]],
        *,
        vectors: np.ndarray | None = None,
        progress: Any = None,
    ) -> list[Passage]:
        """``ArchivalStoreBase.insert_many``, then the agent's archive is clustered (or its
        clusters rebuilt) when it has grown large enough (``memory/cells.py``)."""
        inserted = super().insert_many(agent_id, items, vectors=vectors, progress=progress)
        if inserted:
            self.cells.after_insert(agent_id, self.count(agent_id))
        return inserted

    def all(self, agent_id: int) -> list[Passage]:
        """Every passage of the agent, oldest first."""
        rows = self.db.rows(PASSAGE_SELECT + "WHERE p.agent_id = ? ORDER BY p.id", (agent_id,))
        return [_passage(r) for r in rows]

    def count(self, agent_id: int) -> int:
        return self.db.scalar("SELECT count(*) FROM passages WHERE agent_id = ?", (agent_id,))

    def delete(self, agent_id: int, passage_ids: Sequence[int]) -> int:
        """Delete passages with their FTS rows and vectors; return how many went."""
        with self.db.transaction():
            before = self.count(agent_id)
            self.db.execute(
                "DELETE FROM passages WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?))",
                (agent_id, json.dumps(list(passage_ids))),
            )
            return before - self.count(agent_id)

    def _agent_exists(self, agent_id: int) -> bool:
        return bool(self.db.scalar("SELECT 1 FROM agents WHERE id = ?", (agent_id,)))

    def _insert(self, agent_id: int, passages: list[NewPassage], vectors: np.ndarray, now: datetime) -> list[int]:
        first = (self.db.scalar("SELECT coalesce(max(id), 0) FROM passages") or 0) + 1
        ids = list(range(first, first + len(passages)))
        self.db.executemany(
            "INSERT INTO passages(id, agent_id, text, source_id, chunk_index, char_start, "
            "char_end, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    i,
                    agent_id,
                    p.text,
                    p.source_id,
                    p.chunk_index,
                    p.char_start,
                    p.char_end,
                    to_db_time(p.created_at or now),
                )
                for i, p in zip(ids, passages)
            ],
        )
        write_vectors(self.db, PASSAGES, ids, vectors)
        return ids

    def _by_ids(self, agent_id: int, ids: Sequence[int]) -> list[Passage]:
        rows = self.db.rows(
            PASSAGE_SELECT + "WHERE p.agent_id = ? AND p.id IN (SELECT value FROM json_each(?)) ORDER BY p.id",
            (agent_id, json.dumps(list(ids))),
        )
        return [_passage(r) for r in rows]

    def _hybrid_search(self, agent_id: int, search: FusedSearch) -> Found:
        return hybrid_search(self.db, PASSAGES, agent_id, search, probes=self.cells.probes(agent_id))

    def _with_phrase(self, agent_id: int, text: str, limit: int) -> list[Passage]:
        rows = self.db.rows(
            "SELECT p.*, s.path AS source_path FROM passages_fts f JOIN passages p ON p.id = f.rowid "
            "LEFT JOIN sources s ON s.id = p.source_id "
            "WHERE passages_fts MATCH ? AND p.agent_id = ? ORDER BY f.rowid LIMIT ?",
            (phrase_match(text), agent_id, limit),
        )
        return [_passage(r) for r in rows]

    def _nearest(self, agent_id: int, vector: np.ndarray, k: int, oversample: int) -> list[tuple[int, float]]:
        return nearest(self.db, PASSAGES, agent_id, vector, k, oversample, probes=self.cells.probes(agent_id))
