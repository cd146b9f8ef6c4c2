"""Sources: documents an agent has read into archival memory (path and content hash).

Deleting a source deletes its passages, and with them their words and vectors. The methods are
the same for both backends: ``SourceStoreBase`` has them, and ``memory.sources.SourceStore``
(SQLite) and ``memory.postgres.sources.PgSourceStore`` supply its SQL.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from typing import Generic

from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory.common.connection import DB
from memgpt_local.schemas import Source, utcnow


class SourceStoreBase(ABC, Generic[DB]):
    """The source store's methods; a subclass supplies the SQL (``find``, ``list`` and the hooks
    at the end)."""

    def __init__(self, db: DB):
        self.db = db

    def add(self, agent_id: int, path: str, content_hash: str, *, created_at: datetime | None = None) -> Source:
        """Record a document; InvalidInputError if the agent already has one at ``path``."""
        with self.db.transaction():
            if self.find(agent_id, path) is not None:
                raise InvalidInputError(f"the agent already has a source {path!r}", "delete it first to load it again")
            source_id = self._insert(agent_id, path, content_hash, created_at or utcnow())
            return self.get(agent_id, source_id)

    def get(self, agent_id: int, source: int | str) -> Source:
        """A source by id or by path."""
        found = self._with_id(agent_id, source) if isinstance(source, int) else self.find(agent_id, source)
        if found is None:
            raise NotFoundError(
                f"no source {source!r} for agent {agent_id}", "list the agent's sources to see what is loaded"
            )
        return found

    def delete(self, agent_id: int, source: int | str) -> int:
        """Delete a source and its passages; return how many passages went with it."""
        with self.db.transaction():
            found = self.get(agent_id, source)
            self._delete(found.id)
            return found.passages

    @abstractmethod
    def find(self, agent_id: int, path: str) -> Source | None:
        """The agent's source at ``path``, if any."""

    @abstractmethod
    def list(self, agent_id: int) -> list[Source]:
        """The agent's sources by path, in code-point order."""

    @abstractmethod
    def _with_id(self, agent_id: int, source_id: int) -> Source | None: ...

    @abstractmethod
    def _insert(self, agent_id: int, path: str, content_hash: str, created_at: datetime) -> int:
        """Store a new source's row; return its id."""

    @abstractmethod
    def _delete(self, source_id: int) -> None:
        """Delete the source's row and, with it, its passages."""
