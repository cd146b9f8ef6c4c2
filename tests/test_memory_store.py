"""The memory store: migrations, errors on bad files, agents, core blocks, recall rows,
transactions and crash safety. Tests that take ``store`` or ``store_location`` run on both
implementations (the SQLite file and Postgres); the file's own ones are marked ``sqlite_only``."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
import textwrap
import uuid
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from memgpt_local.errors import (
    AgentNotFoundError,
    EmbedderMismatchError,
    InvalidInputError,
    SchemaTooNewError,
    StoreError,
)
from memgpt_local.memory import migrations, open_store
from memgpt_local.memory.db import Database
from memgpt_local.schemas import CoreBlock, NewMessage

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
from fake_embedder import HashEmbedder  # noqa: E402
from store_sql import STORE_KINDS, is_postgres, scalar, vector_count, word_count  # noqa: E402


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    return request.param


def applied_migrations(store) -> tuple[list[str], list[str]]:
    """(the migrations the store records, the names this version ships) for either store."""
    if is_postgres(store):
        from memgpt_local.memory.postgres import migrations as pg

        return pg.applied(store.db), [m.name for m in pg.MIGRATIONS]
    return migrations.applied(store.db), [m.name for m in migrations.MIGRATIONS]


@pytest.mark.sqlite_only("the file's migrations and WAL mode; tests/test_memory_postgres.py checks Postgres's")
def test_fresh_file_is_fully_migrated(store):
    assert migrations.applied(store.db) == [m.name for m in migrations.MIGRATIONS]
    assert migrations.get_meta(store.db, "schema_version") == str(migrations.SCHEMA_VERSION)
    assert store.stored_embedder() == ("all-MiniLM-L6-v2", 384)
    assert store.db.scalar("PRAGMA journal_mode") == "wal"
    assert migrations.pending(store.db) == []


def test_reopening_applies_nothing_twice(store_location, embedder):
    open_store(store_location, embedder).close()
    with open_store(store_location, embedder) as store:
        done, shipped = applied_migrations(store)
    assert done == shipped


def test_upgrade_from_frozen_v1_file(tmp_path, embedder):
    path = tmp_path / "memory.db"
    with gzip.open(FIXTURES / "memory_v1.db.gz", "rb") as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    with open_store(path, embedder) as store:
        assert migrations.applied(store.db) == [m.name for m in migrations.MIGRATIONS]
        assert not store.db.table_exists("passage_vectors")
        ada, bo = store.agents.get("ada"), store.agents.get("bo")
        assert store.archival.count(ada.id) == 2 and store.archival.count(bo.id) == 1
        hits = store.archival.search(ada.id, "where is the shed key", mode="vector").items
        assert "flowerpot" in hits[0].text
        assert hits[0].created_at == datetime(2024, 3, 5, 12, tzinfo=timezone.utc)
        said = store.recall.search(ada.id, "cycling in the Netherlands", mode="vector").items
        assert said and any("Utrecht" in h.text for h in said)
        assert [m.seq for m in store.recall.in_context(ada.id)] == [1, 2]
        assert store.recall.get(ada.id, 2).function_args == {"message": "Utrecht is lovely by bike!"}
        assert not store.recall.get(ada.id, 2).request_heartbeat
        # m005: an agent step is found by what it sent, never by its thought; re-embedded on open
        step = store.db.one("SELECT function_name, search_text FROM messages WHERE agent_id = ? AND seq = 2", (ada.id,))
        assert step["function_name"] and step["search_text"] == "Utrecht is lovely by bike!"
        assert store.embed_missing() == 0
        # new rows after the upgrade use the new vector tables
        store.archival.insert(bo.id, "Bo's favourite food is pistachio ice cream.")
        assert "pistachio" in store.archival.search(bo.id, "dessert", mode="vector").items[0].text
        assert store.integrity_check() == "ok"


def test_m006_takes_the_assistants_old_denials_out_of_search(tmp_path, embedder):
    """A file written before m006 holds a sent "I don't know ..." as searchable text; the
    migration rewrites it as ``searchable_text`` does now and drops its vector."""
    with open_store(tmp_path / "memory.db", embedder) as store:
        agent = store.agents.create("a")
        (step,) = store.recall.append(
            agent.id,
            [
                NewMessage(
                    role="assistant",
                    content="t",
                    function_name="send_message",
                    function_args={"message": "I don't know Sanne's job. She sounds lovely!"},
                )
            ],
        )
        old = "I don't know Sanne's job. She sounds lovely!"
        with store.db.transaction():  # as an older version stored it
            store.db.execute("UPDATE messages SET search_text = ? WHERE id = ?", (old, step.id))
            migrations.m006_denials_unsearchable(store.db, embedder.dim)
        row = store.db.one("SELECT search_text FROM messages WHERE id = ?", (step.id,))
        assert row["search_text"] == "She sounds lovely!"
        assert not store.db.scalar("SELECT count(*) FROM message_embeddings WHERE message_id = ?", (step.id,))
        assert store.embed_missing() == 1 and store.recall.search(agent.id, "lovely").total == 1


def test_newer_schema_is_refused(tmp_path, embedder):
    path = tmp_path / "m.db"
    open_store(path, embedder).close()
    db = Database(path)
    with db.transaction():
        db.execute("INSERT INTO migrations(name, applied_at) VALUES ('m999_future', 'x')")
        migrations.set_meta(db, "schema_version", 999)
    db.close()
    with pytest.raises(SchemaTooNewError) as err:
        open_store(path, embedder)
    assert err.value.file_version == 999 and "upgrade memgpt-local" in str(err.value)


@pytest.mark.parametrize("content", [b"this is not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 5000])
def test_corrupt_file_is_a_store_error(tmp_path, embedder, content):
    path = tmp_path / "m.db"
    path.write_bytes(content)
    with pytest.raises(StoreError) as err:
        open_store(path, embedder)
    assert str(path) in str(err.value)


def test_embedder_mismatch_then_reembed(store_location, embedder):
    path = store_location
    with open_store(path, embedder) as store:
        agent = store.agents.create("a")
        store.archival.insert(agent.id, "The boat is moored at pier seven.")
        store.recall.append(agent.id, [NewMessage(role="user", content="my boat is blue")])
    other = HashEmbedder()
    with pytest.raises(EmbedderMismatchError) as err:
        open_store(path, other)
    assert "all-MiniLM-L6-v2 (384 d)" in str(err.value) and "hash-words (16 d)" in str(err.value)
    assert "memgpt-local reembed" in str(err.value)
    seen = []
    with open_store(path, other, check_embedder=False) as store:
        assert store.reembed(progress=lambda done, total: seen.append((done, total))) == 2
        assert seen[-1] == (2, 2)
    with open_store(path, other) as store:  # no error now
        assert store.stored_embedder() == ("hash-words", 16)
        hits = store.archival.search(1, "boat pier", mode="vector").items
        assert hits and "pier" in hits[0].text
        assert store.integrity_check() == "ok"
    with pytest.raises(EmbedderMismatchError):
        open_store(path, embedder)


def test_agents_crud_and_validation(store):
    agent = store.agents.create("helper", system_prompt="be kind", model="m1")
    assert agent.created_at.tzinfo is not None
    assert [b.label for b in store.core.blocks(agent.id)] == ["persona", "human"]
    with pytest.raises(InvalidInputError):
        store.agents.create("helper")
    for bad in ["", "has space", "-dash", "x" * 65, "a/b"]:
        with pytest.raises(InvalidInputError):
            store.agents.create(bad)
    with pytest.raises(AgentNotFoundError):
        store.agents.get("nobody")
    store.agents.set_summary(agent.id, "talked about tea")
    store.agents.set_state(agent.id, {"paused_until": "2030-01-01"})
    store.agents.set_system_prompt(agent.id, "be brief")
    again = store.agents.get("helper")
    assert (again.summary, again.state, again.system_prompt) == (
        "talked about tea",
        {"paused_until": "2030-01-01"},
        "be brief",
    )
    assert [a.name for a in store.agents.list()] == ["helper"]


def test_core_blocks_limits_and_read_only(store):
    agent = store.agents.create(
        "c",
        blocks=[
            CoreBlock(label="persona", value="hi", limit=10),
            CoreBlock(label="rules", value="x", limit=5, read_only=True),
        ],
    )
    assert store.core.set_value(agent.id, "persona", "0123456789").value == "0123456789"
    with pytest.raises(InvalidInputError, match="limit"):
        store.core.set_value(agent.id, "persona", "01234567890")
    with pytest.raises(InvalidInputError, match="read-only"):
        store.core.set_value(agent.id, "rules", "y")
    with pytest.raises(InvalidInputError, match="no core memory block"):
        store.core.set_value(agent.id, "nope", "y")
    store.core.add_block(agent.id, CoreBlock(label="human", value="", limit=50))
    assert [b.label for b in store.core.blocks(agent.id)] == ["persona", "rules", "human"]
    assert store.core.get(agent.id, "persona").value == "0123456789"


def test_recall_rows_context_and_updates(store):
    agent = store.agents.create("r")
    stored = store.recall.append(
        agent.id,
        [
            NewMessage(role="system", content="boot"),
            NewMessage(role="user", content="my cat is called Miso"),
            NewMessage(
                role="assistant",
                content="remember the cat",
                function_name="send_message",
                function_args={"message": "What a cute name!"},
                request_heartbeat=True,
            ),
        ],
    )
    assert [m.request_heartbeat for m in stored] == [False, False, True]
    assert [m.seq for m in stored] == [1, 2, 3]
    more = store.recall.append(agent.id, [NewMessage(role="user", content="later", in_context=False)])
    assert more[0].seq == 4 and store.recall.count(agent.id) == 4
    assert [m.seq for m in store.recall.in_context(agent.id)] == [1, 2, 3]
    store.recall.set_in_context(agent.id, [stored[0].id, stored[1].id], False)
    assert [m.seq for m in store.recall.in_context(agent.id)] == [3]
    assert [m.seq for m in store.recall.last(agent.id, 2)] == [3, 4]
    assert store.recall.search(agent.id, "cute", mode="text").items[0].id == stored[2].id
    store.recall.update(agent.id, stored[2].id, function_args={"message": "Lovely name."})
    assert store.recall.search(agent.id, "cute", mode="text").total == 0
    assert store.recall.search(agent.id, "lovely", mode="text").items[0].id == stored[2].id
    assert store.recall.get(agent.id, stored[2].id).function_args == {"message": "Lovely name."}
    assert store.recall.delete(agent.id, [stored[1].id]) == 1
    assert store.recall.search(agent.id, "Miso", mode="text").total == 0
    assert stored[1].id not in [h.id for h in store.recall.search(agent.id, "my cat Miso").items]
    assert vector_count(store, "message", stored[1].id) == 0
    assert vector_count(store, "message", stored[2].id) == 1


def test_nested_transactions_roll_back_together(store):
    agent = store.agents.create("t")
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.archival.insert(agent.id, "outer row")
            with store.transaction():
                store.archival.insert(agent.id, "inner row")
            raise RuntimeError("boom")
    assert store.archival.count(agent.id) == 0
    with store.transaction():
        store.archival.insert(agent.id, "kept")
        with pytest.raises(InvalidInputError):
            with store.transaction():
                store.archival.insert(agent.id, "dropped")
                raise InvalidInputError("inner failure")
    assert [p.text for p in store.archival.search(agent.id, "kept dropped", mode="text").items] == ["kept"]


def test_delete_agent_removes_everything(store):
    keep, gone = store.agents.create("keep"), store.agents.create("gone")
    for agent in (keep, gone):
        source = store.sources.add(agent.id, f"/docs/{agent.name}.md", "abc")
        store.archival.insert_many(
            agent.id,
            [
                {"text": "chunk zero of the manual", "source_id": source.id, "chunk_index": 0},
                {"text": "a free note about the manual"},
            ],
        )
        store.recall.append(agent.id, [NewMessage(role="user", content="read the manual")])
    store.agents.delete("gone")
    for table in ("passages", "messages", "sources", "core_blocks"):
        assert scalar(store, f"SELECT count(*) FROM {table} WHERE agent_id = ?", (gone.id,)) == 0
    assert vector_count(store, "passage") == 2
    assert vector_count(store, "message") == 1
    assert word_count(store, "passage", "manual") == 2
    assert word_count(store, "message", "manual") == 1
    assert store.archival.count(keep.id) == 2


def test_sources_delete_takes_passages(store):
    agent = store.agents.create("docs")
    source = store.sources.add(agent.id, "/home/u/notes.md", "h1")
    store.archival.insert_many(
        agent.id,
        [
            {
                "text": f"section {i} about volcanoes",
                "source_id": source.id,
                "chunk_index": i,
                "char_start": i * 10,
                "char_end": i * 10 + 9,
            }
            for i in range(3)
        ],
    )
    store.archival.insert(agent.id, "volcanoes are hot, a note")
    hit = store.archival.search(agent.id, "section volcanoes", mode="text").items[0]
    assert hit.citation == f"notes.md#chunk-{hit.text.split()[1]}"
    assert store.sources.get(agent.id, "/home/u/notes.md").passages == 3
    with pytest.raises(InvalidInputError):
        store.sources.add(agent.id, "/home/u/notes.md", "h2")
    assert store.sources.delete(agent.id, source.id) == 3
    assert store.sources.list(agent.id) == []
    assert store.archival.search(agent.id, "volcanoes", mode="text").total == 1
    assert vector_count(store, "passage") == 1


CRASHER = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {fixtures!r})
    from pathlib import Path
    from fake_embedder import HashEmbedder
    from memgpt_local.memory import open_store
    store = open_store({location}, HashEmbedder())
    agent = store.agents.create("crash") if not store.agents.list() else store.agents.get("crash")
    for i in range(20):
        store.archival.insert(agent.id, f"committed passage {{i}}")
    print("committed", flush=True)
    with store.transaction():
        store.archival.insert_many(agent.id, [{{"text": f"doomed {{i}}"}} for i in range(300)])
        store.agents.set_summary(agent.id, "doomed summary")
        os._exit(3)
""")


