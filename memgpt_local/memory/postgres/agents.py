"""Agents in Postgres: one row per agent; deleting one removes all of its memory in every table."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from memgpt_local.errors import AgentNotFoundError, InvalidInputError, NotFoundError
from memgpt_local.memory.agents import check_name
from memgpt_local.memory.core import default_blocks
from memgpt_local.memory.postgres.core import PgCoreMemoryStore
from memgpt_local.memory.postgres.db import PostgresDatabase
from memgpt_local.schemas import Agent, CoreBlock, utcnow

# agents are listed by name in code-point order, as the SQLite file lists them
BY_NAME = 'ORDER BY name COLLATE "C"'


def utc(value: datetime) -> datetime:
    """A timestamptz as read back, in UTC (as the SQLite file gives it)."""
    return value.astimezone(timezone.utc)


def stored_time(value: datetime) -> datetime:
    """A datetime to store: naive ones are taken as UTC (as ``db.to_db_time`` does)."""
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


class PgAgentStore:
    def __init__(self, db: PostgresDatabase, core: PgCoreMemoryStore):
        self.db = db
        self.core = core

    @staticmethod
    def _agent(row: dict[str, Any]) -> Agent:
        return Agent(
            id=row["id"],
            name=row["name"],
            created_at=utc(row["created_at"]),
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
            if self.db.scalar("SELECT 1 FROM agents WHERE name = %s", (name,)):
                raise InvalidInputError(
                    f"an agent named {name!r} already exists", "pick another name or delete the old agent"
                )
            agent_id = self.db.scalar(
                "INSERT INTO agents(name, created_at, model, system_prompt) VALUES (%s, %s, %s, %s) RETURNING id",
                (name, stored_time(created_at or utcnow()), model, system_prompt),
            )
            for block in default_blocks() if blocks is None else blocks:
                self.core.add_block(agent_id, block)
        return self.get_by_id(agent_id)

    def get(self, name: str) -> Agent:
        row = self.db.one("SELECT * FROM agents WHERE name = %s", (name,))
        if row is None:
            raise AgentNotFoundError(name)
        return self._agent(row)

    def get_by_id(self, agent_id: int) -> Agent:
        row = self.db.one("SELECT * FROM agents WHERE id = %s", (agent_id,))
        if row is None:
            raise NotFoundError(f"no agent with id {agent_id}", "see `memgpt-local agents list`")
        return self._agent(row)

    def list(self) -> list[Agent]:
        return [self._agent(r) for r in self.db.rows(f"SELECT * FROM agents {BY_NAME}")]

    def delete(self, name: str) -> None:
        """Remove the agent; foreign keys take its rows (their words and vectors are columns)."""
        with self.db.transaction():
            agent = self.get(name)
            self.db.execute("DELETE FROM agents WHERE id = %s", (agent.id,))

    def _update(self, agent_id: int, column: str, value: Any) -> None:
        with self.db.transaction():
            self.get_by_id(agent_id)
            self.db.execute(f"UPDATE agents SET {column} = %s WHERE id = %s", (value, agent_id))

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
