"""Implementations of the agent's functions against the memory store.

``FunctionExecutor.run(call)`` validates the arguments against the function's declared
pydantic model and runs it. Every failure the model can fix (bad arguments, an unknown
block, text that does not fit) comes back as a failed ``FunctionOutcome`` whose text tells
the model what to do; only store failures propagate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Callable, Sequence

from pydantic import ValidationError

from memgpt_local.config import AgentSettings
from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.functions import specs
from memgpt_local.functions.links import Link, LinkExpander
from memgpt_local.memory.phrases import messages_containing, passages_containing
from memgpt_local.schemas import FunctionCall, SearchHit, SearchPage, human_time as stamp, utcnow


@dataclass
class FunctionOutcome:
    ok: bool
    text: str
    user_message: str | None = None  # set by send_message: what the user sees
    searched: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def format_hits(hits: Sequence[SearchHit], *, first: int, per_item: int, links: dict[int, list[Link]] | None = None) -> list[str]:
    """Numbered result lines with real timestamps (and the entries each one links to)."""
    lines = []
    for n, hit in enumerate(hits, start=first):
        # who said a past message, in words a model cannot mix up: "I" in a user's message is the user
        who = {"user": " the user said:", "assistant": " you said:"}.get(hit.role or "", "")
        cite = f", {hit.citation}" if hit.citation else ""
        again = f" ({hit.copies} times in all)" if hit.copies > 1 else ""
        lines.append(f"{n}. [{stamp(hit.created_at)}{cite}]{who} {_shorten(hit.text, per_item)}{again}")
        for link in (links or {}).get(hit.id, []):
            lines.append(f"   linked via {link.via}: [{stamp(link.hit.created_at)}] {_shorten(link.hit.text, per_item)}")
    return lines


def format_page(page: SearchPage, *, max_chars: int, next_hint: str, links: dict[int, list[Link]] | None = None) -> str:
    """Paginated results with true totals and real timestamps, bounded to ``max_chars``."""
    header = page.describe()
    if page.total == 0:
        return f"No results ({header})."
    if not page.items:
        return f"No results on this page ({header}). Use a page below {page.pages}."
    n_lines = len(page.items) + sum(len(v) for v in (links or {}).values())
    per_item = max(80, (max_chars - 200) // max(1, n_lines))
    lines = [header + "."]
    lines += format_hits(page.items, first=page.page * page.page_size + 1, per_item=per_item, links=links)
    if page.page + 1 < page.pages:
        lines.append(f"More results: {next_hint} with page={page.page + 1}.")
    text = "\n".join(lines)
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def _search_outcome(page: SearchPage, text: str) -> FunctionOutcome:
    """A search's result text, with its hits and their overall ranks (1 = best) kept for a recap."""
    first = page.page * page.page_size + 1
    ranked = [(first + i, hit) for i, hit in enumerate(page.items)]
    return FunctionOutcome(True, text, searched=True, extra={"hits": ranked})


