"""The CLI on a Postgres memory store: `--store URL` (on the group or the command),
``MEMGPT_LOCAL_STORE`` and ``store.url`` in config.toml pick the database; an agent moves
from the file to the database and back with export/import; forget removes rows, vectors and
words there too; the commands that only make sense for the file say so in one line."""

from __future__ import annotations

import json

import pytest
from privacy_helpers import SECRET, run, seed_agent
from store_sql import scalar, vector_count, word_count

from memgpt_local.cli.common import App
from memgpt_local.config import redacted_url
from memgpt_local.memory import open_store
from memgpt_local.schemas import FunctionCall


@pytest.fixture(autouse=True)
def shared_embedder(embedder, monkeypatch):
    monkeypatch.setattr("memgpt_local.memory.embed.make_embedder", lambda settings: embedder)


def _script(tmp_path, replies: list[str]) -> str:
    steps: list = []
    for reply in replies:
        call = FunctionCall(thought="", function="send_message", arguments={"message": reply})
        steps += [call.model_dump(), '{"facts": []}']
    path = tmp_path / "script.json"
    path.write_text(json.dumps(steps))
    return f"scripted:{path}"


def test_store_flag_env_and_config_open_the_database_not_the_file(cli_runner, pg_url, data_home, tmp_path, embedder):
    run(cli_runner, "--store", pg_url, "agents", "create", "dana")
    run(cli_runner, "archival", "insert", "--store", pg_url, "--agent", "dana", "The spare key is under the blue pot.")
    sent = run(
        cli_runner, "send", "--store", pg_url, "--agent", "dana", "--model", _script(tmp_path, ["Hi Dana!"]), "Hi"
    )
    assert sent.output.strip() == "Hi Dana!"
    assert not (data_home / "memory.db").exists()  # nothing went to the file
    with open_store(pg_url, embedder) as store:
        agent = store.agents.get("dana")
        assert [m.content for m in store.recall.all(agent.id) if m.role == "user"][-1:] == ["Hi"]
        assert store.archival.count(agent.id) == 1

    found = run(
        cli_runner, "archival", "search", "--agent", "dana", "where is the key", env={"MEMGPT_LOCAL_STORE": pg_url}
    )
    assert "blue pot" in found.output
    (data_home / "config.toml").write_text(f'[store]\nurl = "{pg_url}"\n')
    listed = json.loads(run(cli_runner, "agents", "list", "--json").output)
    assert [a["name"] for a in listed] == ["dana"]
    assert "dana" in run(cli_runner, "agents", "list", "--store", pg_url).output


def test_an_agent_moves_from_the_file_to_the_database_and_back(cli_runner, pg_url, data_home, tmp_path, embedder):
    with open_store(data_home / "memory.db", embedder) as store:
        seed_agent(store)
    from_file, from_db, back = tmp_path / "file.json", tmp_path / "db.json", tmp_path / "back.json"
    run(cli_runner, "export", "--agent", "alice", "-o", from_file)
    run(cli_runner, "--store", pg_url, "import", from_file)
    run(cli_runner, "--store", pg_url, "export", "--agent", "alice", "-o", from_db)
    run(cli_runner, "import", from_db, "--as", "alice_back")
    run(cli_runner, "export", "--agent", "alice_back", "-o", back)

    def content(path):
        data = json.loads(path.read_text())
        data.pop("exported_at")
        data["agent"].pop("name")
        return data

    assert content(from_file) == content(from_db) == content(back)
    with open_store(pg_url, embedder) as store:  # the database rebuilt the vectors: meaning search works
        alice = store.agents.get("alice")
        assert vector_count(store, "message") == store.recall.count(alice.id)
        assert vector_count(store, "passage") == store.archival.count(alice.id) > 0
        passage = store.archival.all(alice.id)[0]
        hits = store.archival.search(alice.id, passage.text, mode="vector")
        assert hits.items and hits.items[0].text == passage.text
        assert store.integrity_check() == "ok"


def test_forget_on_the_database_removes_rows_vectors_and_words(cli_runner, pg_url, embedder):
    with open_store(pg_url, embedder) as store:
        seed_agent(store)
    done = run(cli_runner, "--store", pg_url, "forget", "--agent", "alice", "--search", SECRET, "--yes")
    assert "memory tables vacuumed" in done.output
    with open_store(pg_url, embedder) as store:
        alice = store.agents.get("alice")
        assert store.recall.search(alice.id, SECRET, mode="text").total == 0
        assert store.archival.search(alice.id, SECRET, mode="text").total == 0
        assert SECRET not in store.core.get(alice.id, "human").value
        assert word_count(store, "message", SECRET) == word_count(store, "passage", SECRET) == 0
        like = f"%{SECRET}%"
        assert scalar(store, "SELECT count(*) FROM messages WHERE content LIKE ?", (like,)) == 0
        assert scalar(store, "SELECT count(*) FROM passages WHERE text LIKE ?", (like,)) == 0
        assert SECRET not in (store.agents.get_by_id(alice.id).summary or "")


@pytest.mark.parametrize(
    "command",
    [["encrypt"], ["decrypt"], ["rekey"], ["key", "store"], ["key", "forget"], ["init", "--encrypt"]],
)
def test_commands_for_the_file_refuse_a_database_in_one_line(cli_runner, pg_url, command):
    result = run(cli_runner, "--store", pg_url, *command, ok=False)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"error: `{' '.join(command)}` works on")
    assert "postgresql://" in result.stderr


def test_a_bad_store_url_is_one_line_and_passwords_stay_out_of_messages(cli_runner, data_home):
    result = run(cli_runner, "--store", "mysql://me@host/db", "agents", "list", ok=False)
    assert result.stderr == (
        "error: mysql://me@host/db is not a store URL (give a postgresql://USER:PASSWORD@HOST:PORT/DBNAME URL, "
        "or leave --store out for the memory file)\n"
    )
    (data_home / "config.toml").write_text('[store]\nurl = "sqlite:///x.db"\n')
    bad = run(cli_runner, "agents", "list", ok=False)
    assert bad.stderr.startswith("error: invalid") and "store.url" in bad.stderr
    assert redacted_url("postgresql://ann:s3cret@db.local:5433/mem") == "postgresql://ann:***@db.local:5433/mem"
    assert redacted_url("postgresql:///mem?host=/tmp") == "postgresql:///mem?host=/tmp"
    app = App(data_home, "postgresql://ann:s3cret@db.local/mem")
    assert app.store_name == "postgresql://ann:***@db.local/mem" and app.db_key() is None
    assert app.state_anchor.parent == data_home and app.state_anchor != app.db_path
