"""Recall storage: every message of every agent, with its words and vector for search.

``seq`` orders an agent's messages; ``in_context`` marks those in the main context's FIFO
queue, so the exact context can be rebuilt after a restart. Each message has a searchable
text: its content plus, for an assistant step, the text it sent with ``send_message``.
Besides hybrid and date search, ``containing`` finds the messages that contain an exact string
(linked memory: entries that share a rare name, code or id).

What a message's searchable text is, the checks on a search's arguments and the recall stores'
methods that are more than one statement are the same for both backends: ``RecallStoreBase``
has them, and ``memory.recall.RecallStore`` (SQLite) and ``memory.postgres.recall.PgRecallStore``
supply its SQL and the methods that are SQL alone.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Generic

import numpy as np

from memgpt_local.errors import InvalidInputError
from memgpt_local.memory.common.connection import DB
from memgpt_local.memory.common.embedding import Progress, embed_in_batches
from memgpt_local.memory.common.fusion import Found, FusedSearch, hits_page
from memgpt_local.memory.common.query import (
    SearchMode,
    SearchTuning,
    check_paging,
    check_search,
    phrase_words,
    query_vectors,
)
from memgpt_local.memory.embed import Embedder
from memgpt_local.schemas import Message, NewMessage, SearchHit, SearchPage
from memgpt_local.text import denies, sentences

ROLES = ("system", "user", "assistant", "function")


def searchable_text(
    role: str, content: str, function_args: dict[str, Any] | None, function_name: str | None = None
) -> str:
    """What search finds of a message: what was said. An agent step's thought is private and
    names the words of every question it works on, so only the message it sent counts, less
    its sentences that say it does not know: "I'm sorry, but I don't know Sanne's job" holds
    the words of the question it failed and came first for the next one, and the model
    answered from it. An imported assistant line (no function) is what was said."""
    if role == "assistant" and function_name:
        said = (function_args or {}).get("message")
        if not isinstance(said, str):
            return ""
        return " ".join(s.strip() for s in sentences(said) if not denies(s)).strip()
    return content.strip()


def stale_search_texts(rows: Iterable[dict[str, Any]]) -> list[tuple[str, int]]:
    """(new searchable text, id) for the agent-step rows (``id``, ``role``, ``content``,
    ``function_name``, ``function_args`` as stored JSON text, ``search_text``) whose stored
    text ``searchable_text`` now writes otherwise: a migration's work when the rule changes."""
    out = []
    for row in rows:
        args = json.loads(row["function_args"]) if isinstance(row["function_args"], str) else row["function_args"]
        text = searchable_text(row["role"], row["content"], args, row["function_name"])
        if text != row["search_text"]:
            out.append((text, row["id"]))
    return out


def parse_day(value: str | date, what: str) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise InvalidInputError(f"{what} {value!r} is not a date", "use YYYY-MM-DD") from None


def day_range(start: str | date, end: str | date) -> tuple[date, date]:
    """The first and last day of a date search; ``InvalidInputError`` if either is not a date
    or the first comes after the last."""
    first, last = parse_day(start, "start date"), parse_day(end, "end date")
    if first > last:
        raise InvalidInputError(f"start date {first} is after end date {last}", "swap them")
    return first, last


def check_roles(roles: Sequence[str]) -> None:
    """Raise ``InvalidInputError`` unless ``roles`` names one or more known roles."""
    bad = [r for r in roles if r not in ROLES]
    if bad or not roles:
        raise InvalidInputError(f"bad roles {list(roles)!r}", f"use some of {', '.join(ROLES)}")


def message_hit(message: Message, score: float, copies: int = 1) -> SearchHit:
    """A message as a search result: its searchable text (its content when it has none)."""
    text = searchable_text(message.role, message.content, message.function_args, message.function_name)
    return SearchHit(
        kind="message",
        id=message.id,
        text=text or message.content,
        created_at=message.created_at,
        score=score,
        role=message.role,
        copies=copies,
    )


def hits_containing(messages: Iterable[Message], text: str, limit: int) -> list[SearchHit]:
    """The user and assistant messages among ``messages`` whose words contain ``text``
    (case-sensitive; an assistant step's words are what it sent), at most ``limit``."""
    hits = []
    for message in messages:
        said = message.content
        if message.role == "assistant" and message.function_args:
            said = str(message.function_args.get("message", "")) or said
        if message.role in ("user", "assistant") and text in said:
            hits.append(
                SearchHit(kind="message", id=message.id, text=said, created_at=message.created_at, role=message.role)
            )
    return hits[:limit]


@dataclass(frozen=True)
class Appending:
    """Messages ``append`` stores, with their searchable ``texts`` and the ``vectors`` of those
    that have one (the messages at the indexes ``to_embed``, in that order)."""

    messages: Sequence[NewMessage]
    texts: list[str]
    to_embed: list[int]
    vectors: np.ndarray


