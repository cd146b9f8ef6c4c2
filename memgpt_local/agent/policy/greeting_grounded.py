"""Greeting grounded: once a login, a greeting that names something, or says a number, that
nothing in the model's view says is held back; the redraft may not say those words.

A greeting is told to mention what core memory holds, and a 1.5B model says it in its own
words, some of them new: "Rowing team: coach on weekends" was greeted "... and coach the
school's rowing team on Saturdays." at two logins of one `make run` chat (stop 42). A returning
user reads that as the assistant misremembering them. Named things (a capitalised word inside
a sentence) and numbers are checked against everything the step was shown (the system prompt,
core memory, the conversation, the login notice with today's date), compared by their first
four letters so "Saturday" shown covers "Saturdays" said. Plain words are left alone: a
greeting rephrases.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.policy.grounded_reply import names_and_numbers
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.memory.dates import HOLIDAY_WORDS, MONTHS, WEEKDAYS, spoken_days
from memgpt_local.text import content_words, sentences, stem, stems, words

# the words a day is named by: weekdays, months, holidays
_DAY_NAMES = frozenset((*WEEKDAYS, *(m.lower() for m in MONTHS))) | HOLIDAY_WORDS


def unseen_names(greeting: str, shown: str) -> list[str]:
    """The names and numbers of ``greeting`` that ``shown`` never says (by stem), in order."""
    shown_words = words(shown)
    # a number of any length, and without its leading zeros: "the 5th" of "2026-12-05"
    # and with its ordinal's letters: "2nd year history student" holds the greeting's "2nd" (read as
    # "2"), held as unseen, and the redraft said "1st year" (a `make run` chat, stop 63)
    seen = stems(shown) | set(shown_words) | {n.lstrip("0") or "0" for n in re.findall(r"\d+", shown)}
    said = names_and_numbers(greeting)
    return list(dict.fromkeys(w for w in said if stem(w) not in seen and w.lower().lstrip("0") not in seen))


def _when_words(text: str) -> set[str]:
    """The words of ``text`` that name a day, a month or a year ("july", "2027")."""
    return {w for w in words(text) if w in _DAY_NAMES or (w.isdigit() and len(w) == 4)}


def date_of_another(greeting: str, lines: Sequence[str], today: date) -> tuple[str, str] | None:
    """(the greeting's sentence, a core line) where a sentence of ``greeting`` says a day or month
    that only lines sharing no other word with it hold: greeted under "Mum: flying over from
    Kumasi for graduation in July (2027-07)", "I know you're going to be starting your PhD in
    Edinburgh in July 2027." said the mother's month of the user's PhD (a `make run` chat, stop
    61). A sentence that shares a word with one of those lines tells that line."""
    spoken = [(line, spoken_days(line, today)) for line in lines]
    for sentence in sentences(greeting):
        when = _when_words(sentence) - {f"{today:%A}".lower()}  # "Happy Sunday!" is today
        if not when:
            continue
        holding = [(line, said) for line, said in spoken if when & _when_words(said)]
        told = {stem(w) for w in content_words(sentence)} - {stem(w) for w in when} - _SAY_NOTHING
        if holding and not any(told & stems(said) for _, said in holding):
            return sentence, max(holding, key=lambda held: len(when & _when_words(held[1])))[0]
    return None


# words a greeting says round what it tells: no word of a note
_SAY_NOTHING = frozenset(stem(w) for w in "know remember hello hi going coming soon hope".split())


class GreetingGrounded(Policy):
    name = "greeting_grounded"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if turn.kind != "login" or turn.holds[self.name] or draft.plan.last:
            return None
        # what the assistant said before is no ground: a made-up "Tomasz's bakery is called 'The
        # Baker's Delight'." came back in the next login's greeting (a `make run` chat, stop 43)
        new = unseen_names(draft.message, "\n".join(m.content for m in draft.prompt if m.role != "assistant"))
        # a day is said as core memory holds it now: the conversation keeps the old day of a plan
        # that moved ("Elodie is coming to stay over Christmas" under "Granddaughter: Elodie, coming
        # to stay, moved to the 20th", a `make run` chat, stop 52)
        core = "\n".join(line for _, line in memory.core_lines())
        today = turn.clock().date()
        now = f"{spoken_days(core, today)}\n{core}\n{today:%A %B}"  # "Happy Sunday!" is today
        new += [w for w in unseen_names(draft.message, now) if w.lower() in _DAY_NAMES and w not in new]
        if not new and (misdated := date_of_another(draft.message, [line for _, line in memory.core_lines()], today)):
            return Hold(
                self.name,
                f"Not sent: your greeting said {misdated[0]!r}, but your memory says that day of this, and "
                f"only this: {spoken_days(misdated[1], today)!r}. Greet them again, saying what that note says.",
                "it said a day of something its memory does not say it of",
                hide_draft=True,
            )
        if not new:
            return None
        said = ", ".join(new)
        return Hold(
            self.name,
            f"Not sent: your greeting says {said}, which nothing you know about the user says. Greet them "
            "again, with only what your memory holds, in its words.",
            "it said something its memory does not hold",
            hide_draft=True,
            banned_words=tuple(dict.fromkeys(v for w in new for v in (w, w.lower(), w.capitalize()))),
        )
