"""The queue manager: the pressure warning (once per period) and eviction at the flush line."""

from __future__ import annotations

import hashlib

import pytest
from agent_helpers import ask, call, make_runner, say
from store_sql import STORE_KINDS

from memgpt_local import events
from memgpt_local.agent.queue import choose_cut
from memgpt_local.schemas import Message, utcnow


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    """Every test here runs on the memory file and on a Postgres database."""
    return request.param


def _msg(i: int, role: str) -> Message:
    return Message(id=i, agent_id=1, seq=i, role=role, content="x", created_at=utcnow())


def test_choose_cut_keeps_calls_with_their_results():
    queue = [
        _msg(1, "user"),
        _msg(2, "assistant"),
        _msg(3, "function"),
        _msg(4, "user"),
        _msg(5, "assistant"),
        _msg(6, "function"),
    ]
    cut = choose_cut(queue, 0.5)
    assert queue[cut].role != "function"
    assert 0 < cut < len(queue)
    assert choose_cut(queue[:1], 0.5) == 0
    # the newest message is a result: its call stays with it
    assert choose_cut([_msg(1, "user"), _msg(2, "assistant"), _msg(3, "function")], 0.9) == 1


def test_pressure_warning_is_inserted_exactly_once_per_period(store):
    runner = make_runner(
        store,
        [
            call("archival_memory_search", query="a", heartbeat=True),
            call("archival_memory_search", query="b", heartbeat=True),
            say("done"),
        ],
        reply_reserve_tokens=64,
    )
    with store.transaction():
        (hello,) = store.recall.append(
            runner.agent_id, [events.user_message("hello there, what did I tell you yesterday?")]
        )
    used = runner.queue.pressure().prompt_tokens
    runner.backend.n_ctx = int(used / 0.72) + 64  # ~72% full now, and the three steps stay below 100%
    runner.run_turn(hello)
    warnings = [m for m in store.recall.in_context(runner.agent_id) if m.content.startswith("[memory pressure warning")]
    assert len(warnings) == 1
    assert runner.agent.state["pressure_warned"] is True


def test_a_login_is_warned_after_its_greeting(store):
    """A `make run` chat (stop 53): warned before its greeting, the model greeted "Hello Priya!
    I need to save some details for later. I'll be back soon." The warning follows the greeting."""
    from memgpt_local.agent.policy.greet_by_name import ASK_NAME

    runner = make_runner(store, [say(ASK_NAME), say("fine")], reply_reserve_tokens=64)
    used = runner.queue.pressure().prompt_tokens + 60  # and the login's own tokens
    runner.backend.n_ctx = int(used / 0.72) + 64
    runner.run_turn(runner.login_event())
    queue = [m.content.split("\n")[0] for m in store.recall.in_context(runner.agent_id)]
    assert queue[-1].startswith("[memory pressure warning")
    assert queue[-2].startswith("[send_message returned OK")  # the greeting went out first
    assert runner.agent.state["pressure_warned"] is True


def _fill(runner, turns: int) -> None:
    # replies that differ (the repeat guard holds one that repeats an earlier turn's)
    words = [hashlib.sha1(f"{i}-{j}".encode()).hexdigest()[:6] for i in range(turns) for j in range(20)]
    runner.backend.enqueue(*[say(f"reply {i}: " + " ".join(words[20 * i : 20 * i + 20])) for i in range(turns)])
    for i in range(turns):
        ask(runner, f"message {i}: " + "blah " * 40)


def test_eviction_at_the_flush_line_moves_the_oldest_half_into_the_summary(store):
    runner = make_runner(store, [], reply_reserve_tokens=64)
    _fill(runner, 12)
    queue_before = store.recall.in_context(runner.agent_id)
    used = runner.queue.pressure().prompt_tokens
    runner.backend.n_ctx = used + 64 + 5  # the next user message pushes the prompt over the window
    runner.backend.enqueue("The user sent twelve messages of filler; the assistant acknowledged each.", say("fine"))
    turn = ask(runner, "are you still there? " + "blah " * 10)
    assert turn.messages == ["fine"]
    assert turn.steps[0].eviction is not None and turn.steps[0].eviction.evicted > 0
    after = store.recall.in_context(runner.agent_id)
    assert len(after) < len(queue_before)
    assert after[0].role != "function"
    assert runner.agent.summary.startswith("The user sent twelve messages")
    rendered = runner.render()
    assert rendered[1].content.startswith("[summary of earlier conversation")
    assert "The user sent twelve messages" in rendered[1].content
    # nothing is lost: evicted messages stay searchable in recall storage
    assert store.recall.count(runner.agent_id) >= len(queue_before)
    summary_request = [
        r for r in runner.backend.requests if r.grammar is not None and "send_message" not in r.grammar.function_names
    ]
    assert len(summary_request) == 1
    # the eviction ended the warning's period; the warning after the turn is given again only past its line
    past = runner.queue.pressure().fraction >= runner.settings.warning_fraction
    assert bool(runner.agent.state["pressure_warned"]) is past