class RecallStoreBase(ABC, Generic[DB]):
    """The recall methods that are more than SQL; a subclass supplies the SQL (the hooks at the
    end) and the methods that are SQL alone (``in_context``, ``all``, ``delete``, …)."""

    def __init__(self, db: DB, embedder: Embedder, tuning: SearchTuning):
        self.db = db
        self.embedder = embedder
        self.tuning = tuning

    def append(
        self, agent_id: int, messages: Sequence[NewMessage], *, progress: Progress | None = None
    ) -> list[Message]:
        """Store messages after the agent's last one, in one transaction, with their vectors."""
        if not messages:
            return []
        texts = [searchable_text(m.role, m.content, m.function_args, m.function_name) for m in messages]
        to_embed = [i for i, t in enumerate(texts) if t]
        vectors = embed_in_batches(self.embedder, [texts[i] for i in to_embed], progress)
        with self.db.transaction():
            ids = self._insert(agent_id, Appending(messages, texts, to_embed, vectors))
            return self._by_ids(agent_id, ids)

    def update(
        self, agent_id: int, message_id: int, *, content: str | None = None, function_args: dict[str, Any] | None = None
    ) -> Message:
        """Change a message's content and/or arguments; its words and vector follow."""
        old = self.get(agent_id, message_id)
        content = old.content if content is None else content
        args = old.function_args if function_args is None else function_args
        text = searchable_text(old.role, content, args, old.function_name)
        vector = self.embedder.embed([text])[0] if text else None
        with self.db.transaction():
            self.get(agent_id, message_id)
            self._rewrite(message_id, content, args, text, vector)
        return self.get(agent_id, message_id)

    def search(
        self,
        agent_id: int,
        query: str,
        *,
        page: int = 0,
        page_size: int = 5,
        roles: Sequence[str] = ("user", "assistant"),
        mode: SearchMode = "hybrid",
        outside_context: bool = False,
        before_id: int | None = None,
        focus: str | None = None,
        focus_skips: Sequence[int] = (),
    ) -> SearchPage:
        """Hybrid search over messages; ``outside_context`` leaves out the messages the main
        context shows, ``before_id`` the messages from that id on (the turn being answered:
        its question and steps); ``focus`` (the question being answered) reorders the hits in
        hybrid and vector mode (see ``memory.search.hybrid_search``). The agent's common words
        (the friends' names, "haha": see ``memory.search.common_words``) are left out of what
        is embedded of the query and the focus."""
        check_search(query, page, page_size, mode)
        check_roles(roles)
        common = self._common_words(agent_id, [query, focus] if mode != "text" else [])
        vector, focus_vector = query_vectors(self.embedder, query, focus, mode, common)
        where, where_params = self._filter(roles, outside_context, before_id)
        search = FusedSearch(
            query=query,
            vector=vector,
            mode=mode,
            offset=page * page_size,
            limit=page_size,
            tuning=self.tuning,
            where=where,
            where_params=where_params,
            focus=focus_vector,
            focus_skips=focus_skips,
        )
        found = self._hybrid_search(agent_id, search)
        return hits_page(found, lambda ids: self._by_ids(agent_id, ids), message_hit, page, page_size)

    def containing(self, agent_id: int, text: str, limit: int = 10) -> list[SearchHit]:
        """User and assistant messages that contain ``text`` (case-sensitive), oldest first, at
        most ``limit``. An assistant step's text is what it sent with ``send_message``.

        The words index finds the candidates by phrase (``text``'s words adjacent and in order;
        the agent's first ``2 * limit`` matches, any role); a substring check then keeps only
        true occurrences.
        """
        if not phrase_words(text):
            return []
        return hits_containing(self._with_phrase(agent_id, text, limit * 2), text, limit)

    def search_date(
        self,
        agent_id: int,
        start: str | date,
        end: str | date,
        *,
        page: int = 0,
        page_size: int = 5,
        roles: Sequence[str] = ("user", "assistant"),
    ) -> SearchPage:
        """Messages from ``start`` to ``end`` (inclusive UTC days), oldest first."""
        first, last = day_range(start, end)
        check_paging(page, page_size)
        total, found = self._between(agent_id, first, last, roles, offset=page * page_size, limit=page_size)
        hits = [message_hit(m, 0.0) for m in found]
        return SearchPage(items=hits, total=total, page=page, page_size=page_size)

    @abstractmethod
    def get(self, agent_id: int, message_id: int) -> Message:
        """The agent's message ``message_id``; ``NotFoundError`` if it has none such."""

    @abstractmethod
    def _insert(self, agent_id: int, new: Appending) -> list[int]:
        """Store the messages after the agent's last one, with their vectors; ``NotFoundError``
        for an unknown agent. Returns their ids, in order."""

    @abstractmethod
    def _by_ids(self, agent_id: int, ids: Iterable[int]) -> list[Message]:
        """The agent's messages among ``ids``, in ``seq`` order."""

    @abstractmethod
    def _rewrite(
        self, message_id: int, content: str, args: dict[str, Any] | None, text: str, vector: np.ndarray | None
    ) -> None:
        """Store a message's new content, arguments, searchable text and vector (None: it has
        none)."""

    @abstractmethod
    def _common_words(self, agent_id: int, texts: Sequence[str | None]) -> frozenset[str]:
        """The backend's ``common_words`` over the agent's messages."""

    @abstractmethod
    def _filter(self, roles: Sequence[str], outside_context: bool, before_id: int | None) -> tuple[str, dict[str, Any]]:
        """A search's condition on the message row ``b`` and its parameters: one of ``roles``,
        not in the main context (``outside_context``), an id below ``before_id``."""

    @abstractmethod
    def _hybrid_search(self, agent_id: int, search: FusedSearch) -> Found:
        """The backend's ``hybrid_search`` over the agent's messages."""

    @abstractmethod
    def _with_phrase(self, agent_id: int, text: str, limit: int) -> list[Message]:
        """The agent's first ``limit`` messages (any role), oldest first, whose words hold
        ``text``'s words adjacent and in order (``text`` has at least one word)."""

    @abstractmethod
    def _between(
        self, agent_id: int, first: date, last: date, roles: Sequence[str], *, offset: int, limit: int
    ) -> tuple[int, list[Message]]:
        """How many of the agent's messages in ``roles`` are from the days ``first`` to ``last``
        (inclusive, UTC), and ``limit`` of them from ``offset``, by time then ``seq``."""
