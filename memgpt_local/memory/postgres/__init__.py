"""Long-term memory in a PostgreSQL database with pgvector (experimental).

The same stores as the SQLite file (``memgpt_local.memory``), over one psycopg connection:
``store.open_postgres_store(url, embedder)`` returns a ``store.PostgresMemoryStore``.
``memory.open_store`` opens one for a ``postgresql://`` URL. Nothing here is imported for a
SQLite file: this package (and psycopg) load only when a URL is opened.
"""
