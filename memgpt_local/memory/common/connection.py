"""What the shared store code needs of a backend's connection (``db.Database``,
``postgres.db.PostgresDatabase``): transactions, and closing it. Everything else it asks of
the backend goes through the SQL the backend's subclasses write."""

from __future__ import annotations

import contextlib
from typing import Protocol, TypeVar


class Connection(Protocol):
    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Everything inside commits or rolls back together; nestable."""
        ...

    def close(self) -> None: ...


DB = TypeVar("DB", bound=Connection)
