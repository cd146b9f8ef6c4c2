"""Archival storage in Postgres: passages of text an agent keeps for later, searchable by words
and meaning; the same rows and methods as the SQLite file's ``memory.archival.ArchivalStore``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory.archival import ArchivalStore, NewPassage, citation
from memgpt_local.memory.embed import Embedder
from memgpt_local.memory.postgres.agents import stored_time, utc
from memgpt_local.memory.postgres.db import PostgresDatabase, vector_text
from memgpt_local.memory.postgres.migrations import TS_CONFIG
from memgpt_local.memory.postgres.search import PASSAGES, hybrid_search, nearest
from memgpt_local.memory.recall import Progress, embed_in_batches
from memgpt_local.memory.search import (
    SearchMode,
    SearchTuning,
    check_mode,
    check_paging,
    check_query,
    phrase_words,
    query_vectors,
)
from memgpt_local.schemas import Passage, SearchHit, SearchPage, utcnow

PASSAGE_SELECT = """
SELECT p.id, p.agent_id, p.text, p.source_id, p.chunk_index, p.char_start, p.char_end, p.created_at,
       s.path AS source_path
FROM passages p LEFT JOIN sources s ON s.id = p.source_id
"""


class PgArchivalStore:
    def __init__(self, db: PostgresDatabase, embedder: Embedder, tuning: SearchTuning):
        self.db = db
        self.embedder = embedder
        self.tuning = tuning

    @staticmethod
    def _passage(row: dict[str, Any]) -> Passage:
        return Passage(
            id=row["id"],
            agent_id=row["agent_id"],
            text=row["text"],
            source_id=row["source_id"],
            chunk_index=row["chunk_index"],
            char_start=row["char_start"],
            char_end=row["char_end"],
            created_at=utc(row["created_at"]),
            citation=citation(row["source_path"], row["chunk_index"]),
        )

    def insert(
        self,
        agent_id: int,
        text: str,
        *,
        source_id: int | None = None,
        chunk_index: int | None = None,
        char_start: int | None = None,
        char_end: int | None = None,
        created_at: datetime | None = None,
    ) -> Passage:
        item = dict(
            text=text,
            source_id=source_id,
            chunk_index=chunk_index,
            char_start=char_start,
            char_end=char_end,
            created_at=created_at,
        )
        return self.insert_many(agent_id, [item])[0]

    def insert_many(
        self,
        agent_id: int,
        items: Sequence[NewPassage | Mapping[str, Any]],
        *,
        vectors: np.ndarray | None = None,
        progress: Progress | None = None,
    ) -> list[Passage]:
        """Insert passages in one transaction with one batched embedding pass.

        ``vectors`` (``(len(items), dim)``, normalized) skips embedding, e.g. for benchmarks.
        """
        passages = [ArchivalStore._validate(i, n) for n, i in enumerate(items, start=1)]
        if not passages:
            return []
        if vectors is None:
            vectors = embed_in_batches(self.embedder, [p.text for p in passages], progress)
        elif vectors.shape != (len(passages), self.embedder.dim):
            raise InvalidInputError(
                f"vectors of shape {vectors.shape} for {len(passages)} passages of dimension {self.embedder.dim}"
            )
        now = utcnow()
        with self.db.transaction():
            if not self.db.scalar("SELECT 1 FROM agents WHERE id = %s", (agent_id,)):
                raise NotFoundError(f"no agent with id {agent_id}")
            ids = self.db.insert_returning(
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
            return self._by_ids(agent_id, ids)

    def _by_ids(self, agent_id: int, ids: Sequence[int]) -> list[Passage]:
        rows = self.db.rows(
            PASSAGE_SELECT + "WHERE p.agent_id = %s AND p.id = ANY(%s) ORDER BY p.id",
            (agent_id, [int(i) for i in ids]),
        )
        return [self._passage(r) for r in rows]

    def get(self, agent_id: int, passage_id: int) -> Passage:
        found = self._by_ids(agent_id, [passage_id])
        if not found:
            raise NotFoundError(f"no archival passage {passage_id} for agent {agent_id}")
        return found[0]

    def all(self, agent_id: int) -> list[Passage]:
        """Every passage of the agent, oldest first."""
        rows = self.db.rows(PASSAGE_SELECT + "WHERE p.agent_id = %s ORDER BY p.id", (agent_id,))
        return [self._passage(r) for r in rows]

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

    def search(
        self,
        agent_id: int,
        query: str,
        *,
        page: int = 0,
        page_size: int = 5,
        mode: SearchMode = "hybrid",
        focus: str | None = None,
        focus_skips: Sequence[int] = (),
    ) -> SearchPage:
        """Hybrid search over passages; ``focus`` as for ``RecallStore.search``."""
        check_query(query)
        check_paging(page, page_size)
        check_mode(mode)
        vector, focus_vector = query_vectors(self.embedder, query, focus, mode)
        found, total = hybrid_search(
            self.db,
            PASSAGES,
            agent_id,
            query=query,
            vector=vector,
            mode=mode,
            offset=page * page_size,
            limit=page_size,
            tuning=self.tuning,
            focus=focus_vector,
            focus_skips=focus_skips,
        )
        by_id = {p.id: p for p in self._by_ids(agent_id, [i for i, _, _ in found])}
        hits = [
            SearchHit(
                kind="passage",
                id=i,
                text=by_id[i].text,
                created_at=by_id[i].created_at,
                score=score,
                citation=by_id[i].citation,
                copies=copies,
            )
            for i, score, copies in found
            if i in by_id
        ]
        return SearchPage(items=hits, total=total, page=page, page_size=page_size)

    def containing(self, agent_id: int, text: str, limit: int = 10) -> list[SearchHit]:
        """Passages that contain ``text`` (case-sensitive), oldest first, at most ``limit``; as
        ``ArchivalStore.containing``, with the phrase found by the tsvector."""
        words = phrase_words(text)
        if not words:
            return []
        rows = self.db.rows(
            PASSAGE_SELECT + f"WHERE p.agent_id = %s AND p.text_tsv @@ phraseto_tsquery('{TS_CONFIG}', %s) "
            "ORDER BY p.id LIMIT %s",
            (agent_id, " ".join(words), limit * 2),
        )
        passages = [self._passage(r) for r in rows]
        return [
            SearchHit(kind="passage", id=p.id, text=p.text, created_at=p.created_at, citation=p.citation)
            for p in passages
            if text in p.text
        ][:limit]

    def nearest(
        self, agent_id: int, vector: np.ndarray, k: int = 10, *, oversample: int | None = None
    ) -> list[tuple[int, float]]:
        """(passage id, cosine distance) of the ``k`` nearest passages to a vector."""
        return nearest(self.db, PASSAGES, agent_id, vector, k, oversample or self.tuning.oversample)
