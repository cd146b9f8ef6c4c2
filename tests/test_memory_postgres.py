"""The Postgres store's own parts: its named migrations, the indexes its searches use, the
errors it gives, that a SQLite user never loads psycopg, and that pgserver stops cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from memgpt_local.errors import SchemaTooNewError, StoreError
from memgpt_local.memory import open_store
from memgpt_local.schemas import NewMessage

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pg_store(pg_url, embedder):
    from memgpt_local.memory.postgres.store import PostgresMemoryStore

    store = open_store(pg_url, embedder)
    assert isinstance(store, PostgresMemoryStore)
    yield store
    assert store.integrity_check() == "ok"
    store.close()


def test_a_fresh_database_is_fully_migrated(pg_store):
    from memgpt_local.memory.postgres import migrations

    shipped = [m.name for m in migrations.MIGRATIONS]
    assert migrations.applied(pg_store.db) == shipped and shipped[:2] == ["0001_initial", "0002_denials_unsearchable"]
    assert migrations.pending(pg_store.db) == []
    assert pg_store.stored_embedder() == ("all-MiniLM-L6-v2", 384)
    types = {
        r["table_name"]: r["t"]
        for r in pg_store.db.rows(
            "SELECT c.relname AS table_name, format_type(a.atttypid, a.atttypmod) AS t FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid WHERE a.attname = 'embedding' AND c.relkind = 'r'"
        )
    }
    assert types == {"messages": "vector(384)", "passages": "vector(384)"}
    methods = {
        r["name"]: r["amname"]
        for r in pg_store.db.rows(
            "SELECT c.relname AS name, am.amname FROM pg_class c JOIN pg_am am ON am.oid = c.relam "
            "WHERE c.relkind = 'i' AND c.relname IN "
            "('messages_vectors', 'passages_vectors', 'messages_words', 'passages_words')"
        )
    }
    assert methods == {
        "messages_vectors": "hnsw",
        "passages_vectors": "hnsw",
        "messages_words": "gin",
        "passages_words": "gin",
    }


def test_0002_takes_the_assistants_old_denials_out_of_search(pg_store):
    from memgpt_local.memory.postgres import migrations

    agent = pg_store.agents.create("a")
    said = "I don't know Sanne's job. She sounds lovely!"
    step = NewMessage(role="assistant", content="t", function_name="send_message", function_args={"message": said})
    (stored,) = pg_store.recall.append(agent.id, [step])
    with pg_store.db.transaction():  # as the first version stored it
        pg_store.db.execute("UPDATE messages SET search_text = %s WHERE id = %s", (said, stored.id))
        migrations.m0002_denials_unsearchable(pg_store.db, 384)
    row = pg_store.db.one("SELECT search_text, embedding IS NULL AS bare FROM messages WHERE id = %s", (stored.id,))
    assert row == {"search_text": "She sounds lovely!", "bare": True}
    assert pg_store.embed_missing() == 1 and pg_store.recall.search(agent.id, "lovely").total == 1


def test_migrating_twice_and_a_newer_schema(pg_url, embedder):
    from memgpt_local.memory.postgres import migrations

    with open_store(pg_url, embedder) as store:
        assert migrations.migrate(store.db, 384) == []
        store.db.execute("INSERT INTO schema_migrations(name) VALUES ('9999_future')")
    with pytest.raises(SchemaTooNewError) as err:
        open_store(pg_url, embedder)
    shipped = len(migrations.MIGRATIONS)
    assert "upgrade memgpt-local" in str(err.value) and err.value.file_version == shipped + 1


def test_searches_can_use_the_hnsw_and_gin_indexes(pg_store):
    """The plans of both legs' queries, with sequential scans and sorts priced out (a small
    table is scanned, or read by agent and sorted): the vector leg's ORDER BY can be served by
    HNSW, the text leg by GIN."""
    agent = pg_store.agents.create("plans")
    pg_store.archival.insert_many(agent.id, [{"text": f"note {i} about tomatoes"} for i in range(20)])
    vector = pg_store.embedder.embed(["tomatoes"])[0]
    from memgpt_local.memory.postgres.db import vector_text

    with pg_store.transaction():
        # no sequential scan and no sort: only the HNSW index can give rows in distance order
        pg_store.db.execute("SET LOCAL enable_seqscan = off")
        pg_store.db.execute("SET LOCAL enable_sort = off")
        plan = pg_store.db.rows(
            "EXPLAIN SELECT id FROM passages WHERE agent_id = %s AND embedding IS NOT NULL "
            "ORDER BY embedding <=> %s::vector LIMIT 100",
            (agent.id, vector_text(vector)),
        )
        assert "passages_vectors" in " ".join(r["QUERY PLAN"] for r in plan)
        plan = pg_store.db.rows(
            "EXPLAIN SELECT id FROM passages WHERE text_tsv @@ phraseto_tsquery('memgpt_search', 'tomatoes')"
        )
        assert "passages_words" in " ".join(r["QUERY PLAN"] for r in plan)
    nearest = pg_store.archival.nearest(agent.id, vector, k=3)
    assert len(nearest) == 3 and nearest == sorted(nearest, key=lambda pair: (pair[1], pair[0]))


def test_the_text_leg_stems_and_keeps_stopwords_as_fts5_does(pg_store):
    agent = pg_store.agents.create("words")
    pg_store.archival.insert_many(agent.id, [{"text": "She was running to the station."}, {"text": "and"}])
    assert pg_store.archival.search(agent.id, "runs", mode="text").total == 1  # stemmed
    assert pg_store.archival.search(agent.id, "AND", mode="text").total == 1  # no stopword list
    assert [h.text for h in pg_store.archival.containing(agent.id, "running to")] == ["She was running to the station."]


def test_reembed_with_another_dimension_rebuilds_the_columns_and_indexes(pg_url, embedder):
    sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
    from fake_embedder import HashEmbedder

    with open_store(pg_url, embedder) as store:
        agent = store.agents.create("re")
        store.archival.insert(agent.id, "The boat is moored at pier seven.")
        store.recall.append(agent.id, [NewMessage(role="user", content="my boat is blue")])
    with open_store(pg_url, HashEmbedder(), check_embedder=False) as store:
        assert store.reembed() == 2
    with open_store(pg_url, HashEmbedder()) as store:
        assert store.integrity_check() == "ok"
        declared = store.db.scalar(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'passages'::regclass AND attname = 'embedding'"
        )
        assert declared == "vector(16)"
        assert store.archival.nearest(agent.id, np.ones(16, np.float32) / 4, k=1)


def test_integrity_check_reports_a_missing_index_and_a_stray_vector(pg_store):
    agent = pg_store.agents.create("broken")
    [message] = pg_store.recall.append(agent.id, [NewMessage(role="user", content="hello there")])
    pg_store.db.execute("UPDATE messages SET search_text = '' WHERE id = %s", (message.id,))
    pg_store.db.execute("DROP INDEX passages_words")
    problems = pg_store.integrity_check()
    assert "messages: 1 vectors of rows with no searchable text" in problems
    assert "index passages_words is missing" in problems
    pg_store.db.execute("UPDATE messages SET embedding = NULL WHERE id = %s", (message.id,))
    pg_store.db.execute("CREATE INDEX passages_words ON passages USING gin (text_tsv)")


def test_a_key_is_refused_and_a_bad_url_is_a_store_error(pg_url, embedder):
    with pytest.raises(StoreError, match="not encrypted by memgpt-local") as err:
        open_store(pg_url, embedder, key="secret")
    assert "MEMGPT_LOCAL_PASSPHRASE" in str(err.value)
    bad = "postgresql://someone:hunter2@/nodb?host=/nonexistent-socket-dir"
    with pytest.raises(StoreError, match="cannot connect to the Postgres memory store") as err:
        open_store(bad, embedder)
    assert "hunter2" not in str(err.value) and "check that the server runs" in str(err.value)


def test_vacuum_runs_outside_a_transaction_only(pg_store):
    agent = pg_store.agents.create("v")
    pg_store.archival.insert(agent.id, "to be deleted")
    pg_store.archival.delete(agent.id, [p.id for p in pg_store.archival.all(agent.id)])
    pg_store.vacuum()
    with pytest.raises(StoreError, match="inside a transaction"), pg_store.transaction():
        pg_store.vacuum()


def test_two_processes_opening_a_fresh_database_migrate_it_once(pg_url):
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent / "fixtures")!r})
        from fake_embedder import HashEmbedder
        from memgpt_local.memory import open_store
        open_store({pg_url!r}, HashEmbedder()).close()
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE) for _ in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    from memgpt_local.memory.postgres import migrations
    from memgpt_local.memory.postgres.db import PostgresDatabase

    db = PostgresDatabase(pg_url)
    try:
        assert migrations.applied(db) == [m.name for m in migrations.MIGRATIONS]
    finally:
        db.close()


def test_a_sqlite_store_never_imports_psycopg(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent / "fixtures")!r})
        from pathlib import Path
        from fake_embedder import HashEmbedder
        from memgpt_local.memory import open_store
        with open_store(Path({str(tmp_path / "m.db")!r}), HashEmbedder()) as store:
            store.archival.insert(store.agents.create("a").id, "hello")
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("psycopg", "pgserver")
                        or m.startswith("memgpt_local.memory.postgres"))
        print(loaded)
    """)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_pgserver_stops_when_its_handle_is_cleaned_up(tmp_path):
    pytest.importorskip("pgserver", reason="pgserver is not installed: pip install -e '.[test]'")
    code = textwrap.dedent(f"""
        import pgserver
        server = pgserver.get_server({str(tmp_path / "pg")!r}, cleanup_mode="stop")
        print(server.get_pid(), flush=True)
        server.cleanup()
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.split()[0])
    import psutil  # a dependency of pgserver

    try:  # gone, or a zombie nobody reaps (a container's init may not)
        assert psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        pass
