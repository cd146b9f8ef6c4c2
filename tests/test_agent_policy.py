"""Memory policy mechanisms: read-ahead prefetch, search-first steps and linked memory."""

from __future__ import annotations

from agent_helpers import call, make_runner, say
from memgpt_local.functions.links import LinkExpander, identifiers
from memgpt_local.schemas import NewMessage, SearchHit, utcnow


def test_identifiers_are_tokens_with_digits_or_capitals():
    text = "My cousin Lena stayed at Hotel Aurelia, room 4B12, booking ab12-cd34; it was nice."
    found = identifiers(text)
    assert "Lena" in found and "Aurelia" in found and "4B12" in found and "ab12-cd34" in found
    assert "cousin" not in found and "nice" not in found


def _hit(i: int, text: str) -> SearchHit:
    return SearchHit(kind="passage", id=i, text=text, created_at=utcnow())


def test_link_expander_follows_rare_identifiers_and_skips_common_ones():
    entries = [
        _hit(1, "Key-value pair: key = K1a9, value = V2b8"),
        _hit(2, "Key-value pair: key = V2b8, value = V3c7"),
        _hit(3, "Key-value pair: key = V3c7, value = END9"),
        _hit(4, "Key-value pair: key = Z000, value = Q111"),
    ]

    def containing(text: str, limit: int):
        return [e for e in entries if text in e.text][:limit]

    links = LinkExpander(containing, depth=3, max_df=3).expand([entries[0]])
    chain = [link.hit.id for link in links[1]]
    assert chain == [2, 3]
    assert [link.via for link in links[1]] == ["V2b8", "V3c7"]
    # "Key-value" is in every entry: with max_df 2 it links nothing, the ids still do
    assert [l.hit.id for l in LinkExpander(containing, depth=1, max_df=2).expand([entries[0]])[1]] == [2]


def test_archival_search_results_carry_linked_entries(store):
    runner = make_runner(store, [call("archival_memory_search", query="cousin trip", heartbeat=True), say("ok")], link_depth=2)
    for text in ["My cousin Lena loved the trip and stayed at Hotel Aurelia.",
                 "Hotel Aurelia is at 14 Vana Street, Tartu, next to the river.",
                 "The weather in Tartu was rainy all week."]:
        store.archival.insert(runner.agent_id, text)
    turn = runner.user_message("What did my cousin say about the trip, and where is that hotel?")
    result = turn.steps[0].outcome.text
    assert "linked via Hotel" in result or "linked via Aurelia" in result
    assert "14 Vana Street" in result


def test_prefetch_shows_relevant_memories_with_the_user_message(store):
    runner = make_runner(store, [say("It was Tansy.")], memory_prefetch=True)
    with store.transaction():
        store.recall.append(runner.agent_id, [
            NewMessage(role="user", content="We adopted a ferret and named it Tansy.", in_context=False),
            NewMessage(role="user", content="The weather was awful today.", in_context=False),
        ])
    runner.user_message("What was the name of our ferret?")
    context = store.recall.in_context(runner.agent_id)
    assert [m.role for m in context[:2]] == ["user", "system"]
    assert context[1].content.startswith("[memory read-ahead")
    assert "named it Tansy" in context[1].content
    # the notice is part of the stored queue: a restart shows the same context
    assert make_runner(store, []).render() == runner.render()


def test_prefetch_adds_nothing_when_memory_is_empty(store):
    runner = make_runner(store, [say("hi")], memory_prefetch=True)
    runner.user_message("hello")
    assert [m.role for m in store.recall.in_context(runner.agent_id)] == ["user", "assistant", "function"]


def test_search_first_forces_a_memory_search_before_the_reply(store):
    runner = make_runner(store, [call("conversation_search", query="ferret"), say("Tansy")], search_first=True)
    with store.transaction():
        store.recall.append(runner.agent_id, [NewMessage(role="user", content="Our ferret is Tansy.", in_context=False)])
    turn = runner.user_message("What is our ferret called?")
    first = runner.backend.requests[0].grammar
    assert "send_message" not in first.function_names
    assert set(first.function_names) == {"conversation_search", "conversation_search_date", "archival_memory_search"}
    assert turn.steps[0].continues  # even without request_heartbeat
    assert turn.messages == ["Tansy"]


def test_search_first_is_skipped_when_there_is_nothing_to_search(store):
    runner = make_runner(store, [say("hello")], search_first=True)
    turn = runner.user_message("hi")
    assert "send_message" in runner.backend.requests[0].grammar.function_names
    assert turn.messages == ["hello"]
