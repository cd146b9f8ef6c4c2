"""Stored rows as models: the one place each kind of row becomes an ``Agent``, ``CoreBlock``,
``Message``, ``Passage`` or ``Source``.

Both backends select the same columns; they differ only in how a time is stored (an ISO text
in the SQLite file, a ``timestamptz`` in Postgres), so each converter takes the backend's
``read_time``, and in how a flag is stored (0/1 or a boolean), which ``bool`` reads alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import PurePath
from typing import Any

from memgpt_local.schemas import Agent, CoreBlock, Message, Passage, Source

Row = Mapping[str, Any]
ReadTime = Callable[[Any], datetime]  # a stored time as an aware datetime in UTC


def citation(path: str | None, chunk_index: int | None) -> str | None:
    """How search results cite a document's passage: ``notes.md#chunk-3`` (None for a passage
    the agent inserted itself)."""
    if path is None:
        return None
    name = PurePath(path).name
    return name if chunk_index is None else f"{name}#chunk-{chunk_index}"


def agent_from_row(row: Row, read_time: ReadTime) -> Agent:
    return Agent(
        id=row["id"],
        name=row["name"],
        created_at=read_time(row["created_at"]),
        model=row["model"],
        system_prompt=row["system_prompt"],
        summary=row["summary"],
        state=json.loads(row["state"]),
    )


def block_from_row(row: Row) -> CoreBlock:
    return CoreBlock(label=row["label"], value=row["value"], limit=row["char_limit"], read_only=bool(row["read_only"]))


def message_from_row(row: Row, read_time: ReadTime) -> Message:
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
        created_at=read_time(row["created_at"]),
        in_context=bool(row["in_context"]),
        summarized=bool(row.get("summarized", 0)),
    )


def passage_from_row(row: Row, read_time: ReadTime) -> Passage:
    """A passage row joined with its source's ``source_path`` (NULL without a source)."""
    return Passage(
        id=row["id"],
        agent_id=row["agent_id"],
        text=row["text"],
        source_id=row["source_id"],
        chunk_index=row["chunk_index"],
        char_start=row["char_start"],
        char_end=row["char_end"],
        created_at=read_time(row["created_at"]),
        citation=citation(row["source_path"], row["chunk_index"]),
    )


def source_from_row(row: Row, read_time: ReadTime) -> Source:
    """A source row with the count of its ``passages``."""
    return Source(
        id=row["id"],
        agent_id=row["agent_id"],
        path=row["path"],
        content_hash=row["content_hash"],
        passages=row["passages"],
        created_at=read_time(row["created_at"]),
    )
