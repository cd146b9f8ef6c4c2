"""The queue manager: memory pressure warnings, and eviction into the recursive summary.

Before every step the agent asks ``QueueManager.make_room``. It counts the exact tokens of
the rendered prompt with the model's own tokenizer and compares them with the model's real
context window minus the room kept for the reply:

- at ``warning_fraction`` it appends one memory-pressure warning per pressure period: after a
  search inside a chain, and after each turn's reply (``warn_after_turn``), never between the
  user's message and the answer;
- at ``flush_fraction`` (or whenever the prompt would not fit) it evicts the oldest
  ``evict_fraction`` of the FIFO queue, never separating a function call from its result,
  and folds the evicted messages into a new recursive summary written by the model itself
  (``agent/summarizer.py``), in chunks small enough that every summary call fits the window.
  The summary is written in a second context of the same size when the backend can open one
  (``SideContexts``): written in the conversation's own, its prompt replaced the cached
  conversation, and the next step read the system instructions and function docs (about
  1,000 tokens) again, though they had not changed.

After a turn, ``tidy`` evicts early: once the warning was given and the prompt is at
``idle_evict_fraction``, the summary is written then, while the user reads the reply, and the
new prompt is read into the KV cache (``Prefills``). Left to the flush line, the eviction fell
in the middle of the next turn, between a search and the answer, and that answer came after
90-150 s instead of 10-30 (eval chat seed 13).

Eviction is bounded: each round removes at least one message, and when only the newest
message is left and it still does not fit, a ``ContextOverflowError`` stops the turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING

from memgpt_local import events
from memgpt_local.agent.context import CoreView
from memgpt_local.agent.summarizer import Summarizer
from memgpt_local.config import AgentSettings
from memgpt_local.errors import ContextOverflowError
from memgpt_local.runtime.base import Prefills, SideContexts
from memgpt_local.schemas import ChatMessage, Message

if TYPE_CHECKING:
    from memgpt_local.memory.protocol import Store
    from memgpt_local.runtime.base import Backend


@dataclass
class Pressure:
    prompt_tokens: int
    budget: int  # tokens available to the prompt: n_ctx minus the reply reserve
    messages: list[ChatMessage] = field(default_factory=list)  # the prompt that was measured

    @property
    def fraction(self) -> float:
        return self.prompt_tokens / self.budget


@dataclass
class EvictionReport:
    evicted: int
    rounds: int
    tokens_before: int
    tokens_after: int


def choose_cut(queue: Sequence[Message], fraction: float) -> int:
    """How many of the oldest queue messages to evict (0 = nothing can go).

    The cut never leaves a function result at the head of the queue without its call, and
    never evicts the newest message.
    """
    if len(queue) <= 1:
        return 0
    cut = max(1, round(len(queue) * fraction))
    cut = min(cut, len(queue) - 1)
    while cut < len(queue) - 1 and queue[cut].role == "function":
        cut += 1
    while cut > 0 and queue[cut].role == "function":
        cut -= 1  # the newest message is a result: keep its call with it
    return cut


class QueueManager:
    """Keeps one agent's main context inside the model's window."""

    def __init__(
        self,
        store: Store,
        backend: Backend,
        settings: AgentSettings,
        render: Callable[[], list[ChatMessage]],
        core_view: CoreView | None = None,
    ):
        self.core_view = core_view or CoreView(settings.stable_core_memory)
        self.store = store
        self.backend = backend
        self.settings = settings
        self.render = render
        self.last: Pressure | None = None  # the latest measured prompt: what the next step sends

    @cached_property
    def summarizer(self) -> Summarizer:
        """The summary's writer, in a side context opened at the first eviction (see the module
        docstring)."""
        if isinstance(self.backend, SideContexts):
            return Summarizer(self.backend.side_context(self.backend.n_ctx))
        return Summarizer(self.backend)

    @property
    def budget(self) -> int:
        return self.backend.n_ctx - self.settings.reply_reserve_tokens

    def pressure(self) -> Pressure:
        messages = self.render()
        self.last = Pressure(self.backend.count_tokens(messages), self.budget, messages)
        return self.last

    def make_room(self, agent_id: int, now: datetime | None = None, *, warn: bool = True) -> EvictionReport | None:
        """Warn (unless not ``warn``) or evict as needed before the next step; returns what
        eviction did, if any. The warning is stamped ``now``, the turn's own time (an
        evaluation's session of 2025 was warned "2026-12-03", the real day, right after its
        login)."""
        pressure = self.pressure()
        flush_line = self.settings.flush_fraction * pressure.budget
        if warn and self._warn(agent_id, pressure, now):
            pressure = self.pressure()  # the warning itself takes room
        if pressure.prompt_tokens >= flush_line:
            return self.evict(agent_id, pressure)
        return None

    def warn_after_turn(self, agent_id: int, now: datetime | None = None) -> bool:
        """After a turn: the memory-pressure warning, when due, goes after the reply, so that the
        user's next message is the last thing the model reads. Given between a user's message and
        the reply, "The twins are both down with the same cough now" was answered "I'm sorry, but
        I can't answer that right now." (a `make run` chat, stop 57). Whether it was given."""
        return self._warn(agent_id, self.pressure(), now)

    def _warn(self, agent_id: int, pressure: Pressure, now: datetime | None) -> bool:
        flush_line = self.settings.flush_fraction * pressure.budget
        if pressure.prompt_tokens >= flush_line or pressure.fraction < self.settings.warning_fraction:
            return False
        agent = self.store.agents.get_by_id(agent_id)
        if agent.state.get("pressure_warned"):
            return False
        with self.store.transaction():
            self.store.recall.append(agent_id, [events.memory_pressure(pressure.prompt_tokens, pressure.budget, now)])
            self.store.agents.set_state(agent_id, dict(agent.state, pressure_warned=True))
        return True

    def tidy(self, agent_id: int) -> EvictionReport | None:
        """After a turn: evict one round now when the warning was given and the prompt is at
        ``idle_evict_fraction`` of the budget, then read the new prompt into the cache (see the
        module docstring); None when nothing was done."""
        line = self.settings.idle_evict_fraction
        if line is None or not self.store.agents.get_by_id(agent_id).state.get("pressure_warned"):
            return None  # the state first: the prompt is rendered and counted only once warned
        pressure = self.pressure()
        if pressure.fraction < line:
            return None
        report = self.evict(agent_id, pressure, force=True)
        if report.evicted and isinstance(self.backend, Prefills) and self.last is not None:
            self.backend.prefill(self.last.messages)  # measured by the eviction's last round
        return report

    def evict(self, agent_id: int, pressure: Pressure | None = None, *, force: bool = False) -> EvictionReport:
        """Evict the oldest part of the queue; repeat while the prompt is still at the flush
        line (one round when ``force``)."""
        pressure = pressure or self.pressure()
        before = pressure.prompt_tokens
        target = self.settings.flush_fraction * pressure.budget
        evicted = rounds = 0
        while force or pressure.prompt_tokens >= target:
            queue = self.store.recall.in_context(agent_id)
            cut = choose_cut(queue, self.settings.evict_fraction)
            if cut == 0:
                if pressure.prompt_tokens > pressure.budget:
                    raise ContextOverflowError(
                        pressure.prompt_tokens, self.backend.n_ctx, self.settings.reply_reserve_tokens
                    )
                break
            self._evict_messages(agent_id, queue[:cut])
            evicted += cut
            rounds += 1
            pressure = self.pressure()
            if force:
                break
        return EvictionReport(evicted, rounds, before, pressure.prompt_tokens)

    def _evict_messages(self, agent_id: int, gone: Sequence[Message]) -> None:
        agent = self.store.agents.get_by_id(agent_id)
        summary = self.summarizer.summarize(agent.summary, gone)
        # the notices of the agent's own core-memory edits leave the queue: the system message
        # shows the blocks as they are now
        state = self.core_view.caught_up(dict(agent.state, pressure_warned=False), self.store.core.blocks(agent_id))
        state["evicted_messages"] = int(state.get("evicted_messages", 0)) + len(gone)
        with self.store.transaction():
            self.store.recall.set_in_context(agent_id, [m.id for m in gone], False)
            self.store.recall.set_summarized(agent_id, [m.id for m in gone])
            self.store.agents.set_summary(agent_id, summary)
            self.store.agents.set_state(agent_id, state)
