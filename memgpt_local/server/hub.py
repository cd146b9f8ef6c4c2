"""What a running server keeps warm, and the order in which it lets things happen.

One process serves every agent of a data dir. Each agent the server has talked to keeps a
runner: its own model context, so its KV cache holds its own conversation and a turn reads only
the new tokens (llama.cpp memory-maps the weights, so the contexts share one copy). At most
``max_warm`` runners are kept; the least recently used one saves its KV state file and closes.

Turns, and every request that writes memory, run one at a time under ``write_lock``: the
compute is a few CPU cores, and a turn is a sequence of reads and writes of one agent's memory
that must not interleave with another writer. Requests that only read (search, core memory,
the agent list) use a second connection to the same memory file and proceed during a turn
(SQLite's write-ahead log lets them see the last committed state).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgpt_local import events
from memgpt_local.agent.loop import AgentRunner, StepObserver
from memgpt_local.agent.turn import TurnResult
from memgpt_local.config import Settings
from memgpt_local.errors import InvalidInputError
from memgpt_local.memory.core import default_blocks
from memgpt_local.runtime.base import Backend
from memgpt_local.runtime.kv_state import attach_saved_state, save_saved_state, state_path
from memgpt_local.schemas import Agent

if TYPE_CHECKING:
    from memgpt_local.memory.protocol import Store
    from memgpt_local.privacy.forget import Selection

EventKind = str  # "user", "login" or "heartbeat"


class AgentHub:
    """The agents of one data dir, served; see the module docstring."""

    def __init__(
        self,
        store: Store,
        read_store: Store,
        settings: Settings,
        state_anchor: Path,
        open_backend: Callable[[str], Backend],
        *,
        model: str | None = None,
        encrypted: bool = False,
        max_warm: int = 3,
        warn: Callable[[str], None] | None = None,
    ):
        self.store = store
        self.read_store = read_store
        self.settings = settings
        self.state_anchor = state_anchor
        self.open_backend = open_backend
        self.model = model
        self.encrypted = encrypted
        self.max_warm = max(1, max_warm)
        self.warn = warn
        self.write_lock = threading.RLock()
        self.read_lock = threading.Lock()
        self._runners: OrderedDict[str, AgentRunner] = OrderedDict()

    # ------------------------------------------------------------ agents

    def agent(self, name: str) -> Agent:
        with self.read_lock:
            return self.read_store.agents.get(name)

    def create_agent(self, name: str, *, persona: str | None = None, human: str | None = None) -> Agent:
        name = name.strip()
        if not name:
            raise InvalidInputError("an agent needs a name", "give a non-empty name")
        limit = self.settings.agent.core_memory_limit
        with self.write_lock:
            return self.store.agents.create(name, blocks=default_blocks(limit, persona=persona, human=human))

    def delete_agent(self, name: str) -> None:
        with self.write_lock:
            agent = self.store.agents.get(name)
            self._drop_runner(name)
            self.store.agents.delete(name)
            state_path(self.state_anchor, agent.id).unlink(missing_ok=True)

    def context(self, name: str) -> dict[str, Any]:
        """Tokens per section of the agent's main context, the window, and where the queue
        manager warns and evicts (the model is loaded to count with its tokenizer)."""
        from memgpt_local.agent.commands import context_usage

        with self.write_lock:
            runner = self._runner(name)
            sections = [{"name": section, "tokens": tokens} for section, tokens in context_usage(runner)]
            budget = runner.queue.budget
            agent = runner.settings
            return {
                "window": runner.backend.n_ctx,
                "budget": budget,
                "warning_at": round(agent.warning_fraction * budget),
                "evict_at": round(agent.flush_fraction * budget),
                "sections": sections,
            }

    def load_document(self, name: str, filename: str, data: bytes) -> str:
        """Save an uploaded file in the data dir (``uploads/AGENT/NAME``) and load it into the
        agent's archival memory; returns the loader's one-line summary."""
        from memgpt_local.documents.loader import DocumentLoader

        safe = Path(filename).name.strip()
        if not safe or safe in (".", ".."):
            raise InvalidInputError(f"{filename!r} is not a file name", "pass filename=notes.md")
        with self.write_lock:
            agent = self.store.agents.get(name)
            folder = self.state_anchor.parent / "uploads" / agent.name
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / safe
            path.write_bytes(data)
            warnings: list[str] = []
            report = DocumentLoader(self.store, agent.id).load([path], warn=lambda o: warnings.append(o.warning()))
            if not report.loaded and warnings and not report.count("unchanged"):
                raise InvalidInputError(warnings[0], "upload a .txt, .md, .pdf, .html or source file")
            return report.summary()

    def remove_source(self, name: str, ref: str) -> int:
        from memgpt_local.documents.loader import find_source

        with self.write_lock:
            agent = self.store.agents.get(name)
            return self.store.sources.delete(agent.id, find_source(self.store, agent.id, ref).id)

    def forget(self, name: str, selection: Selection, *, apply: bool, core_lines: bool = True) -> dict[str, Any]:
        """What ``selection`` would remove (``apply`` false), or remove it for good: rows,
        vectors, summary, the matching core memory lines (``core_lines``), the saved model
        states, and the agent's warm context, whose KV cache holds the text."""
        from memgpt_local.agent.summarizer import Summarizer
        from memgpt_local.privacy.forget import Forgetter
        from memgpt_local.runtime.kv_state import remove_states

        with self.write_lock:
            forgetter = Forgetter(self.store)
            plan = forgetter.plan(name, selection)
            report: dict[str, Any] = {"plan": plan.describe(), "empty": plan.empty, "applied": False}
            if plan.empty or not apply:
                return report
            summarize = None
            if plan.summary_affected and not selection.everything:
                summarize = Summarizer(self._runner(name).backend).summarize
            result = forgetter.apply(plan, summarize)
            removed_lines = forgetter.remove_core_lines(plan.agent.id, plan.core_lines if core_lines else [])
            self._drop_runner(name)
            states = remove_states(self.state_anchor)
            scrubbed = forgetter.scrub()
            report.update(
                applied=True,
                messages=result.messages,
                passages=result.passages,
                sources=result.sources,
                core_lines=removed_lines,
                summary_rebuilt=result.summary_rebuilt,
                summary_flagged=result.summary_flagged,
                model_states_deleted=states,
                file_rewritten=scrubbed,
            )
            return report

    def export(self, name: str) -> str:
        """The agent as the JSON document `memgpt-local export` writes."""
        from memgpt_local.portability.agentfile import dumps, export_agent

        with self.read_lock:
            return dumps(export_agent(self.read_store, name))

    # ------------------------------------------------------------ turns

    def run_turn(self, name: str, kind: EventKind, text: str = "", observer: StepObserver | None = None) -> TurnResult:
        """One turn of agent ``name``: a user message (``text``), a login or a heartbeat."""
        if kind == "user" and not text.strip():
            raise InvalidInputError("the message is empty", "send some text")
        with self.write_lock:
            runner = self._runner(name)
            runner.observer = observer or StepObserver()
            try:
                if kind == "user":
                    event = events.user_message(text)
                elif kind == "login":
                    event = runner.login_event()
                else:
                    event = events.manual_heartbeat()
                return runner.run_turn(event)
            finally:
                runner.observer = StepObserver()
                self._save_state(runner)

    def run_command(
        self, name: str, command: str, arg: str = "", observer: StepObserver | None = None
    ) -> str | TurnResult:
        """A chat slash command (``agent/commands.py``: /memory, /retry, /pop ...) on agent
        ``name``, as the in-process chat runs it: text, or the turn it ran."""
        from memgpt_local.agent.commands import COMMANDS

        found = COMMANDS.get(command)
        if found is None:
            raise InvalidInputError(f"unknown command /{command}", "/help lists them")
        with self.write_lock:
            runner = self._runner(name)
            runner.observer = observer or StepObserver()
            try:
                return found.run(runner, arg)
            finally:
                runner.observer = StepObserver()
                self._save_state(runner)

    def _runner(self, name: str) -> AgentRunner:
        runner = self._runners.get(name)
        if runner is not None:
            self._runners.move_to_end(name)
            return runner
        record = self.store.agents.get(name)
        backend = self.open_backend(self.model or record.model or self.settings.model.default)
        runner = AgentRunner(self.store, backend, name, self.settings.agent)
        attach_saved_state(
            backend, self.state_anchor, runner.agent_id, self.settings.model, encrypted=self.encrypted, warn=self.warn
        )
        self._runners[name] = runner
        while len(self._runners) > self.max_warm:
            self._close_runner(next(iter(self._runners)))
        return runner

    def _save_state(self, runner: AgentRunner) -> None:
        save_saved_state(runner.backend, self.warn)

    def _drop_runner(self, name: str) -> None:
        """Close the agent's warm context without saving its state (it holds text being removed)."""
        runner = self._runners.pop(name, None)
        if runner is not None:
            runner.backend.close()

    def _close_runner(self, name: str) -> None:
        runner = self._runners.pop(name, None)
        if runner is not None:
            self._save_state(runner)
            runner.backend.close()

    def close(self) -> None:
        with self.write_lock:
            for name in list(self._runners):
                self._close_runner(name)
