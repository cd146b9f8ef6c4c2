"""Exact-phrase lookups: which messages or passages of an agent contain a given string.

Used by linked memory (``functions/links.py``): entries that share a rare identifier (a
name, a code, an id) are linked. FTS5 finds candidates by phrase (the string's words
adjacent and in order); a case-sensitive substring check keeps only true occurrences.
"""

from __future__ import annotations

import re

from memgpt_local.memory.search import MESSAGES, PASSAGES, Target
from memgpt_local.schemas import SearchHit

_WORD = re.compile(r"\w+")


def _phrase_query(text: str) -> str | None:
    words = _WORD.findall(text)
    return '"' + " ".join(words) + '"' if words else None


def _containing(store, target: Target, agent_id: int, text: str, limit: int) -> list[int]:
    query = _phrase_query(text)
    if query is None:
        return []
    rows = store.db.rows(
        f"SELECT f.rowid AS id FROM {target.fts} f JOIN {target.base} b ON b.id = f.rowid "
        f"WHERE {target.fts} MATCH ? AND b.agent_id = ? ORDER BY f.rowid LIMIT ?",
        (query, agent_id, limit),
    )
    return [r["id"] for r in rows]


def passages_containing(store, agent_id: int, text: str, limit: int = 10) -> list[SearchHit]:
    """Archival passages whose text contains ``text`` (at most ``limit``, oldest first)."""
    ids = _containing(store, PASSAGES, agent_id, text, limit * 2)
    hits = []
    for passage_id in ids:
        passage = store.archival.get(agent_id, passage_id)
        if text in passage.text:
            hits.append(SearchHit(kind="passage", id=passage.id, text=passage.text,
                                  created_at=passage.created_at, citation=passage.citation))
    return hits[:limit]


def messages_containing(store, agent_id: int, text: str, limit: int = 10) -> list[SearchHit]:
    """User and assistant messages whose searchable text contains ``text``."""
    ids = _containing(store, MESSAGES, agent_id, text, limit * 2)
    hits = []
    for message_id in ids:
        message = store.recall.get(agent_id, message_id)
        said = message.content
        if message.role == "assistant" and message.function_args:
            said = str(message.function_args.get("message", "")) or said
        if message.role in ("user", "assistant") and text in said:
            hits.append(SearchHit(kind="message", id=message.id, text=said,
                                  created_at=message.created_at, role=message.role))
    return hits[:limit]
