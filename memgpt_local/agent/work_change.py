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
from memgpt_local.agent.few_shot import few_shot
from memgpt_local.memory.dates import MONTHS, WEEKDAYS
from memgpt_local.schemas import ChatMessage
from memgpt_local.text import LOWER, UPPER, content_words, sentences, speaks_of_its_writer, stem, words

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

    def ask(held: str, said: str) -> str:
        return f"Saved: {held or '(no work saved)'}\nMessage: {json.dumps(said, ensure_ascii=False)}"

    examples = ((ask(held, said), lines) for held, said, lines in WORK_EXAMPLES)
    return few_shot(WORK_INSTRUCTIONS, examples, ask("; ".join(saved), message))


# a sentence in which the user's work changes: "I left the practice", "I start at the hospital on Monday"
_WORK_CHANGE = re.compile(
    r"\b(?:quit|(?:left|leaving)\s+(?:my|the|our)\s+(?:job|work|post|position|role|company|firm|practice|office|clinic"
    r"|school|shop|store|restaurant|bank|hospital|team|lab|studio|stables|garage|agency)|resign\w*|switch\w*\s+(?:to|jobs?)|handed\s+in\s+my\s+notice|retir\w*|laid\s+off|fired|promot\w*|hired"
    r"|(?:got|get|landed|accepted)\s+(?:the|a|a\s+new|my\s+new)\s+(?:job|position|post|role)|new\s+job"
    r"|start(?:s|ing)?\s+(?:at|as|work|my\s+new|a\s+new)|joining|joined)\b",
    re.IGNORECASE,
)
# a sentence that opens with the change leaves out its subject, as people do of themselves:
# "Resigned today.", "Finally quit the bank, I start at a bakery on Monday"
_OPENS_WITH_CHANGE = re.compile(rf"^\W*(?:(?:finally|just|so|also|well)\W+)?(?:{_WORK_CHANGE.pattern})", re.IGNORECASE)


# where a clause begins: the change's subject is said after the last of these before it
_CLAUSE_START = re.compile(r"[,;:\u2013\u2014-]\s|\b(?:and|but|so|because|since|while|as)\s", re.IGNORECASE)
_ME = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|we|we're|we've|our)\b", re.IGNORECASE)
# someone other than the user as a clause's subject: "he", "my wife", a name ("Agnieszka got a job")
_THEIRS = re.compile(rf"\b(?i:(?:my|our)\s+{RELATION_PATTERN}s?)\b")
_OTHER_SUBJECT = re.compile(rf"\b(?i:he|she|they|his|her|their|who)\b|{_THEIRS.pattern}|\b[{UPPER}][{LOWER}]+\b")
_NOT_NAMES = frozenset((*WEEKDAYS, *(m.lower() for m in MONTHS), "big", "news", "guess", "so", "well", "oh"))
# capitalised openers of a sentence without a subject: "Got a new job", "Finally quit the bank"
_OPENERS = frozenset("got finally just also then now after".split())


def _someone_elses_change(sentence: str, start: int) -> bool:
    """Whether the clause of ``sentence`` that holds the change found at ``start`` has someone else
    for its subject: "we're moving to Poznan in March, Agnieszka got a job at the university there"
    speaks of the user ("we") and of his wife's job, and the work question wrote him a job in Poznan
    (a `make run` chat, stop 49)."""
    before = sentence[:start]
    cut = [m.end() for m in _CLAUSE_START.finditer(before)]
    clause = before[cut[-1] if cut else 0 :]
    if _ME.search(_THEIRS.sub(" ", clause)):  # "my wife Jo quit" is not the user's change
        return False
    return any(
        m[0].lower() not in _NOT_NAMES and not (m.start() == 0 and not cut and m[0].lower() in _OPENERS)
        for m in _OTHER_SUBJECT.finditer(clause)
    )


def changes_work(said: str) -> bool:
    """Whether a sentence of ``said`` speaks of the user's own work changing ("I left the practice,
    I start at the university veterinary hospital in Porto on Monday"), not someone else's: the
    change's own clause names no one else as its subject (``_someone_elses_change``)."""
    return any(
        (speaks_of_its_writer(s) or _OPENS_WITH_CHANGE.match(s))
        and any(not _someone_elses_change(s, m.start()) for m in _WORK_CHANGE.finditer(s))
        for s in sentences(said)
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
