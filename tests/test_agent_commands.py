"""Slash commands: each one's effect is persisted in the store."""

from __future__ import annotations

import pytest
from agent_helpers import ask, call, make_runner, say
from store_sql import STORE_KINDS

from memgpt_local.agent import commands
from memgpt_local.errors import InvalidInputError


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    """Every test here runs on the memory file and on a Postgres database."""
    return request.param


def test_memory_context_and_dump_describe_the_agent(store):
    runner = make_runner(store, [say("hello")])
    ask(runner, "hi there")
    memory = commands.show_memory(runner, "")
    assert "[persona]" in memory and "[human]" in memory and "recall memory: 3 messages" in memory
    context = commands.show_context(runner, "")
    assert "core memory" in context and "messages" in context and f"/{runner.backend.n_ctx} tokens" in context
    usage = dict(commands.context_usage(runner))
    assert usage["messages"] > 0 and usage["system instructions"] > usage["core memory"] > 0
    assert "hi there" in commands.dump(runner, "5")


def test_pop_deletes_the_last_messages(store):
    runner = make_runner(store, [say("hello")])
    ask(runner, "hi")
    assert commands.pop(runner, "2") == "removed the last 2 messages"
    assert [m.role for m in store.recall.in_context(runner.agent_id)] == ["user"]
    with pytest.raises(InvalidInputError):
        commands.pop(runner, "zero")


def test_pop_takes_a_call_with_its_result(store):
    runner = make_runner(
        store, [call("core_memory_append", heartbeat=True, label="human", content="Cat: Pixel"), say("ok")]
    )
    ask(runner, "I have a cat called Pixel")
    assert commands.pop(runner, "3") == "removed the last 4 messages (one more than asked: a call goes with its result)"
    assert [m.role for m in store.recall.in_context(runner.agent_id)] == ["user"]
    assert commands.pop(runner, "1") == "removed the last message"


def test_retry_regenerates_the_answer_to_the_last_user_message(store):
    runner = make_runner(store, [say("first answer"), say("second answer")])
    ask(runner, "question")
    turn = commands.retry(runner, "")
    assert turn.messages == ["second answer"]
    sent = [
        m.function_args["message"]
        for m in store.recall.in_context(runner.agent_id)
        if m.role == "assistant" and m.function_name == "send_message"
    ]
    assert sent == ["second answer"]


def test_retry_drops_the_old_turns_held_drafts_from_storage_too(store):
    """A draft a guard held back leaves the context but stays in storage with its turn; in
    CI, smollm2's held draft outlived /retry and sat between the user's message and the
    new turn's steps."""
    runner = make_runner(
        store,
        [say("What's my pet's name again?"), say("I don't know your pet's name."), say("Your pet is Pixel.")],
    )
    first = ask(runner, "What's my pet's name again?")
    assert first.holds  # the echo guard held the question asked back
    assert len(store.recall.all(runner.agent_id)) > len(store.recall.in_context(runner.agent_id))
    turn = commands.retry(runner, "")
    assert turn.messages == ["Your pet is Pixel."]
    stored = store.recall.all(runner.agent_id)
    assert [m.content for m in stored if m.role == "user"] == ["What's my pet's name again?"]
    said = [m.function_args["message"] for m in stored if m.role == "assistant" and m.function_name == "send_message"]
    assert said == ["Your pet is Pixel."]


def test_rethink_and_rewrite_edit_the_last_step(store):
    runner = make_runner(store, [say("helo")])
    ask(runner, "hi")
    commands.rethink(runner, "Greet the user warmly.")
    commands.rewrite(runner, "Hello!")
    step = [m for m in store.recall.in_context(runner.agent_id) if m.role == "assistant"][-1]
    assert step.content == "Greet the user warmly."
    assert step.function_args["message"] == "Hello!"
    assert '"Hello!"' in runner.render()[-2].content
    hits = store.recall.search(runner.agent_id, "Hello")
    assert hits.total >= 1


