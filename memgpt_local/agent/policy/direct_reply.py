"""Direct reply: a user's message that asks nothing of memory is answered in the first step.

A 1.5B model treats every message as a query. Told "I have a dog called Wesgroette, she's the
boss of the house", it searched recall for "wesgroette", then archival memory, then recall
again, and replied "I'm sorry, I don't have any information about Wesgroette"; "I watched a
great documentary about octopuses last night" and "Any tips for sleeping better?" went the
same way (three searches, then an apology). Those apologies then filled the context and the
model copied them into its answers to real questions two sessions later ("I'm sorry, I don't
know where you live" with the town in core memory). The facts a user states are written to
core memory after the reply (``agent/facts.py``), so searching is never needed to take them in.

So the first step of a user's turn may only reply when the message

- states rather than asks (no question mark, no question word or request to recall at the
  start of a sentence), and does not point back at earlier talk ("like I said", "remember"); or
- asks a general question: it does not speak of the user ("I", "my", "we"), names no one and
  nothing, points back at nothing, and memory beyond the context holds nothing that shares two
  of its words; or
- asks only for advice or ideas ("What can I do to make Tui less anxious when there's a
  storm?"; ``text.asks_for_help``), points back at nothing, and no archival passage (a loaded
  document, a note) shares two of its words: what the conversation holds of the user is core
  memory, in view. Searched, that question was answered "I'm sorry, but I don't have any
  information about Tui's fear of thunder or how to make it less anxious." (a `make run` chat,
  stop 42).

Any other question is left to the model and the other policies. With fact notes switched off,
the step may also edit core memory (the model then keeps the ``human`` block itself).

The step writes no thought (``agent.direct_thought_max_chars``, 0 by default). Asked for tips,
the model wrote them in its thought, which the user never sees, and sent "I hope these tips are
helpful!", or the question again followed by the thought copied up to its 300-character cut
("... You can use a to-do list or a time-c"; a `make run` chat, stop 42).
"""

from __future__ import annotations

import re
from dataclasses import replace

from memgpt_local.agent.policy.base import MemoryView, Policy, SearchKind, StepPlan
from memgpt_local.agent.turn import Turn
from memgpt_local.schemas import NewMessage
from memgpt_local.text import (
    FIRST_PERSON,
    asks_for_help,
    asks_something,
    content_words,
    names_within,
    questions,
    sentences,
)

MARK = "direct reply"
KINDS: tuple[SearchKind, ...] = ("message", "passage")

_POINTS_BACK = re.compile(
    r"\b(?:remember|remembered|recall|remind|told you|tell you|mentioned|said|talked|spoke|"
    # "like I said before", "and before that?"; but "before she leaves" is ahead (a request for
    # advice that said so was searched and denied, a `make run` chat, stop 42), as is "before I forget"
    r"last time|earlier|before(?!\s+(?:she|he|they|we|i|you|it|my|his|her|their|our|tomorrow|next)\b)"
    r"|again|ago|previously|you know)\b",
    re.I,
)
_ASKS_FOR_ITSELF = re.compile(r"\b(?:tell|show|give|help|let|teach|send|get|find) me\b", re.I)  # "tell me a joke"
_NUMBER = re.compile(r"\d")


def points_back(message: str) -> bool:
    """Whether ``message`` refers to earlier talk ("like I said", "remember when ...")."""
    return bool(_POINTS_BACK.search(message.replace("’", "'")))


def names_something(message: str) -> bool:
    """Whether ``message`` names someone or something: a capitalised word after a sentence's
    first, or a number."""
    return any(names_within(s) for s in sentences(message)) or bool(_NUMBER.search(message))


def about_the_user(message: str) -> bool:
    """Whether ``message`` speaks of its writer ("my", "we"; not the "me" of "tell me a joke")."""
    return bool(FIRST_PERSON.search(_ASKS_FOR_ITSELF.sub("", message.replace("’", "'"))))


def memory_shares_words(message: str, memory: MemoryView, k: int = 3, kinds: tuple[SearchKind, ...] = KINDS) -> bool:
    """Whether an entry of ``kinds`` memory holds beyond the context shares two of ``message``'s
    longer words."""
    if not memory.beyond_context():
        return False
    asked = key_words(message)
    if len(asked) < 2:
        return False
    return any(len(asked & key_words(hit.text)) >= 2 for kind in kinds for hit in memory.search(kind, message, k))


def key_words(text: str) -> set[str]:
    """The longer content words of ``text``, compared by their first four letters ("parcels" is
    "parcel")."""
    return {w[:4] for w in content_words(text) if len(w) > 2}


def needs_no_memory(message: str, memory: MemoryView) -> bool:
    """Whether ``message`` can be answered without searching (see the module's docstring)."""
    if points_back(message):
        return False
    if not asks_something(message):
        return True
    if asks_for_help(questions(message)):
        return not memory_shares_words(message, memory, kinds=("passage",))
    if about_the_user(message) or names_something(message):
        return False
    return not memory_shares_words(message, memory)


class DirectReply(Policy):
    name = "direct_reply"

    def __init__(self, *, notes_enabled: bool = True, thought_max_chars: int | None = None):
        self.notes_enabled = notes_enabled
        self.thought_max_chars = thought_max_chars

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        if turn.question is not None and needs_no_memory(turn.question, memory):
            turn.marks.add(MARK)
        return []

    def plan(self, turn: Turn, plan: StepPlan) -> StepPlan:
        if MARK not in turn.marks:
            return plan
        # a redraft too: held for denying a request for help, the redraft thought up tips of an
        # earlier turn's ("Use a checklist ...") and sent one sentence (a `make run` chat, stop 42)
        direct = replace(plan, thought_max_chars=self.thought_max_chars)
        if turn.steps or plan.reply_only:
            return direct
        if self.notes_enabled:
            return direct.only("reply", reason=MARK)
        return direct.only("reply", "memory_edit", reason=MARK)
