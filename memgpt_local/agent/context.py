"""Main context assembly: what the model sees at every step, in a stable order.

Order: system instructions (static text + function docs), working context (core memory
blocks with ``chars used/limit``), then the FIFO queue: the recursive summary first (when
any message was evicted), then the in-context messages oldest first. Nothing in it depends
on the current time, so between evictions the rendered prompt only grows at its end and the
model runtime can reuse its KV cache.

Earlier turns are shown by what they did: each step's call without its inner thought, and
without the "Message sent." result of a reply. Shown in full, qwen2.5-coder-1.5b copied them:
the thought "I should look up relaxation tips" became the reply "Sure, I'll look into that.
What else would you like to know?", and that reply came back, word for word, for a wedding,
a bad day and a question about the user's parrot. A step's thought is still seen by the
steps of its own turn (a search's plan), and each message changes form only once, when its
turn is over, so the KV cache re-reads that turn's steps once (``agent.past_thoughts`` shows
them all, for comparison).

The working context is shown as it stood at the last eviction (``agent.state["core_shown"]``,
kept by ``CoreView``): an edit the agent makes itself (a ``core_memory_*`` call, a fact note)
is already in the queue as the call or the ``memory update`` notice that made it, so the
system message does not change and the whole conversation after it stays in the KV cache.
Re-rendering it at every edit had the next step re-read every message of the conversation
(fact notes edit the ``human`` block in most turns that state something). The view catches up
at every eviction (the notices leave the queue then) and whenever the blocks changed outside
the agent (``memgpt-local memory``, a forget request).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from memgpt_local.events import kind_of, render_user
from memgpt_local.functions.specs import FUNCTIONS_BY_NAME, FunctionSpec
from memgpt_local.memory.core import CORE_KNOWN, CORE_SHOWN
from memgpt_local.runtime.grammar import render_call
from memgpt_local.schemas import Agent, ChatMessage, CoreBlock, FunctionCall, Message, human_time


def default_system_text() -> str:
    return resources.files("memgpt_local.data").joinpath("system_prompt.md").read_text(encoding="utf-8").strip()


def render_core_memory(blocks: Sequence[CoreBlock]) -> str:
    parts = ["### Core memory (always visible; edit with core_memory_append / core_memory_replace)"]
    for block in blocks:
        flag = ", read-only" if block.read_only else ""
        parts.append(f'<{block.label} chars="{len(block.value)}/{block.limit}"{flag}>')
        parts.append(block.value)
        parts.append(f"</{block.label}>")
    return "\n".join(parts)


def render_summary(summary: str, hidden: int) -> str:
    head = (
        f"[summary of earlier conversation | {hidden} older messages are out of view but kept in "
        "recall memory; use conversation_search to read them]"
    )
    return f"{head}\n{summary.strip() or '(no summary yet)'}"


# the system events that start a turn; the others arrive inside or after one (a search recap,
# a memory read-ahead, a memory update, a memory-pressure warning)
TURN_EVENT_KINDS = frozenset({"login", "document upload", "timed heartbeat", "heartbeat"})


def current_turn_start(queue: Sequence[Message]) -> int:
    """Index in ``queue`` of the message that started the turn now running (or about to run):
    the last user message or turn-starting system event; 0 when there is none."""
    for index in range(len(queue) - 1, -1, -1):
        message = queue[index]
        if message.role == "user" or (
            message.role == "system" and kind_of(message.content, "system") in TURN_EVENT_KINDS
        ):
            return index
    return 0


def is_reply_result(message: Message, specs: dict[str, FunctionSpec]) -> bool:
    """A reply function's result ("Message sent.", or the notice of a held draft)."""
    spec = specs.get(message.function_name or "")
    return message.role == "function" and spec is not None and spec.kind == "reply"


def render_message(message: Message, specs: dict[str, FunctionSpec], *, thought: bool = True) -> ChatMessage:
    """One stored message as the model sees it; ``thought=False`` shows a step's call without
    its inner thought (an earlier turn's step)."""
    if message.role == "assistant":
        spec = specs.get(message.function_name or "")
        if spec is None:  # imported history or an unparsable step: shown as stored
            return ChatMessage(role="assistant", content=message.content)
        call = FunctionCall(
            thought=message.content if thought else "",
            function=spec.name,
            arguments=message.function_args or {},
            request_heartbeat=message.request_heartbeat,
        )
        return ChatMessage(role="assistant", content=render_call(call, spec))
    if message.role == "user":
        return ChatMessage(role="user", content=render_user(message.content, message.created_at))
    # system events and function results are shown to the model as user-turn notices:
    # many chat templates accept a system message only at the start.
    return ChatMessage(role="user", content=message.content)