class FunctionExecutor:
    """Runs the agent's functions for one agent."""

    def __init__(self, store, agent_id: int, settings: AgentSettings):
        self.store = store
        self.agent_id = agent_id
        self.settings = settings
        self.focus: str | None = None  # the question the current turn's searches serve
        self._read: dict[str, list[int]] = {"message": [], "passage": []}  # hits shown since set_focus
        self._handlers: dict[str, Callable[[Any], FunctionOutcome]] = {
            "send_message": self._send_message,
            "core_memory_append": self._core_memory_append,
            "core_memory_replace": self._core_memory_replace,
            "conversation_search": self._conversation_search,
            "conversation_search_date": self._conversation_search_date,
            "archival_memory_insert": self._archival_memory_insert,
            "archival_memory_search": self._archival_memory_search,
            "pause_heartbeats": self._pause_heartbeats,
        }

    def set_focus(self, question: str | None) -> None:
        """Start a turn: searches until the next call rank their hits by ``question`` too
        (``agent.question_focus``), except hits they have already shown."""
        self.focus = question if self.settings.question_focus else None
        self._read = {"message": [], "passage": []}

    def _shown(self, page: SearchPage) -> SearchPage:
        for hit in page.items:
            self._read.setdefault(hit.kind, []).append(hit.id)
        return page

    def run(self, call: FunctionCall) -> FunctionOutcome:
        spec = specs.FUNCTIONS_BY_NAME.get(call.function)
        handler = self._handlers.get(call.function)
        if spec is None or handler is None:
            names = ", ".join(self._handlers)
            return FunctionOutcome(False, f"Error: there is no function {call.function!r}. Use one of: {names}.")
        try:
            args = spec.args_model.model_validate(call.arguments)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            return FunctionOutcome(False, f"Error: bad arguments for {call.function}: {problems}. Fix them and retry.")
        try:
            return handler(args)
        except (InvalidInputError, NotFoundError) as exc:
            return FunctionOutcome(False, f"Error: {exc.message}. Fix the arguments and retry.")

    # ------------------------------------------------------------ functions

    def _send_message(self, args: specs.SendMessageArgs) -> FunctionOutcome:
        return FunctionOutcome(True, "Message sent.", user_message=args.message)

    def _block_error(self, label: str, new_value: str, limit: int) -> FunctionOutcome:
        return FunctionOutcome(
            False,
            f"Error: core memory block {label!r} would hold {len(new_value)} characters, over its limit of "
            f"{limit}. Nothing was changed. Make it shorter with core_memory_replace, or store the details "
            "with archival_memory_insert instead.",
        )

    def _core_memory_append(self, args: specs.CoreMemoryAppendArgs) -> FunctionOutcome:
        block = self.store.core.get(self.agent_id, args.label)
        value = f"{block.value}\n{args.content}" if block.value else args.content
        if len(value) > block.limit:
            return self._block_error(args.label, value, block.limit)
        self.store.core.set_value(self.agent_id, args.label, value)
        return FunctionOutcome(True, f"Appended to {args.label} ({len(value)}/{block.limit} characters used).")

    def _core_memory_replace(self, args: specs.CoreMemoryReplaceArgs) -> FunctionOutcome:
        block = self.store.core.get(self.agent_id, args.label)
        if args.old_content not in block.value:
            return FunctionOutcome(
                False,
                f"Error: the text {args.old_content!r} is not in core memory block {args.label!r}. "
                "old_content must match exactly; read the block in your core memory and retry.",
            )
        value = block.value.replace(args.old_content, args.new_content)
        if not args.new_content:
            value = "\n".join(line for line in value.split("\n") if line.strip())
        if len(value) > block.limit:
            return self._block_error(args.label, value, block.limit)
        self.store.core.set_value(self.agent_id, args.label, value)
        action = "Replaced" if args.new_content else "Deleted"
        return FunctionOutcome(True, f"{action} text in {args.label} ({len(value)}/{block.limit} characters used).")

    def _conversation_search(self, args: specs.ConversationSearchArgs) -> FunctionOutcome:
        page = self._shown(self.store.recall.search(
            self.agent_id, args.query, page=args.page, page_size=self.settings.page_size,
            mode=self.settings.recall_search_mode, outside_context=True,
            focus=self.focus, focus_skips=self._read["message"]))
        hint = f"conversation_search(query={args.query!r})"
        links = self._links(page, lambda text, limit: messages_containing(self.store, self.agent_id, text, limit))
        return _search_outcome(page, format_page(page, max_chars=self.settings.result_max_chars, next_hint=hint, links=links))

    def _conversation_search_date(self, args: specs.ConversationSearchDateArgs) -> FunctionOutcome:
        page = self._shown(self.store.recall.search_date(
            self.agent_id, args.start_date, args.end_date, page=args.page, page_size=self.settings.page_size
        ))
        hint = f"conversation_search_date({args.start_date}, {args.end_date})"
        return _search_outcome(page, format_page(page, max_chars=self.settings.result_max_chars, next_hint=hint))

    def _archival_memory_insert(self, args: specs.ArchivalMemoryInsertArgs) -> FunctionOutcome:
        passage = self.store.archival.insert(self.agent_id, args.content)
        total = self.store.archival.count(self.agent_id)
        return FunctionOutcome(True, f"Stored in archival memory as passage {passage.id} ({total} passages in total).")

    def _archival_memory_search(self, args: specs.ArchivalMemorySearchArgs) -> FunctionOutcome:
        page = self._shown(self.store.archival.search(
            self.agent_id, args.query, page=args.page, page_size=self.settings.page_size,
            mode=self.settings.archival_search_mode, focus=self.focus, focus_skips=self._read["passage"]))
        hint = f"archival_memory_search(query={args.query!r})"
        links = self._links(page, lambda text, limit: passages_containing(self.store, self.agent_id, text, limit))
        return _search_outcome(page, format_page(page, max_chars=self.settings.result_max_chars, next_hint=hint, links=links))

    def _links(self, page: SearchPage, containing) -> dict[int, list[Link]] | None:
        """Linked memory for a page of hits, when the setting is on."""
        if not self.settings.link_depth or not page.items:
            return None
        expander = LinkExpander(containing, depth=self.settings.link_depth, max_df=self.settings.link_max_df)
        return expander.expand(page.items)

    def _pause_heartbeats(self, args: specs.PauseHeartbeatsArgs) -> FunctionOutcome:
        until = utcnow() + timedelta(minutes=args.minutes)
        agent = self.store.agents.get_by_id(self.agent_id)
        state = dict(agent.state, heartbeats_paused_until=until.isoformat())
        self.store.agents.set_state(self.agent_id, state)
        return FunctionOutcome(True, f"Timed heartbeats paused until {stamp(until)}.")
