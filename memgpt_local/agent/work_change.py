"""A change of the user's own work, asked about on its own.

A 1.5B notes pass wrote "I left the practice, I start at the university veterinary hospital in
Porto on Monday" as "Practice: left" and "University veterinary hospital: Porto on Monday", and
kept the old job (a `make run` chat, stop 48). A message whose sentence says the user's own work
changed (``changes_work``) is asked a second, short question (``work_prompt``) with the saved
work line beside it; the notes pass's own lines that say nothing more than its answer
(``within``, ``when_label``) are scraps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from memgpt_local.agent.fact_owners import RELATION_PATTERN
from memgpt_local.schemas import ChatMessage
from memgpt_local.text import content_words, sentences, speaks_of_its_writer, stem, words

WORK_INSTRUCTIONS = (
    "You keep an assistant's notes about its user. The user's message may say that their own work "
    'changed. Write the work they do now, or will do, as one short "Work: value" line in the user\'s own '
    "words: the job and the place, and when it starts if the message says. Keep the saved job where the "
    "message names no other. If their work did not change, write an empty list."
)
# (the saved work line, the message, the line): the notes examples' Sam again. In the notes prompt
# itself, a job-change example lost other facts (bench_notes, stop 48: tune 19/19 -> 18/19, held
# 20/20 -> 18/20, three cases with a wrong line), so a message that says the user's work changed is
# asked about on its own
WORK_EXAMPLES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "Work: fixes bikes at a shop in Cardiff",
        "Big news, I handed in my notice at the shop! Monday I start at the council's cycle workshop.",
        ("Work: fixes bikes at the council's cycle workshop, starts on Monday",),
    ),
    (
        "Work: fixes bikes",
        "Got the job! I'm a ward clerk at the Royal Infirmary from March.",
        ("Work: ward clerk at the Royal Infirmary, from March",),
    ),
    ("Work: fixes bikes", "My wife Jo quit her piano school, she's teaching online now.", ()),
)
WORK_MAX_TOKENS = 60


def work_prompt(saved: Sequence[str], message: str) -> list[ChatMessage]:
    """The prompt that asks what work ``message`` says the user does now, given the ``saved``
    work lines."""

    def ask(held: str, said: str) -> ChatMessage:
        return ChatMessage(
            role="user", content=f"Saved: {held or '(no work saved)'}\nMessage: {json.dumps(said, ensure_ascii=False)}"
        )

    prompt = [ChatMessage(role="system", content=WORK_INSTRUCTIONS)]
    for held, said, lines in WORK_EXAMPLES:
        prompt += [ask(held, said), ChatMessage(role="assistant", content=json.dumps({"facts": list(lines)}))]
    return [*prompt, ask("; ".join(saved), message)]


# a sentence in which the user's work changes: "I left the practice", "I start at the hospital on Monday"
_WORK_CHANGE = re.compile(
    r"\b(?:quit|(?:left|leaving)\s+(?:my|the|our)\s+(?:job|work|post|position|role|company|firm|practice|office|clinic"
    r"|school|shop|store|restaurant|bank|hospital|team|lab|studio|stables|garage|agency)|resign\w*|switch\w*\s+(?:to|jobs?)|handed\s+in\s+my\s+notice|retir\w*|laid\s+off|fired|promot\w*|hired"
    r"|(?:got|get|landed|accepted)\s+(?:the|a|a\s+new|my\s+new)\s+(?:job|position|post|role)|new\s+job"
    r"|start(?:s|ing)?\s+(?:at|as|work|my\s+new|a\s+new)|joining|joined)\b",
    re.IGNORECASE,
)
_SOMEONE_ELSE = re.compile(
    rf"^(?:\W*\w+\W+)?(?:he|she|they)\b|\b(?:my|our)\s+{RELATION_PATTERN}s?\b|^\W*[A-Z][a-z]+\s+(?:has|had|is|was|got|quit|left)\b",
    re.IGNORECASE,
)


def changes_work(said: str) -> bool:
    """Whether a sentence of ``said`` speaks of the user's own work changing ("I left the practice,
    I start at the university veterinary hospital in Porto on Monday"), not someone else's."""
    return any(
        _WORK_CHANGE.search(s) and speaks_of_its_writer(s) and not _SOMEONE_ELSE.search(s) for s in sentences(said)
    )


def when_label(line: str) -> bool:
    """Whether ``line``'s label only says when ("Start date: 1st", "Date: January"), or is the
    change itself ("Quit the buses: started as a tram driver in January")."""
    label = line.partition(":")[0]
    said = words(label)
    return bool(said) and (
        all(w in ("start", "starts", "starting", "date", "day", "when") for w in said)
        or bool(_WORK_CHANGE.search(label))
    )


_NO_CONTENT = frozenset(stem(w) for w in "monday tuesday wednesday thursday friday saturday sunday date day".split())


def within(line: str, other: str) -> bool:
    """Whether every word of ``line`` (label and value, days and dates aside) is a word of
    ``other``: "University: Porto" says nothing "Work: vet at the university hospital in Porto" does not."""
    mine = {stem(w) for w in content_words(line.replace(":", " ")) if not w.isdigit()} - _NO_CONTENT
    return bool(mine) and mine <= {stem(w) for w in content_words(other.replace(":", " "))}
