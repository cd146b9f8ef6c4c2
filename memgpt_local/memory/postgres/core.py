"""Core memory in Postgres: the labelled, size-limited blocks (persona, human, …) always in
context. The rules and the methods are ``common.core``'s; this is their SQL."""

from __future__ import annotations

from memgpt_local.memory.common.core import CoreMemoryBase
from memgpt_local.memory.common.rows import block_from_row
from memgpt_local.memory.postgres.db import PostgresDatabase
from memgpt_local.schemas import CoreBlock


class PgCoreMemoryStore(CoreMemoryBase[PostgresDatabase]):
    def blocks(self, agent_id: int) -> list[CoreBlock]:
        rows = self.db.rows("SELECT * FROM core_blocks WHERE agent_id = %s ORDER BY id", (agent_id,))
        return [block_from_row(r) for r in rows]

    def _find(self, agent_id: int, label: str) -> CoreBlock | None:
        row = self.db.one("SELECT * FROM core_blocks WHERE agent_id = %s AND label = %s", (agent_id, label))
        return None if row is None else block_from_row(row)

    def _insert(self, agent_id: int, block: CoreBlock) -> None:
        self.db.execute(
            "INSERT INTO core_blocks(agent_id, label, value, char_limit, read_only) VALUES (%s, %s, %s, %s, %s)",
            (agent_id, block.label, block.value, block.limit, block.read_only),
        )

    def _write(self, agent_id: int, label: str, value: str) -> None:
        self.db.execute(
            "UPDATE core_blocks SET value = %s WHERE agent_id = %s AND label = %s", (value, agent_id, label)
        )
