"""News of the user's people in the notes: a line that names no one filed under the one it tells
of, a day's news of someone saved left out, a death told kept as such, a name that is not the user's."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgpt_local.agent.fact_owners import (
    BARE_NAME,
    OWNED,
    PET_PATTERN,
    animal_label,
    individual,
    individuals,
    label_kinds,
    label_of_line,
    same_kin,
    user_name,
)
from memgpt_local.text import (
    DEATH,
    DIED,
    FIRST_PERSON,
    LOWER,
    PETS,
    RELATIONS,
    UPPER,
    content_words,
    introduced_name,
    normalize_space,
    sentences,
    stem,
    words,
)

_ONE_OFF = re.compile(
    r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening|week|weekend)|yesterday|last\s+night|again)\b",
    re.IGNORECASE,
)


# what makes a day's news last: "Kofi swam his first full length today!" is a milestone of his
# (a `make run` chat, stop 59: dropped as the day's news, and never asked after)
MILESTONE = re.compile(
    r"\b(?:first|for\s+the\s+first\s+time|finally|at\s+last|won|graduated|got\s+engaged|learned\s+to|learnt\s+to)\b",
    re.IGNORECASE,
)


_SHORT_LABEL = 2  # words of a label of the user's own ("Hobby", "Favourite food")
_THEMSELF = re.compile(r"\b(?:herself|himself)\b", re.IGNORECASE)


def another_ones_doing(line: str) -> bool:
    """Whether ``line``, under a label of the user's own (no one's, no relative's or animal's),
    tells what someone did by herself or himself: "Sofie rode a pony by herself for the first
    time" was joined to the user's "Hobby: learning Spanish; riding a pony by herself" (a
    `make run` chat, stop 60). The user speaks of themself as "I", never "herself"."""
    label, colon, value = line.partition(":")
    return bool(colon) and "'" not in label and not label_kinds(label) & OWNED and bool(_THEMSELF.search(value))


def refiled_by_themself(line: str, saved: Sequence[str], said: str) -> str | None:
    """``line`` when it is the user's own; what someone did by herself or himself
    (``another_ones_doing``) filed under the one saved person or animal the sentences that say
    "herself" or "himself" name ("Sofie's hobby: riding a pony by herself" beside "Daughter:
    Sofie"), or None where they name none or several."""
    if not another_ones_doing(line):
        return line
    label, _, value = line.partition(":")
    if len(words(label)) > _SHORT_LABEL:
        return line  # a sentence cut into a label ("Sofie rode apony: by herself ..."): not a note of the user's
    filed = individuals(saved)
    named = {w for s in sentences(said) if _THEMSELF.search(s) for w in words(s) if w in filed}
    if len(named) != 1:
        return None
    return f"{named.pop().capitalize()}'s {label.strip().lower()}:{value}"


def news_of_a_saved_one(line: str, saved: Sequence[str], said: str) -> bool:
    """Whether ``line`` is only today's news of someone a ``saved`` line files, under their bare
    name: "Figo: knocked coffee over" for "Figo knocked my coffee over again this morning", beside
    "Cat: Figo" (``scripts/bench_notes.py``, stop 48). The sentences it comes from all say when,
    and none tells a milestone (``MILESTONE``)."""
    label, colon, value = line.partition(":")
    named = label.strip().lower()
    if not colon or BARE_NAME.match(label) is None:
        return False
    # a saved line files them when it names them under a relation or an animal: "Pet: Ginger cat, Pierogi"
    files = (old.partition(":") for old in saved)
    if not any("'" not in lab and label_kinds(lab) & OWNED and named in words(value) for lab, _, value in files):
        return False
    told = {stem(w) for w in content_words(value)}
    holding = [s for s in sentences(said) if told & {stem(w) for w in words(s)}]
    return bool(holding) and all(_ONE_OFF.search(s) and not MILESTONE.search(s) for s in holding)


def not_the_users_name(line: str, saved: Sequence[str], said: str) -> bool:
    """Whether ``line`` is a "Name:" line with a name the user did not give as their own, where
    the block already knows their name or files that one as someone else: told "Bad news, Bran
    passed away on Sunday." beside "Name: Ruth" and "Collie: Bran", the notes pass wrote "Name:
    Bran", the block's "Name: Ruth" was replaced, and asked "what's my name?" the assistant said
    "Your name is Bran." (a `make run` chat, stop 50)."""
    label, _, value = line.partition(":")
    if words(label) != ["name"] or not words(value):
        return False
    name = words(value)[0]
    introduced = introduced_name(said)
    if introduced is not None and introduced.lower() == name:
        return False
    known = user_name(saved, "").lower()
    if known == name:
        return False
    return bool(known) or any(individual(old) == name for old in saved)


_DATE_NOTE = re.compile(r"\s*\([^()]*\d{4}[^()]*\)")


# a label of some pet's, not one by name: "Pet's condition", "Dog's vet"
_ANY_PETS = re.compile(rf"^(?i:{PET_PATTERN})['’]s\s+(?P<attribute>.+)$")


def their_news(lines: Sequence[str], saved: Sequence[str], said: str) -> list[str]:
    """``lines`` with a line that names nobody labelled with whose it is, when every sentence
    that says its value speaks of one of the user's people or animals a ``saved`` line files and
    not of the user: "Bad news, Bran passed away on Sunday." beside "Collie: Bran" was saved as
    "Death: Sunday" (a `make run` chat, stop 50); "Bran's death: Sunday" is his, and is shown
    beside his line."""
    filed = individuals(saved)
    animals = {individual(line) for line in saved if animal_label(line.partition(":")[0])} - {None}
    out = []
    for line in lines:
        label, colon, value = line.partition(":")
        told = {stem(w) for w in content_words(_DATE_NOTE.sub("", value))}  # not "(2026-12-03)"
        holding = [s for s in sentences(said) if told and told <= {stem(w) for w in words(s)}]
        named = {w for s in holding for w in words(s) if w in filed}
        pets_own = _ANY_PETS.match(label.strip())
        # any sentence with a word of it: "hip pain" is told across two
        near = {w for s in sentences(said) if told & {stem(w) for w in words(s)} for w in words(s) if w in filed}
        near = near or {w for w in words(said) if w in animals}  # "The vet gave him painkillers."
        if colon and pets_own and len(near) == 1 and near <= animals:
            # "Pet's condition: hip pain" for "Bamse had to go to the vet yesterday, his hips are
            # getting worse. The vet gave him painkillers." beside "Dog: Bamse, ..." (a `make run`
            # chat, stop 60): which pet it is
            (one,) = near
            out.append(f"{one.capitalize()}'s {pets_own['attribute']}:{value}")
            continue
        if (
            not colon
            or len(named) != 1
            or any(FIRST_PERSON.search(s) for s in holding)
            or set(words(label)) & (OWNED | filed | {"name", "age"})
            or "'" in label
        ):
            out.append(line)
            continue
        (one,) = named
        out.append(f"{one.capitalize()}'s {label.strip()[:1].lower()}{label.strip()[1:]}:{value}")
    return out


_KIN_OR_PET = "(?:" + "|".join(sorted(RELATIONS | PETS, key=len, reverse=True)) + ")"
# "My wife Michiko passed away two years ago this winter", "my dad died in March", "we lost our cat
# Miso last spring": who died and the user's words for it
_DEATHS = (
    re.compile(
        rf"\b(?i:my|our)\s+(?:[{LOWER}]+\s+){{0,2}}?(?P<kind>(?i:{_KIN_OR_PET}))\s*,?\s*(?P<name>[{UPPER}][{LOWER}]+)?,?\s+"
        rf"(?P<told>{DIED}\b(?:(?!\s+(?:so|and|but|because)\b)[^.,;!?])*)"
    ),
    re.compile(
        rf"\b(?i:we|I)\s+(?P<told>lost)\s+(?i:my|our)\s+(?:[{LOWER}]+\s+){{0,2}}?(?P<kind>(?i:{_KIN_OR_PET}))\s*,?\s*"
        rf"(?P<name>[{UPPER}][{LOWER}]+)?"
        r"(?P<when>[^.,;!?]*)"
    ),
)


def deaths_told(lines: Sequence[str], saved: Sequence[str], said: str) -> list[str]:
    """``lines`` with a death the user told kept on the line of the one who died, in the user's
    words: "My wife Michiko passed away two years ago this winter." was saved "Wife: Michiko" (a
    `make run` chat, stop 54), and a greeting may then ask after her. A line that says nothing of
    them yet is written for them ("Dad: died in March")."""
    out = list(lines)
    for pattern in _DEATHS:
        for m in pattern.finditer(said):
            kind, name = m["kind"].lower(), m["name"]
            told = normalize_space(f"{m['told']}{m.groupdict().get('when') or ''}").rstrip()

            def is_theirs(line: str, kind: str = kind, name: str | None = name) -> bool:
                label = label_of_line(line)
                return "'" not in label and (
                    individual(line) == name.lower() if name else same_kin(kind, set(words(label)))
                )

            theirs = [i for i, line in enumerate(out) if is_theirs(line)]
            if any(DEATH.search(out[i].partition(":")[2]) for i in theirs):
                continue
            if theirs:
                out[theirs[0]] = f"{out[theirs[0]].rstrip()}, {told}"
                continue
            # their saved line, named as it names them: "my dad died in March" beside "Dad: Tom,
            # retired" is "Dad: Tom, died in March", which joins it (a line without the name is kept out)
            filed = [line for line in saved if is_theirs(line)]
            label, who = kind.capitalize(), name
            if len(filed) == 1:
                label = filed[0].partition(":")[0].strip()
                named = re.match(rf"\s*([{UPPER}][{LOWER}]+)\b", filed[0].partition(":")[2])
                who = name or (named[1] if named else None)
            out.append(f"{label}: {', '.join(p for p in (who, told) if p)}")
    return out
