"""Recall storage: every message of every agent, with FTS5 and vectors for search.

``seq`` orders an agent's messages; ``in_context`` marks those in the main context's FIFO
queue, so the exact context can be rebuilt after a restart. Each message has a searchable
text: its content plus, for an assistant step, the text it sent with ``send_message``.
Besides hybrid and date search, ``containing`` finds the messages that contain an exact string
(linked memory: entries that share a rare name, code or id).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory.db import Database, day_start, from_db_time, to_db_time
from memgpt_local.memory.embed import Embedder
from memgpt_local.memory.search import (
    MESSAGES,
    SearchMode,
    SearchTuning,
    check_mode,
    check_paging,
    check_query,
    common_words,
    hybrid_search,
    phrase_match,
    query_vectors,
    write_vectors,
)
from memgpt_local.schemas import Message, NewMessage, SearchHit, SearchPage

ROLES = ("system", "user", "assistant", "function")
Progress = Callable[[int, int], None]


def searchable_text(
    role: str, content: str, function_args: dict[str, Any] | None, function_name: str | None = None
) -> str:
    """What search finds of a message: what was said. An agent step's thought is private and
    names the words of every question it works on, so only the message it sent counts; an
    imported assistant line (no function) is what was said."""
    if role == "assistant" and function_name:
        said = (function_args or {}).get("message")
        return said.strip() if isinstance(said, str) else ""
    return content.strip()


def parse_day(value: str | date, what: str) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise InvalidInputError(f"{what} {value!r} is not a date", "use YYYY-MM-DD") from None


def embed_in_batches(embedder: Embedder, texts: list[str], progress: Progress | None, batch: int = 256) -> np.ndarray:
    """Embed ``texts`` in slices so a progress callback can follow along."""
    if progress is None or len(texts) <= batch:
        vectors = embedder.embed(texts) if texts else np.zeros((0, embedder.dim), np.float32)
        if progress is not None:
            progress(len(texts), len(texts))
        return vectors
    parts = []
    for start in range(0, len(texts), batch):
        parts.append(embedder.embed(texts[start : start + batch]))
        progress(min(start + batch, len(texts)), len(texts))
    return np.concatenate(parts)


class RecallStore:
    def __init__(self, db: Database, embedder: Embedder, tuning: SearchTuning):
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
            request_heartbeat=bool(row["request_heartbeat"]),
            created_at=from_db_time(row["created_at"]),
            in_context=bool(row["in_context"]),
            summarized=bool(row.get("summarized", 0)),
        )

    def _require_agent(self, agent_id: int) -> None:
        if not self.db.scalar("SELECT 1 FROM agents WHERE id = ?", (agent_id,)):
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
        with self.db.transaction():
            self._require_agent(agent_id)
            seq = self.db.scalar("SELECT coalesce(max(seq), 0) FROM messages WHERE agent_id = ?", (agent_id,))
            ids = []
            for offset, (m, text) in enumerate(zip(messages, texts), start=1):
                self.db.execute(
                    "INSERT INTO messages(agent_id, seq, role, content, function_name, "
                    "function_args, request_heartbeat, search_text, created_at, in_context) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        agent_id,
                        seq + offset,
                        m.role,
                        m.content,
                        m.function_name,
                        json.dumps(m.function_args) if m.function_args is not None else None,
                        int(m.request_heartbeat),
                        text,
                        to_db_time(m.created_at),
                        int(m.in_context),
                    ),
                )
                ids.append(self.db.last_rowid())
            write_vectors(self.db, MESSAGES, [ids[i] for i in to_embed], vectors)
            return self._by_ids(agent_id, ids)

    def _by_ids(self, agent_id: int, ids: Iterable[int]) -> list[Message]:
        ids = list(ids)
        if not ids:
            return []
        rows = self.db.rows(
            "SELECT * FROM messages WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY seq",
            (agent_id, json.dumps(ids)),
        )
        return [self._message(r) for r in rows]

    def get(self, agent_id: int, message_id: int) -> Message:
        row = self.db.one("SELECT * FROM messages WHERE agent_id = ? AND id = ?", (agent_id, message_id))
        if row is None:
            raise NotFoundError(f"no message {message_id} for agent {agent_id}")
        return self._message(row)

    def in_context(self, agent_id: int) -> list[Message]:
        rows = self.db.rows("SELECT * FROM messages WHERE agent_id = ? AND in_context = 1 ORDER BY seq", (agent_id,))
        return [self._message(r) for r in rows]

    def set_in_context(self, agent_id: int, message_ids: Sequence[int], in_context: bool) -> None:
        with self.db.transaction():
            self.db.execute(
                "UPDATE messages SET in_context = ? WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?))",
                (int(in_context), agent_id, json.dumps(list(message_ids))),
            )

    def hold_back(self, agent_id: int, message_id: int) -> None:
        """A reply draft the user never saw: it leaves the main context and search (its words
        and vector), and stays in storage with the rest of the turn."""
        with self.db.transaction():
            self.get(agent_id, message_id)
            self.db.execute("UPDATE messages SET in_context = 0, search_text = '' WHERE id = ?", (message_id,))
            self.db.execute("DELETE FROM message_embeddings WHERE message_id = ?", (message_id,))

    def set_summarized(self, agent_id: int, message_ids: Sequence[int], summarized: bool = True) -> None:
        """Mark messages as folded into (or left out of) the recursive summary."""
        with self.db.transaction():
            self.db.execute(
                "UPDATE messages SET summarized = ? WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?))",
                (int(summarized), agent_id, json.dumps(list(message_ids))),
            )

    def summarized(self, agent_id: int) -> list[Message]:
        """The messages the recursive summary was written from, oldest first."""
        rows = self.db.rows("SELECT * FROM messages WHERE agent_id = ? AND summarized = 1 ORDER BY seq", (agent_id,))
        return [self._message(r) for r in rows]

    def all(self, agent_id: int) -> list[Message]:
        rows = self.db.rows("SELECT * FROM messages WHERE agent_id = ? ORDER BY seq", (agent_id,))
        return [self._message(r) for r in rows]

    def last(self, agent_id: int, n: int) -> list[Message]:
        rows = self.db.rows(
            "SELECT * FROM (SELECT * FROM messages WHERE agent_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
            (agent_id, max(0, n)),
        )
        return [self._message(r) for r in rows]

    def count(self, agent_id: int) -> int:
        return self.db.scalar("SELECT count(*) FROM messages WHERE agent_id = ?", (agent_id,))

    def update(
        self, agent_id: int, message_id: int, *, content: str | None = None, function_args: dict[str, Any] | None = None
    ) -> Message:
        """Change a message's content and/or arguments; FTS and vector follow."""
        old = self.get(agent_id, message_id)
        content = old.content if content is None else content
        args = old.function_args if function_args is None else function_args
        text = searchable_text(old.role, content, args, old.function_name)
        vectors = self.embedder.embed([text]) if text else None
        with self.db.transaction():
            self.get(agent_id, message_id)
            self.db.execute(
                "UPDATE messages SET content = ?, function_args = ?, search_text = ? WHERE id = ?",
                (content, json.dumps(args) if args is not None else None, text, message_id),
            )
            if vectors is None:
                self.db.execute("DELETE FROM message_embeddings WHERE message_id = ?", (message_id,))
            else:
                write_vectors(self.db, MESSAGES, [message_id], vectors)
        return self.get(agent_id, message_id)

    def delete(self, agent_id: int, message_ids: Sequence[int]) -> int:
        """Delete messages (their FTS rows and vectors go by trigger/cascade); return count."""
        with self.db.transaction():
            before = self.count(agent_id)
            self.db.execute(
                "DELETE FROM messages WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?))",
                (agent_id, json.dumps(list(message_ids))),
            )
            return before - self.count(agent_id)

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
        hybrid and vector mode (see ``hybrid_search``). The agent's common words (the friends'
        names, "haha": see ``search.common_words``) are left out of what is embedded of the
        query and the focus."""
        check_query(query)
        check_paging(page, page_size)
        check_mode(mode)
        bad = [r for r in roles if r not in ROLES]
        if bad or not roles:
            raise InvalidInputError(f"bad roles {list(roles)!r}", f"use some of {', '.join(ROLES)}")
        embedded = [query, focus] if mode != "text" else []
        common = common_words(self.db, MESSAGES, agent_id, embedded, self.tuning)
        vector, focus_vector = query_vectors(self.embedder, query, focus, mode, common)
        role_params = {f"role{i}": r for i, r in enumerate(roles)}
        where = f"AND b.role IN ({', '.join(':' + k for k in role_params)})"
        if outside_context:
            where += " AND b.in_context = 0"
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
            where_params=role_params,
            focus=focus_vector,
            focus_skips=focus_skips,
        )
        by_id = {m.id: m for m in self._by_ids(agent_id, [i for i, _, _ in found])}
        hits = [self._hit(by_id[i], score, copies) for i, score, copies in found if i in by_id]
        return SearchPage(items=hits, total=total, page=page, page_size=page_size)

    def containing(self, agent_id: int, text: str, limit: int = 10) -> list[SearchHit]:
        """User and assistant messages that contain ``text`` (case-sensitive), oldest first, at
        most ``limit``. An assistant step's text is what it sent with ``send_message``.

        FTS5 finds the candidates by phrase (``text``'s words adjacent and in order; the agent's
        first ``2 * limit`` matches, any role), fetched in the same query; a substring check
        then keeps only true occurrences.
        """
        match = phrase_match(text)
        if match is None:
            return []
        rows = self.db.rows(
            "SELECT b.* FROM messages_fts f JOIN messages b ON b.id = f.rowid "
            "WHERE messages_fts MATCH ? AND b.agent_id = ? ORDER BY f.rowid LIMIT ?",
            (match, agent_id, limit * 2),
        )
        hits = []
        for message in map(self._message, rows):
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
        role_params = {f"role{i}": r for i, r in enumerate(roles)}
        where = (
            f"agent_id = :agent AND created_at >= :lo AND created_at < :hi "
            f"AND role IN ({', '.join(':' + k for k in role_params) or 'NULL'})"
        )
        params = {
            "agent": agent_id,
            "lo": day_start(first),
            "hi": day_start(last + timedelta(days=1)) if last < date.max else "9999-99",
            **role_params,
        }
        total = self.db.scalar(f"SELECT count(*) FROM messages WHERE {where}", params)
        rows = self.db.rows(
            f"SELECT * FROM messages WHERE {where} ORDER BY created_at, seq LIMIT :limit OFFSET :offset",
            {**params, "limit": page_size, "offset": page * page_size},
        )
        hits = [self._hit(self._message(r), 0.0) for r in rows]
        return SearchPage(items=hits, total=total, page=page, page_size=page_size)
