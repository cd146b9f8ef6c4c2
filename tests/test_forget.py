"""Forgetting: rows, vectors, FTS rows, summary and core lines go, and no byte of the
forgotten text survives in the database file or its WAL."""

from __future__ import annotations

import json

import pytest
from privacy_helpers import SECRET, mentions, run, seed_agent

from memgpt_local.memory import open_store
from memgpt_local.privacy.forget import Forgetter, Selection, redact


@pytest.fixture(autouse=True)
def shared_embedder(embedder, monkeypatch):
    monkeypatch.setattr("memgpt_local.memory.embed.make_embedder", lambda settings: embedder)


@pytest.fixture
def seeded(data_home, embedder):
    db = data_home / "memory.db"
    with open_store(db, embedder) as store:
        seed_agent(store)
        seed_agent(store, "bob", secret="Xylophone99")
    return db


def summary_script(tmp_path, text: str):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps([text]))
    return f"scripted:{path}"


def test_forget_search_leaves_no_trace(cli_runner, seeded, tmp_path, embedder):
    assert mentions(seeded, SECRET)
    model = summary_script(tmp_path, "Ada was born in Tartu.")
    out = run(cli_runner, "forget", "--agent", "alice", "--search", SECRET.lower(), "--model", model, "--yes").output
    assert "forgot 1 message(s), 1 passage(s)" in out
    assert "rebuilt" in out and "removed 1 core memory line(s)" in out
    assert not mentions(seeded, SECRET)
    with open_store(seeded, embedder) as store:
        assert store.integrity_check() == "ok"
        alice = store.agents.get("alice")
        assert alice.summary == "Ada was born in Tartu." and "summary_stale" not in alice.state
        human = store.core.get(alice.id, "human").value
        assert human == "Name: Ada\nLikes tea"
        assert [m.content for m in store.recall.summarized(alice.id)] == ["I was born in Tartu"]
        assert store.archival.search(alice.id, "vault code").total == 0
        assert store.recall.search(alice.id, "password", mode="text").total == 0
        assert store.archival.count(alice.id) == 1 and store.recall.count(alice.id) == 4
        bob = store.agents.get("bob")  # another agent's memory is untouched
        assert store.archival.count(bob.id) == 2 and "Xylophone99" in bob.summary
    assert mentions(seeded, "Xylophone99")


def test_without_a_model_the_summary_is_redacted_and_flagged(cli_runner, seeded, embedder):
    result = run(
        cli_runner, "forget", "--agent", "alice", "--search", SECRET, "--model", "no-such-model", "--yes", ok=False
    )
    assert result.exit_code == 1  # an explicit model that cannot load is an error
    result = run(cli_runner, "forget", "--agent", "alice", "--search", SECRET, "--yes")
    assert "flagged as stale" in result.stderr and "Ada was born in Tartu." in result.stderr
    assert not mentions(seeded, SECRET)
    with open_store(seeded, embedder) as store:
        alice = store.agents.get("alice")
        assert alice.summary == "Ada was born in Tartu."
        assert alice.state["summary_stale"]["forgotten_messages"] == 1


def test_asks_before_removing(cli_runner, seeded, embedder):
    run(cli_runner, "forget", "--agent", "alice", "--search", SECRET, input="n\n", ok=False)
    assert mentions(seeded, SECRET)
    # yes to the rows, no to the core memory line
    out = run(cli_runner, "forget", "--agent", "alice", "--search", SECRET, "--model", "none", input="y\nn\n", ok=False)
    assert out.exit_code == 1
    out = run(cli_runner, "forget", "--agent", "alice", "--passage", "1", input="y\nn\n")
    assert "removed 0 core memory line(s)" in out.output
    with open_store(seeded, embedder) as store:
        alice = store.agents.get("alice")
        assert SECRET in store.core.get(alice.id, "human").value
        assert store.archival.count(alice.id) == 1


def test_a_call_and_its_result_go_together(store):
    seed_agent(store)
    forgetter = Forgetter(store)
    alice = store.agents.get("alice")
    call = next(m for m in store.recall.in_context(alice.id) if m.role == "assistant")
    plan = forgetter.plan("alice", Selection(message_id=call.id))
    assert [m.role for m in plan.messages] == ["assistant", "function"]
    forgetter.apply(plan)
    context = store.recall.in_context(alice.id)
    assert [m.role for m in context] == ["user"]
    result = next(m for m in store.recall.all(alice.id) if m.role == "user")
    assert Forgetter(store).plan("alice", Selection(message_id=result.id)).messages == [result]


def test_before_source_and_all(store, tmp_path):
    from memgpt_local.documents.loader import DocumentLoader

    alice = seed_agent(store)
    doc = tmp_path / "diary.md"
    doc.write_text("# Diary\n\nThe treasure is buried under the old oak tree.\n")
    DocumentLoader(store, alice.id).load([doc])
    forgetter = Forgetter(store)
    plan = forgetter.plan("alice", Selection(source="diary.md"))
    assert len(plan.sources) == 1 and plan.passages
    forgetter.apply(plan)
    assert store.sources.list(alice.id) == []
    plan = forgetter.plan("alice", Selection(before="2024-02-01"))
    assert {m.content for m in plan.messages} == {f"my password is {SECRET}", "I was born in Tartu"}
    assert [p.text for p in plan.passages] == [f"The vault code is {SECRET}."]
    forgetter.apply(plan)
    plan = forgetter.plan("alice", Selection(everything=True))
    result = forgetter.apply(plan)
    assert result.summary == "" and store.recall.count(alice.id) == 0
    assert store.archival.count(alice.id) == 0
    assert forgetter.scrub()


def test_selection_needs_exactly_one_choice(cli_runner, seeded):
    for args in ([], ["--search", "a b", "--all"], ["--before", "yesterday"], ["--message", "999"], ["--search", "x"]):
        result = run(cli_runner, "forget", "--agent", "alice", *args, "--yes", ok=False)
        assert result.exit_code == 1 and result.stderr.startswith("error: ")


def test_redact_drops_whole_sentences():
    text = "Ada likes tea. Her PIN is 4711! She lives in Tartu."
    assert redact(text, ["pin is 4711"]) == "Ada likes tea. She lives in Tartu."
