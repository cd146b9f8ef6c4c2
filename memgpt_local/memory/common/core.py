"""Core memory: the labelled, size-limited blocks (persona, human, …) always in context.

What a block may hold and the packaged defaults are the same whatever stores the blocks, and
so are the core stores' methods: ``CoreMemoryBase`` has them, and ``memory.core.CoreMemoryStore``
(SQLite) and ``memory.postgres.core.PgCoreMemoryStore`` supply its SQL.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from importlib import resources
from typing import Generic

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory.common.connection import DB
from memgpt_local.schemas import CoreBlock

DEFAULT_LIMIT = 2000
# agent-state keys holding copies of core memory: what the system message shows, and the blocks
# as the agent last saw them (agent/context.CoreView); forgetting must clear them too
CORE_SHOWN, CORE_KNOWN = CORE_VIEW_KEYS = ("core_shown", "core_known")


def default_text(label: str) -> str:
    """The packaged default text of the ``persona`` or ``human`` block."""
    path = resources.files("memgpt_local") / "data" / "personas" / f"default_{label}.txt"
    return path.read_text(encoding="utf-8").strip()


def default_blocks(
    limit: int = DEFAULT_LIMIT, *, persona: str | None = None, human: str | None = None
) -> list[CoreBlock]:
    persona = fitted(default_text("persona"), limit) if persona is None else persona
    human = fitted(default_text("human"), limit) if human is None else human
    return [CoreBlock(label="persona", value=persona, limit=limit), CoreBlock(label="human", value=human, limit=limit)]


def fitted(text: str, limit: int) -> str:
    """A packaged default text within a smaller ``agent.core_memory_limit``: its first lines
    that fit (the first line cut at a word when even that one does not), so a small limit never
    stops an agent from being created."""
    kept: list[str] = []
    for line in text.splitlines():
        if len("\n".join([*kept, line])) > limit:
            break
        kept.append(line)
    if kept:
        return "\n".join(kept)
    return text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]


def check_block(block: CoreBlock) -> None:
    """Raise InvalidInputError for a block without a label or over its limit."""
    if not block.label.strip():
        raise InvalidInputError("a core memory block needs a label")
    if len(block.value) > block.limit:
        raise InvalidInputError(
            f"core memory block {block.label!r} holds {len(block.value)} characters, over its limit of {block.limit}",
            "shorten the text",
        )


class CoreMemoryBase(ABC, Generic[DB]):
    """The core memory methods; a subclass supplies the SQL (the hooks at the end)."""

    def __init__(self, db: DB):
        self.db = db

    def get(self, agent_id: int, label: str) -> CoreBlock:
        block = self._find(agent_id, label)
        if block is None:
            labels = ", ".join(b.label for b in self.blocks(agent_id)) or "none"
            raise NotFoundError(f"no core memory block {label!r}", f"known blocks: {labels}")
        return block

    def add_block(self, agent_id: int, block: CoreBlock) -> CoreBlock:
        check_block(block)
        with self.db.transaction():
            if self._find(agent_id, block.label) is not None:
                raise InvalidInputError(f"core memory block {block.label!r} already exists")
            self._insert(agent_id, block)
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

    @abstractmethod
    def blocks(self, agent_id: int) -> list[CoreBlock]:
        """The agent's blocks in the order they were added."""

    @abstractmethod
    def _find(self, agent_id: int, label: str) -> CoreBlock | None: ...

    @abstractmethod
    def _insert(self, agent_id: int, block: CoreBlock) -> None: ...

    @abstractmethod
    def _write(self, agent_id: int, label: str, value: str) -> None:
        """Set the text of the agent's block ``label``."""
