"""Sources in Postgres: documents an agent has read into archival memory (path and content hash).

Deleting a source deletes its passages, and with them their words and vectors.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory.postgres.agents import stored_time, utc
from memgpt_local.memory.postgres.db import PostgresDatabase
from memgpt_local.schemas import Source, utcnow

SOURCE_SELECT = """
SELECT s.*, (SELECT count(*) FROM passages p WHERE p.source_id = s.id) AS passages
FROM sources s
"""


class PgSourceStore:
    def __init__(self, db: PostgresDatabase):
        self.db = db

    @staticmethod
    def _source(row: dict[str, Any]) -> Source:
        return Source(
            id=row["id"],
            agent_id=row["agent_id"],
            path=row["path"],
            content_hash=row["content_hash"],
            passages=row["passages"],
            created_at=utc(row["created_at"]),
        )

    def add(self, agent_id: int, path: str, content_hash: str, *, created_at: datetime | None = None) -> Source:
        """Record a document; InvalidInputError if the agent already has one at ``path``."""
        with self.db.transaction():
            if self.find(agent_id, path) is not None:
                raise InvalidInputError(f"the agent already has a source {path!r}", "delete it first to load it again")
            source_id = self.db.scalar(
                "INSERT INTO sources(agent_id, path, content_hash, created_at) VALUES (%s, %s, %s, %s) RETURNING id",
                (agent_id, path, content_hash, stored_time(created_at or utcnow())),
            )
            return self.get(agent_id, int(source_id))

    def find(self, agent_id: int, path: str) -> Source | None:
        row = self.db.one(SOURCE_SELECT + "WHERE s.agent_id = %s AND s.path = %s", (agent_id, path))
        return None if row is None else self._source(row)

    def get(self, agent_id: int, source: int | str) -> Source:
        """A source by id or by path."""
        if isinstance(source, int):
            row = self.db.one(SOURCE_SELECT + "WHERE s.agent_id = %s AND s.id = %s", (agent_id, source))
            found = None if row is None else self._source(row)
        else:
            found = self.find(agent_id, source)
        if found is None:
            raise NotFoundError(
                f"no source {source!r} for agent {agent_id}", "list the agent's sources to see what is loaded"
            )
        return found

    def list(self, agent_id: int) -> list[Source]:
        rows = self.db.rows(SOURCE_SELECT + 'WHERE s.agent_id = %s ORDER BY s.path COLLATE "C"', (agent_id,))
        return [self._source(r) for r in rows]

    def delete(self, agent_id: int, source: int | str) -> int:
        """Delete a source and its passages; return how many passages went with it."""
        with self.db.transaction():
            found = self.get(agent_id, source)
            self.db.execute("DELETE FROM sources WHERE id = %s", (found.id,))
            return found.passages
