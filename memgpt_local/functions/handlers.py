"""The agent's functions, implemented against one agent's memory.

Each handler takes a ``FunctionContext`` and its validated arguments and returns a
``FunctionOutcome``. A failure the model can fix (an unknown block, text that does not fit)
is a failed outcome whose text says what to do; ``InvalidInputError`` and ``NotFoundError``
raised by the store are turned into such outcomes by the executor.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from memgpt_local.config import AgentSettings
from memgpt_local.functions import args as a
from memgpt_local.functions.links import Link, LinkExpander
from memgpt_local.functions.results import FunctionOutcome, format_page, search_outcome
from memgpt_local.memory.core import default_text
from memgpt_local.memory.dates import day_of, iso_day
from memgpt_local.schemas import SearchHit, SearchPage, utcnow
from memgpt_local.schemas import human_time as stamp
from memgpt_local.text import lines_about, normalize_space, statements

if TYPE_CHECKING:
    from memgpt_local.memory.protocol import Store


@dataclass(frozen=True)
class SearchFocus:
    """The user's question a turn's searches serve, and the hits the turn has shown already
    (they get no push from the question, so the next link of a chain is not buried)."""

    question: str
    shown: Mapping[str, Sequence[int]] = field(default_factory=dict)  # kind -> ids


@dataclass(frozen=True)
class FunctionContext:
    store: Store
    agent_id: int
    settings: AgentSettings
    function: str  # the name the model called (for "more results" hints)
    focus: SearchFocus | None = None
    turn_start: int | None = None  # id of the event the turn answers: recall search stops before it


# a weekday said twice over, once as the user said it and once as the login notice spells the
# day: "... coming over on Saturday, Saturday 12 December." (a `make run` chat, stop 54)
_DAY_TWICE = re.compile(
    r"\b(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+(?:on\s+)?(?P=day)\b", re.IGNORECASE
)


def send_message(ctx: FunctionContext, args: a.SendMessageArgs) -> FunctionOutcome:
    return FunctionOutcome(True, "Message sent.", user_message=_DAY_TWICE.sub(r"\g<day>", args.message))


def _too_long(label: str, new_value: str, limit: int) -> FunctionOutcome:
    return FunctionOutcome(
        False,
        f"Error: core memory block {label!r} would hold {len(new_value)} characters, over its limit of "
        f"{limit}. Nothing was changed. Make it shorter with core_memory_replace, or store the details "
        "with archival_memory_insert instead.",
    )


# the mark of a memory-update notice, copied into an edit: "saved: Wife: Michiko, passed away ..."
# was appended to the human block as it is (a `make run` chat, stop 54)
_NOTICE_MARK = re.compile(r"^\s*(?:saved|changed|added):\s+", re.IGNORECASE)


def core_memory_append(ctx: FunctionContext, args: a.CoreMemoryAppendArgs) -> FunctionOutcome:
    args = args.model_copy(update={"content": "\n".join(_NOTICE_MARK.sub("", ln) for ln in args.content.splitlines())})
    block = ctx.store.core.get(ctx.agent_id, args.label)
    # the packaged "Nothing is known about the user yet." goes once something is known: kept
    # above the facts, it had the model answer "I don't know anything about you"
    placeholder = args.label == "human" and block.value.strip() == default_text("human").strip()
    held = {normalize_space(line).lower() for line in block.value.splitlines()}
    new = [line for line in args.content.splitlines() if line.strip()]
    if not placeholder and new and all(normalize_space(line).lower() in held for line in new):
        # a small model asked to save facts before replying appended the same lines again and
        # again until the chain cap: say plainly that there is nothing left to save
        return FunctionOutcome(
            True,
            f"Already in {args.label}: nothing was changed. Every line of it is stored; if you have not "
            "answered the user yet, reply now with send_message.",
            unchanged=True,
        )
    value = f"{block.value}\n{args.content}" if block.value and not placeholder else args.content
    if len(value) > block.limit:
        return _too_long(args.label, value, block.limit)
    ctx.store.core.set_value(ctx.agent_id, args.label, value)
    return FunctionOutcome(True, f"Appended to {args.label} ({len(value)}/{block.limit} characters used).")


def core_memory_replace(ctx: FunctionContext, args: a.CoreMemoryReplaceArgs) -> FunctionOutcome:
    block = ctx.store.core.get(ctx.agent_id, args.label)
    if args.old_content not in block.value:
        return FunctionOutcome(
            False,
            f"Error: the text {args.old_content!r} is not in core memory block {args.label!r}. "
            f"old_content must match exactly; the block now reads:\n{block.value}",
        )
    value = block.value.replace(args.old_content, args.new_content)
    if not args.new_content:
        value = "\n".join(line for line in value.split("\n") if line.strip())
    if len(value) > block.limit:
        return _too_long(args.label, value, block.limit)
    ctx.store.core.set_value(ctx.agent_id, args.label, value)
    action = "Replaced" if args.new_content else "Deleted"
    return FunctionOutcome(True, f"{action} text in {args.label} ({len(value)}/{block.limit} characters used).")


def _links(
    ctx: FunctionContext, page: SearchPage, containing: Callable[[str, int], list[SearchHit]]
) -> dict[int, list[Link]] | None:
    """Linked memory for a page of hits, when ``agent.link_depth`` is on."""
    if not ctx.settings.link_depth or not page.items:
        return None
    expander = LinkExpander(containing, depth=ctx.settings.link_depth, max_df=ctx.settings.link_max_df)
    return expander.expand(page.items)


def _focus(ctx: FunctionContext, kind: str) -> tuple[str | None, list[int]]:
    if ctx.focus is None:
        return None, []
    return ctx.focus.question, list(ctx.focus.shown.get(kind, ()))


def core_lines_for(ctx: FunctionContext, query: str) -> list[str]:
    """Core-memory lines about ``query`` or the question the turn answers, as ``[label] line``
    (``text.lines_about``: the stems of their words, or the words people ask about a label with).
    Asked "Which town am I living in now?", a small model searched "living in" with "Home:
    Prurkdrabury" in core memory, paged twice, and sent an earlier reply it found instead."""
    pairs = [(block.label, line) for block in ctx.store.core.blocks(ctx.agent_id) for line in block.value.splitlines()]
    found = lines_about(query, pairs)
    if ctx.focus is not None and ctx.focus.question:
        found += [line for line in lines_about(ctx.focus.question, pairs) if line not in found]
    return found


