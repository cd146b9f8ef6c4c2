"""Export and import: one versioned JSON document per agent; export -> import -> export
gives the same bytes apart from ``exported_at`` and the name."""

from __future__ import annotations

import json

import pytest
from privacy_helpers import SECRET, run, seed_agent

from memgpt_local.memory import open_store
from memgpt_local.portability.agentfile import VERSION


@pytest.fixture(autouse=True)
def shared_embedder(embedder, monkeypatch):
    monkeypatch.setattr("memgpt_local.memory.embed.make_embedder", lambda settings: embedder)


@pytest.fixture
def seeded(data_home, embedder, tmp_path):
    from memgpt_local.documents.loader import DocumentLoader

    with open_store(data_home / "memory.db", embedder) as store:
        alice = seed_agent(store)
        store.agents.set_state(alice.id, {"last_login": "2024-01-05T12:00:00+00:00", "n": 3})
        doc = tmp_path / "diary.md"
        doc.write_text("# Diary\n\nThe treasure is buried under the old oak tree.\n")
        DocumentLoader(store, alice.id).load([doc])
    return data_home / "memory.db"


def without_volatile(text: str) -> dict:
    data = json.loads(text)
    data.pop("exported_at")
    data["agent"].pop("name")
    return data


def test_round_trip_is_byte_identical_apart_from_documented_fields(cli_runner, seeded, tmp_path, embedder):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    run(cli_runner, "export", "--agent", "alice", "-o", first)
    doc = json.loads(first.read_text())
    assert doc["format"] == "memgpt-local-agent" and doc["version"] == VERSION
    assert [b["label"] for b in doc["core_memory"]] == ["persona", "human"]
    assert [m["summarized"] for m in doc["messages"]][:2] == [True, True]
    assert sum(m["in_context"] for m in doc["messages"]) >= 3
    assert doc["agent"]["summary"].startswith("Ada was born")
    assert any(p["source"] and p["source"].endswith("diary.md") for p in doc["passages"])
    assert "id" not in doc["messages"][0] and "agent_id" not in doc["passages"][0]
    run(cli_runner, "import", first, "--as", "alice2")
    run(cli_runner, "export", "--agent", "alice2", "-o", second)
    a, b = first.read_text(), second.read_text()
    assert without_volatile(a) == without_volatile(b)
    differing = [(x, y) for x, y in zip(a.splitlines(), b.splitlines()) if x != y]
    assert len(differing) == 2 and len(a.splitlines()) == len(b.splitlines())
    assert '"exported_at"' in differing[0][0] and '"name": "alice"' in differing[1][0]
    with open_store(seeded, embedder) as store:  # vectors were rebuilt: meaning search works
        copy = store.agents.get("alice2")
        hits = store.archival.search(copy.id, "where is the treasure hidden", mode="vector")
        assert hits.items and "oak tree" in hits.items[0].text
        assert store.integrity_check() == "ok"


def test_stdout_export_and_name_clash(cli_runner, seeded, tmp_path):
    out = run(cli_runner, "export", "--agent", "alice").output
    assert SECRET in out and json.loads(out)["agent"]["name"] == "alice"
    path = tmp_path / "a.json"
    path.write_text(out)
    assert "already exists" in run(cli_runner, "import", path, ok=False).stderr
    assert "invalid agent name" in run(cli_runner, "import", path, "--as", "bad name", ok=False).stderr


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(version=VERSION + 1), "newer"),
        (lambda d: d.update(format="letta"), "not a memgpt-local agent file"),
        (lambda d: d["messages"][0].update(role="robot"), "messages.0.role"),
        (lambda d: d["passages"][0].update(source="/nowhere.md"), "unknown sources"),
        (lambda d: d["messages"][0].update(created_at="yesterday"), "timestamp"),
        (lambda d: d["core_memory"][1].update(value="x" * 5000), "over its limit"),
        (lambda d: d.update(extra=1), "extra"),
    ],
)
def test_bad_files_import_nothing(cli_runner, seeded, tmp_path, embedder, mutate, message):
    doc = json.loads(run(cli_runner, "export", "--agent", "alice").output)
    doc["passages"].sort(key=lambda p: p["source"] is None)
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    result = run(cli_runner, "import", path, "--as", "copy", ok=False)
    assert result.exit_code == 1 and message in result.stderr.lower() or message in result.stderr
    with open_store(seeded, embedder) as store:
        assert [a.name for a in store.agents.list()] == ["alice"]
