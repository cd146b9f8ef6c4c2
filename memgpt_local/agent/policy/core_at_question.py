"""Core at question: a question is met with the core-memory lines it asks about, beside it,
before the model's first step.

Core memory sits in the system prompt, thousands of tokens above the question, and a 1.5B
model often acts as if it were not there. Asked "When is Omar coming?" with "Brother: Omar (on
Friday, 2026-12-04)" in core memory, it searched the conversation for that day twice and
answered "I don't know" (`make run`); asked "Which town am I living in now?" with "Home:
Prurkdrabury" saved, it searched "living in", paged, and sent an earlier reply it found
(eval chat seed 10). The lines a question asks about (``text.lines_about``: a word's stem, or
a word people ask about the line's label with; "Name: Dana" only for the user's own name) are
quoted in a notice after the question. The model may still search: the notice says to, for
what the lines do not answer. A question no line speaks of gets no notice. Days are quoted as
a person says them ("on Friday 4 December"): quoted "2026-12-04", replies passed the ISO date
on to the user.

On by default since stop 34: eval chat tuning seed 6, wording 1, at 7ab5f9f, correct 2/6 ->
4/6 and invented 1/8 -> 1/8 against the same code without it.
"""

from __future__ import annotations

from memgpt_local import events
from memgpt_local.agent.policy.base import MemoryView, Policy, reply_before
from memgpt_local.agent.policy.greet_by_name import human_lines
from memgpt_local.agent.turn import Turn
from memgpt_local.memory.core import default_text
from memgpt_local.memory.dates import spoken_days
from memgpt_local.schemas import NewMessage
from memgpt_local.text import (
    ASKING_WORDS,
    asks_about_the_user_at_all,
    asks_for_help,
    content_words,
    lines_about,
    questions,
    statements,
    stem,
    stems,
    their_lines,
    topic_words,
)

MAX_LINES = 4  # a question that matches more lines than this is matched loosely: none is quoted
ALL_LINES = 20  # most lines quoted for a question about the user at all


def lines_asked_about(
    question: str | None, memory: MemoryView, most: int | None = MAX_LINES, before: str = ""
) -> list[str]:
    """The ``human`` block's lines the questions of ``question`` ask about, as ``[human] line``
    (none for a request for advice, or when more than ``most`` match); a question that names
    nothing asks about what its message tells, else about ``before`` (the assistant's message
    before it). A question about the user at all ("What do you know about me?") asks about
    every line (up to ``ALL_LINES``)."""
    asked = questions(question or "")
    # asked as a request too: "Tell me everything you remember about me." (a `make run` chat, stop 60)
    at_all = asks_about_the_user_at_all(question or "")
    if (not asked and not at_all) or (asked and asks_for_help(asked)):
        return []
    placeholder = default_text("human").strip()
    facts = [("human", line) for line in human_lines(memory) if line.strip() != placeholder]
    if at_all:
        # every line answers it: "What do you know about me so far?" matched none, and the model
        # searched "far" and sent "I don't know what 'far' means in this context." (a `make run`
        # chat, stop 60, with ten lines saved)
        return [f"[{block}] {line}" for block, line in facts[:ALL_LINES]]
    lines = lines_about(asked, facts, theirs=False)  # the user's facts: "I answer like a friend" matched "do I like"
    if not lines and set(content_words(asked)) <= ASKING_WORDS:
        # a question that names nothing asks of what its message tells: "Ha, it's a trip, not a
        # party. When are we going, by the way?" was searched as "when are we going" and denied,
        # under "Porto trip: ... in January" (a `make run` chat, stop 58); or, where that tells
        # nothing, of what the assistant said last ("Yes! When are we going, remind me?" after a
        # greeting about the trip, the same chat)
        for told in (statements(question or ""), before):
            lines = lines_about(told, facts, theirs=False) if told else []
            if lines:
                break
    return [*lines, *their_lines(lines, facts)] if most is None or len(lines) <= most else []


def most_said_first(lines: list[str], question: str) -> list[str]:
    """``lines`` with those that say more of the question's own words first (a word people ask
    about a label with counts for nothing here): asked "who's minding the dog while I'm in?", the
    model was shown "Pet: Finn, a border collie, ..." (the dog, by its label's topic) above
    "Daughter: Aoife, coming down from Dublin to mind Finn while I'm in hospital" and answered "Your
    pet Finn is minding the dog while you're in." twice (a `make run` chat, stop 63)."""
    asked = {stem(w) for w in content_words(topic_words(questions(question) or question)) if w not in ASKING_WORDS}
    return sorted(lines, key=lambda line: -len(asked & stems(line.partition("] ")[2].partition(":")[2])))


class CoreAtQuestion(Policy):
    name = "core_at_question"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        lines = lines_asked_about(turn.question, memory, before=reply_before(turn, memory))
        lines = most_said_first(lines, turn.question or "")
        if not lines:
            return []
        text = (
            "For you, not the user: your core memory says this about the user's question:\n"
            + "\n".join(spoken_days(line, turn.clock().date()) for line in lines)
            + "\nAnswer from it if it answers the question; search only for what it does not say."
        )
        return [events.system_event("core memory", text, when=turn.clock())]