def _with_core_lines(ctx: FunctionContext, query: str, page: SearchPage, text: str) -> str:
    """A first page starts with the core-memory lines that share words with the query: a small
    model asked "what's my name?" searched, read "No results" and answered "I don't know" with
    "Name: Dana" in its core memory. An empty first page also says so plainly."""
    if page.page:
        return text
    lines = core_lines_for(ctx, query)
    if lines:
        text = "Core memory lines that match:\n" + "\n".join(lines) + "\n" + text
    if not page.total and not lines:
        text += " Core memory (always in your context) holds what you know about the user."
    return text


def without_questions(page: SearchPage) -> SearchPage:
    """``page`` without the messages that only ask, the user's or the assistant's: a question
    holds no fact, and a small model that found its user's old "What's my pet's name again?"
    under the query "car" searched that question next and answered "What car do I drive?" with
    the pet's name (eval chat seed 14, both wordings); on seed 15 the same search found only the
    assistant's "What's your name?" and an answer that was no answer followed. The count drops
    by what this page left out."""
    kept = [h for h in page.items if not (h.role in ("user", "assistant") and not statements(h.text).strip())]
    if len(kept) == len(page.items):
        return page
    return page.model_copy(update={"items": kept, "total": page.total - (len(page.items) - len(kept))})


def conversation_search(ctx: FunctionContext, args: a.ConversationSearchArgs) -> FunctionOutcome:
    question, shown = _focus(ctx, "message")
    page = ctx.store.recall.search(
        ctx.agent_id,
        args.query,
        page=args.page,
        page_size=ctx.settings.page_size,
        mode=ctx.settings.recall_search_mode,
        outside_context=ctx.turn_start is None,
        before_id=ctx.turn_start,
        focus=question,
        focus_skips=shown,
    )
    page = without_questions(page)
    hint = f"{ctx.function}(query={args.query!r})"
    links = _links(ctx, page, lambda text, limit: ctx.store.recall.containing(ctx.agent_id, text, limit))
    text = format_page(page, max_chars=ctx.settings.result_max_chars, next_hint=hint, links=links)
    return search_outcome(page, _with_core_lines(ctx, args.query, page, text))


IN_CONTEXT_MAX = 1000  # a date range with more messages than this is paged without checking


def _all_in_context(ctx: FunctionContext, args: a.ConversationSearchDateArgs, total: int) -> bool:
    """Whether every message of the range is in the main context (the conversation in view)."""
    if not 0 < total <= IN_CONTEXT_MAX:
        return False
    every = ctx.store.recall.search_date(ctx.agent_id, args.start_date, args.end_date, page=0, page_size=total)
    in_view = {m.id for m in ctx.store.recall.in_context(ctx.agent_id)}
    return all(hit.id in in_view for hit in every.items)


