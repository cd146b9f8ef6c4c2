"""Agents in Postgres: one row per agent; deleting one removes all of its memory in every table
(foreign keys take its rows; their words and vectors are columns). The rules and the methods
are ``common.agents``'s; this is their SQL."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memgpt_local.memory.common.agents import AgentStoreBase
from memgpt_local.memory.common.rows import Row, agent_from_row
from memgpt_local.memory.postgres.db import PostgresDatabase, stored_time, utc
from memgpt_local.schemas import Agent

# agents are listed by name in code-point order, as the SQLite file lists them
BY_NAME = 'ORDER BY name COLLATE "C"'


def _agent(row: Row | None) -> Agent | None:
    return None if row is None else agent_from_row(row, utc)


class PgAgentStore(AgentStoreBase[PostgresDatabase]):
    def list(self) -> list[Agent]:
        return [agent_from_row(r, utc) for r in self.db.rows(f"SELECT * FROM agents {BY_NAME}")]

    def _named(self, name: str) -> Agent | None:
        return _agent(self.db.one("SELECT * FROM agents WHERE name = %s", (name,)))

    def _with_id(self, agent_id: int) -> Agent | None:
        return _agent(self.db.one("SELECT * FROM agents WHERE id = %s", (agent_id,)))

    def _insert(self, name: str, created_at: datetime, model: str | None, system_prompt: str) -> int:
        return int(
            self.db.scalar(
                "INSERT INTO agents(name, created_at, model, system_prompt) VALUES (%s, %s, %s, %s) RETURNING id",
                (name, stored_time(created_at), model, system_prompt),
            )
        )

    def _delete(self, agent_id: int) -> None:
        self.db.execute("DELETE FROM agents WHERE id = %s", (agent_id,))

    def _set_column(self, agent_id: int, column: str, value: Any) -> None:
        self.db.execute(f"UPDATE agents SET {column} = %s WHERE id = %s", (value, agent_id))
