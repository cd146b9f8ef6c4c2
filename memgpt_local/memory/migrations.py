"""The schema, as named migrations applied once each, in order, in their own transaction.

Each migration and the row recording it in ``migrations`` commit together. Shipped
migrations are never edited: a change to the schema is a new function appended to
``MIGRATIONS``. The ``meta`` table holds the schema version and the embedder (name and
dimension) the stored vectors were made with.
"""

from __future__ import annotations

from memgpt_local.errors import SchemaTooNewError
from memgpt_local.memory.cells import cells_sql
from memgpt_local.memory.common import schema
from memgpt_local.memory.common.recall import stale_search_texts
from memgpt_local.memory.common.schema import VECTORS_MISSING, Migration
from memgpt_local.memory.db import Database, to_db_time
from memgpt_local.schemas import utcnow

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"


def m001_initial(db: Database, dim: int) -> None:
    """Agents, core blocks, messages, sources, passages; FTS5 over both; float vec0 tables."""
    db.execute(f"""
    CREATE TABLE agents (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        model TEXT,
        system_prompt TEXT NOT NULL DEFAULT '',
        summary TEXT NOT NULL DEFAULT '',
        state TEXT NOT NULL DEFAULT '{{}}'
    );
    CREATE TABLE core_blocks (
        id INTEGER PRIMARY KEY,
        agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        label TEXT NOT NULL,
        value TEXT NOT NULL,
        char_limit INTEGER NOT NULL CHECK (char_limit > 0),
        read_only INTEGER NOT NULL DEFAULT 0,
        UNIQUE (agent_id, label)
    );
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'function')),
        content TEXT NOT NULL,
        function_name TEXT,
        function_args TEXT,
        search_text TEXT NOT NULL,
        created_at TEXT NOT NULL,
        in_context INTEGER NOT NULL DEFAULT 0,
        UNIQUE (agent_id, seq)
    );
    CREATE INDEX messages_by_time ON messages (agent_id, created_at);
    CREATE INDEX messages_in_context ON messages (agent_id, in_context, seq);
    CREATE VIRTUAL TABLE messages_fts USING fts5(
        search_text, content='messages', content_rowid='id', tokenize='{FTS_TOKENIZER}'
    );
    CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, search_text) VALUES (new.id, new.search_text);
    END;
    CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, search_text)
        VALUES ('delete', old.id, old.search_text);
    END;
    CREATE TRIGGER messages_fts_update AFTER UPDATE OF search_text ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, search_text)
        VALUES ('delete', old.id, old.search_text);
        INSERT INTO messages_fts(rowid, search_text) VALUES (new.id, new.search_text);
    END;
    CREATE VIRTUAL TABLE message_vectors USING vec0(
        agent_id integer partition key, embedding float[{dim}]
    );
    CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (agent_id, path)
    );
    CREATE TABLE passages (
        id INTEGER PRIMARY KEY,
        agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE,
        chunk_index INTEGER,
        char_start INTEGER,
        char_end INTEGER,
        created_at TEXT NOT NULL
    );
    CREATE INDEX passages_by_time ON passages (agent_id, created_at);
    CREATE INDEX passages_by_source ON passages (source_id, chunk_index);
    CREATE VIRTUAL TABLE passages_fts USING fts5(
        text, content='passages', content_rowid='id', tokenize='{FTS_TOKENIZER}'
    );
    CREATE TRIGGER passages_fts_insert AFTER INSERT ON passages BEGIN
        INSERT INTO passages_fts(rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER passages_fts_delete AFTER DELETE ON passages BEGIN
        INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER passages_fts_update AFTER UPDATE OF text ON passages BEGIN
        INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO passages_fts(rowid, text) VALUES (new.id, new.text);
    END;
    CREATE VIRTUAL TABLE passage_vectors USING vec0(
        agent_id integer partition key, embedding float[{dim}]
    );
    """)


