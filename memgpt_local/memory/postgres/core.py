"""Core memory in Postgres: the labelled, size-limited blocks (persona, human, …) always in context."""

from __future__ import annotations

from typing import Any

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory.core import check_block
from memgpt_local.memory.postgres.db import PostgresDatabase
from memgpt_local.schemas import CoreBlock


class PgCoreMemoryStore:
    def __init__(self, db: PostgresDatabase):
        self.db = db

    @staticmethod
    def _block(row: dict[str, Any]) -> CoreBlock:
        return CoreBlock(label=row["label"], value=row["value"], limit=row["char_limit"], read_only=row["read_only"])

    def blocks(self, agent_id: int) -> list[CoreBlock]:
        rows = self.db.rows("SELECT * FROM core_blocks WHERE agent_id = %s ORDER BY id", (agent_id,))
        return [self._block(r) for r in rows]

    def get(self, agent_id: int, label: str) -> CoreBlock:
        row = self.db.one("SELECT * FROM core_blocks WHERE agent_id = %s AND label = %s", (agent_id, label))
        if row is None:
            labels = ", ".join(b.label for b in self.blocks(agent_id)) or "none"
            raise NotFoundError(f"no core memory block {label!r}", f"known blocks: {labels}")
        return self._block(row)

    def add_block(self, agent_id: int, block: CoreBlock) -> CoreBlock:
        check_block(block)
        with self.db.transaction():
            if self.db.scalar("SELECT 1 FROM core_blocks WHERE agent_id = %s AND label = %s", (agent_id, block.label)):
                raise InvalidInputError(f"core memory block {block.label!r} already exists")
            self.db.execute(
                "INSERT INTO core_blocks(agent_id, label, value, char_limit, read_only) VALUES (%s, %s, %s, %s, %s)",
                (agent_id, block.label, block.value, block.limit, block.read_only),
            )
        return block

    def set_value(self, agent_id: int, label: str, value: str) -> CoreBlock:
        """Replace a block's text; InvalidInputError if unknown, read-only or over the limit."""
        with self.db.transaction():
            try:
                block = self.get(agent_id, label)
            except NotFoundError as exc:
                raise InvalidInputError(exc.message, exc.hint) from exc
            if block.read_only:
                raise InvalidInputError(f"core memory block {label!r} is read-only")
            updated = block.model_copy(update={"value": value})
            check_block(updated)
            self._write(agent_id, label, value)
        return updated

    def replace_value(self, agent_id: int, label: str, value: str) -> None:
        """Replace a block's text even when it is read-only (for ``forget``); the limit holds."""
        with self.db.transaction():
            block = self.get(agent_id, label)
            check_block(block.model_copy(update={"value": value}))
            self._write(agent_id, label, value)

    def _write(self, agent_id: int, label: str, value: str) -> None:
        self.db.execute(
            "UPDATE core_blocks SET value = %s WHERE agent_id = %s AND label = %s", (value, agent_id, label)
        )
