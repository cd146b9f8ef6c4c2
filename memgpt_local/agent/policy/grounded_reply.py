"""Grounded reply: once a turn, an answer about the user that rests on nothing the model can
see is held back, and the model is told to search or say it does not know.

In the conversation evaluation a 1.5B model answered "What's my blood type?" (never said)
with "You are a type O blood.", "Where did I go to university?" with "the University of
Auckland", and "What am I allergic to?" (pollen, said two sessions before) with "peanuts and
eggs". Each reply named things that occur nowhere in its main context: not in the
conversation, the summary, core memory or the results it read. A reply to a question about
the user (one that says "I", "my", "we") is held when a name or number in it, or at least
half of its longer content words, appear nowhere in the prompt it was written from. A reply
that says it does not know is held only for a name or number it claims beside the denial
(``claims_beside_denial``), and the second draft goes out whatever it says.
What the turn's own steps wrote does not count as seen: a guard's notice quotes the draft it
held ("'I went to the University of Oxford.' speaks as if you were the user"), and the
rewritten "You went to the University of Oxford." then passed as grounded.

A question that names one of the user's people by name is about the user too
(``text.named_as_known``: "What's the name of Tomasz's bakery?" under "Partner: Tomasz" got "Tomasz's
bakery is called 'The Baker's Delight'." in a `make run` chat, stop 43). And an answer about one of
the user's people or animals is held when what it says of them no line naming them says
(``unseen_of``): "What does Lendbuel do for work?" got "Lendbuel is a librarian.", the user's own
job (bench_honesty seed 51).

A hold in a turn that has not searched makes the next step a search (``Hold.search_next``):
held for "Ana works as a sound engineer at a theatre." (the user's own job), a redraft said
"Your girlfriend Ana works as a sound engine at a theatre." (a `make run` chat, stop 46). The
redraft's words were banned for one try; a held right answer ("Your tortoise's name is
Momsteo.", a false hold) then came back "indeedMomsteo" (eval chat seed 24), so they are not.

Off until stop 43: on bench_honesty (stops 25-26) it cost 1.5 times the steps for no honesty
gain, when most questions were answered from nothing. Since ``nothing_found`` answers those, it
never fired on 44 turns of seed 50 and 44 of seed 51 (stop 43), so it costs nothing where it is
not needed; on by default since stop 43 (docs/eval/results.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import date
from difflib import SequenceMatcher

from memgpt_local.agent.fact_owners import CLAUSE_SPLIT, individual
from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, StepPlan
from memgpt_local.agent.policy.greet_by_name import human_lines
from memgpt_local.agent.turn import Hold, StepRecord, Turn
from memgpt_local.memory.dates import ISO_DAY, iso_day, with_days_in_full
from memgpt_local.schemas import ChatMessage, NewMessage
from memgpt_local.text import (
    ASKING_WORDS,
    LOWER,
    PETS,
    RELATIONS,
    UPPER,
    asks_for_help,
    content_words,
    denies,
    named_as_known,
    questions,
    sentences,
    stem,
    words,
)

_ABOUT_THE_USER = re.compile(r"\b(?:i|i'm|i've|me|my|mine|we|our|us)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_TOKEN = re.compile(rf"[{UPPER}{LOWER}]+|\d+")
_MARK = "grounded_reply"


def asks_about_the_user(message: str) -> bool:
    """Whether a question of ``message`` asks what memory holds about its writer: it speaks of
    them ("my", "I") and asks for no advice ("What am I allergic to?", not "Any tips for
    sleeping better? I keep waking up")."""
    asked = questions(message)
    return bool(_ABOUT_THE_USER.search(asked)) and not asks_for_help(asked)


def names_and_numbers(text: str) -> list[str]:
    """Capitalised words that do not start a sentence, and numbers."""
    out = []
    for sentence in _SENTENCE.split(text.strip()):
        tokens = _TOKEN.findall(sentence)
        out += [t for i, t in enumerate(tokens) if t.isdigit() or (i > 0 and t[0].isupper() and t != "I")]
    return out


# words of measure and of naming claim nothing alone: "Karim is seven years old." under "Son:
# Karim, seven" was held for "years" (a `make run` chat, stop 44), "Your sister's name is
# Telshoen." under "Sister: Telshoen" for "name" (bench_honesty seed 54)
# and nor do words of feeling: "That's great! I'm glad you enjoy bouldering on Tuesdays." was held
# for "great, glad, enjoy" with the user's message in view, and the redraft denied (`make run`, stop 45)
_SAY_NOTHING = frozenset(
    "year years month months week weeks day days hour hours minute minutes old time times name named called "
    "great glad enjoy enjoying enjoyed happy nice lovely wonderful amazing awesome good fun exciting hope sounds "
    "really".split()
)


def _longer_words(reply: str) -> list[str]:
    """The longer content words of ``reply``'s statements: a question asked back claims nothing
    by its words ("Henri's knee operation is on Thursday, 10 December. Is there anything else
    you'd like to know?" was held for "there, anything, else, like, know", and the redraft
    answered nothing; a `make run` chat, stop 52). Its names and numbers still count."""
    stated = " ".join(s for s in sentences(reply) if not s.endswith("?"))
    return [w for w in content_words(stated) if len(w) > 3 and w not in _SAY_NOTHING]


MISSPELT_RATIO = 0.85  # how alike a long name and a seen word must be to be the same name misspelt


def misspelt(name: str, seen: set[str]) -> bool:
    """Whether ``name`` (six letters or more) is a seen word misspelt: "The boss of Proprock
    Library is Dallkleick Zurasgraton." was held as an invention beside "Proproick Library", and
    the redraft said "I do not know." (eval dmr, second wording, seed 12, stop 51)."""
    lower = name.lower()
    if len(lower) < 6 or not lower.isalpha():
        return False
    return any(
        abs(len(w) - len(lower)) <= 2
        and w[:1] == lower[:1]
        and SequenceMatcher(None, w, lower).ratio() >= MISSPELT_RATIO
        for w in seen
        if len(w) >= 6
    )


def unseen(reply: str, seen_text: str, names_only: bool = False) -> list[str]:
    """The names, numbers and content words of ``reply`` that ``seen_text`` never uses, when
    they are enough to say the reply invents: any name or number, or half its words (unless
    ``names_only``)."""
    # a number seen with its ordinal's letters is seen: "moved to the 22nd" holds the reply's "22"
    # (a `make run` chat, stop 55: the right answer was held and the redraft left the dentist out)
    seen = set(words(seen_text)) | set(re.findall(r"\d+", seen_text))
    names = [w for w in names_and_numbers(reply) if w.lower() not in seen and not misspelt(w, seen)]
    if names or names_only:
        return names
    longer = _longer_words(reply)
    new = [w for w in longer if w not in seen]
    return new if longer and len(new) * 2 >= len(longer) else []


_OWNER_WORDS = RELATIONS | PETS | {"pet"}
_YOURS = frozenset({"my", "our"})


def person_asked(question: str) -> set[str]:
    """The words ``question`` names one of the user's people or animals by: a relation or an
    animal ("brother", "cat") and the names said after a sentence's first word ("What does my
    brother Lendbuel do?": brother, lendbuel). Empty for a question about the user alone."""
    said = words(question)
    # the user's own: "my brother", "our daughter Aria"; "a good first dog" is nobody's (a `make
    # run` chat held tips for a six-year-old's first dog as said of nobody, stop 43)
    relations = {w for i, w in enumerate(said) if w in _OWNER_WORDS and _YOURS & set(said[max(0, i - 3) : i])}
    return relations | {w.lower() for w in names_and_numbers(question) if not w.isdigit()} if relations else set()


_THEIRS = re.compile(r"\b(?:he|she|they|him|her|them|his|hers|their|its)\b", re.I)


def of_them(message: str) -> set[str]:
    """The words a message names one of the user's people by, when its question asks about
    them by a pronoun: "Tomasz is the baker. What's the name of his bakery?" (``named_as_known``
    has made it "my partner Tomasz"; a `make run` chat, stop 43). Empty otherwise."""
    asked = questions(message)
    if not asked or asks_for_help(asked) or not _THEIRS.search(asked):
        return set()
    return person_asked(message)


def unseen_of(reply: str, seen_text: str, person: set[str], question: str, names_only: bool = False) -> list[str]:
    """What ``reply`` says of the ``person`` asked about that no line of ``seen_text`` naming
    them says: any name or number, or half its longer content words (the person's own words
    and the question's aside). "Lendbuel is a librarian." answered "What does Lendbuel do for
    work?" with the user's own job, a word seen only in "Work: librarian" (bench_honesty seed
    51, stop 43)."""
    # "my pet" is whichever animal a line names: "What's my pet's name again?" under "Tortoise:
    # Momsteo" held the right answer as said of nobody (eval chat seed 24, stop 46)
    named = person | (PETS if person & {"pet", "pets"} else set())
    about = [line for line in seen_text.splitlines() if named & set(words(line))]
    # and by the name a line files them under: asked "what does she like to eat?" of "my wife", the
    # lines "Wife: Adaeze" and "Adaeze's likes: spicy food" both say it (a `make run` chat, stop 51)
    known = {one for line in about if (one := individual(line.split("] ", 1)[-1])) is not None} - named
    if known:
        named |= known
        about = [line for line in seen_text.splitlines() if named & set(words(line))]
    said = {stem(w) for line in about for w in words(line)} | {n for line in about for n in re.findall(r"\d+", line)}
    given = {stem(w) for w in words(question)} | {stem(w) for w in person}
    names = [w for w in names_and_numbers(reply) if stem(w.lower()) not in said | given]
    if names or names_only:
        return names
    longer = [w for w in _longer_words(reply) if stem(w) not in given]
    new = [w for w in longer if stem(w) not in said]
    return new if longer and len(new) * 2 >= len(longer) else []


def _speaks_of(clause: str, person: set[str]) -> bool:
    return bool(person & set(words(clause))) or bool(_THEIRS.search(clause))


def said_of_them(reply: str, question: str, person: set[str]) -> str:
    """What ``reply`` says of the ``person`` asked about: all of it, unless ``question`` also
    asks of something else ("When is Noor coming, and when is my dentist now?"); then only its
    clauses that name them or say "she", "they". "... your dentist appointment is moved to the
    22nd" was held as said of Noor, since her line never says 22 (a `make run` chat, stop 55)."""
    if all(_speaks_of(part, person) for part in CLAUSE_SPLIT.split(questions(question)) if words(part)):
        return reply
    return " ".join(c for s in sentences(reply) for c in CLAUSE_SPLIT.split(s) if _speaks_of(c, person))


# where a sentence that denies goes on to claim something: "I don't know what your mother does
# for work, but ... you said your mother runs a pottery studio in Alfama."
_CONTRAST = re.compile(r"[,;]?\s+(?:but|however|although|though)\b,?\s*", re.I)


def claims_beside_denial(reply: str) -> str:
    """What a reply that says it does not know claims beside the denial: its sentences that do
    not deny, and in one that does, what follows "but" ("I don't know what your mother does for
    work, but I can tell you that you said your mother runs a pottery studio in Alfama.", the
    user's own studio, in a `make run` chat, stop 44), or before it ("Your partner Declan is a vet
    nurse in Galway, but I don't know how old he is.", the user's own job: stop 60). Questions
    claim nothing."""
    claimed = []
    for sentence in sentences(reply):
        if sentence.endswith("?"):
            continue
        parts = [sentence] if not denies(sentence) else _CONTRAST.split(sentence)
        claimed += [part for part in parts if part and not denies(part)]
    return " ".join(claimed)


# the numbers a prompt holds that say nothing of the user: a block's size, the time of a message,
# how many messages memory holds, a result's place. "You are 36 years old." went out for "How old
# am I?" with nothing known of the user's age, "36" seen in '<human chars="36/2000">' (a `make
# run` chat, stop 60)
_BOOKKEEPING = re.compile(
    r'\bchars="\d+/\d+"'
    r"|(?<=\d{4}-\d{2}-\d{2} )\d{1,2}:\d{2}(?::\d{2})? UTC"
    r"|\brecall memory: \d+ messages?, archival memory: \d+ passages?"
    r"|\bshowing \d+-\d+ of \d+, page \d+/\d+"
    r"|^\s*\d+\. (?=\[)",
    re.MULTILINE,
)


def without_bookkeeping(text: str) -> str:
    """``text`` less the numbers of bookkeeping (``_BOOKKEEPING``): sizes, times of day, counts."""
    return _BOOKKEEPING.sub(" ", text)


def seen_before_drafting(turn: Turn, prompt: Sequence[ChatMessage]) -> str:
    """The text of ``prompt`` less what the assistant wrote, in this turn's steps (thoughts and
    calls) and before, and the notices of held drafts. Search results and other notices stay."""
    notices = [s.hold.notice for s in turn.steps if s.hold is not None]

    def held(message: ChatMessage) -> bool:  # a hold's notice (it quotes the question too)
        return any(n in message.content for n in notices)

    asked = [
        i
        for i, m in enumerate(prompt)
        if m.role == "user" and turn.question and turn.question in m.content and not held(m)
    ]
    start = asked[-1] + 1 if asked else len(prompt)
    # nor what the assistant said before: a made-up "Tomasz's bakery is called 'The Baker's
    # Delight'." was said again the next day as seen (a `make run` chat, stop 43)
    before = [m for m in prompt[:start] if m.role != "assistant"]
    after = [m for m in prompt[start:] if m.role != "assistant" and not held(m)]
    text = without_bookkeeping("\n".join(m.content for m in [*before, *after]))
    # a day is seen in the words it is said by: "Telshoen is visiting this weekend on 10 May 2025."
    # was held for "May" beside a search hit dated 2025-05-10 (bench_honesty seed 54, stop 44)
    return with_days_in_full(text)


_ISO_DAY = re.compile(r"\b(\d{4})-\d{2}(?:-\d{2})?\b")


def without_iso_days(seen: str) -> str:
    """``seen`` with each YYYY-MM-DD day (said in words beside it) left as its year: the month of
    "2026-12-07" is no "12" ("You're 12 years old." went out, a `make run` chat, stop 60, for a
    dog's "nearly twelve")."""
    return _ISO_DAY.sub(r"\1", seen)


def with_days_away(seen: str, today: date) -> str:
    """``seen`` with how many days (and whole weeks) from ``today`` written after each day it
    dates, on its own line: "Elodie's arrival is 14 days from now." under "moved to the 20th
    (2026-12-20)", said on the 6th, was held for "14", and the redraft did not answer how many
    days (a `make run` chat, stop 52)."""

    def away(match: re.Match[str]) -> str:
        day = iso_day(match)
        if day is None:
            return match[0]
        gap = abs((day - today).days)
        return f"{match[0]} {gap}" + (f" {gap // 7}" if gap and gap % 7 == 0 else "")

    return ISO_DAY.sub(away, seen)


def search_words(question: str) -> str:
    """The words of ``question``'s questions to search by ("Sam's favourite board game"). Told
    only what its held draft made up ("your reply says bouldering, stay, active"), the model
    searched "bouldering" for "What's Sam's favourite board game?" (a `make run` chat, stop 47)."""
    asked = questions(question)
    wanted = {w for w in content_words(asked) if len(w) > 2 and w not in ASKING_WORDS}
    return " ".join(w for w in re.findall(r"[\w'-]+", asked) if re.sub(r"'s$", "", w.lower()) in wanted)


SEARCH_REASON = "search before answering again"


class GroundedReply(Policy):
    name = "grounded_reply"

    def _held_for_search(self, step: StepRecord) -> bool:
        """Whether ``step``'s draft was held here for a search to follow."""
        return step.hold is not None and step.hold.reason == self.name and step.hold.search_next

    def plan(self, turn: Turn, plan: StepPlan) -> StepPlan:
        """After a hold in a turn that has not searched, the next step searches: told "search your
        memory, or tell the user you do not know", the model denied "what pet does my flatmate
        have?" though recall held "my flatmate has one [a cat]", moved out of view into the
        summary by an eviction (a `make run` chat, stop 46). A search that finds nothing is then
        answered by ``nothing_found``."""
        if turn.steps and self._held_for_search(turn.steps[-1]) and "search" in plan.kinds and not plan.last:
            return plan.only("search", reason=SEARCH_REASON)
        return plan

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if step.outcome.searched and len(turn.steps) >= 2 and self._held_for_search(turn.steps[-2]):
            turn.require_step(SEARCH_REASON)  # its results are read, whatever the heartbeat
        return []

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or _MARK in turn.marks or not turn.question:
            return None
        # by name too: "What's the name of Tomasz's bakery?" under "Partner: Tomasz" (stop 43)
        question = named_as_known(turn.question, human_lines(memory))
        if asks_for_help(questions(question)):
            return None
        person = person_asked(questions(question)) or of_them(question)
        if not (asks_about_the_user(question) or person):
            return None
        written = draft.written_after(turn.reply_start)  # "Earlier today, you told me" is no claim
        denied = denies(written)
        claimed = claims_beside_denial(written) if denied else written
        if not claimed:
            return None
        seen = seen_before_drafting(turn, draft.prompt)
        seen = without_iso_days(with_days_away(seen, turn.clock().date()))
        # the persona's lines are the assistant's, no ground for what it says of the user: asked "what
        # do you know about me so far?", it answered "I know you're a warm, curious companion who runs
        # entirely on this computer." (a `make run` chat, stop 61)
        persona = [line for block, line in memory.core_lines() if block == "persona" and line.strip()]
        for line in persona:
            seen = seen.replace(line, " ")
        if persona and not denied and (its_own := unseen(claimed, seen)):
            own = set(words(" ".join(persona)))
            if all(w.lower() in own for w in its_own):
                turn.marks.add(_MARK)
                return Hold(
                    self.name,
                    f"Not sent: your reply says {', '.join(dict.fromkeys(its_own))}, which your persona says of you, "
                    "not of the user. Answer with what your memory says about the user.",
                    "it told the assistant's persona as the user's",
                    hide_draft=True,
                )
        # beside a denial only names and numbers count: "If you tell me, I'll remember it next
        # time." is no claim about the user
        new, of_whom = unseen(claimed, seen, names_only=denied), ""
        if not new and person and (theirs := said_of_them(claimed, question, person)):
            new = unseen_of(theirs, seen, person, question, names_only=denied)
            of_whom = " of them"
        if not new:
            return None
        turn.marks.add(_MARK)
        said = ", ".join(dict.fromkeys(new))
        query = search_words(turn.question) if not turn.searches else ""  # the words the user used
        search = f"search your memory for {json.dumps(query)} now" if query else "search your memory now"
        return Hold(
            self.name,
            f"Not sent: your reply says {said}, which nothing in your memory or this conversation says{of_whom}. "
            f"Answer only from what you can see or find: {search}; if it finds nothing, tell "
            "the user you do not know.",
            "it said things nothing in memory supports",
            hide_draft=True,
            search_next=not turn.searches,
        )
