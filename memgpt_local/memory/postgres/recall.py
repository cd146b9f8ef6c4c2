"""Recall storage in Postgres: every message of every agent, with its words and vector for search.

The same rows and methods as the SQLite file's ``memory.recall.RecallStore`` (the rules and the
methods with more than SQL are ``common.recall``'s); the words are a generated ``tsvector``
column and the vector a ``vector`` column of the message row, so deleting a message takes both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta, timezone
from typing import Any

import numpy as np

from memgpt_local.errors import NotFoundError
from memgpt_local.memory.common.fusion import Found, FusedSearch
from memgpt_local.memory.common.query import phrase_words
from memgpt_local.memory.common.recall import Appending, RecallStoreBase
from memgpt_local.memory.common.rows import message_from_row
from memgpt_local.memory.postgres.db import PostgresDatabase, stored_time, utc, vector_text
from memgpt_local.memory.postgres.migrations import TS_CONFIG
from memgpt_local.memory.postgres.search import MESSAGES, common_words, hybrid_search
from memgpt_local.schemas import Message

MESSAGE_COLUMNS = (
    "id, agent_id, seq, role, content, function_name, function_args, request_heartbeat, "
    "created_at, in_context, summarized"
)


class PgRecallStore(RecallStoreBase[PostgresDatabase]):
    def _select(self, where: str, params: Sequence[Any] | dict[str, Any], tail: str = "ORDER BY seq") -> list[Message]:
        rows = self.db.rows(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE {where} {tail}", params)
        return [message_from_row(r, utc) for r in rows]

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

    def delete(self, agent_id: int, message_ids: Sequence[int]) -> int:
        """Delete messages (their words and vectors are columns of the row); return count."""
        with self.db.transaction():
            gone = self.db.rows(
                "DELETE FROM messages WHERE agent_id = %s AND id = ANY(%s) RETURNING id",
                (agent_id, [int(i) for i in message_ids]),
            )
            return len(gone)

    # ------------------------------------------------------------ RecallStoreBase's hooks

    def _insert(self, agent_id: int, new: Appending) -> list[int]:
        # the agent's row stays locked until the transaction ends, so two writers never pick
        # the same ``seq``
        if not self.db.scalar("SELECT 1 FROM agents WHERE id = %s FOR UPDATE", (agent_id,)):
            raise NotFoundError(f"no agent with id {agent_id}", "see `memgpt-local agents list`")
        vector_of = {i: vector_text(v) for i, v in zip(new.to_embed, new.vectors)}
        seq = self.db.scalar("SELECT coalesce(max(seq), 0) FROM messages WHERE agent_id = %s", (agent_id,))
        return self.db.insert_returning(
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
                for n, (m, text) in enumerate(zip(new.messages, new.texts), start=1)
            ],
        )

    def _by_ids(self, agent_id: int, ids: Iterable[int]) -> list[Message]:
        ids = [int(i) for i in ids]
        if not ids:
            return []
        return self._select("agent_id = %s AND id = ANY(%s)", (agent_id, ids))

    def _rewrite(
        self, message_id: int, content: str, args: dict[str, Any] | None, text: str, vector: np.ndarray | None
    ) -> None:
        self.db.execute(
            "UPDATE messages SET content = %s, function_args = %s, search_text = %s, embedding = %s::vector "
            "WHERE id = %s",
            (
                content,
                json.dumps(args) if args is not None else None,
                text,
                None if vector is None else vector_text(vector),
                message_id,
            ),
        )

    def _common_words(self, agent_id: int, texts: Sequence[str | None]) -> frozenset[str]:
        return common_words(self.db, MESSAGES, agent_id, texts, self.tuning)

    def _filter(self, roles: Sequence[str], outside_context: bool, before_id: int | None) -> tuple[str, dict[str, Any]]:
        where = "AND b.role = ANY(%(roles)s)"
        if outside_context:
            where += " AND NOT b.in_context"
        if before_id is not None:
            where += f" AND b.id < {int(before_id)}"
        return where, {"roles": list(roles)}

    def _hybrid_search(self, agent_id: int, search: FusedSearch) -> Found:
        return hybrid_search(self.db, MESSAGES, agent_id, search)

    def _with_phrase(self, agent_id: int, text: str, limit: int) -> list[Message]:
        return self._select(
            f"agent_id = %s AND search_tsv @@ phraseto_tsquery('{TS_CONFIG}', %s)",
            (agent_id, " ".join(phrase_words(text)), limit),
            "ORDER BY id LIMIT %s",
        )

    def _between(
        self, agent_id: int, first: date, last: date, roles: Sequence[str], *, offset: int, limit: int
    ) -> tuple[int, list[Message]]:
        where = "agent_id = %(agent)s AND created_at >= %(lo)s AND role = ANY(%(roles)s)"
        params: dict[str, Any] = {"agent": agent_id, "lo": _midnight(first), "roles": list(roles)}
        if last < date.max:
            where += " AND created_at < %(hi)s"
            params["hi"] = _midnight(last + timedelta(days=1))
        total = int(self.db.scalar(f"SELECT count(*) FROM messages WHERE {where}", params))
        found = self._select(
            where,
            {**params, "limit": limit, "offset": offset},
            "ORDER BY created_at, seq LIMIT %(limit)s OFFSET %(offset)s",
        )
        return total, found


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
