"""The chat's slash commands with a real model (smollm2-135m), end to end.

One `memgpt-local chat` session (one model load, one prefill of the instructions) holds a
user's turn and runs every command on it; /retry and /heartbeat run two more turns. Its stdin
hands the chat one line at a time and, whenever the chat asks for the next line (it waits at
its prompt then, every change committed), records what the store holds; each test checks one
command against the store before and after it. The model's words differ from run to run (the
prompt holds the time), so the checks follow the messages it produced, whatever they say.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from memgpt_local.agent.context import transcript_line
from memgpt_local.cli.main import cli
from memgpt_local.schemas import Agent, CoreBlock, Message, utcnow

pytestmark = pytest.mark.real_model

# two steps a turn at most and short ones: smollm2 decodes ~56 tokens/s on 2 cores
CONFIG = (
    "[model]\nn_ctx_cap = 4096\nn_threads = 2\n\n[agent]\nheartbeat_cap = 2\nreply_reserve_tokens = 200\n"
    "message_max_chars = 120\nthought_max_chars = 60\ncore_memory_limit = 300\n"
)
RESERVE = 200
TURN = "Hi! My name is Ada and I live in Tartu."
THOUGHT = "Ada lives in Tartu: greet her by name."
REPLY = "Hello Ada! Tartu is a lovely city."
REPLY2 = "Good to hear from you again, Ada."

# (key, line): the session, in order; a key names one line for the tests
LINES = [
    ("turn", TURN),
    ("context", "/context"),
    ("memory", "/memory"),
    ("dump", "/dump"),
    ("rethink", f"/rethink {THOUGHT}"),
    ("rewrite", f"/rewrite {REPLY}"),
    ("dump_rewritten", "/dump 3"),
    ("retry", "/retry"),
    ("pop", "/pop"),
    ("dump_popped", "/dump 3"),
    ("heartbeat", "/heartbeat"),
    ("rewrite_after_heartbeat", f"/rewrite {REPLY2}"),
    ("summarize", "/summarize"),
    ("memory_summarized", "/memory"),
    ("context_summarized", "/context"),
    ("exit", "/exit"),
]
KEYS = [key for key, _ in LINES]


@dataclass(frozen=True)
class Snapshot:
    """The store as the chat left it when it asked for a line."""

    at: datetime
    messages: list[Message]  # all of recall storage, oldest first
    in_context: list[Message]
    agent: Agent
    blocks: list[CoreBlock]
    prompt: str  # the main context the model would see next, its messages' texts joined
    prompt_tokens: int  # that context, counted by the model's own tokenizer


class ChatInput(io.BufferedIOBase):
    """The chat's stdin: one line per read; ``before(i)`` runs before line ``i`` is handed out."""

    def __init__(self, lines: list[str], before: Callable[[int], None]):
        super().__init__()
        self._lines, self._before = lines, before
        self._next, self._pending = 0, b""

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if size == 0:
            return b""
        if not self._pending and self._next < len(self._lines):
            self._before(self._next)
            self._pending = f"{self._lines[self._next]}\n".encode()
            self._next += 1
        n = len(self._pending) if size is None or size < 0 else size
        chunk, self._pending = self._pending[:n], self._pending[n:]
        return chunk

    read1 = read


@dataclass
class Session:
    output: str
    snapshots: list[Snapshot]  # snapshots[i]: the store when the chat asked for line i

    def before(self, key: str) -> Snapshot:
        return self.snapshots[KEYS.index(key)]

    def after(self, key: str) -> Snapshot:
        return self.snapshots[KEYS.index(key) + 1]

    def shown(self, key: str) -> str:
        """What the chat printed for one line (the runner echoes each line after the prompt)."""
        starts, at = [], 0
        for _, line in LINES:  # in order: a line can come more than once
            at = self.output.index(f"> {line}\n", at)
            starts.append(at)
            at += len(f"> {line}\n")
        i = KEYS.index(key)
        begin = starts[i] + len(f"> {LINES[i][1]}\n")
        end = starts[i + 1] if i + 1 < len(starts) else len(self.output)
        return self.output[begin:end].rstrip("\n")

    def window(self) -> int:
        return int(re.search(r"model \S+ \((\d+) tokens\)", self.output).group(1))


def run_session(home: Path, model: Path, backend, embedder) -> Session:
    """The chat session of LINES in data dir ``home``; ``backend`` counts tokens for the snapshots."""
    from memgpt_local.agent.loop import AgentRunner
    from memgpt_local.config import load_settings
    from memgpt_local.memory import open_store

    (home / "config.toml").write_text(CONFIG)
    snapshots: list[Snapshot] = []
    opened: list = []

    def record(_: int) -> None:
        if not opened:
            store = open_store(home / "memory.db", embedder)
            opened.extend([store, AgentRunner(store, backend, "default", load_settings(home).agent)])
        store, runner = opened
        rendered = runner.render()
        snapshots.append(
            Snapshot(
                at=utcnow(),
                messages=store.recall.all(runner.agent_id),
                in_context=store.recall.in_context(runner.agent_id),
                agent=runner.agent,
                blocks=store.core.blocks(runner.agent_id),
                prompt="\n".join(m.content for m in rendered),
                prompt_tokens=backend.count_tokens(rendered),
            )
        )

    stdin = ChatInput([line for _, line in LINES], record)
    result = CliRunner(echo_stdin=True).invoke(
        cli, ["--data-dir", str(home), "chat", "--model", str(model), "--no-login"], input=stdin
    )
    if opened:
        opened[0].close()
    assert result.exit_code == 0, result.output
    assert len(snapshots) == len(LINES), result.output
    return Session(result.output, snapshots)