def test_summarize_command_forces_one_eviction(store):
    from memgpt_local.agent.commands import summarize

    runner = make_runner(store, [])
    _fill(runner, 4)
    runner.backend.enqueue("Four filler messages.")
    text = summarize(runner, "")
    assert text.startswith("evicted")
    assert runner.agent.summary == "Four filler messages."


def test_eviction_never_loops_forever_when_one_message_cannot_fit(store):
    import pytest

    from memgpt_local.errors import ContextOverflowError

    runner = make_runner(store, [], reply_reserve_tokens=64)
    _fill(runner, 2)
    runner.backend.n_ctx = 200  # smaller than the system prompt alone
    runner.backend.enqueue(*["summary"] * 10)
    with pytest.raises(ContextOverflowError):
        runner.queue.make_room(runner.agent_id)


def test_a_warning_that_tips_the_prompt_over_the_line_triggers_eviction_before_the_next_step(store):
    runner = make_runner(store, [], reply_reserve_tokens=64, idle_evict_fraction=None)
    _fill(runner, 6)
    used = runner.queue.pressure().prompt_tokens
    runner.backend.n_ctx = used + 64 + 10  # just under the flush line: the warning after a turn pushes it over
    assert runner.queue.warn_after_turn(runner.agent_id) is True
    assert runner.queue.pressure().prompt_tokens > runner.queue.budget
    runner.backend.enqueue("Six filler messages.", say("fine"))
    turn = ask(runner, "hello again")
    assert turn.messages == ["fine"]
    assert turn.steps[0].eviction is not None and turn.steps[0].eviction.evicted > 0
    last = runner.backend.requests[-1]
    assert runner.backend.count_tokens(last.messages) + 64 <= runner.backend.n_ctx


def test_a_summary_too_big_for_one_call_is_written_in_chunks_that_each_fit(store):
    from memgpt_local.agent.summarizer import SUMMARY_MAX_TOKENS

    runner = make_runner(store, [])
    _fill(runner, 8)
    messages = store.recall.in_context(runner.agent_id)
    runner.backend.n_ctx = 900
    runner.backend.enqueue(*[f"summary after chunk {i}" for i in range(20)])
    before = len(runner.backend.requests)
    summary = runner.queue.summarizer.summarize("", messages)
    calls = runner.backend.requests[before:]
    assert len(calls) > 1
    assert all(runner.backend.count_tokens(c.messages) + SUMMARY_MAX_TOKENS <= 900 for c in calls)
    assert summary == f"summary after chunk {len(calls) - 1}"
    assert "summary after chunk 0" in calls[1].messages[1].content  # each call carries the summary so far


def test_the_summary_begins_the_user_and_leaves_out_the_results_of_replies(store):
    """Left to begin as it liked, the model went on with the chat: an eval chat's summary was its
    first reply word for word, and it came back as the greeting at every later login."""
    runner = make_runner(store, [say("Hello Ana! Lovely to meet you.")])
    ask(runner, "Hi, I'm Ana and I keep bees.")
    runner.backend.enqueue("The user is Ana, who keeps bees.")
    summary = runner.queue.summarizer.summarize("", store.recall.in_context(runner.agent_id))
    request = runner.backend.requests[-1]
    assert summary == "The user is Ana, who keeps bees."
    assert request.grammar is not None and request.grammar.text.startswith('root ::= "The user" ')
    told = request.messages[-1].content
    assert "Hello Ana! Lovely to meet you." in told and "Message sent." not in told
    # notices that instruct the model stay out; a login is only said to have happened
    login = runner.login_event()
    with store.transaction():
        store.recall.append(runner.agent_id, [login, events.memory_pressure(90, 100)])
    runner.backend.enqueue("The user is Ana.")
    runner.queue.summarizer.summarize("", store.recall.in_context(runner.agent_id))
    told = runner.backend.requests[-1].messages[-1].content
    assert "the user logged in" in told and "Greet" not in told and "memory pressure" not in told


def test_the_pressure_warning_is_stamped_with_the_turns_time_not_the_clock(store):
    """An evaluation's (or an import's) turn from the past is warned on its own day: stamped
    with the real clock, the warning told the model "today" was another date."""
    from datetime import datetime, timezone

    runner = make_runner(store, [say("fine")], reply_reserve_tokens=64)
    then = datetime(2025, 5, 9, 19, 0, tzinfo=timezone.utc)
    used = runner.queue.pressure().prompt_tokens + 20  # and the message's own tokens
    runner.backend.n_ctx = int(used / 0.72) + 64
    runner.run_turn(events.user_message("a long day again", when=then))
    (warning,) = [m for m in store.recall.in_context(runner.agent_id) if m.content.startswith("[memory pressure")]
    assert "| 2025-05-09 19:00 UTC]" in warning.content.splitlines()[0]
    assert warning.created_at.year == 2025


