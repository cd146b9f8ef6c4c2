"""Name asked: once a turn, an answer to a question that asks for a name and names nothing is
held back, and the model is shown what it found to say the name from.

Asked "Remind me, what is our tortoise from the rescue called?", the model found the message
"Guess who came home with us from the animal rescue this weekend? A little tortoise. She answers
to Borlai already." and answered "On Thursday 3 April, you told me that a little tortoise came
home with us from the animal rescue this weekend.": the message quoted up to the name, no name
(eval dmr, second wording, reporting seed 9, stop 50). A user who asks what their dog is called
and hears that they have a dog was not answered. Only a reply that names nothing the question
did not (a day or a month is no name) is held, and only when the turn's searches or core memory
hold a name the question does not: with nothing to name it from, saying so is the answer.
"""

from __future__ import annotations

import re

from memgpt_local.agent.fact_owners import individual
from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.policy.hits import best_hits
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.config import GuardSettings
from memgpt_local.functions.links import identifiers
from memgpt_local.functions.results import format_hits
from memgpt_local.memory.dates import MONTHS, WEEKDAYS
from memgpt_local.text import SENTENCE_OPENERS, asks_something, denies, is_question, lines_about, sentences

# a question that asks for a name: "what is X called", "what's the name of", "what did we name", "who"
# ("who" as a question's word, not a relative one: "Any gift ideas for a chef who has every gadget
# already?" was held for naming no one, a `make run` chat, stop 53)
_ASKS_A_NAME = re.compile(
    r"\b(?:called|named|name)\b|^\W*(?:[\w']+\W+){0,3}?who\b|\bwho(?:'s|\s+(?:is|was|are|were|did|do|does))\b",
    re.IGNORECASE,
)
# a day is no name: "Clifton, 2027-01, 14th, 2026-12-14" were listed as the names found (stop 53)
_A_DAY = re.compile(r"^\d{4}-\d{2}(?:-\d{2})?$|^\d{1,2}(?:st|nd|rd|th)$", re.IGNORECASE)
_NO_NAMES = frozenset((*SENTENCE_OPENERS, *(d.lower() for d in WEEKDAYS), *(m.lower() for m in MONTHS), "i", "on"))


NAMES_LISTED = 4  # names of what was found said in the notice


def new_names(text: str, asked: str) -> set[str]:
    """The names and codes of ``text`` that ``asked`` does not hold (days, months and words that
    open a sentence aside), lower case."""
    said = {i.lower() for i in identifiers(asked)}
    return {i.lower() for i in identifiers(text)} - said - _NO_NAMES


def _names_within(text: str, asked: str) -> set[str]:
    """``new_names`` of ``text`` less the words that only open its sentences ("Guess who came home
    ...")."""
    openers = {s.split()[0].strip(",;:!?.'\"").lower() for s in sentences(text) if s.split()}
    later = {w.strip(",;:!?.'\"").lower() for s in sentences(text) for w in s.split()[1:]}
    return {n for n in new_names(text, asked) if n not in openers or n in later}


class NameAsked(Policy):
    name = "name_asked"

    def __init__(self, settings: GuardSettings):
        self.hits = settings.hits

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not turn.question:
            return None
        # "what's my wife's name by the way, testing you" asks too, with no question mark (stop 51)
        asked = " ".join(s for s in sentences(turn.question) if is_question(s) or asks_something(s))
        if not asked or not _ASKS_A_NAME.search(asked):
            return None
        written = draft.written_after(turn.reply_start)
        if denies(written):
            return None
        if new_names(written, asked):
            return self._other_name(turn, written, asked, memory)
        hits = [h for h in best_hits(turn, memory.embed, self.hits) if new_names(h.text, asked)]
        core = [
            line
            for line in lines_about(asked, [(label, line) for label, line in memory.core_lines()])
            if new_names(line.partition("] ")[2], asked)
        ]
        if not hits and not core:
            return None
        found = "\n".join(core + format_hits(hits, first=1, per_item=300))
        # the names themselves, said first, and no forced opening: shown "... A little ferret. She
        # answers to Gresweora already." under the opening "On Monday 17 March, you told me", the
        # redraft told of the ferret again and named none (dmr seed 13, reworded, three misses)
        texts = [*(line.partition("] ")[2] for line in core), *(h.text for h in hits)]
        names = list(
            dict.fromkeys(
                i for t in texts for i in identifiers(t) if i.lower() in _names_within(t, asked) and not _A_DAY.match(i)
            )
        )
        turn.reply_start = ""
        notice = (
            "Not sent: the user asked for a name, and your reply names none. Answer with the name "
            f"(the names in it: {', '.join(names[:NAMES_LISTED])}), from what you found (the closest "
            "first):\n" + found
        )
        return Hold(self.name, notice, "it named nothing, asked for a name", hide_draft=True)

    def _other_name(self, turn: Turn, written: str, asked: str, memory: MemoryView) -> Hold | None:
        """A reply naming someone other than the one the core line asked about files: "what's my
        wife's name by the way, testing you" under "Wife: Adaeze" got "Your wife's name is
        Chioma.", Adaeze's sister, named in the last search hit (a `make run` chat, stop 51)."""
        core = [
            line.partition("] ")[2]
            for line in lines_about(asked, [(label, line) for label, line in memory.core_lines() if label == "human"])
        ]
        filed = {one for line in core if (one := individual(line)) is not None and one not in asked.lower()}
        if not filed or new_names(written, asked) & filed:
            return None
        notice = (
            "Not sent: your reply names someone other than the one your core memory files for this "
            "question. Answer from core memory:\n" + "\n".join(line for line in core if individual(line) in filed)
        )
        return Hold(self.name, notice, "it named someone core memory does not", hide_draft=True)