def _binary_index_sql(kind: str, owner: str, dim: int) -> str:
    """Float embeddings in a plain table; a bit[dim] vec0 index derived from it by triggers."""
    return f"""
    CREATE TABLE {kind}_embeddings (
        {kind}_id INTEGER PRIMARY KEY REFERENCES {owner}(id) ON DELETE CASCADE,
        embedding BLOB NOT NULL
    );
    CREATE VIRTUAL TABLE {kind}_bits USING vec0(
        agent_id integer partition key, embedding bit[{dim}]
    );
    CREATE TRIGGER {kind}_bits_insert AFTER INSERT ON {kind}_embeddings BEGIN
        INSERT INTO {kind}_bits(rowid, agent_id, embedding)
        SELECT new.{kind}_id, o.agent_id, vec_quantize_binary(new.embedding)
        FROM {owner} o WHERE o.id = new.{kind}_id;
    END;
    CREATE TRIGGER {kind}_bits_delete AFTER DELETE ON {kind}_embeddings BEGIN
        DELETE FROM {kind}_bits WHERE rowid = old.{kind}_id;
    END;
    CREATE TRIGGER {kind}_bits_no_update BEFORE UPDATE ON {kind}_embeddings BEGIN
        SELECT RAISE(ABORT, 'replace a vector by delete and insert (keeps the bit index in step)');
    END;
    """


def m002_binary_quantized_vectors(db: Database, dim: int) -> None:
    """Replace the float vec0 tables with float blobs plus a bit-quantized vec0 index.

    Search takes candidates from the ``bit[dim]`` index (32x less to scan) and rescores them
    with the exact float vectors. Existing vectors are carried over.
    """
    for kind, owner in (("passage", "passages"), ("message", "messages")):
        db.execute(_binary_index_sql(kind, owner, dim))
        db.execute(f"INSERT INTO {kind}_embeddings({kind}_id, embedding) SELECT rowid, embedding FROM {kind}_vectors")
        db.execute(f"DROP TABLE {kind}_vectors")


def m003_message_heartbeat(db: Database, dim: int) -> None:
    """Record whether an assistant step asked for a heartbeat (the context is rebuilt from it)."""
    db.execute("ALTER TABLE messages ADD COLUMN request_heartbeat INTEGER NOT NULL DEFAULT 0")


def m004_message_summarized(db: Database, dim: int) -> None:
    """Mark messages folded into the recursive summary (``forget`` rebuilds it without them).

    Older files did not record this: messages out of context that come before the first
    message still in context are taken to be summarized, if the agent has a summary.
    """
    db.execute("ALTER TABLE messages ADD COLUMN summarized INTEGER NOT NULL DEFAULT 0")
    db.execute("""
    UPDATE messages SET summarized = 1
    WHERE in_context = 0
      AND (SELECT summary FROM agents a WHERE a.id = messages.agent_id) != ''
      AND seq < coalesce((SELECT min(seq) FROM messages c
                          WHERE c.agent_id = messages.agent_id AND c.in_context = 1),
                         9223372036854775807)
    """)


def m005_search_said_words(db: Database, dim: int) -> None:
    """Recall search finds what was said, not the assistant's private thoughts.

    An assistant step's searchable text was its thought plus the message it sent; a search for
    "name live" then listed five thoughts ("The user asked for their name and where they
    live...") above the user's own "I'm Dana ... in Leeds". Now it is the sent message only
    (steps that sent nothing are not searchable). Their old vectors are dropped; the store
    embeds the changed rows when it next opens (``MemoryStore.embed_missing``; the
    ``vectors_missing`` meta flag says there are some, so other opens do no extra work).
    """
    db.execute("""
    UPDATE messages
    SET search_text = CASE WHEN json_type(function_args, '$.message') = 'text'
                           THEN trim(json_extract(function_args, '$.message')) ELSE '' END
    WHERE role = 'assistant' AND function_name IS NOT NULL
    """)
    db.execute(
        "DELETE FROM message_embeddings WHERE message_id IN "
        "(SELECT id FROM messages WHERE role = 'assistant' AND function_name IS NOT NULL)"
    )
    set_meta(db, VECTORS_MISSING, 1)


