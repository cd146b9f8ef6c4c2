"""Core memory in the SQLite file: the labelled, size-limited blocks (persona, human, …)
always in context. The rules and the methods are ``common.core``'s; this is their SQL."""

from __future__ import annotations

from memgpt_local.memory.common.core import (
    CORE_KNOWN,
    CORE_SHOWN,
    CORE_VIEW_KEYS,
    DEFAULT_LIMIT,
    CoreMemoryBase,
    check_block,
    default_blocks,
    default_text,
    fitted,
)
from memgpt_local.memory.common.rows import block_from_row
from memgpt_local.memory.db import Database
from memgpt_local.schemas import CoreBlock

# the rules were defined here first; callers still import them from here
__all__ = [
    "CORE_KNOWN",
    "CORE_SHOWN",
    "CORE_VIEW_KEYS",
    "DEFAULT_LIMIT",
    "CoreMemoryStore",
    "check_block",
    "default_blocks",
    "default_text",
    "fitted",
]


class CoreMemoryStore(CoreMemoryBase[Database]):
    def blocks(self, agent_id: int) -> list[CoreBlock]:
        rows = self.db.rows("SELECT * FROM core_blocks WHERE agent_id = ? ORDER BY id", (agent_id,))
        return [block_from_row(r) for r in rows]

    def _find(self, agent_id: int, label: str) -> CoreBlock | None:
        row = self.db.one("SELECT * FROM core_blocks WHERE agent_id = ? AND label = ?", (agent_id, label))
        return None if row is None else block_from_row(row)

    def _insert(self, agent_id: int, block: CoreBlock) -> None:
        self.db.execute(
            "INSERT INTO core_blocks(agent_id, label, value, char_limit, read_only) VALUES (?, ?, ?, ?, ?)",
            (agent_id, block.label, block.value, block.limit, int(block.read_only)),
        )

    def _write(self, agent_id: int, label: str, value: str) -> None:
        self.db.execute("UPDATE core_blocks SET value = ? WHERE agent_id = ? AND label = ?", (value, agent_id, label))