@pytest.fixture(scope="module")
def session(tmp_path_factory, smollm_path: Path, real_backend, embedder) -> Session:
    return run_session(tmp_path_factory.mktemp("chat-home"), smollm_path, real_backend, embedder)


def _after(messages: list[Message], message: Message) -> list[Message]:
    return messages[[m.id for m in messages].index(message.id) + 1 :]


def _last_user(messages: list[Message]) -> Message:
    return [m for m in messages if m.role == "user"][-1]


def _went_out(messages: list[Message], step: Message) -> bool:
    """A reply step whose result is send_message's own (a held draft's is the hold's notice)."""
    following = _after(messages, step)
    return not following or following[0].role != "function" or following[0].content.endswith("\nMessage sent.")


def _last_sent_reply(messages: list[Message]) -> Message:
    replies = [m for m in messages if m.role == "assistant" and m.function_name == "send_message"]
    return [m for m in replies if _went_out(messages, m)][-1]


def _dump_text(messages: list[Message]) -> str:
    # a one-step turn popped whole leaves the context empty (a reply is three messages)
    return "\n".join(f"#{m.id} {transcript_line(m)}" for m in messages) or "(the context holds no messages)"


def _only_changed(before: list[Message], after: list[Message], message_id: int) -> Message:
    """The one message that changed between two snapshots (nothing was added or removed)."""
    assert [m.id for m in before] == [m.id for m in after]
    changed = [a for b, a in zip(before, after) if a != b]
    assert [m.id for m in changed] == [message_id]
    return changed[0]


def test_the_session_runs_every_command_and_its_turns_take_steps(session):
    assert "Traceback" not in session.output and not re.search(r"^error: ", session.output, re.M), session.output
    for key in ("turn", "retry", "heartbeat"):
        # a model step streamed: its thought, or its reply (a statement's direct reply has no thought)
        assert "(thinking)" in session.shown(key) or "assistant:" in session.shown(key), key
        new = [m for m in session.after(key).messages if m.created_at >= session.before(key).at]
        assert any(m.role == "assistant" and m.function_name for m in new), key


@pytest.mark.parametrize("key", ["context", "context_summarized"])
def test_context_shows_a_token_bar_and_sections_that_add_up(session, key):
    shown = session.shown(key)
    bar = re.search(r"^\[([#.]{40})\] (\d+)/(\d+) tokens \((\d+)%\)$", shown, re.M)
    assert bar, shown
    used, window = int(bar.group(2)), int(bar.group(3))
    rows = {name: int(n) for name, n in re.findall(r"^  ([a-z ]+?) +(\d+)$", shown, re.M)}
    assert list(rows) == ["system instructions", "core memory", "summary", "messages", "reply reserve"]
    assert sum(rows.values()) == used and window == session.window()
    assert bar.group(1).count("#") == round(40 * used / window) and int(bar.group(4)) == round(100 * used / window)
    # the sections are the main context the model sees, counted by its own tokenizer
    assert used - rows["reply reserve"] == session.after(key).prompt_tokens
    assert rows["reply reserve"] == RESERVE
    assert rows["system instructions"] > rows["core memory"] > 0 and rows["messages"] > 0
    assert (rows["summary"] > 0) == (key == "context_summarized")
    assert f"eviction at 100% of {window - RESERVE}" in shown


@pytest.mark.parametrize("key", ["memory", "memory_summarized"])
def test_memory_shows_the_core_blocks_and_the_counts(session, key):
    shown, snap = session.shown(key), session.after(key)
    assert {b.label for b in snap.blocks} >= {"persona", "human"}
    for block in snap.blocks:
        assert f"[{block.label}] {len(block.value)}/{block.limit} chars\n{block.value or '(empty)'}" in shown
    counts = f"recall memory: {len(snap.messages)} messages ({len(snap.in_context)} in context)"
    assert f"{counts}; archival memory: 0 passages" in shown
    assert ("summary of evicted messages:" in shown) == (key == "memory_summarized")
    if snap.agent.summary:
        assert f"summary of evicted messages: {snap.agent.summary}" in shown


def test_dump_shows_the_recent_messages(session):
    snap = session.after("dump")
    assert session.shown("dump") == _dump_text(snap.in_context[-10:])
    user = _last_user(snap.in_context)
    assert user.content == TURN and f"#{user.id} {transcript_line(user)}" in session.shown("dump")
    assert f" user: {TURN}" in session.shown("dump")


