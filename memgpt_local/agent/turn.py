"""A turn: everything one run of the step loop knows, from the event that started it to its
last step.

``Turn`` is the loop's working state (the question, the steps, the hits read, the holds used,
whether the next step must reply); policies read it and set its requests. ``TurnResult`` is
what a caller gets back. ``Hold`` is a policy's typed verdict on a draft reply.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from memgpt_local.agent.queue import EvictionReport
from memgpt_local.functions.results import FunctionOutcome, RankedHit
from memgpt_local.schemas import Completion, FunctionCall, SearchHit, utcnow

# what a notice quotes: a draft, the user's message, a core line, a day ("(Tuesday 8 December)")
_QUOTED = re.compile(
    r'"[^"\n]*"|“[^”\n]*”|\([^()\n]*\)|^\[.*$'
    r"|(?<!\w)'(?:[^'\n]|(?<=\w)'(?=\w))*'(?!\w)",  # a repr: 'I teach chemistry ...', 'It's ...' inside
    re.MULTILINE,
)


def notice_words(notice: str) -> list[str]:
    """The stretches of a hold's ``notice`` that are its own instructions, what it quotes left out
    (the quote may be the answer: a core line, a search hit). Told "... Do it now: if it needs your
    memory, call a search function first; ...", a redraft sent the notice itself to the user
    (dmr seed 19, stop 55)."""
    return [part.strip() for part in _QUOTED.split(notice) if len(part.split()) >= 4]


@dataclass(frozen=True)
class Hold:
    """A draft reply kept from the user, and what happens instead."""

    reason: str  # the policy that held it back
    notice: str  # the step's function result: what the model reads instead of "Message sent."
    user_note: str  # for the chat: why the draft the user saw streaming did not go out
    hide_draft: bool = False  # the draft leaves the main context and search (recall storage keeps it)
    end_turn: bool = False  # the user already has an answer: the turn ends here
    # the rewrite keeps the draft's words and changes whose they are ("I teach chemistry in Ghent" ->
    # "You teach chemistry in Ghent"): the repeat ban leaves its runs alone, else names come out
    # misspelt ("lapsang souchONG")
    keeps_words: bool = False
    # words no sentence of the turn's later drafts may begin with (``RepeatBan.banned_openers``):
    # told to say "you", a redraft still went "I'm looking forward to baking a lemon cake"
    banned_openers: tuple[str, ...] = ()
    # words no later draft of the turn may say anywhere (``RepeatBan.banned_words``): told to say
    # "you", a redraft said "... resulted in my dad's car being driven into a pond." (`make run`)
    banned_words: tuple[str, ...] = ()
    # the next step searches rather than answers again (the holding policy narrows its plan)
    search_next: bool = False
    # texts besides the draft whose runs later drafts may not copy: held for asking again what an
    # earlier session asked, a greeting's redraft asked it word for word (a `make run` chat, stop 51)
    uncopied: tuple[str, ...] = ()


@dataclass
class StepRecord:
    """What one step did, for printing, for `send --json` and for the evaluation's traces."""

    index: int
    raw: str
    call: FunctionCall | None
    outcome: FunctionOutcome
    completion: Completion
    eviction: EvictionReport | None = None
    hold: Hold | None = None

    @property
    def held(self) -> bool:
        return self.hold is not None

    @property
    def asks_for_more(self) -> bool:
        """The model asked for another step (a heartbeat), or has an error to recover from."""
        if not self.outcome.ok:
            return True
        return bool(self.call and self.call.request_heartbeat)

    def as_dict(self) -> dict[str, Any]:
        c = self.completion
        return {
            "step": self.index,
            "thought": self.call.thought if self.call else None,
            "function": self.call.function if self.call else None,
            "arguments": self.call.arguments if self.call else None,
            "request_heartbeat": self.call.request_heartbeat if self.call else None,
            "raw": None if self.call else self.raw,
            "ok": self.outcome.ok,
            "result": self.outcome.text,
            "message": self.outcome.user_message,
            "held": self.hold.reason if self.hold else None,
            "evicted_messages": self.eviction.evicted if self.eviction else 0,
            "tokens": {
                "prompt": c.prompt_tokens,
                "evaluated": c.evaluated_tokens,
                "generated": c.generated_tokens,
                "prefill_seconds": round(c.prefill_seconds, 3),
                "decode_seconds": round(c.decode_seconds, 3),
            },
        }


class _Steps:
    """Read-only questions about a list of steps (shared by the turn and its result)."""

    steps: list[StepRecord]

    @property
    def messages(self) -> list[str]:
        """What reached the user, in order."""
        return [s.outcome.user_message for s in self.steps if s.outcome.user_message]

    @property
    def searches(self) -> int:
        return sum(1 for s in self.steps if s.outcome.searched)

    def search_hits(self) -> Iterator[tuple[int, RankedHit]]:
        """(search number, ranked hit) for every hit the turn's searches returned."""
        for order, step in enumerate(s for s in self.steps if s.outcome.searched):
            for ranked in step.outcome.hits:
                yield order, ranked

    def hits(self) -> list[SearchHit]:
        """Every hit the turn's searches returned, once, by rank (ties: earlier search first)."""
        best: dict[tuple[str, int], tuple[int, int, SearchHit]] = {}
        for order, ranked in self.search_hits():
            key = (ranked.hit.kind, ranked.hit.id)
            if key not in best or (ranked.rank, order) < best[key][:2]:
                best[key] = (ranked.rank, order, ranked.hit)
        return [hit for _, _, hit in sorted(best.values(), key=lambda t: (t[0], t[1]))]


