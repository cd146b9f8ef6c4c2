"""Recall storage in Postgres: every message of every agent, with its words and vector for search.

The same rows and methods as the SQLite file's ``memory.recall.RecallStore`` (``seq`` orders an
agent's messages, ``in_context`` marks the main context's queue, the searchable text is what
was said); the words are a generated ``tsvector`` column and the vector a ``vector`` column of
the message row, so deleting a message takes both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta, timezone
from typing import Any

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory.embed import Embedder
from memgpt_local.memory.postgres.agents import stored_time, utc
from memgpt_local.memory.postgres.db import PostgresDatabase, vector_text
from memgpt_local.memory.postgres.migrations import TS_CONFIG
from memgpt_local.memory.postgres.search import MESSAGES, common_words, hybrid_search
from memgpt_local.memory.recall import ROLES, Progress, embed_in_batches, parse_day, searchable_text
from memgpt_local.memory.search import (
    SearchMode,
    SearchTuning,
    check_mode,
    check_paging,
    check_query,
    phrase_words,
    query_vectors,
)
from memgpt_local.schemas import Message, NewMessage, SearchHit, SearchPage

MESSAGE_COLUMNS = (
    "id, agent_id, seq, role, content, function_name, function_args, request_heartbeat, "
    "created_at, in_context, summarized"
)


class PgRecallStore:
    def __init__(self, db: PostgresDatabase, embedder: Embedder, tuning: SearchTuning):
        self.db = db
        self.embedder = embedder
        self.tuning = tuning

    @staticmethod
    def _message(row: dict[str, Any]) -> Message:
        args = row["function_args"]
        return Message(
            id=row["id"],
            agent_id=row["agent_id"],
            seq=row["seq"],
            role=row["role"],
            content=row["content"],
            function_name=row["function_name"],
            function_args=json.loads(args) if args is not None else None,
            request_heartbeat=row["request_heartbeat"],
            created_at=utc(row["created_at"]),
            in_context=row["in_context"],
            summarized=row["summarized"],
        )

    def _select(self, where: str, params: Sequence[Any] | dict[str, Any], tail: str = "ORDER BY seq") -> list[Message]:
        rows = self.db.rows(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE {where} {tail}", params)
        return [self._message(r) for r in rows]

    def _lock_agent(self, agent_id: int) -> None:
        """Check the agent exists and hold its row until the transaction ends, so two writers
        never pick the same ``seq``."""
        if not self.db.scalar("SELECT 1 FROM agents WHERE id = %s FOR UPDATE", (agent_id,)):
            raise NotFoundError(f"no agent with id {agent_id}", "see `memgpt-local agents list`")

    def append(
        self, agent_id: int, messages: Sequence[NewMessage], *, progress: Progress | None = None
    ) -> list[Message]:
        """Store messages after the agent's last one, in one transaction, with their vectors."""
        if not messages:
            return []
        texts = [searchable_text(m.role, m.content, m.function_args, m.function_name) for m in messages]
        to_embed = [i for i, t in enumerate(texts) if t]
        vectors = embed_in_batches(self.embedder, [texts[i] for i in to_embed], progress)
        vector_of = {i: vector_text(v) for i, v in zip(to_embed, vectors)}
        with self.db.transaction():
            self._lock_agent(agent_id)
            seq = self.db.scalar("SELECT coalesce(max(seq), 0) FROM messages WHERE agent_id = %s", (agent_id,))
            ids = self.db.insert_returning(
                "INSERT INTO messages(agent_id, seq, role, content, function_name, function_args, "
                "request_heartbeat, search_text, created_at, in_context, embedding) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::vector) RETURNING id",
                [
                    (
                        agent_id,
                        seq + n,
                        m.role,
                        m.content,
                        m.function_name,
                        json.dumps(m.function_args) if m.function_args is not None else None,
                        m.request_heartbeat,
                        text,
                        stored_time(m.created_at),
                        m.in_context,
                        vector_of.get(n - 1),
                    )
                    for n, (m, text) in enumerate(zip(messages, texts), start=1)
                ],
            )
            return self._by_ids(agent_id, ids)

    def _by_ids(self, agent_id: int, ids: Iterable[int]) -> list[Message]:
        ids = [int(i) for i in ids]
        if not ids:
            return []
        return self._select("agent_id = %s AND id = ANY(%s)", (agent_id, ids))

    def get(self, agent_id: int, message_id: int) -> Message:
        found = self._select("agent_id = %s AND id = %s", (agent_id, message_id))
        if not found:
            raise NotFoundError(f"no message {message_id} for agent {agent_id}")
        return found[0]

    def in_context(self, agent_id: int) -> list[Message]:
        return self._select("agent_id = %s AND in_context", (agent_id,))

    def set_in_context(self, agent_id: int, message_ids: Sequence[int], in_context: bool) -> None:
        with self.db.transaction():
            self.db.execute(
                "UPDATE messages SET in_context = %s WHERE agent_id = %s AND id = ANY(%s)",
                (in_context, agent_id, [int(i) for i in message_ids]),
            )

    def hold_back(self, agent_id: int, message_id: int) -> None:
        """A reply draft the user never saw: it leaves the main context and search (its words
        and vector), and stays in storage with the rest of the turn."""
        with self.db.transaction():
            self.get(agent_id, message_id)
            self.db.execute(
                "UPDATE messages SET in_context = false, search_text = '', embedding = NULL WHERE id = %s",
                (message_id,),
            )

    def set_summarized(self, agent_id: int, message_ids: Sequence[int], summarized: bool = True) -> None:
        """Mark messages as folded into (or left out of) the recursive summary."""
        with self.db.transaction():
            self.db.execute(
                "UPDATE messages SET summarized = %s WHERE agent_id = %s AND id = ANY(%s)",
                (summarized, agent_id, [int(i) for i in message_ids]),
            )

    def summarized(self, agent_id: int) -> list[Message]:
        """The messages the recursive summary was written from, oldest first."""
        return self._select("agent_id = %s AND summarized", (agent_id,))

    def all(self, agent_id: int) -> list[Message]:
        return self._select("agent_id = %s", (agent_id,))

    def last(self, agent_id: int, n: int) -> list[Message]:
        newest = self._select("agent_id = %s", (agent_id, max(0, n)), "ORDER BY seq DESC LIMIT %s")
        return newest[::-1]

    def count(self, agent_id: int) -> int:
        return int(self.db.scalar("SELECT count(*) FROM messages WHERE agent_id = %s", (agent_id,)))

    def update(
        self, agent_id: int, message_id: int, *, content: str | None = None, function_args: dict[str, Any] | None = None
    ) -> Message:
        """Change a message's content and/or arguments; its words and vector follow."""
        old = self.get(agent_id, message_id)
        content = old.content if content is None else content
        args = old.function_args if function_args is None else function_args
        text = searchable_text(old.role, content, args, old.function_name)
        vector = vector_text(self.embedder.embed([text])[0]) if text else None
        with self.db.transaction():
            self.get(agent_id, message_id)
            self.db.execute(
                "UPDATE messages SET content = %s, function_args = %s, search_text = %s, embedding = %s::vector "
                "WHERE id = %s",
                (content, json.dumps(args) if args is not None else None, text, vector, message_id),
            )
        return self.get(agent_id, message_id)

    def delete(self, agent_id: int, message_ids: Sequence[int]) -> int:
        """Delete messages (their words and vectors are columns of the row); return count."""
        with self.db.transaction():
            gone = self.db.rows(
                "DELETE FROM messages WHERE agent_id = %s AND id = ANY(%s) RETURNING id",
                (agent_id, [int(i) for i in message_ids]),
            )
            return len(gone)

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
        """Hybrid search over messages; the arguments are those of ``RecallStore.search``."""
        check_query(query)
        check_paging(page, page_size)
        check_mode(mode)
        bad = [r for r in roles if r not in ROLES]
        if bad or not roles:
            raise InvalidInputError(f"bad roles {list(roles)!r}", f"use some of {', '.join(ROLES)}")
        embedded = [query, focus] if mode != "text" else []
        common = common_words(self.db, MESSAGES, agent_id, embedded, self.tuning)
        vector, focus_vector = query_vectors(self.embedder, query, focus, mode, common)
        where = "AND b.role = ANY(%(roles)s)"
        if outside_context:
            where += " AND NOT b.in_context"
        if before_id is not None:
            where += f" AND b.id < {int(before_id)}"
        found, total = hybrid_search(
            self.db,
            MESSAGES,
            agent_id,
            query=query,
            vector=vector,
            mode=mode,
            offset=page * page_size,
            limit=page_size,
            tuning=self.tuning,
            where=where,
            where_params={"roles": list(roles)},
            focus=focus_vector,
            focus_skips=focus_skips,
        )
        by_id = {m.id: m for m in self._by_ids(agent_id, [i for i, _, _ in found])}
        hits = [self._hit(by_id[i], score, copies) for i, score, copies in found if i in by_id]
        return SearchPage(items=hits, total=total, page=page, page_size=page_size)

    def containing(self, agent_id: int, text: str, limit: int = 10) -> list[SearchHit]:
        """User and assistant messages that contain ``text`` (case-sensitive), oldest first, at
        most ``limit``; as ``RecallStore.containing``, with the phrase found by the tsvector."""
        words = phrase_words(text)
        if not words:
            return []
        found = self._select(
            f"agent_id = %s AND search_tsv @@ phraseto_tsquery('{TS_CONFIG}', %s)",
            (agent_id, " ".join(words), limit * 2),
            "ORDER BY id LIMIT %s",
        )
        hits = []
        for message in found:
            said = message.content
            if message.role == "assistant" and message.function_args:
                said = str(message.function_args.get("message", "")) or said
            if message.role in ("user", "assistant") and text in said:
                hits.append(
                    SearchHit(
                        kind="message", id=message.id, text=said, created_at=message.created_at, role=message.role
                    )
                )
        return hits[:limit]

    @staticmethod
    def _hit(message: Message, score: float, copies: int = 1) -> SearchHit:
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
        first, last = parse_day(start, "start date"), parse_day(end, "end date")
        if first > last:
            raise InvalidInputError(f"start date {first} is after end date {last}", "swap them")
        check_paging(page, page_size)
        where = "agent_id = %(agent)s AND created_at >= %(lo)s AND role = ANY(%(roles)s)"
        params: dict[str, Any] = {"agent": agent_id, "lo": _midnight(first), "roles": list(roles)}
        if last < date.max:
            where += " AND created_at < %(hi)s"
            params["hi"] = _midnight(last + timedelta(days=1))
        total = int(self.db.scalar(f"SELECT count(*) FROM messages WHERE {where}", params))
        found = self._select(
            where,
            {**params, "limit": page_size, "offset": page * page_size},
            "ORDER BY created_at, seq LIMIT %(limit)s OFFSET %(offset)s",
        )
        hits = [self._hit(m, 0.0) for m in found]
        return SearchPage(items=hits, total=total, page=page, page_size=page_size)


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