def test_rewrite_edits_the_reply_that_went_out_not_a_held_draft(store):
    """smollm2 in a real chat sent a message, then the same one again: the repeat guard held
    the second draft (it stays in the context with a "Not sent" result) and /rewrite once
    edited that draft, which the user never got, instead of the message they read."""
    runner = make_runner(store, [say("Ada lives in Tartu.", heartbeat=True), say("Ada lives in Tartu.")])
    turn = commands.heartbeat(runner, "")
    assert turn.messages == ["Ada lives in Tartu."] and turn.holds
    commands.rewrite(runner, "Ada lives in Tartu, Estonia.")
    sent, held = [m for m in store.recall.in_context(runner.agent_id) if m.role == "assistant"]
    assert sent.function_args["message"] == "Ada lives in Tartu, Estonia."
    assert held.function_args["message"] == "Ada lives in Tartu."


def test_heartbeat_and_memorywarning_run_steps(store):
    runner = make_runner(store, [call("pause_heartbeats", minutes=5), say("saving what matters")])
    assert commands.heartbeat(runner, "").steps[0].call.function == "pause_heartbeats"
    turn = commands.memory_warning(runner, "")
    assert turn.messages == ["saving what matters"]
    assert any(m.content.startswith("[memory pressure warning") for m in store.recall.in_context(runner.agent_id))


def test_parse_slash():
    assert commands.parse_slash("/dump 3") == ("dump", "3")
    assert commands.parse_slash("hello") is None
    assert "/rethink" in commands.help_text()


def test_context_works_with_a_template_that_cannot_render_an_empty_conversation(store, vocab_dir):
    """qwen2.5-coder's chat template (copied from the model file's metadata into tests/fixtures)
    reads messages[0]: /context once failed with "list object has no element 0" because it
    measured an empty conversation."""
    from pathlib import Path

    from memgpt_local.agent.loop import AgentRunner
    from memgpt_local.runtime.llama import LlamaCppBackend

    template = Path(__file__).parent / "fixtures" / "qwen2.5-coder-chat-template.jinja"
    backend = LlamaCppBackend(vocab_dir / "ggml-vocab-qwen2.gguf", chat_format=str(template))
    try:
        scripted = make_runner(store, [say("hello")])
        ask(scripted, "hi, I'm Dana")
        runner = AgentRunner(store, backend, "sam", scripted.settings)
        usage = dict(commands.context_usage(runner))
        sections = sum(v for k, v in usage.items() if k != "reply reserve")
        assert sections == backend.count_tokens(runner.render())
        assert usage["core memory"] > 0 and usage["messages"] > 0
        assert "tokens" in commands.show_context(runner, "")
    finally:
        backend.close()


def test_unsave_deletes_the_core_lines_about_the_user_that_hold_the_text(store):
    """A wrong note ("Funk bass lines: a numbered list of ten") was greeted with at every login
    of a `make run` chat (stop 46), and the chat had no way to take it out."""
    runner = make_runner(store, [])
    store.core.set_value(
        runner.agent_id, "human", "Name: Tomasz\nFunk bass lines: a numbered list of ten\nHome: Bristol"
    )
    shown = commands.unsave(runner, "funk  BASS")
    assert shown == "removed from core memory (human):\n  Funk bass lines: a numbered list of ten"
    assert store.core.get(runner.agent_id, "human").value == "Name: Tomasz\nHome: Bristol"
    assert "Funk bass" not in runner.render()[0].content  # gone from what the model reads
    with pytest.raises(InvalidInputError, match="no line of core memory"):
        commands.unsave(runner, "penguins")
    with pytest.raises(InvalidInputError, match="usage"):
        commands.unsave(runner, "  ")
    commands.unsave(runner, "o")  # every line: the block says again that nothing is known
    assert "Nothing is known" in store.core.get(runner.agent_id, "human").value
