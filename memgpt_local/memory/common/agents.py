"""Agents: one row per agent; deleting one removes all of its memory in every table.

The rules for an agent's name and the agent stores' methods are the same for both backends:
``AgentStoreBase`` has them, and ``memory.agents.AgentStore`` (SQLite) and
``memory.postgres.agents.PgAgentStore`` supply its SQL.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any, Generic

from memgpt_local.errors import AgentNotFoundError, InvalidInputError, NotFoundError
from memgpt_local.memory.common.connection import DB
from memgpt_local.memory.common.core import CoreMemoryBase, default_blocks
from memgpt_local.schemas import Agent, CoreBlock, utcnow

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise InvalidInputError(
            f"invalid agent name {name!r}", "use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )
    return name


class AgentStoreBase(ABC, Generic[DB]):
    """The agent store's methods; a subclass supplies the SQL (``list`` and the hooks at the end)."""

    def __init__(self, db: DB, core: CoreMemoryBase[DB]):
        self.db = db
        self.core = core

    def create(
        self,
        name: str,
        *,
        system_prompt: str = "",
        model: str | None = None,
        blocks: list[CoreBlock] | None = None,
        created_at: datetime | None = None,
    ) -> Agent:
        """A new agent with its core blocks (default: persona and human from package data)."""
        check_name(name)
        with self.db.transaction():
            if self._named(name) is not None:
                raise InvalidInputError(
                    f"an agent named {name!r} already exists", "pick another name or delete the old agent"
                )
            agent_id = self._insert(name, created_at or utcnow(), model, system_prompt)
            for block in default_blocks() if blocks is None else blocks:
                self.core.add_block(agent_id, block)
        return self.get_by_id(agent_id)

    def get(self, name: str) -> Agent:
        agent = self._named(name)
        if agent is None:
            raise AgentNotFoundError(name)
        return agent

    def get_by_id(self, agent_id: int) -> Agent:
        agent = self._with_id(agent_id)
        if agent is None:
            raise NotFoundError(f"no agent with id {agent_id}", "see `memgpt-local agents list`")
        return agent

    def delete(self, name: str) -> None:
        """Remove the agent; its rows in every table (their words and vectors with them) go too."""
        with self.db.transaction():
            agent = self.get(name)
            self._delete(agent.id)

    def set_summary(self, agent_id: int, summary: str) -> None:
        self._update(agent_id, "summary", summary)

    def set_state(self, agent_id: int, state: dict[str, Any]) -> None:
        try:
            encoded = json.dumps(state)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"agent state is not JSON-serializable: {exc}") from exc
        self._update(agent_id, "state", encoded)

    def set_system_prompt(self, agent_id: int, text: str) -> None:
        self._update(agent_id, "system_prompt", text)

    def set_model(self, agent_id: int, model: str | None) -> None:
        self._update(agent_id, "model", model)

    def _update(self, agent_id: int, column: str, value: Any) -> None:
        with self.db.transaction():
            self.get_by_id(agent_id)
            self._set_column(agent_id, column, value)

    @abstractmethod
    def list(self) -> list[Agent]:
        """Every agent, by name in code-point order."""

    @abstractmethod
    def _named(self, name: str) -> Agent | None: ...

    @abstractmethod
    def _with_id(self, agent_id: int) -> Agent | None: ...

    @abstractmethod
    def _insert(self, name: str, created_at: datetime, model: str | None, system_prompt: str) -> int:
        """Store a new agent's row; return its id."""

    @abstractmethod
    def _delete(self, agent_id: int) -> None:
        """Delete the agent's row and, with it, every row of the agent."""

    @abstractmethod
    def _set_column(self, agent_id: int, column: str, value: Any) -> None: ...