def test_the_pressure_warning_goes_after_the_reply_not_between_the_question_and_the_step(store):
    """The question and the notices a turn puts beside it (here the core lines it asks about) are
    the last thing the model reads before its step: with the warning after them, the model denied
    facts the notice quoted (eval chat seed 11); with the warning after the user's message, "The
    twins are both down with the same cough now" was answered "I'm sorry, but I can't answer that
    right now." (a `make run` chat, stop 57). The warning follows the reply."""
    runner = make_runner(store, [say("Your home is Leeds.")], reply_reserve_tokens=64)
    store.core.set_value(runner.agent_id, "human", "Name: Dana\nHome: Leeds")
    used = runner.queue.pressure().prompt_tokens + 60  # and the question's and the notice's tokens
    runner.backend.n_ctx = int(used / 0.72) + 64
    runner.run_turn(events.user_message("Which town am I living in now?"))
    queue = [m.content.split("\n")[0] for m in store.recall.in_context(runner.agent_id)]
    question = queue.index("Which town am I living in now?")
    assert queue[question + 1].startswith("[core memory")
    assert not any(line.startswith("[memory pressure") for line in queue[: question + 3])
    assert queue[-1].startswith("[memory pressure warning")
    assert runner.agent.state["pressure_warned"] is True


def test_after_a_warned_turn_past_the_idle_line_the_summary_is_written_before_the_next_turn(store):
    """Left to the flush line, an eviction fell between a search and the answer of the next
    turn, and the user waited 90-150 s (eval chat seed 13): once warned, a turn that ends past
    ``idle_evict_fraction`` evicts right after its reply."""
    from memgpt_local.agent.loop import StepObserver

    class Seen(StepObserver):
        def __init__(self) -> None:
            self.evicted: list[int] = []

        def tidied(self, report) -> None:
            self.evicted.append(report.evicted)

    runner = make_runner(store, [], reply_reserve_tokens=64, idle_evict_fraction=0.8)
    seen = runner.observer = Seen()
    _fill(runner, 8)
    used = runner.queue.pressure().prompt_tokens + 60  # and the next turn's message and reply
    runner.backend.n_ctx = int(used / 0.85) + 64  # ~85% after it: past the idle line, below the flush line
    runner.backend.enqueue(say("fine"), "The user sent filler messages.")
    first = ask(runner, "are you still there?")
    assert first.messages == ["fine"] and all(s.eviction is None for s in first.steps)  # no eviction in the turn
    assert runner.agent.state["pressure_warned"] is False  # the warning was given, and the eviction reset it
    assert seen.evicted and seen.evicted[0] > 0 and "filler" in runner.agent.summary
    assert runner.queue.pressure().fraction < 0.8
    quiet = make_runner(store, [say("ok")], name="quiet", reply_reserve_tokens=64, idle_evict_fraction=0.8)
    ask(quiet, "hello")  # far below the line, never warned: nothing is evicted
    assert quiet.agent.summary == "" and quiet.queue.tidy(quiet.agent_id) is None


@pytest.mark.real_model
def test_the_summary_is_written_in_a_side_context_and_the_conversation_stays_cached(smollm_path, store):
    """Written in the conversation's own context, the summary's prompt replaced the cached
    conversation, and the next step read the unchanged system instructions again."""
    from memgpt_local.agent.queue import QueueManager
    from memgpt_local.config import AgentSettings
    from memgpt_local.runtime.llama import LlamaCppBackend
    from memgpt_local.schemas import ChatMessage

    backend = LlamaCppBackend(smollm_path, n_ctx=2048, n_threads=2, name="smollm2-135m")
    try:
        chat = [ChatMessage(role="system", content="You are helpful."), ChatMessage(role="user", content="Hi there!")]
        queue = QueueManager(store, backend, AgentSettings(), lambda: chat)
        assert queue.summarizer.backend is backend.side_context(2048) and queue.summarizer.backend is not backend
        first = backend.complete(chat, grammar=None, max_tokens=8)
        gone = [Message(id=1, agent_id=1, seq=1, role="user", content="I keep bees in Leeds.", created_at=utcnow())]
        assert queue.summarizer.summarize("", gone).strip()
        again = backend.complete(chat, grammar=None, max_tokens=8)
        assert again.evaluated_tokens == 1 and again.text == first.text  # the conversation's cache is intact
        longer = [*chat, ChatMessage(role="assistant", content="Hello!"), ChatMessage(role="user", content="Bees?")]
        assert backend.prefill(longer) > 0  # read ahead, as after an eviction at a turn's end
        assert backend.complete(longer, grammar=None, max_tokens=4).evaluated_tokens == 1
    finally:
        backend.close()
