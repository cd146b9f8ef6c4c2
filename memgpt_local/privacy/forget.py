"""Forgetting: removing chosen messages and passages so that their text survives nowhere.

``Forgetter.plan`` turns a ``Selection`` (a text, a message, a passage, a date, a source,
or everything) into a ``ForgetPlan``: the rows to remove, whether the recursive summary was
written from any of them, and the core memory lines that look like they hold the same
facts. ``apply`` removes the rows (FTS rows and vectors go with them) and replaces the
summary: rebuilt by the model from the summarized messages that remain, or, without a
model, stripped of sentences holding the forgotten text and flagged in ``agent.state``
(``summary_stale``). ``remove_core_lines`` drops the core lines the user confirmed.
``scrub`` finally rewrites the file so no freed page, FTS segment or WAL frame keeps the
text; on a Postgres store it vacuums the memory tables instead (old row versions the server
keeps in its WAL, archive or backups are beyond memgpt-local's reach).

A function call and its result are removed together, so the main context never starts
with a result whose call is gone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date

from memgpt_local.errors import InvalidInputError, MemGPTLocalError
from memgpt_local.memory import MemoryStore, Store
from memgpt_local.memory.core import CORE_VIEW_KEYS
from memgpt_local.memory.recall import parse_day
from memgpt_local.schemas import Agent, Message, Passage, Source, utcnow

Summarize = Callable[[str, Sequence[Message]], str]
SENTENCE = re.compile(r"[^.!?\n]+[.!?]*\s*")
WORD = re.compile(r"\w{3,}", re.UNICODE)
COMMON = frozenset(
    "the and for are but not you your with this that have has was were from they "
    "them what when where which who will would about into than then there".split()
)


@dataclass(frozen=True)
class Selection:
    """What to forget: exactly one of the fields is set."""

    search: str | None = None
    message_id: int | None = None
    passage_id: int | None = None
    before: str | date | None = None
    source: str | None = None
    everything: bool = False

    def __post_init__(self) -> None:
        chosen = [
            self.search is not None,
            self.message_id is not None,
            self.passage_id is not None,
            self.before is not None,
            self.source is not None,
            self.everything,
        ]
        if sum(chosen) != 1:
            raise InvalidInputError("choose exactly one of --search, --message, --passage, --before, --source, --all")
        if self.search is not None and len(self.search.strip()) < 2:
            raise InvalidInputError("the text to forget is too short", "give at least 2 characters")


@dataclass(frozen=True)
class CoreLine:
    label: str
    line: str


@dataclass
class ForgetPlan:
    agent: Agent
    selection: Selection
    messages: list[Message] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    core_lines: list[CoreLine] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.messages or self.passages or self.sources or self.core_lines or self.summary_mentions)

    @property
    def terms(self) -> list[str]:
        return [self.selection.search.strip()] if self.selection.search else []

    @property
    def summarized(self) -> list[Message]:
        return [m for m in self.messages if m.summarized]

    @property
    def summary_mentions(self) -> bool:
        return any(contains(self.agent.summary, t) for t in self.terms)

    @property
    def summary_affected(self) -> bool:
        return bool(self.agent.summary) and (
            bool(self.summarized) or self.summary_mentions or self.selection.everything
        )

    def describe(self) -> list[str]:
        lines = [
            f"agent {self.agent.name}: {len(self.messages)} message(s), "
            f"{len(self.passages)} passage(s), {len(self.sources)} source(s) to forget"
        ]
        for m in self.messages:
            lines.append(
                f"  message {m.id} [{m.role}] {m.created_at:%Y-%m-%d %H:%M} "
                f"{shorten(m.content or str(m.function_args or ''))}"
            )
        for p in self.passages:
            lines.append(
                f"  passage {p.id} {p.created_at:%Y-%m-%d %H:%M} "
                f"{'[' + p.citation + '] ' if p.citation else ''}{shorten(p.text)}"
            )
        for s in self.sources:
            lines.append(f"  source {s.id} {s.path}")
        if self.summary_affected:
            lines.append(
                f"  the recursive summary was written from {len(self.summarized)} of "
                f"these messages and will be rewritten without them"
            )
        return lines


@dataclass
class ForgetResult:
    messages: int = 0
    passages: int = 0
    sources: int = 0
    summary: str | None = None  # the new summary, when it changed
    summary_rebuilt: bool = False
    summary_flagged: bool = False
    core_lines: int = 0
    wal_emptied: bool = True


def contains(text: str, term: str) -> bool:
    return bool(term) and term.casefold() in text.casefold()


def shorten(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def redact(text: str, terms: Sequence[str]) -> str:
    """``text`` without the sentences that hold any of ``terms``."""
    kept = [s for s in SENTENCE.findall(text) if not any(contains(s, t) for t in terms)]
    return "".join(kept).strip()


def _words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.casefold()) if w not in COMMON}


def core_line_matches(line: str, terms: Sequence[str], removed: Sequence[str]) -> bool:
    """A core line is listed when it holds a forgotten term, or when most of its words
    (at least two) come from one removed text."""
    if any(contains(line, t) for t in terms):
        return True
    words = _words(line)
    if len(words) < 2:
        return False
    return any(len(words & _words(text)) >= max(2, 0.6 * len(words)) for text in removed)


def _message_text(m: Message) -> str:
    parts = [m.content]
    if m.function_args:
        parts.extend(str(v) for v in m.function_args.values() if isinstance(v, str))
    return "\n".join(parts)


def _with_partners(chosen: set[int], history: Sequence[Message]) -> set[int]:
    """Add each chosen call's result and each chosen result's call."""
    out = set(chosen)
    for i, m in enumerate(history):
        if m.id not in chosen:
            continue
        if m.role == "assistant" and m.function_name and i + 1 < len(history) and history[i + 1].role == "function":
            out.add(history[i + 1].id)
        if m.role == "function" and i > 0 and history[i - 1].role == "assistant" and history[i - 1].function_name:
            out.add(history[i - 1].id)
    return out


class Forgetter:
    """Plans and carries out forgetting for one memory store (the file or a database)."""

    def __init__(self, store: Store):
        self.store = store

    def _secure_delete(self) -> None:
        """The file overwrites freed pages from now on (a database has no such switch)."""
        if isinstance(self.store, MemoryStore):
            self.store.db.set_secure_delete(True)

    def plan(self, agent_name: str, selection: Selection) -> ForgetPlan:
        store = self.store
        agent = store.agents.get(agent_name)
        history = store.recall.all(agent.id)
        passages = store.archival.all(agent.id)
        plan = ForgetPlan(agent, selection)
        if selection.everything:
            picked = {m.id for m in history}
            plan.passages = passages
            plan.sources = store.sources.list(agent.id)
        elif selection.search is not None:
            term = selection.search.strip()
            picked = {m.id for m in history if contains(_message_text(m), term)}
            plan.passages = [p for p in passages if contains(p.text, term)]
        elif selection.message_id is not None:
            picked = {store.recall.get(agent.id, selection.message_id).id}
        elif selection.passage_id is not None:
            picked = set()
            plan.passages = [store.archival.get(agent.id, selection.passage_id)]
        elif selection.before is not None:
            cutoff = parse_day(selection.before, "--before date")
            picked = {m.id for m in history if m.created_at.date() < cutoff}
            plan.passages = [p for p in passages if p.created_at.date() < cutoff]
        else:
            from memgpt_local.documents.loader import find_source

            source = find_source(store, agent.id, str(selection.source))
            plan.sources = [source]
            plan.passages = [p for p in passages if p.source_id == source.id]
            picked = set()
        picked = _with_partners(picked, history)
        plan.messages = [m for m in history if m.id in picked]
        removed = [_message_text(m) for m in plan.messages] + [p.text for p in plan.passages]
        for block in store.core.blocks(agent.id):
            for line in block.value.splitlines():
                if line.strip() and core_line_matches(line, plan.terms, removed):
                    plan.core_lines.append(CoreLine(block.label, line))
        return plan

    def new_summary(self, plan: ForgetPlan, summarize: Summarize | None) -> tuple[str, bool]:
        """(the summary without the forgotten messages, whether the model rebuilt it)."""
        if plan.selection.everything:
            return "", True
        gone = {m.id for m in plan.messages}
        remaining = [m for m in self.store.recall.summarized(plan.agent.id) if m.id not in gone]
        if summarize is not None:
            try:
                rebuilt = summarize("", remaining) if remaining else ""
                return redact(rebuilt, plan.terms) if plan.terms else rebuilt, True
            except MemGPTLocalError:
                pass
        return redact(plan.agent.summary, plan.terms), False

    def apply(self, plan: ForgetPlan, summarize: Summarize | None = None) -> ForgetResult:
        """Remove the plan's rows and fix the summary (see the module docstring)."""
        store, agent_id = self.store, plan.agent.id
        result = ForgetResult()
        state = dict(plan.agent.state)
        if plan.summary_affected:
            result.summary, result.summary_rebuilt = self.new_summary(plan, summarize)
            result.summary_flagged = not result.summary_rebuilt
            if result.summary_flagged:
                state["summary_stale"] = {"since": utcnow().isoformat(), "forgotten_messages": len(plan.summarized)}
            else:
                state.pop("summary_stale", None)
        # the system message's copy of core memory (agent/context.CoreView) is rebuilt from the
        # blocks as they are after this, never from a copy that may hold what is forgotten
        for key in CORE_VIEW_KEYS:
            state.pop(key, None)
        self._secure_delete()
        with store.transaction():
            store.agents.set_state(agent_id, state)
            result.messages = store.recall.delete(agent_id, [m.id for m in plan.messages])
            for source in plan.sources:
                store.sources.delete(agent_id, source.id)
            left = [p.id for p in plan.passages if p.source_id not in {s.id for s in plan.sources}]
            result.passages = store.archival.delete(agent_id, left) + sum(s.passages for s in plan.sources)
            result.sources = len(plan.sources)
            if result.summary is not None:
                store.agents.set_summary(agent_id, result.summary)
                store.agents.set_state(agent_id, state)
        return result

    def remove_core_lines(self, agent_id: int, lines: Sequence[CoreLine]) -> int:
        """Drop the given lines from their core memory blocks (read-only blocks included:
        forgetting overrides read-only); return how many went."""
        removed = 0
        with self.store.transaction():
            for block in self.store.core.blocks(agent_id):
                drop = [c.line for c in lines if c.label == block.label]
                if not drop:
                    continue
                kept = [ln for ln in block.value.splitlines() if ln not in drop]
                removed += len(block.value.splitlines()) - len(kept)
                self.store.core.replace_value(agent_id, block.label, "\n".join(kept))
            if removed:
                state = self.store.agents.get_by_id(agent_id).state
                self.store.agents.set_state(agent_id, {k: v for k, v in state.items() if k not in CORE_VIEW_KEYS})
        return removed

    def scrub(self) -> bool:
        """Rewrite the file without traces of what was deleted (see ``MemoryStore.scrub``), or
        vacuum the database's memory tables (``PostgresMemoryStore.vacuum``); False when
        another process still reads the file's WAL."""
        if isinstance(self.store, MemoryStore):
            self._secure_delete()
            return self.store.scrub()
        from memgpt_local.memory.postgres.store import PostgresMemoryStore

        if not isinstance(self.store, PostgresMemoryStore):
            raise TypeError(f"cannot scrub a {type(self.store).__name__}")
        self.store.vacuum()
        return True
