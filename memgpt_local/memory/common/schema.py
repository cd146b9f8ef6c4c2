"""Migrations and the ``meta`` table, as both backends keep them.

Each backend has its own migrations (``memory.migrations``, ``memory.postgres.migrations``) and
writes its own SQL; the rules are shared: migrations are named and applied once each, in order,
a store with migrations this version does not know was written by a newer memgpt-local, and
``meta`` holds the embedder the stored vectors were made with under the keys named here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from memgpt_local.errors import StoreError

EMBEDDER_NAME = "embedder_name"
EMBEDDER_DIM = "embedder_dim"
VECTORS_MISSING = "vectors_missing"  # some searchable rows lack their vector (``embed_missing`` fills them in)

DB = TypeVar("DB")


@dataclass(frozen=True)
class Migration(Generic[DB]):
    name: str
    apply: Callable[[DB, int], None]  # (db, embedding dimension)


def check_names(migrations: Sequence[Migration[DB]]) -> None:
    """Raise ``StoreError`` if two migrations share a name (each name is recorded once)."""
    names = [m.name for m in migrations]
    if len(set(names)) != len(names):
        raise StoreError("duplicate migration names", "this is a bug in memgpt-local")


def pending(applied: Iterable[str], migrations: Sequence[Migration[DB]]) -> list[Migration[DB]]:
    """The ``migrations`` not among the ``applied`` names, in order."""
    done = set(applied)
    return [m for m in migrations if m.name not in done]


def written_by_newer(applied: Sequence[str], version: int, migrations: Sequence[Migration[DB]]) -> bool:
    """Whether a store whose schema is at ``version`` with the ``applied`` migrations was written
    by a newer memgpt-local: it is past this version's migrations, or has one it does not know."""
    known = {m.name for m in migrations}
    return version > len(migrations) or any(name not in known for name in applied)


DB_contra = TypeVar("DB_contra", contravariant=True)


class Bookkeeping(Protocol[DB_contra]):
    """What a backend's migrations module provides the store (``memory.migrations``,
    ``memory.postgres.migrations`` are ones)."""

    def ensure_bookkeeping(self, db: DB_contra, /) -> None:
        """Create the ``meta`` and migrations tables if missing."""

    def check_version(self, db: DB_contra, /) -> None:
        """``SchemaTooNewError`` for a store written by a newer memgpt-local."""

    def get_meta(self, db: DB_contra, key: str, /) -> str | None: ...

    def set_meta(self, db: DB_contra, key: str, value: str | int, /) -> None: ...

    def migrate(self, db: DB_contra, dim: int, /) -> list[str]:
        """Apply the pending migrations for vectors of ``dim`` dimensions; their names."""
