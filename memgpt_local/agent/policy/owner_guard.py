"""Owner guard: once a turn, a reply that tells the user, as theirs, what core memory notes of
someone else is held back, and the model is told whose it is.

A `make run` user said "My best friend Nadia is getting married next Sunday and I'm giving a
speech"; core memory held "Best friend: Nadia" and "Wedding: Nadia's getting married next
Sunday (2026-12-06)", and the next login greeted "Hello, Priya! I'm glad you're getting married
next Sunday." A note is about someone else when its label names a relative or friend ("Sister:
Kasia, visiting tomorrow") or it starts with another person's name and "'s" or a verb ("Nadia's
getting married", "Layla's health: ..."). A sentence that speaks to the user ("you", "your")
with two words or more of such a note (its day counts as one: "your wedding next Sunday"), and
names neither that person nor the relation, gives the user someone else's news.

The reply is written before the notes pass saves what the message told, so the message's own
clauses about someone named count too ("Sam got a job at the university in Bath" answered "Let's
talk about your new job at the university in Bath."), when the reply says them as "your ...".

The other way round, a reply that calls the user's partner someone else's ("his partner Ewa",
"Kuba's partner Ewa") is held too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from memgpt_local.agent.fact_owners import CLAUSE_SPLIT, NOT_A_NAME, RELATION_PATTERN, pronouns_named
from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_before
from memgpt_local.agent.policy.greet_by_name import human_lines, known_name
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import (
    FIRST_PERSON,
    KIN_ADJECTIVE,
    LOWER,
    PETS,
    RELATIONS,
    UPPER,
    WHEN_WORDS,
    content_words,
    sentences,
    statements,
    stem,
    stems_said_otherwise,
    words,
)

# a person's name at the start of a label or value, as its subject: "Nadia's ...", "Tom is ..."
# the user's word for someone before their name: "Our daughter Carla"
_WHOSE = re.compile(rf"^(?i:(?:my|our)\s+(?:{KIN_ADJECTIVE}\s+)?{RELATION_PATTERN}s?)\s+(?=[{UPPER}])")
_SUBJECT = re.compile(
    rf"^([{UPPER}][{LOWER}]+)(?:'s\b|\s+(?:is|was|has|had|will|and|got|gets|lives|lived|works|worked|moved)\b)"
)
# where someone lives or works, told of them, and said as the user's: "Luis lives in Alicante."
# answered "How do you like living in Alicante?" (a `make run` chat, stop 58)
_LIVES_OR_WORKS = re.compile(r"\b(?:lives|lived|works|worked|moved)\b", re.IGNORECASE)
_YOU_LIVE_OR_WORK = re.compile(
    r"\byou(?:'re|\s+are)?\b[^.!?]*?\b(?:live|living|work|working|moved)\s+(?:in|at|near|to|from|for|on|as)\b"
    r"|\byou(?:'re|\s+are)\s+(?:in|at|from)\b",
    re.IGNORECASE,
)
# a note of where someone lives or works: one place said as the user's tells it ("Luis's home:
# Alicante" was greeted "I'm glad to hear that you're in Alicante.", a `make run` chat, stop 58)
_LIVING_OR_WORKING = frozenset(stem(w) for w in "live lives living lived work works working worked".split())
_HOME_OR_WORK = frozenset(stem(w) for w in "home lives live address work works job".split())
# a note of someone's job: "Wife: Efua, is a pharmacist"
_IS_A = re.compile(r"(?:^|[,:]\s*|\s)(?:is|was)\s+an?\s+\w+", re.IGNORECASE)
_TO_THE_USER = re.compile(r"\b(?:you|you're|your|yours|yourself)\b", re.IGNORECASE)
SHARED_WORDS = 2  # words of the note's value a sentence must say to be telling it
_LIKING_LABELS = frozenset(stem(w) for w in "hobby hobbies interest interests favourite favorite passion".split())
_YOU_LIKE = re.compile(
    r"\byou(?:'re|\s+are)?\s+(?:really\s+|also\s+|still\s+)?(?:like|love|enjoy|into|fond\s+of|passionate\s+about)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Owned:
    """A core-memory note about someone other than the user."""

    line: str
    owner: str  # how to name them to the model: "Nadia", "their sister"
    terms: frozenset[str]  # words that name them: the name, the relation (lower case)
    words: frozenset[str]  # the stems of the note's other content words, its label's included
    when: frozenset[str]  # its words of when: "sunday", "2026-12-06"
    told: bool = False  # a clause of the user's message, not a saved note


_DAYS = WHEN_WORDS - {"next", "last", "this", "coming", "week", "weekend", "month", "year"}


def _when_words(text: str) -> set[str]:
    """The days ``text`` names: weekdays, months, "tomorrow", ISO dates."""
    return {w for w in words(text) if w in _DAYS} | set(re.findall(r"\d{4}-\d\d-\d\d", text))


# what a user has rather than who they know: "Cat's name: Filpeard" is the user's own note (eval chat
# seed 8 held "Your pet's name is Filpeard." for it)
_THINGS = PETS | frozenset("car bike house flat garden plant".split())


def owned_by_another(line: str, user_name: str | None) -> Owned | None:
    """``line`` as a note about someone other than the user, else None."""
    label, sep, value = line.partition(":")
    if not sep:
        return None
    user = (user_name or "").lower()
    relations = [w for w in words(label) if w in RELATIONS]
    names = [
        m[1]
        for text in (label.strip(), value.strip())
        if (m := _SUBJECT.match(text)) and m[1].lower() != user and m[1].lower() not in _THINGS
    ]
    if relations:  # "Best friend: Nadia, getting married": the value's first name is theirs
        names += [w for w in re.findall(rf"\b[{UPPER}][{LOWER}]+\b", value)[:1] if w.lower() != user]
    if not relations and not names:
        return None
    terms = frozenset(w.lower() for w in [*names, *relations])
    said = content_words(f"{label} {value}")
    what = frozenset(stem(w) for w in said if len(w) > 2 and w not in terms and w not in WHEN_WORDS and not w.isdigit())
    owner = names[0] if names else f"their {relations[-1]}"
    return Owned(line, owner, terms, what, frozenset(_when_words(value)))


def owned_notes(lines: Sequence[str], user_name: str | None) -> list[Owned]:
    """The notes of ``lines`` about someone other than the user, each also named by the
    relation another note gives that person ("Best friend: Nadia" makes "your best friend's
    wedding" name the owner of "Wedding: Nadia's getting married")."""
    # what the user has and names in a note of its own ("Ferret: Stouwia"): "Ferret's job: boss of the
    # house" is about the user's ferret (eval chat seed 14 held "Your pet's name is Stouwia.")
    theirs = {
        label.strip().lower()
        for label, _, value in (line.partition(":") for line in lines)
        if len(words(label)) == 1 and label.strip().lower() not in RELATIONS and value.strip()[:1].isupper()
    }
    notes = [n for line in lines if (n := owned_by_another(line, user_name)) and n.owner.lower() not in theirs]
    relations: dict[str, set[str]] = {}
    for note in notes:
        related = {t for t in note.terms if t in RELATIONS}
        for name in note.terms - related:
            relations.setdefault(name, set()).update(related)
    return [replace(n, terms=n.terms.union(*(relations.get(t, set()) for t in n.terms))) for n in notes]


_YOUR_THING = re.compile(r"\byour((?:\s+[\w-]+){1,3})", re.IGNORECASE)


def _named(text: str) -> set[str]:
    """The stems of the names and places ``text`` says ("your move to Bath" is the user's own)."""
    return {stem(w.lower()) for w in re.findall(rf"\b[{UPPER}][{LOWER}]+", text)}


def told_of_others(message: str, lines: Sequence[str], user_name: str | None) -> list[Owned]:
    """The clauses of ``message`` (the user's statements) whose subject is someone else named,
    as notes about them: the reply is written before the notes pass saves them, and "Sam got a
    job at the university in Bath" was answered "Let's talk about your new job at the university
    in Bath." (a `make run` chat, stop 55). Not a clause that also speaks of the user ("Sam and I
    went ..."), nor one about an animal a saved line names ("Pet: Biscuit")."""
    animals = {
        w
        for label, _, value in (line.partition(":") for line in lines)
        if set(words(label)) & (PETS | {"pet", "pets"})
        for w in words(value)
    }
    found = []
    for sentence in sentences(statements(message)):
        for said in CLAUSE_SPLIT.split(sentence):
            # "Our daughter Carla lives in London" is of Carla: "How do you like living in London?"
            # answered it (a `make run` chat, stop 60)
            whose = _WHOSE.match(said.strip())
            clause = said.strip()[whose.end() :] if whose else said.strip()
            subject = _SUBJECT.match(clause)
            if subject is None or FIRST_PERSON.search(clause) or subject[1].lower() in animals | NOT_A_NAME:
                continue
            note = owned_by_another(f"{subject[1]}: {clause.strip()}", user_name)
            if note is not None:
                # and by the word the user said them by: "I'm glad your granddaughter is starting
                # university." names her (a `make run` chat, stop 61, held it as the user's news)
                said_as = frozenset(w for w in words(whose[0]) if w in RELATIONS) if whose else frozenset()
                found.append(replace(note, line=clause.strip(), told=True, terms=note.terms | said_as))
    return found


def told_as_users(reply: str, notes: Sequence[Owned]) -> tuple[str, Owned] | None:
    """The sentence of ``reply`` (or its clause) that tells the user one of ``notes`` as their own, and the note."""
    for whole in sentences(reply):
        # its clauses too: "I know the following about you: Your name is Kwame, you work as a
        # pharmacist, ..., your wife is Efua, ..." named the wife in the sentence that gave the
        # user her job (a `make run` chat, stop 59)
        clauses = [c for c in CLAUSE_SPLIT.split(whole) if c.strip()]
        for sentence in [whole, *(clauses if len(clauses) > 1 else [])]:
            found = _told_as_users(sentence, notes)
            if found is not None:
                return sentence.strip(), found
    return None


def _told_as_users(sentence: str, notes: Sequence[Owned]) -> Owned | None:
    """The note of ``notes`` that ``sentence`` (a sentence or a clause) tells the user as their own."""
    if not _TO_THE_USER.search(sentence):
        return None
    said = set(words(sentence))
    said_stems = {stem(w) for w in content_words(sentence) if len(w) > 2}
    for note in notes:
        if note.terms & said or {stem(t) for t in note.terms} & said_stems:
            continue  # it names them: "your sister", "Nadia's wedding"
        # a liking said as the user's says the label of one: "you like to ride horses" tells "Sofie's
        # hobby: horses" (a `make run` login, stop 60, greeted the user with the daughter's hobby)
        liked = note.words & _LIKING_LABELS if _YOU_LIKE.search(sentence) else set()
        shared = len(note.words & (said_stems | liked))  # a day in common counts once: "your wedding on Sunday"
        # what the user just told of someone is theirs only said as "your ...": "Are you moving to
        # Bath for the job?" asks about it
        your_things = note.words & stems_said_otherwise(" ".join(m[1] for m in _YOUR_THING.finditer(sentence)))
        yours = (
            not note.told
            or bool(your_things - _named(note.line))
            or bool(_LIVES_OR_WORKS.search(note.line) and _YOU_LIVE_OR_WORK.search(sentence))
        )
        if shared and shared + bool(note.when & _when_words(sentence)) >= SHARED_WORDS and yours:
            return note
        # and one word of it said as the user's is enough when the user has just told it as
        # someone else's: "my big brother Omar is getting married in May" was answered "How do you
        # plan to celebrate your wedding?" (a `make run` chat, stop 62)
        if note.told and your_things - _named(note.line):
            return note
        where = note.words & _HOME_OR_WORK or _LIVES_OR_WORKS.search(note.line) or _IS_A.search(note.line)
        # asked, a question tells only what it names beyond living or working: "What are you working on
        # right now?" is no "works crazy shifts" of the girlfriend's (a `make run` greeting, stop 60),
        # "How do you like living in London?" is the daughter's London (the same day)
        asked = sentence.strip().endswith("?")
        named = note.words & said_stems - _LIVING_OR_WORKING if asked else True
        if shared and where and named and _YOU_LIVE_OR_WORK.search(sentence):
            return note
    return None


# a relation one person has to the user alone: the user's partner is nobody else's (a son is also
# the partner's son, a sister also the brother's sister)
_ONES_OWN = frozenset("wife husband partner spouse fiance fiancee boyfriend girlfriend".split())
_GIVEN_TO = re.compile(rf"\b(his|her|their|[{UPPER}][{LOWER}]+'s)\s+(\w+)\s+([{UPPER}][{LOWER}]+)\b")


def users_own_given_away(reply: str, lines: Sequence[str]) -> tuple[str, str, str] | None:
    """(the sentence, the name, its relation) where ``reply`` calls the user's partner (a note
    "Partner: Ewa, ...") someone else's: "Your son Kuba is seven and his partner Ewa is coaching
    his team." (a `make run` chat, stop 56)."""
    own = {
        value.strip().split()[0].strip(",.;"): label.strip().lower()
        for label, _, value in (line.partition(":") for line in lines)
        if label.strip().lower() in _ONES_OWN and value.strip()[:1].isupper()
    }
    for sentence in sentences(reply):
        for whose, relation, name in _GIVEN_TO.findall(sentence):
            if own.get(name) == relation.lower() and whose.lower() != "your":
                return sentence, name, relation.lower()
    return None


class OwnerGuard(Policy):
    name = "owner_guard"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name]:
            return None
        user = known_name(memory)
        lines = human_lines(memory)
        given = users_own_given_away(draft.message, lines)
        if given is not None:
            sentence, name, relation = given
            return Hold(
                self.name,
                f"Not sent: your reply called {name}, the user's {relation}, someone else's: "
                f'{sentence.strip()!r}. Write it again: {name} is the user\'s {relation}, "your {relation} {name}".',
                f"it called the user's {relation} someone else's",
                hide_draft=True,
                keeps_words=True,
            )
        # "he" and "she" read as whom they mean: "He lives in Alicante." after "I don't know where
        # Luis lives." was answered "How do you like living in Alicante?" (a `make run` chat, stop 58)
        told = pronouns_named(turn.question or "", user or "", reply_before(turn, memory))
        notes = owned_notes(lines, user) + told_of_others(told, lines, user)
        found = told_as_users(draft.message, notes)
        if found is None:
            return None
        sentence, note = found
        who, whose = (user, f"{user}'s") if user else ("them", "theirs")
        owner = note.owner.replace("their ", "your ")
        if turn.kind == "login" and user:
            # the words to go on from, and a short notice: with the note quoted and "not the user's",
            # the model copied both into the greeting after "Hello Mei! Wen"; "I hope Wen" ran on
            what, start = "greeting", f" Start with: Hello {user}! How is {owner}"
        elif note.told:
            what, start = "reply", f' The user said this of {note.owner}: "{note.line}".'
        else:
            what, start = "reply", f' The note is about {note.owner}: "{note.line}".'
        return Hold(
            self.name,
            f"Not sent: your {what} told {who} {note.owner}'s news as if it were {whose}: {sentence.strip()!r}. "
            f"Write it again.{start}",
            f"it gave the user news of {note.owner}",
            hide_draft=True,
            keeps_words=True,
        )
