"""The system message shows core memory as of the last eviction (``CoreView``): the agent's own
edits arrive as notices in the queue, so the prompt only grows at its end and the KV cache
keeps the conversation; edits made outside the agent, and evictions, catch the view up."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from agent_helpers import ask, call, make_runner, say
from store_sql import STORE_KINDS

from memgpt_local.agent.context import CoreView
from memgpt_local.schemas import CoreBlock, Message


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    """Every test here runs on the memory file and on a Postgres database."""
    return request.param


def _system(request) -> str:
    return request.messages[0].content


def test_an_edit_by_the_agent_leaves_the_system_message_as_it_was(store):
    runner = make_runner(
        store,
        [
            call("core_memory_append", label="human", content="Name: Ada", heartbeat=True),
            say("Nice to meet you, Ada."),
            say("You are welcome."),
        ],
    )
    ask(runner, "I'm Ada")
    ask(runner, "thanks")
    first, second, third = runner.backend.requests
    assert "Name: Ada" not in _system(first)
    assert _system(second) == _system(first) == _system(third)
    assert "Name: Ada" in store.core.get(runner.agent_id, "human").value
    # the edit is in view as the call that made it
    assert any("Name: Ada" in m.content for m in third.messages[1:])
    # every step's prompt starts with the previous one's, up to the turn that ended (whose
    # steps are shown without their thoughts from then on): the cache can serve it
    assert second.messages[: len(first.messages)] == first.messages
    turn_start = next(i for i, m in enumerate(second.messages) if "I'm Ada" in m.content)
    assert third.messages[: turn_start + 1] == second.messages[: turn_start + 1]


def test_an_edit_made_outside_the_agent_shows_at_the_next_turn(store):
    runner = make_runner(store, [say("hello"), say("hello again")])
    ask(runner, "hi")
    store.core.set_value(runner.agent_id, "human", "Name: Bo (set by hand)")
    ask(runner, "hi again")
    assert "Name: Bo (set by hand)" in _system(runner.backend.requests[1])


def test_an_eviction_catches_the_view_up(store):
    runner = make_runner(
        store,
        [
            call("core_memory_append", label="human", content="Pet: a cat called Miso", heartbeat=True),
            say("Noted."),
            say("ok"),
        ],
    )
    ask(runner, "my cat is Miso")
    assert "Miso" not in _system(runner.backend.requests[-1])
    runner.queue.summarizer.summarize = lambda old, gone: "The user has a cat."  # type: ignore[method-assign]
    runner.queue.evict(runner.agent_id, force=True)
    ask(runner, "hello")
    assert "Pet: a cat called Miso" in _system(runner.backend.requests[-1])


def test_switched_off_every_edit_is_rendered_at_once(store):
    runner = make_runner(
        store,
        [call("core_memory_append", label="human", content="Name: Ada", heartbeat=True), say("Hi Ada.")],
        stable_core_memory=False,
    )
    ask(runner, "I'm Ada")
    assert "Name: Ada" in _system(runner.backend.requests[1])
    assert "core_shown" not in runner.agent.state


def test_the_view_keeps_blocks_it_has_no_value_for():
    view = CoreView()
    blocks = [CoreBlock(label="persona", value="p", limit=50), CoreBlock(label="human", value="now", limit=50)]
    shown = view.shown({"core_shown": {"human": "then"}}, blocks)
    assert [b.value for b in shown] == ["p", "then"]
    assert view.shown({}, blocks) == blocks
    state = view.at_turn_start({}, blocks)
    assert state == {"core_shown": {"persona": "p", "human": "now"}, "core_known": {"persona": "p", "human": "now"}}
    assert view.at_turn_start(state, blocks) is None


def test_replace_of_text_the_block_no_longer_holds_quotes_the_block(store):
    runner = make_runner(
        store,
        [call("core_memory_replace", label="human", old_content="Home: Leeds", new_content="Home: York"), say("ok")],
    )
    store.core.set_value(runner.agent_id, "human", "Home: Hull")
    turn = ask(runner, "I moved to York")
    assert "the block now reads:\nHome: Hull" in turn.steps[0].outcome.text


def test_earlier_turns_show_their_calls_without_thoughts_or_reply_results(store):
    runner = make_runner(
        store,
        [
            call("conversation_search", query="cello", heartbeat=True, thought="I should look up my cello notes."),
            call("send_message", message="I don't know where your cello is.", thought="The result says nothing."),
            call("send_message", message="Happy to help.", thought="Thank them."),
        ],
    )
    ask(runner, "Where did I leave my cello?")
    ask(runner, "Thanks!")
    _, second_step, next_turn = runner.backend.requests
    # inside its own turn a step's thought is in view: the next step reads the plan
    assert any("I should look up my cello notes." in m.content for m in second_step.messages)
    shown = "\n".join(m.content for m in next_turn.messages[1:])
    assert "I should look up my cello notes." not in shown and "The result says nothing." not in shown
    assert '"query": "cello"' in shown and "I don't know where your cello is." in shown  # what was done stays
    assert "Message sent." not in shown
    assert runner.render()[-1].content.endswith("Message sent.")  # the current turn's result is there


def test_past_thoughts_shows_earlier_turns_in_full(store):
    runner = make_runner(
        store,
        [call("send_message", message="Hello.", thought="Greet."), call("send_message", message="Hi again.")],
        past_thoughts=True,
    )
    ask(runner, "hi")
    ask(runner, "hi again")
    shown = "\n".join(m.content for m in runner.backend.requests[-1].messages)
    assert '"thought": "Greet."' in shown and "Message sent." in shown


def test_a_notice_inside_a_turn_does_not_end_it_for_the_rendering():
    from memgpt_local import events
    from memgpt_local.agent.context import current_turn_start

    when = datetime(2025, 1, 1, tzinfo=timezone.utc)

    def stored(i: int, new) -> Message:
        return Message(id=i, agent_id=1, seq=i, role=new.role, content=new.content, created_at=when, in_context=True)

    queue = [
        stored(1, events.user_message("Where did I leave my cello?", when)),
        stored(2, events.system_event("memory read-ahead", "hits", when=when)),
        stored(3, events.system_event("search recap", "Searching is over for this turn.", when=when)),
        stored(4, events.memory_update("human", ["saved: Cello: in the workshop"], when)),
    ]
    assert current_turn_start(queue) == 0
    queue.append(stored(5, events.system_event("login", "The user logged in.", when=when)))
    assert current_turn_start(queue) == 4
