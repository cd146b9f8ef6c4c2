"""Sources in Postgres: documents an agent has read into archival memory (path and content hash).
Deleting a source deletes its passages, and with them their words and vectors. The methods are
``common.sources``'s; this is their SQL.
"""

from __future__ import annotations

from datetime import datetime

from memgpt_local.memory.common.rows import Row, source_from_row
from memgpt_local.memory.common.sources import SourceStoreBase
from memgpt_local.memory.postgres.db import PostgresDatabase, stored_time, utc
from memgpt_local.schemas import Source

SOURCE_SELECT = """
SELECT s.*, (SELECT count(*) FROM passages p WHERE p.source_id = s.id) AS passages
FROM sources s
"""


def _source(row: Row | None) -> Source | None:
    return None if row is None else source_from_row(row, utc)


class PgSourceStore(SourceStoreBase[PostgresDatabase]):
    def find(self, agent_id: int, path: str) -> Source | None:
        return _source(self.db.one(SOURCE_SELECT + "WHERE s.agent_id = %s AND s.path = %s", (agent_id, path)))

    def list(self, agent_id: int) -> list[Source]:
        rows = self.db.rows(SOURCE_SELECT + 'WHERE s.agent_id = %s ORDER BY s.path COLLATE "C"', (agent_id,))
        return [source_from_row(r, utc) for r in rows]

    def _with_id(self, agent_id: int, source_id: int) -> Source | None:
        return _source(self.db.one(SOURCE_SELECT + "WHERE s.agent_id = %s AND s.id = %s", (agent_id, source_id)))

    def _insert(self, agent_id: int, path: str, content_hash: str, created_at: datetime) -> int:
        return int(
            self.db.scalar(
                "INSERT INTO sources(agent_id, path, content_hash, created_at) VALUES (%s, %s, %s, %s) RETURNING id",
                (agent_id, path, content_hash, stored_time(created_at)),
            )
        )

    def _delete(self, source_id: int) -> None:
        self.db.execute("DELETE FROM sources WHERE id = %s", (source_id,))
