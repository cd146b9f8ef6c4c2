"""Recall storage in the SQLite file: messages with FTS5 over their searchable text and vectors
in ``message_embeddings``; the rules and the methods with more than SQL are
``common.recall``'s, this is their SQL and the methods that are SQL alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Any

import numpy as np

from memgpt_local.errors import NotFoundError
from memgpt_local.memory.common.fusion import Found, FusedSearch
from memgpt_local.memory.common.recall import ROLES, Appending, RecallStoreBase, parse_day, searchable_text
from memgpt_local.memory.common.rows import Row, message_from_row
from memgpt_local.memory.db import Database, day_start, from_db_time, to_db_time
from memgpt_local.memory.search import MESSAGES, common_words, hybrid_search, phrase_match, write_vectors
from memgpt_local.schemas import Message

__all__ = ["ROLES", "RecallStore", "parse_day", "searchable_text"]  # the rules were defined here first


def _message(row: Row) -> Message:
    return message_from_row(row, from_db_time)


class RecallStore(RecallStoreBase[Database]):
    def get(self, agent_id: int, message_id: int) -> Message:
        row = self.db.one("SELECT * FROM messages WHERE agent_id = ? AND id = ?", (agent_id, message_id))
        if row is None:
            raise NotFoundError(f"no message {message_id} for agent {agent_id}")
        return _message(row)

    def in_context(self, agent_id: int) -> list[Message]:
        rows = self.db.rows("SELECT * FROM messages WHERE agent_id = ? AND in_context = 1 ORDER BY seq", (agent_id,))
        return [_message(r) for r in rows]

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
        return [_message(r) for r in rows]

    def all(self, agent_id: int) -> list[Message]:
        rows = self.db.rows("SELECT * FROM messages WHERE agent_id = ? ORDER BY seq", (agent_id,))
        return [_message(r) for r in rows]

    def last(self, agent_id: int, n: int) -> list[Message]:
        rows = self.db.rows(
            "SELECT * FROM (SELECT * FROM messages WHERE agent_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
            (agent_id, max(0, n)),
        )
        return [_message(r) for r in rows]

    def count(self, agent_id: int) -> int:
        return self.db.scalar("SELECT count(*) FROM messages WHERE agent_id = ?", (agent_id,))

    def delete(self, agent_id: int, message_ids: Sequence[int]) -> int:
        """Delete messages (their FTS rows and vectors go by trigger/cascade); return count."""
        with self.db.transaction():
            before = self.count(agent_id)
            self.db.execute(
                "DELETE FROM messages WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?))",
                (agent_id, json.dumps(list(message_ids))),
            )
            return before - self.count(agent_id)

    # ------------------------------------------------------------ RecallStoreBase's hooks

    def _insert(self, agent_id: int, new: Appending) -> list[int]:
        if not self.db.scalar("SELECT 1 FROM agents WHERE id = ?", (agent_id,)):
            raise NotFoundError(f"no agent with id {agent_id}", "see `memgpt-local agents list`")
        seq = self.db.scalar("SELECT coalesce(max(seq), 0) FROM messages WHERE agent_id = ?", (agent_id,))
        ids = []
        for offset, (m, text) in enumerate(zip(new.messages, new.texts), start=1):
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
        write_vectors(self.db, MESSAGES, [ids[i] for i in new.to_embed], new.vectors)
        return ids

    def _by_ids(self, agent_id: int, ids: Iterable[int]) -> list[Message]:
        ids = list(ids)
        if not ids:
            return []
        rows = self.db.rows(
            "SELECT * FROM messages WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY seq",
            (agent_id, json.dumps(ids)),
        )
        return [_message(r) for r in rows]

    def _rewrite(
        self, message_id: int, content: str, args: dict[str, Any] | None, text: str, vector: np.ndarray | None
    ) -> None:
        self.db.execute(
            "UPDATE messages SET content = ?, function_args = ?, search_text = ? WHERE id = ?",
            (content, json.dumps(args) if args is not None else None, text, message_id),
        )
        if vector is None:
            self.db.execute("DELETE FROM message_embeddings WHERE message_id = ?", (message_id,))
        else:
            write_vectors(self.db, MESSAGES, [message_id], vector[np.newaxis])

    def _common_words(self, agent_id: int, texts: Sequence[str | None]) -> frozenset[str]:
        return common_words(self.db, MESSAGES, agent_id, texts, self.tuning)

    def _filter(self, roles: Sequence[str], outside_context: bool, before_id: int | None) -> tuple[str, dict[str, Any]]:
        role_params = {f"role{i}": r for i, r in enumerate(roles)}
        where = f"AND b.role IN ({', '.join(':' + k for k in role_params)})"
        if outside_context:
            where += " AND b.in_context = 0"
        if before_id is not None:
            where += f" AND b.id < {int(before_id)}"
        return where, role_params

    def _hybrid_search(self, agent_id: int, search: FusedSearch) -> Found:
        return hybrid_search(self.db, MESSAGES, agent_id, search)

    def _with_phrase(self, agent_id: int, text: str, limit: int) -> list[Message]:
        rows = self.db.rows(
            "SELECT b.* FROM messages_fts f JOIN messages b ON b.id = f.rowid "
            "WHERE messages_fts MATCH ? AND b.agent_id = ? ORDER BY f.rowid LIMIT ?",
            (phrase_match(text), agent_id, limit),
        )
        return [_message(r) for r in rows]

    def _between(
        self, agent_id: int, first: date, last: date, roles: Sequence[str], *, offset: int, limit: int
    ) -> tuple[int, list[Message]]:
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
            {**params, "limit": limit, "offset": offset},
        )
        return total, [_message(r) for r in rows]
