"""Archival storage in Postgres: passages with their words (a generated ``tsvector`` column) and
vector (a ``vector`` column) in the passage row; the rules and the methods are
``common.archival``'s, this is their SQL."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np

from memgpt_local.memory.common.archival import ArchivalStoreBase, NewPassage
from memgpt_local.memory.common.fusion import Found, FusedSearch
from memgpt_local.memory.common.query import phrase_words
from memgpt_local.memory.common.rows import Row, passage_from_row
from memgpt_local.memory.postgres.db import PostgresDatabase, stored_time, utc, vector_text
from memgpt_local.memory.postgres.migrations import TS_CONFIG
from memgpt_local.memory.postgres.search import PASSAGES, hybrid_search, nearest
from memgpt_local.schemas import Passage

PASSAGE_SELECT = """
SELECT p.id, p.agent_id, p.text, p.source_id, p.chunk_index, p.char_start, p.char_end, p.created_at,
       s.path AS source_path
FROM passages p LEFT JOIN sources s ON s.id = p.source_id
"""


def _passage(row: Row) -> Passage:
    return passage_from_row(row, utc)


class PgArchivalStore(ArchivalStoreBase[PostgresDatabase]):
    def all(self, agent_id: int) -> list[Passage]:
        """Every passage of the agent, oldest first."""
        rows = self.db.rows(PASSAGE_SELECT + "WHERE p.agent_id = %s ORDER BY p.id", (agent_id,))
        return [_passage(r) for r in rows]

    def count(self, agent_id: int) -> int:
        return int(self.db.scalar("SELECT count(*) FROM passages WHERE agent_id = %s", (agent_id,)))

    def delete(self, agent_id: int, passage_ids: Sequence[int]) -> int:
        """Delete passages with their words and vectors; return how many went."""
        with self.db.transaction():
            gone = self.db.rows(
                "DELETE FROM passages WHERE agent_id = %s AND id = ANY(%s) RETURNING id",
                (agent_id, [int(i) for i in passage_ids]),
            )
            return len(gone)

    def _agent_exists(self, agent_id: int) -> bool:
        return bool(self.db.scalar("SELECT 1 FROM agents WHERE id = %s", (agent_id,)))

    def _insert(self, agent_id: int, passages: list[NewPassage], vectors: np.ndarray, now: datetime) -> list[int]:
        return self.db.insert_returning(
            "INSERT INTO passages(agent_id, text, source_id, chunk_index, char_start, char_end, created_at, "
            "embedding) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::vector) RETURNING id",
            [
                (
                    agent_id,
                    p.text,
                    p.source_id,
                    p.chunk_index,
                    p.char_start,
                    p.char_end,
                    stored_time(p.created_at or now),
                    vector_text(v),
                )
                for p, v in zip(passages, vectors)
            ],
        )

    def _by_ids(self, agent_id: int, ids: Sequence[int]) -> list[Passage]:
        rows = self.db.rows(
            PASSAGE_SELECT + "WHERE p.agent_id = %s AND p.id = ANY(%s) ORDER BY p.id",
            (agent_id, [int(i) for i in ids]),
        )
        return [_passage(r) for r in rows]

    def _hybrid_search(self, agent_id: int, search: FusedSearch) -> Found:
        return hybrid_search(self.db, PASSAGES, agent_id, search)

    def _with_phrase(self, agent_id: int, text: str, limit: int) -> list[Passage]:
        rows = self.db.rows(
            PASSAGE_SELECT + f"WHERE p.agent_id = %s AND p.text_tsv @@ phraseto_tsquery('{TS_CONFIG}', %s) "
            "ORDER BY p.id LIMIT %s",
            (agent_id, " ".join(phrase_words(text)), limit),
        )
        return [_passage(r) for r in rows]

    def _nearest(self, agent_id: int, vector: np.ndarray, k: int, oversample: int) -> list[tuple[int, float]]:
        return nearest(self.db, PASSAGES, agent_id, vector, k, oversample)