@dataclass(frozen=True)
class ContextParts:
    """The main context split into its sections (for token accounting and /context)."""

    instructions: str
    core_memory: str
    summary: str | None
    queue: list[ChatMessage]

    def messages(self) -> list[ChatMessage]:
        system = ChatMessage(role="system", content=f"{self.instructions}\n\n{self.core_memory}")
        head = [ChatMessage(role="user", content=self.summary)] if self.summary is not None else []
        return [system, *head, *self.queue]


class CoreView:
    """Which core memory the system message shows; see the module docstring.

    State keys: ``core_shown`` (label -> value in the system message) and ``core_known``
    (label -> value after the agent's last turn: anything else changed them in between).
    """

    SHOWN, KNOWN = CORE_SHOWN, CORE_KNOWN

    def __init__(self, enabled: bool = True):
        self.enabled = enabled

    def shown(self, state: dict, blocks: Sequence[CoreBlock]) -> list[CoreBlock]:
        """``blocks`` as the system message shows them."""
        values = state.get(self.SHOWN) if self.enabled else None
        if not isinstance(values, dict):
            return list(blocks)
        return [b.model_copy(update={"value": values[b.label]}) if b.label in values else b for b in blocks]

    @staticmethod
    def values(blocks: Sequence[CoreBlock]) -> dict[str, str]:
        return {b.label: b.value for b in blocks}

    def at_turn_start(self, state: dict, blocks: Sequence[CoreBlock]) -> dict | None:
        """The new state when the view must catch up before a turn (first turn, an edit made
        outside the agent, the setting switched off), else None."""
        current = self.values(blocks)
        if not self.enabled:
            if self.SHOWN not in state:
                return None
            return {k: v for k, v in state.items() if k not in (self.SHOWN, self.KNOWN)}
        if state.get(self.SHOWN) is not None and state.get(self.KNOWN) == current:
            return None
        return dict(state, **{self.SHOWN: current, self.KNOWN: current})

    def after_turn(self, state: dict, blocks: Sequence[CoreBlock]) -> dict | None:
        """The agent's own edits of this turn are in the queue: remember the blocks as known."""
        current = self.values(blocks)
        if not self.enabled or state.get(self.KNOWN) == current:
            return None
        return dict(state, **{self.KNOWN: current})

    def caught_up(self, state: dict, blocks: Sequence[CoreBlock]) -> dict:
        """The state after an eviction: the system message shows the blocks as they are."""
        if not self.enabled:
            return state
        current = self.values(blocks)
        return dict(state, **{self.SHOWN: current, self.KNOWN: current})


class ContextBuilder:
    """Builds the main context for one agent from what the store holds."""

    def __init__(
        self,
        functions: Sequence[FunctionSpec],
        function_docs: str,
        core_view: CoreView | None = None,
        *,
        past_thoughts: bool = False,
    ):
        self.functions = tuple(functions)
        self.function_docs = function_docs
        self.core_view = core_view or CoreView()
        self.past_thoughts = past_thoughts
        self._specs = {f.name: f for f in functions}

    def render_queue(self, queue: Sequence[Message]) -> list[ChatMessage]:
        """The queue's messages; see ``AgentSettings.past_thoughts`` for earlier turns."""
        if self.past_thoughts:
            return [render_message(m, self._specs) for m in queue]
        start = current_turn_start(queue)
        return [
            render_message(m, self._specs, thought=index >= start)
            for index, m in enumerate(queue)
            if index >= start or not is_reply_result(m, self._specs)
        ]

    def instructions(self, agent: Agent) -> str:
        base = agent.system_prompt.strip() or default_system_text()
        return f"{base}\n\n{self.function_docs}"

    def parts(self, agent: Agent, blocks: Sequence[CoreBlock], queue: Sequence[Message]) -> ContextParts:
        hidden = int(agent.state.get("evicted_messages", 0))
        summary = render_summary(agent.summary, hidden) if (agent.summary or hidden) else None
        return ContextParts(
            instructions=self.instructions(agent),
            core_memory=render_core_memory(self.core_view.shown(agent.state, blocks)),
            summary=summary,
            queue=self.render_queue(queue),
        )


def transcript_line(message: Message) -> str:
    """One message as a line of plain transcript (for summaries and /dump)."""
    when = human_time(message.created_at)
    if message.role == "assistant" and message.function_name:
        spec = FUNCTIONS_BY_NAME.get(message.function_name)
        if spec is not None and spec.kind == "reply":
            said = (message.function_args or {}).get("message", "")
            return f"{when} assistant: {said}"
        args = json.dumps(message.function_args or {}, ensure_ascii=False)
        return f"{when} assistant called {message.function_name}({args})"
    if message.role == "function":
        return f"{when} result: {message.content}"
    return f"{when} {message.role}: {message.content}"