def conversation_search_date(ctx: FunctionContext, args: a.ConversationSearchDateArgs) -> FunctionOutcome:
    """A date range's messages, a page at a time; a range wholly in view is not paged. A small
    model searched today's date whenever it looked for anything, and paged through the
    conversation it could read above instead of answering from it."""
    page = ctx.store.recall.search_date(
        ctx.agent_id, args.start_date, args.end_date, page=args.page, page_size=ctx.settings.page_size
    )
    if _all_in_context(ctx, args, page.total):
        in_view = (
            f"All {page.total} messages from {args.start_date} to {args.end_date} are in your context "
            "already: the conversation above. Answer from it; this search finds older messages only."
        )
        return FunctionOutcome(True, _with_dated_core_lines(ctx, args, page, in_view), searched=True)
    hint = f"{ctx.function}({args.start_date}, {args.end_date})"
    text = format_page(page, max_chars=ctx.settings.result_max_chars, next_hint=hint)
    return search_outcome(page, _with_dated_core_lines(ctx, args, page, text))


_ISO_DAY = re.compile(r"\b(?:(?P<span>week|weekend) of )?(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b", re.IGNORECASE)
_SPAN_DAYS = {"week": 6, "weekend": 1}


def _names_a_day_in(line: str, start: dt.date, end: dt.date) -> bool:
    """Whether ``line`` names a day (YYYY-MM-DD, or the week or weekend of one) that meets ``start``..``end``."""
    for match in _ISO_DAY.finditer(line):
        if (first := iso_day(match)) is None:
            continue
        last = first + timedelta(days=_SPAN_DAYS.get((match["span"] or "").lower(), 0))
        if first <= end and start <= last:
            return True
    return False


def dated_core_lines(ctx: FunctionContext, start: dt.date, end: dt.date) -> list[str]:
    """Core-memory lines naming a day from ``start`` to ``end``, as ``[label] line``."""
    return [
        f"[{block.label}] {line}"
        for block in ctx.store.core.blocks(ctx.agent_id)
        for line in block.value.splitlines()
        if _names_a_day_in(line, start, end)
    ]


def _with_dated_core_lines(
    ctx: FunctionContext, args: a.ConversationSearchDateArgs, page: SearchPage, text: str
) -> str:
    """A first page starts with the core-memory lines naming a day of the range, and an empty
    one searched after the turn's day says that nothing was said then yet. Asked "when is Omar
    coming?" with "Brother: Omar (on Friday, 2026-12-04)" in core memory, a small model searched
    the conversation for 2026-12-04 twice, read "No results" and answered "I don't know"."""
    if page.page:
        return text
    lines = dated_core_lines(ctx, args.start_date, args.end_date)
    if lines:
        text = "Core memory lines for these days:\n" + "\n".join(lines) + "\n" + text
    if not page.total and ctx.turn_start is not None:
        today = day_of(ctx.store.recall.get(ctx.agent_id, ctx.turn_start).created_at)
        if args.start_date > today:
            text += (
                f" Today is {today.isoformat()}: nothing has been said on a later day yet. This search finds "
                "what was said on a day, not what is planned for it."
            )
    return text


def archival_memory_insert(ctx: FunctionContext, args: a.ArchivalMemoryInsertArgs) -> FunctionOutcome:
    passage = ctx.store.archival.insert(ctx.agent_id, args.content)
    total = ctx.store.archival.count(ctx.agent_id)
    return FunctionOutcome(True, f"Stored in archival memory as passage {passage.id} ({total} passages in total).")


def archival_memory_search(ctx: FunctionContext, args: a.ArchivalMemorySearchArgs) -> FunctionOutcome:
    question, shown = _focus(ctx, "passage")
    page = ctx.store.archival.search(
        ctx.agent_id,
        args.query,
        page=args.page,
        page_size=ctx.settings.page_size,
        mode=ctx.settings.archival_search_mode,
        focus=question,
        focus_skips=shown,
    )
    hint = f"{ctx.function}(query={args.query!r})"
    links = _links(ctx, page, lambda text, limit: ctx.store.archival.containing(ctx.agent_id, text, limit))
    text = format_page(page, max_chars=ctx.settings.result_max_chars, next_hint=hint, links=links)
    return search_outcome(page, _with_core_lines(ctx, args.query, page, text))


def pause_heartbeats(ctx: FunctionContext, args: a.PauseHeartbeatsArgs) -> FunctionOutcome:
    until = utcnow() + timedelta(minutes=args.minutes)
    agent = ctx.store.agents.get_by_id(ctx.agent_id)
    ctx.store.agents.set_state(ctx.agent_id, dict(agent.state, heartbeats_paused_until=until.isoformat()))
    return FunctionOutcome(True, f"Timed heartbeats paused until {stamp(until)}.")