@dataclass
class Turn(_Steps):
    """The state of the turn being run."""

    question: str | None  # the user's words, when a user message started the turn
    kind: str = "user message"  # what started it: "user message", "login", "timed heartbeat", ...
    event_id: int | None = None  # the stored message that started it
    steps: list[StepRecord] = field(default_factory=list)
    holds: Counter[str] = field(default_factory=Counter)  # drafts held back, by the policy that held them
    focus: str | None = None  # what searches rank by besides their query (question focus)
    marks: set[str] = field(default_factory=set)  # once-a-turn things policies have done
    reply_reason: str | None = None  # why the next step may only reply (None: it may call anything)
    step_reason: str | None = None  # why another step must run
    end_reason: str | None = None  # why the turn ends after this step, whatever the model asked
    started_at: datetime | None = None  # the time of the new event that started it (None: the clock's)
    reply_start: str = ""  # the words its replies begin with, forced by the grammar ("Hello Lena!")
    reply_sentences: int = 0  # the sentences a reply ends after (0: no limit), with ``reply_start``
    # words (or marks) its replies may not say (``RepeatBan.banned_words``), with ``reply_start``
    reply_unsaid: tuple[str, ...] = ()
    searched_before: dict[str, list[SearchHit]] = field(default_factory=dict)  # policies' searches before step 1
    _began: float = field(default_factory=time.monotonic)

    def clock(self) -> datetime:
        """The time of this turn's messages: its event's time plus the seconds the turn has run
        (an event from the past, as in an evaluation or an import, keeps its steps beside it;
        stamped with the clock, they read "today" as another day)."""
        if self.started_at is None:
            return utcnow()
        return self.started_at + timedelta(seconds=time.monotonic() - self._began)

    def held_drafts(self) -> list[str]:
        """The messages of this turn's drafts that policies held back and a retry must not copy
        (all but those whose rewrite keeps their words, ``Hold.keeps_words``), and the holds'
        notices in their own words (``notice_words``)."""
        drafts = [
            str(s.call.arguments.get("message", ""))
            for s in self.steps
            if s.hold is not None and not s.hold.keeps_words and s.call is not None and s.call.arguments.get("message")
        ]
        notices = [part for s in self.steps if s.hold is not None for part in notice_words(s.hold.notice)]
        return drafts + [text for s in self.steps if s.hold is not None for text in s.hold.uncopied] + notices

    def banned_openers(self) -> tuple[str, ...]:
        """The words no sentence of a later draft may begin with, by the holds so far."""
        found = (word for s in self.steps if s.hold is not None for word in s.hold.banned_openers)
        return tuple(dict.fromkeys(found))

    def banned_words(self) -> tuple[str, ...]:
        """The words a later draft may not say anywhere, by the holds so far."""
        found = (word for s in self.steps if s.hold is not None for word in s.hold.banned_words)
        return tuple(dict.fromkeys((*self.reply_unsaid, *found)))

    def require_reply(self, reason: str) -> None:
        """The next step must answer the user (its grammar allows only the reply function)."""
        self.reply_reason = self.reply_reason or reason

    def require_step(self, reason: str) -> None:
        """Another step must run (its functions are not narrowed by this)."""
        self.step_reason = self.step_reason or reason

    def end(self, reason: str) -> None:
        """End the turn after the current step (requests for more steps are dropped)."""
        self.end_reason = self.end_reason or reason

    def add(self, step: StepRecord) -> None:
        """Record a finished step; the requests made for it are used up."""
        self.steps.append(step)
        self.reply_reason = self.step_reason = None
        if step.hold is not None:
            self.holds[step.hold.reason] += 1

    def shown(self, paging: FunctionCall | None = None) -> dict[str, list[int]]:
        """Ids of the entries the turn's searches have shown, by kind; with ``paging`` (a call
        about to run), less those of the earlier pages of its own search (the same function and
        arguments, a lower page). Their ids, skipped by the question's push, reordered the search
        between its pages: a dmr episode's page 2 showed three hits of page 1 again and never the
        rest (eval dmr, second wording, seed 8, stop 49). The same page asked again is a new
        look: what it showed gets no push."""
        out: dict[str, list[int]] = {}
        for step in (s for s in self.steps if s.outcome.searched):
            if paging is not None and step.call is not None and _earlier_page(step.call, paging):
                continue
            for ranked in step.outcome.hits:
                out.setdefault(ranked.hit.kind, []).append(ranked.hit.id)
        return out

    def result(self) -> TurnResult:
        return TurnResult(list(self.steps), self.question, self.focus)


def _earlier_page(earlier: FunctionCall, call: FunctionCall) -> bool:
    """Whether ``earlier`` asked for a lower page of the search ``call`` pages through: the same
    function and arguments but the page."""

    def search(c: FunctionCall) -> dict[str, object]:
        return {k: v for k, v in c.arguments.items() if k != "page"}

    def page(c: FunctionCall) -> int:
        value = c.arguments.get("page", 0)
        return value if isinstance(value, int) else 0

    return earlier.function == call.function and search(earlier) == search(call) and page(earlier) < page(call)


@dataclass
class TurnResult(_Steps):
    """A finished turn, as its callers see it."""

    steps: list[StepRecord]
    question: str | None = None
    focus: str | None = None  # what its searches ranked by besides their queries
    notes: list[str] = field(default_factory=list)  # what fact notes wrote into core memory after it

    @property
    def holds(self) -> list[Hold]:
        return [s.hold for s in self.steps if s.hold is not None]

    def as_dict(self) -> dict[str, Any]:
        """What `send --json` prints and the server's turn reply holds."""
        return {"steps": [s.as_dict() for s in self.steps], "messages": self.messages, "core_memory": self.notes}
