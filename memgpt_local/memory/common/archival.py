"""Archival storage: passages of text an agent keeps for later, searchable by words and meaning.

A passage is either inserted by the agent (``archival_memory_insert``) or a chunk of a
document (``source_id``, ``chunk_index``, character span); the latter carries a citation
like ``notes.md#chunk-3`` in search results. Besides hybrid search, ``containing`` finds the
passages that contain an exact string (linked memory).

What a passage may be and the archival stores' methods are the same for both backends:
``ArchivalStoreBase`` has them, and ``memory.archival.ArchivalStore`` (SQLite) and
``memory.postgres.archival.PgArchivalStore`` supply its SQL.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Generic

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory.common.connection import DB
from memgpt_local.memory.common.embedding import Progress, embed_in_batches
from memgpt_local.memory.common.fusion import Found, FusedSearch, hits_page
from memgpt_local.memory.common.query import SearchMode, SearchTuning, check_search, phrase_words, query_vectors
from memgpt_local.memory.embed import Embedder
from memgpt_local.schemas import Passage, SearchHit, SearchPage, utcnow


class NewPassage(BaseModel):
    """One passage to insert (``insert_many`` also takes plain dicts of these fields)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1)
    source_id: int | None = None
    chunk_index: int | None = Field(None, ge=0)
    char_start: int | None = Field(None, ge=0)
    char_end: int | None = Field(None, ge=0)
    created_at: datetime | None = None


def validate_passage(item: NewPassage | Mapping[str, Any], number: int) -> NewPassage:
    """``item`` as a ``NewPassage``; ``InvalidInputError`` naming passage ``number`` (from 1)
    and its first bad field otherwise."""
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


def passage_hit(passage: Passage, score: float, copies: int) -> SearchHit:
    return SearchHit(
        kind="passage",
        id=passage.id,
        text=passage.text,
        created_at=passage.created_at,
        score=score,
        citation=passage.citation,
        copies=copies,
    )


class ArchivalStoreBase(ABC, Generic[DB]):
    """The archival store's methods; a subclass supplies the SQL (``all``, ``count``, ``delete``
    and the hooks at the end)."""

    def __init__(self, db: DB, embedder: Embedder, tuning: SearchTuning):
        self.db = db
        self.embedder = embedder
        self.tuning = tuning

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
        passages = [validate_passage(i, n) for n, i in enumerate(items, start=1)]
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
            if not self._agent_exists(agent_id):
                raise NotFoundError(f"no agent with id {agent_id}")
            ids = self._insert(agent_id, passages, vectors, now)
            return self._by_ids(agent_id, ids)

    def get(self, agent_id: int, passage_id: int) -> Passage:
        found = self._by_ids(agent_id, [passage_id])
        if not found:
            raise NotFoundError(f"no archival passage {passage_id} for agent {agent_id}")
        return found[0]

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
        check_search(query, page, page_size, mode)
        vector, focus_vector = query_vectors(self.embedder, query, focus, mode)
        search = FusedSearch(
            query=query,
            vector=vector,
            mode=mode,
            offset=page * page_size,
            limit=page_size,
            tuning=self.tuning,
            focus=focus_vector,
            focus_skips=focus_skips,
        )
        found = self._hybrid_search(agent_id, search)
        return hits_page(found, lambda ids: self._by_ids(agent_id, ids), passage_hit, page, page_size)

    def containing(self, agent_id: int, text: str, limit: int = 10) -> list[SearchHit]:
        """Passages that contain ``text`` (case-sensitive), oldest first, at most ``limit``.

        The words index finds the candidates by phrase (``text``'s words adjacent and in order;
        the agent's first ``2 * limit`` matches); a substring check then keeps only true
        occurrences.
        """
        if not phrase_words(text):
            return []
        return [
            SearchHit(kind="passage", id=p.id, text=p.text, created_at=p.created_at, citation=p.citation)
            for p in self._with_phrase(agent_id, text, limit * 2)
            if text in p.text
        ][:limit]

    def nearest(
        self, agent_id: int, vector: np.ndarray, k: int = 10, *, oversample: int | None = None
    ) -> list[tuple[int, float]]:
        """(passage id, cosine distance) of the ``k`` nearest passages to a vector."""
        return self._nearest(agent_id, vector, k, oversample or self.tuning.oversample)

    @abstractmethod
    def _agent_exists(self, agent_id: int) -> bool: ...

    @abstractmethod
    def _insert(self, agent_id: int, passages: list[NewPassage], vectors: np.ndarray, now: datetime) -> list[int]:
        """Store the passages with their vectors (``now`` where one has no ``created_at``);
        return their ids, in order."""

    @abstractmethod
    def _by_ids(self, agent_id: int, ids: Sequence[int]) -> list[Passage]:
        """The agent's passages among ``ids``, oldest first."""

    @abstractmethod
    def _hybrid_search(self, agent_id: int, search: FusedSearch) -> Found:
        """The backend's ``hybrid_search`` over the agent's passages."""

    @abstractmethod
    def _with_phrase(self, agent_id: int, text: str, limit: int) -> list[Passage]:
        """The agent's first ``limit`` passages, oldest first, whose words hold ``text``'s words
        adjacent and in order (``text`` has at least one word)."""

    @abstractmethod
    def _nearest(self, agent_id: int, vector: np.ndarray, k: int, oversample: int) -> list[tuple[int, float]]:
        """The backend's ``nearest`` over the agent's passages."""
