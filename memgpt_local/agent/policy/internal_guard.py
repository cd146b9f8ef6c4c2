"""Internal guard: once a turn, a reply that speaks of the assistant's own machinery (its
function names, heartbeats, a system notice's instructions) is held back and the model is
shown the user's message to answer instead.

The user sees only what ``send_message`` carries, and none of it is theirs to act on. A 1.5B
model answered "Went to a gig by the Mulsuens on the weekend" with the memory-pressure notice
that stood just before it: "I'm sorry, but I can't continue the conversation right now. Please
save the details you will need with archival_memory_insert and then go on with the
conversation." It also narrated its own instructions to the user, in the third person: "I
remember that the Tragreettes is a popular band ... I answered the user's question in my own
words, using the information I remember". A reply that speaks of "the user" talks about the
person reading it: held too, and the model told to speak to them as "you"; but not when it
says it does not know: held, "I don't know the user's mother's name yet." was redrafted as
"Your mother's name is Irene." (the user's partner). A reply that copies a core memory line as
it is written ("... anything you need. Gig: by the Guxpouicks") is held the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target
from memgpt_local.agent.policy.greet_by_name import human_lines
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.functions.specs import FUNCTIONS_BY_NAME
from memgpt_local.text import denies, normalize_space, sentences, words

_MACHINERY = re.compile(
    r"\b(?:" + "|".join(sorted(map(re.escape, FUNCTIONS_BY_NAME), key=len, reverse=True)) + r"|request_heartbeat"
    r"|heartbeats?|context window is \d+% full|memory pressure|do not mention this notice"
    # the memory-pressure notice in the model's mouth: "Okay, I'll move some older messages out of
    # view into a summary." answered "What was the band I went to see play live?" (bench_honesty
    # seed 49, stop 42)
    r"|out of view|into a summary|older messages)\b",
    re.IGNORECASE,
)


_NARRATES = re.compile(r"\bthe user(?:'s|s)?\b", re.IGNORECASE)


_ANNOUNCES = re.compile(
    r"^\W*(?:I\s+need\s+to|I\s+have\s+to|I\s+should|I'll|I\s+will|let\s+me|I\s+am\s+going\s+to|I'm\s+going\s+to)"
    r"\s+(?:search|look|check|find|try\s+to\s+find|go\s+through)\b",
    re.IGNORECASE,
)


def only_announces(message: str) -> bool:
    """Whether ``message`` says it will look something up and little else (at most three words
    besides: "Sure! I'll look it up.")."""
    said = sentences(message)
    announcing = [s for s in said if _ANNOUNCES.match(s)]
    return bool(announcing) and sum(len(words(s)) for s in said if s not in announcing) <= 3


# a sentence that reports the assistant's own note-taking: "I've added that information to your
# memory.", "I'll remember it for later."
_REPORTS_SAVING = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|sure|got\s+it|noted)\W+)?"
    r"(?:(?:I've|I\s+have|I)\s+(?:(?:now|just|also)\s+)?(?:added|saved|stored|noted|updated|recorded|made\s+a\s+note\s+of)"
    r"|(?:I'll|I\s+will)\s+(?:(?:now|also)\s+)?(?:remember|keep|note|save|add|store|record))"
    r"\s+(?:\w+\s+){0,3}?(?:that|this|it|them|information|details|everything|in\s+mind|down)\b",
    re.IGNORECASE,
)


def only_reports_saving(message: str) -> bool:
    """Whether ``message`` only says the assistant noted what it was told (at most three words
    besides): told "My wife Michiko passed away two years ago this winter. The house gets very
    quiet some evenings.", the model saved it and replied "I've added that information to your
    memory. I'll remember it for later." (a `make run` chat, stop 54)."""
    said = sentences(message)
    saving = [s for s in said if _REPORTS_SAVING.match(s)]
    return bool(saving) and sum(len(words(s)) for s in said if s not in saving) <= 3


def copied_note(message: str, lines: Sequence[str]) -> str | None:
    """The first core line (``Label: value``) that ``message`` holds as written, colon and all:
    a greeting went out as "Hello Kerkstaen! I'm here to help you with anything you need. Gig:
    by the Guxpouicks" (eval chat seed 26, stop 47). A day in brackets may be said otherwise: the
    login notice speaks its days, and a greeting went out as "Hello Ines! I'm here to help you
    today. Hiking: planned for next week (week of Monday 7 December)." for "Hiking: planned for
    next week (week of 2026-12-07)" (a `make run` chat, stop 51)."""
    said = normalize_space(message).lower()
    for line in lines:
        label, colon, value = normalize_space(line).partition(":")
        head = value.partition("(")[0].strip() or value.strip()
        if colon and label and head and f"{label}: {head}".lower() in said:
            return normalize_space(line)
    return None


def speaks_of_machinery(message: str) -> str | None:
    """The first words of ``message`` that name the assistant's machinery, else None."""
    found = _MACHINERY.search(message)
    return found.group(0) if found else None


class InternalGuard(Policy):
    name = "internal_guard"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name]:
            return None
        if only_announces(draft.message):
            return Hold(
                self.name,
                "Not sent: your reply only says you will look something up, and the turn ends at your reply. "
                "Answer from what you can see, or say you do not know. "
                f"Write your reply to {reply_target(turn)}",
                "it only announced a search",
                hide_draft=True,
            )
        if turn.question and only_reports_saving(draft.message):
            return Hold(
                self.name,
                "Not sent: your reply only says you took note, and your notes are kept without a word from you. "
                "The user told you something: answer what they said, as a friend would, in a sentence or two. "
                f"Write your reply to {reply_target(turn)}",
                "it only said it took note",
                hide_draft=True,
            )
        note = copied_note(draft.message, human_lines(memory))
        if note is not None:
            return Hold(
                self.name,
                f'Not sent: your reply copies your note "{note}" as it is written in your memory. '
                'Say what it means in your own words, to the user as "you". '
                f"Write your reply to {reply_target(turn)}",
                "it copied a core memory note as it is written",
                hide_draft=True,
            )
        said = speaks_of_machinery(draft.message)
        if said is None:
            narrated = _NARRATES.search(draft.message)
            if narrated is None or denies(draft.message):
                return None
            return Hold(
                self.name,
                f"Not sent: your reply speaks of {narrated.group(0)!r}, but the user is the one reading it. "
                'Speak to them as "you" and never describe your instructions. '
                f"Write your reply to {reply_target(turn)}",
                "it spoke of the user in the third person",
                hide_draft=True,
            )
        return Hold(
            self.name,
            f"Not sent: the user cannot see your functions or system notices ({said!r}); never mention them. "
            f"Write your reply to {reply_target(turn)}",
            "it spoke of the assistant's functions or notices",
            hide_draft=True,
        )
