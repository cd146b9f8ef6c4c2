"""Archival storage: passages of text an agent keeps for later, searchable by words and meaning.

A passage is either inserted by the agent (``archival_memory_insert``) or a chunk of a
document (``source_id``, ``chunk_index``, character span); the latter carries a citation
like ``notes.md#chunk-3`` in search results. Besides hybrid search, ``containing`` finds the
passages that contain an exact string (linked memory).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import PurePath
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory.db import Database, from_db_time, to_db_time
from memgpt_local.memory.embed import Embedder
from memgpt_local.memory.recall import embed_in_batches
from memgpt_local.memory.search import (
    PASSAGES,
    SearchMode,
    SearchTuning,
    check_mode,
    check_paging,
    check_query,
    hybrid_search,
    nearest,
    phrase_match,
    query_vectors,
    write_vectors,
)
from memgpt_local.schemas import Passage, SearchHit, SearchPage, utcnow

Progress = Callable[[int, int], None]


class NewPassage(BaseModel):
    """One passage to insert (``insert_many`` also takes plain dicts of these fields)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1)
    source_id: int | None = None
    chunk_index: int | None = Field(None, ge=0)
    char_start: int | None = Field(None, ge=0)
    char_end: int | None = Field(None, ge=0)
    created_at: datetime | None = None


def citation(path: str | None, chunk_index: int | None) -> str | None:
    if path is None:
        return None
    name = PurePath(path).name
    return name if chunk_index is None else f"{name}#chunk-{chunk_index}"


PASSAGE_SELECT = """
SELECT p.*, s.path AS source_path FROM passages p LEFT JOIN sources s ON s.id = p.source_id
"""


class ArchivalStore:
    def __init__(self, db: Database, embedder: Embedder, tuning: SearchTuning):
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
            created_at=from_db_time(row["created_at"]),
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
        passages = [self._validate(i, n) for n, i in enumerate(items, start=1)]
        if not passages:
            return []
        if vectors is None:
            vectors = embed_in_batches(self.embedder, [p.text for p in passages], progress)
        elif vectors.shape != (len(passages), self.embedder.dim):
            raise InvalidInputError(
                f"vectors of shape {vectors.shape} for {len(passages)} passages of dimension {self.embedder.dim}"
            )
        now = to_db_time(utcnow())
        with self.db.transaction():
            if not self.db.scalar("SELECT 1 FROM agents WHERE id = ?", (agent_id,)):
                raise NotFoundError(f"no agent with id {agent_id}")
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
                        to_db_time(p.created_at) if p.created_at else now,
                    )
                    for i, p in zip(ids, passages)
                ],
            )
            write_vectors(self.db, PASSAGES, ids, vectors)
            return self._by_ids(agent_id, ids)

    @staticmethod
    def _validate(item: NewPassage | Mapping[str, Any], number: int) -> NewPassage:
        if isinstance(item, NewPassage):
            return item
        try:
            return NewPassage.model_validate(dict(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "passage"
            raise InvalidInputError(f"passage {number}: {field}: {err['msg']}") from exc
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"passage {number} is not a mapping of fields") from exc

    def _by_ids(self, agent_id: int, ids: Sequence[int]) -> list[Passage]:
        rows = self.db.rows(
            PASSAGE_SELECT + "WHERE p.agent_id = ? AND p.id IN (SELECT value FROM json_each(?)) ORDER BY p.id",
            (agent_id, json.dumps(list(ids))),
        )
        return [self._passage(r) for r in rows]

    def get(self, agent_id: int, passage_id: int) -> Passage:
        found = self._by_ids(agent_id, [passage_id])
        if not found:
            raise NotFoundError(f"no archival passage {passage_id} for agent {agent_id}")
        return found[0]

    def all(self, agent_id: int) -> list[Passage]:
        """Every passage of the agent, oldest first."""
        rows = self.db.rows(PASSAGE_SELECT + "WHERE p.agent_id = ? ORDER BY p.id", (agent_id,))
        return [self._passage(r) for r in rows]

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
        """Passages that contain ``text`` (case-sensitive), oldest first, at most ``limit``.

        FTS5 finds the candidates by phrase (``text``'s words adjacent and in order; the agent's
        first ``2 * limit`` matches), fetched in the same query; a substring check then keeps
        only true occurrences.
        """
        match = phrase_match(text)
        if match is None:
            return []
        rows = self.db.rows(
            "SELECT p.*, s.path AS source_path FROM passages_fts f JOIN passages p ON p.id = f.rowid "
            "LEFT JOIN sources s ON s.id = p.source_id "
            "WHERE passages_fts MATCH ? AND p.agent_id = ? ORDER BY f.rowid LIMIT ?",
            (match, agent_id, limit * 2),
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
