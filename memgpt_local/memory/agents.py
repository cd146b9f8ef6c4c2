"""Agents: one row per agent; deleting one removes all of its memory in every table."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from memgpt_local.errors import AgentNotFoundError, InvalidInputError, NotFoundError
from memgpt_local.memory.core import CoreMemoryStore, default_blocks
from memgpt_local.memory.db import Database, from_db_time, to_db_time
from memgpt_local.schemas import Agent, CoreBlock, utcnow

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise InvalidInputError(
            f"invalid agent name {name!r}", "use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )
    return name


class AgentStore:
    def __init__(self, db: Database, core: CoreMemoryStore):
        self.db = db
        self.core = core

    @staticmethod
    def _agent(row: dict[str, Any]) -> Agent:
        return Agent(
            id=row["id"],
            name=row["name"],
            created_at=from_db_time(row["created_at"]),
            model=row["model"],
            system_prompt=row["system_prompt"],
            summary=row["summary"],
            state=json.loads(row["state"]),
        )

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
            if self.db.scalar("SELECT 1 FROM agents WHERE name = ?", (name,)):
                raise InvalidInputError(
                    f"an agent named {name!r} already exists", "pick another name or delete the old agent"
                )
            self.db.execute(
                "INSERT INTO agents(name, created_at, model, system_prompt) VALUES (?, ?, ?, ?)",
                (name, to_db_time(created_at or utcnow()), model, system_prompt),
            )
            agent_id = self.db.last_rowid()
            for block in default_blocks() if blocks is None else blocks:
                self.core.add_block(agent_id, block)
        return self.get_by_id(agent_id)

    def get(self, name: str) -> Agent:
        row = self.db.one("SELECT * FROM agents WHERE name = ?", (name,))
        if row is None:
            raise AgentNotFoundError(name)
        return self._agent(row)

    def get_by_id(self, agent_id: int) -> Agent:
        row = self.db.one("SELECT * FROM agents WHERE id = ?", (agent_id,))
        if row is None:
            raise NotFoundError(f"no agent with id {agent_id}", "see `memgpt-local agents list`")
        return self._agent(row)

    def list(self) -> list[Agent]:
        return [self._agent(r) for r in self.db.rows("SELECT * FROM agents ORDER BY name")]

    def delete(self, name: str) -> None:
        """Remove the agent; foreign keys and triggers take its rows, FTS rows and vectors."""
        with self.db.transaction():
            agent = self.get(name)
            self.db.execute("DELETE FROM agents WHERE id = ?", (agent.id,))

    def _update(self, agent_id: int, column: str, value: Any) -> None:
        with self.db.transaction():
            self.get_by_id(agent_id)
            self.db.execute(f"UPDATE agents SET {column} = ? WHERE id = ?", (value, agent_id))

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
