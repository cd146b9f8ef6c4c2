"""Reading a store's tables in a test, on either implementation: SQL written with ``?``
placeholders, and the counts of vectors and of rows a word is indexed for."""

from __future__ import annotations

from typing import Any

STORE_KINDS = ("sqlite", "postgres")  # the ``store_kind`` params of a module that runs on both


def is_postgres(store) -> bool:
    return type(store).__name__ == "PostgresMemoryStore"


def scalar(store, sql: str, params: tuple[Any, ...] = ()) -> Any:
    """``store.db.scalar`` with ``?`` placeholders on both stores."""
    return store.db.scalar(sql.replace("?", "%s") if is_postgres(store) else sql, params)


def vector_count(store, kind: str, row_id: int | None = None) -> int:
    """Vectors in the index of ``kind`` ("message" or "passage"), or of one row: the bit index
    of the SQLite file, the non-null vector column in Postgres."""
    if is_postgres(store):
        where = "" if row_id is None else f" AND id = {int(row_id)}"
        return store.db.scalar(f"SELECT count(*) FROM {kind}s WHERE embedding IS NOT NULL{where}")
    where = "" if row_id is None else f" WHERE rowid = {int(row_id)}"
    return store.db.scalar(f"SELECT count(*) FROM {kind}_bits{where}")


def word_count(store, kind: str, word: str) -> int:
    """Rows of ``kind`` ("message" or "passage") the full-text index finds ``word`` in."""
    if is_postgres(store):
        column = "search_tsv" if kind == "message" else "text_tsv"
        return store.db.scalar(
            f"SELECT count(*) FROM {kind}s WHERE {column} @@ phraseto_tsquery('memgpt_search', %s)", (word,)
        )
    return store.db.scalar(f"SELECT count(*) FROM {kind}s_fts WHERE {kind}s_fts MATCH ?", (word,))


def rows(store, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    """``store.db.rows`` with ``?`` placeholders on both stores."""
    return store.db.rows(sql.replace("?", "%s") if is_postgres(store) else sql, params)


def table_names(store) -> list[str]:
    """The store's own tables (the file's, without SQLite's internal ones; the database's
    public schema)."""
    if is_postgres(store):
        sql = "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"
    else:
        sql = "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    return [r["name"] for r in store.db.rows(sql)]
