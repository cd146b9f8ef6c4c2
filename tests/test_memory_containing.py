"""Exact-string lookups (``RecallStore.containing``, ``ArchivalStore.containing``): phrase
candidates from FTS5, a case-sensitive substring check, one SQL query."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memgpt_local.schemas import NewMessage

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)


def said(role: str, content: str, minutes: int, **kw) -> NewMessage:
    return NewMessage(role=role, content=content, created_at=T0 + timedelta(minutes=minutes), **kw)


@pytest.fixture
def agents(store):
    a, b = store.agents.create("alpha"), store.agents.create("beta")
    store.recall.append(
        a.id,
        [
            said("user", "My order ZX-4471 has not arrived.", 0),
            said(
                "assistant",
                "(step)",
                1,
                function_name="send_message",
                function_args={"message": "I will look up order ZX-4471 for you."},
            ),
            said("function", "[send_message returned OK]\nZX-4471 mentioned", 2, function_name="send_message"),
            said("system", "[login]\nThe user said ZX-4471 again.", 3),
            said("user", "Also the words 4471 ZX in the other order.", 4),
            said("user", "lowercase zx-4471 is not the same string.", 5),
        ],
    )
    store.recall.append(b.id, [said("user", "Beta also has order ZX-4471.", 0)])
    source = store.sources.add(a.id, "/home/u/orders.md", "h1")
    store.archival.insert_many(
        a.id,
        [
            {"text": "Order ZX-4471: two kettles, paid."},
            {"text": "Order 4471-ZX is someone else's."},
            {"text": "Chunk about ZX-4471 from the file.", "source_id": source.id, "chunk_index": 3},
        ],
    )
    store.archival.insert(b.id, "Beta's note on ZX-4471.")
    return store, a, b


def test_messages_containing_a_string(agents):
    store, a, b = agents
    hits = store.recall.containing(a.id, "ZX-4471")
    # user and assistant messages only; the phrase "4471 ZX" (other order) and "zx-4471" (case) are not it
    assert [(h.role, h.text) for h in hits] == [
        ("user", "My order ZX-4471 has not arrived."),
        ("assistant", "I will look up order ZX-4471 for you."),  # what it sent, not the step's content
    ]
    assert all(h.kind == "message" for h in hits)
    assert hits[0].created_at == T0 and hits[0].id < hits[1].id  # oldest first
    assert [h.text for h in store.recall.containing(b.id, "ZX-4471")] == ["Beta also has order ZX-4471."]


def test_phrase_candidates_then_a_case_sensitive_substring(agents):
    store, a, _ = agents
    assert [h.text for h in store.recall.containing(a.id, "zx-4471")] == ["lowercase zx-4471 is not the same string."]
    assert [h.text for h in store.recall.containing(a.id, "4471 ZX")] == ["Also the words 4471 ZX in the other order."]
    assert store.recall.containing(a.id, "ZX 4471") == []  # the same words adjacent, but not this string
    assert store.recall.containing(a.id, "-- !!") == []  # no words: no query at all
    assert store.recall.containing(a.id, 'order" OR "tea') == []  # FTS5 syntax is only ever words


def test_passages_containing_a_string(agents):
    store, a, b = agents
    hits = store.archival.containing(a.id, "ZX-4471")
    assert [h.text for h in hits] == ["Order ZX-4471: two kettles, paid.", "Chunk about ZX-4471 from the file."]
    assert [h.citation for h in hits] == [None, "orders.md#chunk-3"]
    assert all(h.kind == "passage" and h.created_at is not None for h in hits)
    assert [h.text for h in store.archival.containing(b.id, "ZX-4471")] == ["Beta's note on ZX-4471."]
    assert [h.text for h in store.archival.containing(a.id, "4471-ZX")] == ["Order 4471-ZX is someone else's."]
    assert store.archival.containing(a.id, "zx-4471") == []


def test_at_most_limit_oldest_first(store):
    agent = store.agents.create("many")
    store.recall.append(agent.id, [said("user", f"note {i} about Q-77", i) for i in range(8)])
    store.archival.insert_many(agent.id, [{"text": f"passage {i} about Q-77"} for i in range(8)])
    assert [h.text for h in store.recall.containing(agent.id, "Q-77", limit=3)] == [
        "note 0 about Q-77",
        "note 1 about Q-77",
        "note 2 about Q-77",
    ]
    assert [h.text for h in store.archival.containing(agent.id, "Q-77", limit=2)] == [
        "passage 0 about Q-77",
        "passage 1 about Q-77",
    ]
    assert len(store.recall.containing(agent.id, "Q-77")) == 8  # the default limit is 10


def test_one_query_whatever_the_number_of_hits(agents, monkeypatch):
    store, a, _ = agents
    calls = []
    for name in ("rows", "one", "scalar", "execute"):
        method = getattr(store.db, name)
        monkeypatch.setattr(store.db, name, lambda *args, _m=method, _n=name: calls.append(_n) or _m(*args))
    assert len(store.recall.containing(a.id, "ZX-4471")) == 2
    assert len(store.archival.containing(a.id, "ZX-4471")) == 2
    assert calls == ["rows", "rows"]