def test_rethink_replaces_the_last_inner_monologue(session):
    before, after = session.before("rethink"), session.after("rethink")
    step = [m for m in before.in_context if m.role == "assistant" and m.function_name][-1]
    assert step.content != THOUGHT
    changed = _only_changed(before.messages, after.messages, step.id)
    assert changed.content == THOUGHT and changed.function_args == step.function_args
    assert THOUGHT in after.prompt  # the model sees the new thought from now on
    assert session.shown("rethink") == "replaced the last inner monologue"


@pytest.mark.parametrize("key, text", [("rewrite", REPLY), ("rewrite_after_heartbeat", REPLY2)])
def test_rewrite_replaces_the_last_message_that_went_out(session, key, text):
    before, after = session.before(key), session.after(key)
    step = _last_sent_reply(before.in_context)
    changed = _only_changed(before.messages, after.messages, step.id)
    assert changed.function_args == dict(step.function_args or {}, message=text)
    assert changed.content == step.content  # the thought stays
    assert text in after.prompt
    assert session.shown(key) == "replaced the last message sent to you"


def test_a_rewritten_reply_is_what_dump_shows(session):
    assert f"assistant: {REPLY}" in session.shown("dump_rewritten")
    assert session.shown("dump_rewritten") == _dump_text(session.after("dump_rewritten").in_context[-3:])


def test_retry_runs_the_last_user_message_again_as_a_new_turn(session):
    before, after = session.before("retry"), session.after("retry")
    user = _last_user(before.in_context)
    assert user.content == TURN
    old = _after(before.messages, user)
    assert any(m.role == "assistant" for m in old)
    # everything up to the user's message stays as it was, and it is there once
    kept = after.messages[: len(before.messages) - len(old)]
    assert kept == before.messages[: len(kept)] and kept[-1] == user
    assert [m.content for m in after.messages if m.role == "user"] == [TURN]
    # the old answer (rethought and rewritten above) left recall storage ...
    new = _after(after.messages, user)
    assert not {(m.id, m.created_at) for m in old} & {(m.id, m.created_at) for m in new}
    assert not [m for m in after.messages if THOUGHT in m.content or REPLY in str(m.function_args)]
    # ... and the new turn's steps came after the command, in the context
    assert new and all(m.created_at >= before.at for m in new)
    assert any(m.role == "assistant" and m.function_name for m in new)
    assert [m.id for m in _after(after.in_context, user)] == [m.id for m in new if m.in_context]


def test_pop_deletes_the_last_three_messages_and_never_splits_a_call_from_its_result(session):
    before, after = session.before("pop"), session.after("pop")
    popped = before.in_context[-3:]
    if popped[0].role == "function" and before.in_context[-4].role == "assistant":
        popped = before.in_context[-4:]  # the result of a step whose call comes before it
    assert session.shown("pop").startswith(f"removed the last {len(popped)} messages")
    assert after.in_context == before.in_context[: -len(popped)]
    assert after.messages == [m for m in before.messages if m not in popped]
    for i, message in enumerate(after.in_context):  # every call left has its result
        if message.role == "assistant" and message.function_name:
            assert [m.role for m in after.in_context[i + 1 : i + 2]] == ["function"]
    # a following /dump ends where the context now ends
    assert session.shown("dump_popped") == _dump_text(after.in_context[-3:])
    assert not any(f"#{m.id} " in session.shown("dump_popped") for m in popped)


def test_heartbeat_runs_a_turn_from_a_heartbeat_event(session):
    before, after = session.before("heartbeat"), session.after("heartbeat")
    assert after.messages[: len(before.messages)] == before.messages
    new = after.messages[len(before.messages) :]
    assert new[0].role == "system" and "Heartbeat requested by the user" in new[0].content
    steps = [m for m in new if m.role == "assistant"]
    assert steps and all(m.created_at >= before.at for m in new)
    for step in steps:  # every step was executed: its result follows it
        following = _after(new, step)
        assert following and following[0].role == "function"
    assert "Heartbeat requested by the user" in after.prompt


def test_summarize_folds_the_oldest_messages_into_the_summary(session):
    before, after = session.before("summarize"), session.after("summarize")
    assert before.agent.summary == "" and after.agent.summary.startswith("The user")  # the grammar's start
    kept_ids = {m.id for m in after.in_context}
    evicted = [m for m in before.in_context if m.id not in kept_ids]
    assert evicted and before.in_context[len(evicted) :] == after.in_context  # the oldest went
    shown = re.fullmatch(
        r"evicted (\d+) messages into the summary \((\d+) -> (\d+) tokens\)", session.shown("summarize")
    )
    assert shown and int(shown.group(1)) == len(evicted)
    assert int(shown.group(3)) == after.prompt_tokens
    by_id = {m.id: m for m in after.messages}
    for message in evicted:  # still in recall storage, out of the context, marked summarized
        assert not by_id[message.id].in_context and by_id[message.id].summarized
    assert after.agent.state["evicted_messages"] == len(evicted)
    assert "[summary of earlier conversation" in after.prompt and after.agent.summary.strip() in after.prompt
