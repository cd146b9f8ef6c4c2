"""Helpers for agent tests: a store with one agent and a scripted runner."""

from __future__ import annotations

from memgpt_local import events
from memgpt_local.agent.loop import AgentRunner
from memgpt_local.agent.turn import TurnResult
from memgpt_local.cli.session import ensure_agent
from memgpt_local.config import DEFAULT_POLICIES, AgentSettings, Settings
from memgpt_local.runtime.scripted import ScriptedBackend
from memgpt_local.schemas import FunctionCall


def call(function: str, thought: str = "ok", heartbeat: bool = False, **arguments) -> FunctionCall:
    return FunctionCall(thought=thought, function=function, arguments=arguments, request_heartbeat=heartbeat)


def say(text: str, heartbeat: bool = False) -> FunctionCall:
    return call("send_message", message=text, heartbeat=heartbeat)


def make_runner(store, script, *, name: str = "sam", n_ctx: int = 8192, **agent_settings) -> AgentRunner:
    """A runner over a scripted model. Fact notes (one extra completion after a user's turn)
    and the eviction after a turn's reply (a summary completion) are off unless asked for, so a
    script lists only the turn's own steps. ``nothing_found`` and ``recall_at_question`` are off
    unless the policies are given: before the first step, the one answers "I don't know" to a
    question memory holds nothing about, and most scripts search an empty memory to test what
    follows; the other quotes what recall holds, and scripts test what the model's own searches
    show. ``grounded_reply`` is off too: scripted answers name things no memory holds ("Your dog
    is Rex.") to test what follows them. A direct reply may think
    (``agent.direct_thought_max_chars`` unset): scripts give every step a thought."""
    agent_settings.setdefault("fact_notes", {"enabled": False})
    agent_settings.setdefault("direct_thought_max_chars", None)
    left_out = ("nothing_found", "recall_at_question", "grounded_reply")
    agent_settings.setdefault("policies", [p for p in DEFAULT_POLICIES if p not in left_out])
    agent_settings.setdefault("idle_evict_fraction", None)
    settings = Settings(agent=AgentSettings(**agent_settings))
    ensure_agent(store, name, settings)
    backend = ScriptedBackend(list(script), n_ctx=n_ctx)
    return AgentRunner(store, backend, name, settings.agent)


def ask(runner: AgentRunner, text: str) -> TurnResult:
    """The user's turn for ``text``, run as every caller runs one."""
    return runner.run_turn(events.user_message(text))