def m006_denials_unsearchable(db: Database, dim: int) -> None:
    """Recall search no longer finds the assistant's own "I don't know" sentences.

    Found first for the next question on the same topic, the model answered from its earlier
    denial ("I'm sorry, but I don't know Sanne's job, but I can tell you that she is a baker").
    An agent step's searchable text is now the message it sent less the sentences that say it
    does not know (``common.recall.searchable_text``); the changed rows lose their vectors and
    the store embeds them again when it next opens.
    """
    rows = db.rows(
        "SELECT id, role, content, function_name, function_args, search_text FROM messages "
        "WHERE role = 'assistant' AND function_name IS NOT NULL"
    )
    changed = stale_search_texts(rows)
    if not changed:
        return
    db.executemany("UPDATE messages SET search_text = ? WHERE id = ?", changed)
    db.executemany("DELETE FROM message_embeddings WHERE message_id = ?", [(i,) for _, i in changed])
    set_meta(db, VECTORS_MISSING, 1)


def m007_archival_cells(db: Database, dim: int) -> None:
    """Tables for the clusters of a large archive (``memory/cells.py``); empty until an agent
    holds ``cells.CLUSTER_MIN`` passages."""
    db.execute(cells_sql(dim))


MIGRATIONS: tuple[Migration[Database], ...] = (
    Migration("m001_initial", m001_initial),
    Migration("m002_binary_quantized_vectors", m002_binary_quantized_vectors),
    Migration("m003_message_heartbeat", m003_message_heartbeat),
    Migration("m004_message_summarized", m004_message_summarized),
    Migration("m005_search_said_words", m005_search_said_words),
    Migration("m006_denials_unsearchable", m006_denials_unsearchable),
    Migration("m007_archival_cells", m007_archival_cells),
)
SCHEMA_VERSION = len(MIGRATIONS)


def ensure_bookkeeping(db: Database) -> None:
    with db.transaction():
        db.execute("""
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS migrations (
            id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL
        );
        """)


def applied(db: Database) -> list[str]:
    """Names of the migrations recorded in the file, in the order they were applied."""
    if not db.table_exists("migrations"):
        return []
    return [r["name"] for r in db.rows("SELECT name FROM migrations ORDER BY id")]


def pending(db: Database, migrations: tuple[Migration[Database], ...] = MIGRATIONS) -> list[Migration[Database]]:
    return schema.pending(applied(db), migrations)


def get_meta(db: Database, key: str) -> str | None:
    if not db.table_exists("meta"):
        return None
    return db.scalar("SELECT value FROM meta WHERE key = ?", (key,))


def set_meta(db: Database, key: str, value: str | int) -> None:
    db.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, str(value)),
    )


def check_version(db: Database, migrations: tuple[Migration[Database], ...] = MIGRATIONS) -> None:
    """Raise ``SchemaTooNewError`` if the file was written by a newer memgpt-local."""
    done = applied(db)
    stored = get_meta(db, "schema_version")
    file_version = max(int(stored) if stored else 0, len(done))
    if schema.written_by_newer(done, file_version, migrations):
        raise SchemaTooNewError(str(db.path), file_version, len(migrations))


def migrate(db: Database, dim: int, migrations: tuple[Migration[Database], ...] = MIGRATIONS) -> list[str]:
    """Apply every pending migration in order; return the names applied now."""
    schema.check_names(migrations)
    ensure_bookkeeping(db)
    check_version(db, migrations)
    done_now: list[str] = []
    for migration in pending(db, migrations):
        with db.transaction():
            migration.apply(db, dim)
            db.execute("INSERT INTO migrations(name, applied_at) VALUES (?, ?)", (migration.name, to_db_time(utcnow())))
            set_meta(db, "schema_version", len(applied(db)))
        done_now.append(migration.name)
    return done_now
