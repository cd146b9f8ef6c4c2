"""Agents in the SQLite file: one row per agent; deleting one removes all of its memory in every
table (foreign keys take its rows, triggers their FTS rows and vectors). The rules and the
methods are ``common.agents``'s; this is their SQL."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memgpt_local.memory.common.agents import NAME_RE, AgentStoreBase, check_name
from memgpt_local.memory.common.rows import Row, agent_from_row
from memgpt_local.memory.db import Database, from_db_time, to_db_time
from memgpt_local.schemas import Agent

__all__ = ["NAME_RE", "AgentStore", "check_name"]  # the name rules were defined here first


def _agent(row: Row | None) -> Agent | None:
    return None if row is None else agent_from_row(row, from_db_time)


class AgentStore(AgentStoreBase[Database]):
    def list(self) -> list[Agent]:
        return [agent_from_row(r, from_db_time) for r in self.db.rows("SELECT * FROM agents ORDER BY name")]

    def _named(self, name: str) -> Agent | None:
        return _agent(self.db.one("SELECT * FROM agents WHERE name = ?", (name,)))

    def _with_id(self, agent_id: int) -> Agent | None:
        return _agent(self.db.one("SELECT * FROM agents WHERE id = ?", (agent_id,)))

    def _insert(self, name: str, created_at: datetime, model: str | None, system_prompt: str) -> int:
        self.db.execute(
            "INSERT INTO agents(name, created_at, model, system_prompt) VALUES (?, ?, ?, ?)",
            (name, to_db_time(created_at), model, system_prompt),
        )
        return self.db.last_rowid()

    def _delete(self, agent_id: int) -> None:
        self.db.execute("DELETE FROM agents WHERE id = ?", (agent_id,))

    def _set_column(self, agent_id: int, column: str, value: Any) -> None:
        self.db.execute(f"UPDATE agents SET {column} = ? WHERE id = ?", (value, agent_id))
