"""What an interactive chat needs around the agent: the agent and model it opens, the idle
timer that sends timed heartbeats (suppressed by ``pause_heartbeats``), and the pick-up of
events that other processes (a document ``load``) put into the agent's queue. Every turn it
starts goes through ``AgentRunner.run_turn``."""

from __future__ import annotations

import json
import os
import select
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from memgpt_local import events
from memgpt_local.agent.loop import AgentRunner, StepObserver
from memgpt_local.agent.turn import TurnResult
from memgpt_local.config import ModelSettings, Settings
from memgpt_local.errors import AgentNotFoundError, InvalidInputError
from memgpt_local.memory.core import default_blocks
from memgpt_local.runtime.kv_state import attach_saved_state, save_saved_state
from memgpt_local.schemas import Agent, FunctionCall, utcnow

if TYPE_CHECKING:
    from memgpt_local.cli.common import App
    from memgpt_local.memory.protocol import Store
    from memgpt_local.runtime.base import Backend

T = TypeVar("T")
SCRIPTED_PREFIX = "scripted:"


def ensure_agent(store: Store, name: str, settings: Settings) -> Agent:
    """The named agent, created with the default persona and human when missing."""
    try:
        return store.agents.get(name)
    except AgentNotFoundError:
        return store.agents.create(name, blocks=default_blocks(settings.agent.core_memory_limit))


def load_script(path: Path) -> list[FunctionCall | str]:
    """A scripted model's steps: a JSON list of call objects (or strings for free text)."""
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"cannot read the script {path}: {exc}") from exc
    if not isinstance(items, list):
        raise InvalidInputError(f"the script {path} must hold a JSON list")
    return [item if isinstance(item, str) else FunctionCall.model_validate(item) for item in items]


def open_backend(model: str, app: App, *, interactive: bool) -> Backend:
    """The model backend for ``model``: a catalog/registered name, a GGUF path, an inference
    server's URL (``http://HOST:PORT/v1``; the key, if it needs one, in
    ``$MEMGPT_LOCAL_REMOTE_API_KEY``), or ``scripted:FILE.json`` (a deterministic replay, for
    tests and demos)."""
    if model.startswith(SCRIPTED_PREFIX):
        from memgpt_local.runtime.scripted import ScriptedBackend

        return ScriptedBackend(load_script(Path(model[len(SCRIPTED_PREFIX) :])))
    from memgpt_local.runtime.remote import is_remote

    if is_remote(model):
        return open_remote(model, app.settings.model)
    from memgpt_local.runtime.llama import load_backend
    from memgpt_local.runtime.pull import ensure_model

    ensure_model(model, app.data_dir, interactive=interactive, confirm=click.confirm if interactive else None)
    return load_backend(model, app.settings.model, app.data_dir)


def open_remote(url: str, settings: ModelSettings, n_ctx: int | None = None) -> Backend:
    """The backend for an inference server at ``url`` (see ``runtime/remote.py``)."""
    from memgpt_local.runtime.remote import RemoteBackend

    return RemoteBackend(
        url,
        n_ctx=n_ctx or settings.remote_n_ctx,
        api_key=os.environ.get("MEMGPT_LOCAL_REMOTE_API_KEY"),
        constraint=settings.remote_constraint,
        temperature=settings.temperature,
        seed=settings.seed,
        timeout=settings.remote_timeout,
    )


def open_runner(
    app: App, agent: str, model: str | None, observer: StepObserver | None, *, interactive: bool
) -> AgentRunner:
    """The runner for ``agent`` as chat and send use it: its model loaded, and its saved KV
    state attached (``model.persist_kv``; never for an encrypted memory file, whose text the
    state is derived from)."""
    store = app.store()
    record = ensure_agent(store, agent, app.settings)
    backend = open_backend(model or record.model or app.settings.model.default, app, interactive=interactive)
    runner = AgentRunner(store, backend, agent, app.settings.agent, observer=observer)
    attach_saved_state(
        backend,
        app.state_anchor,
        runner.agent_id,
        app.settings.model,
        encrypted=app.db_key() is not None,
        warn=lambda text: click.secho(f"warning: {text}", err=True, dim=True),
    )
    return runner


def save_state(runner: AgentRunner) -> None:
    """Write the backend's KV state after a turn, when it keeps one (see ``open_runner``)."""
    save_saved_state(runner.backend, warn=lambda text: click.secho(f"warning: {text}", err=True, dim=True))


class ChatSession:
    """The interactive loop's timing: idle heartbeats and events from other processes."""

    POLL_SECONDS = 2.0

    def __init__(self, runner: AgentRunner, *, idle_minutes: float = 0.0, clock: Callable[[], float] = time.monotonic):
        self.runner = runner
        self.idle_seconds = idle_minutes * 60
        self.clock = clock
        self.last_activity = clock()
        self.seen_id = self._newest_id()

    def _newest_id(self) -> int:
        messages = self.runner.store.recall.last(self.runner.agent_id, 1)
        return messages[0].id if messages else 0

    def run_turn(self, action: Callable[[], T]) -> T:
        try:
            return action()
        finally:
            save_state(self.runner)
            self.seen_id = self._newest_id()
            self.last_activity = self.clock()

    def _pending_turn(self) -> TurnResult:
        """A turn on the events other processes appended since the last turn (the newest starts it)."""
        newest = self.runner.store.recall.last(self.runner.agent_id, 1)
        return self.runner.run_turn(newest[0])

    def heartbeats_paused(self) -> bool:
        until = self.runner.agent.state.get("heartbeats_paused_until")  # an ISO time, or absent
        if not isinstance(until, str) or not until:
            return False
        return datetime.fromisoformat(until) > utcnow()

    def due_event(self) -> str | None:
        """What should run now without user input: 'pending' or 'heartbeat', else None."""
        if self._newest_id() > self.seen_id:
            return "pending"
        if (
            self.idle_seconds
            and self.clock() - self.last_activity >= self.idle_seconds
            and not self.heartbeats_paused()
        ):
            return "heartbeat"
        return None

    def run_due(self) -> bool:
        due = self.due_event()
        if due == "pending":
            click.secho("  (new event in memory)", dim=True)
            self.run_turn(self._pending_turn)
        elif due == "heartbeat":
            self.run_turn(lambda: self.runner.run_turn(events.timed_heartbeat(self.runner.counts())))
        return due is not None

    def read_line(self, prompt: str) -> str | None:
        """A line from stdin; while waiting, run due events. None at end of input."""
        click.echo(prompt, nl=False)
        while True:
            try:
                ready, _, _ = select.select([sys.stdin], [], [], self.POLL_SECONDS)
            except (OSError, ValueError):  # stdin that select cannot watch: plain blocking read
                ready = [sys.stdin]
            if ready:
                line = sys.stdin.readline()
                if line == "":
                    click.echo()
                    return None
                self.last_activity = self.clock()
                return line.rstrip("\n").strip()
            if self.run_due():
                click.echo(prompt, nl=False)