def test_process_killed_mid_transaction_keeps_committed_rows(store_location):
    path = store_location
    location = f"Path({str(path)!r})" if isinstance(path, Path) else repr(path)
    for round_ in (1, 2):
        code = CRASHER.format(fixtures=str(FIXTURES), location=location)
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).parents[1])},
        )
        assert proc.returncode == 3, proc.stderr
        assert "committed" in proc.stdout
        with open_store(path, HashEmbedder()) as store:
            agent = store.agents.get("crash")
            assert store.archival.count(agent.id) == 20 * round_
            assert agent.summary == ""
            assert store.archival.search(agent.id, "doomed", mode="text").total == 0
            assert store.integrity_check() == "ok"


def test_the_embedder_encodes_a_repeated_text_once(embedder, monkeypatch):
    question, band, new = (
        f"{text} {uuid.uuid4().hex}" for text in ("which band did we see?", "the Verquuels", "a new line")
    )
    encoded: list[str] = []
    encode = embedder._encode
    monkeypatch.setattr(embedder, "_encode", lambda texts: encoded.extend(texts) or encode(texts))
    first = embedder.embed([question, band])
    again = embedder.embed([band, new, question, new])
    assert encoded == [question, band, new]
    assert again.shape == (4, embedder.dim)
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[0])
    assert np.array_equal(again[1], again[3])
    again[0] += 1  # callers get their own rows
    assert np.array_equal(embedder.embed([band])[0], first[1])


def test_the_packaged_defaults_fit_a_small_core_memory_limit():
    from memgpt_local.memory.core import default_blocks, default_text

    persona, human = default_blocks(2000)
    assert persona.value == default_text("persona") and human.value == default_text("human")
    for limit in (50, 120, 300):
        persona, human = default_blocks(limit)
        assert 0 < len(persona.value) <= limit and default_text("persona").startswith(persona.value)
        assert 0 < len(human.value) <= limit
