"""Whose relatives the notes file, and under what: a line about someone goes under their name or
their relation as the block already files them, and a relative of one of the user's people
("Callum's wife Fiona") is filed as theirs."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgpt_local.agent.fact_owners import (
    BARE_NAME,
    CALLED,
    POSSESSED,
    RELATION_PATTERN,
    individual,
    individuals,
    leading_name,
)
from memgpt_local.text import CAPITALISED, FIRST_PERSON, LOWER, RELATIONS, UPPER, sentences, words


def under_their_relation(lines: Sequence[str], saved: Sequence[str]) -> list[str]:
    """``lines`` with one filed under the bare name of someone a ``saved`` line (or another of
    ``lines``) files as one of the user's people or animals put under that label, the name
    first: "Agnieszka: got a job at the university in Poznan" beside "Wife: Agnieszka" is "Wife:
    Agnieszka, got a job at the university in Poznan", which joins her line (a `make run` chat,
    stop 49: the line under her name stood apart, and "What does my wife do?" asks "Wife")."""
    filed: dict[str, str] = {}
    for line in [*saved, *lines]:
        one = individual(line)
        if one is not None:
            filed.setdefault(one, line.partition(":")[0].strip())
    out = []
    for line in lines:
        label, colon, value = line.partition(":")
        name = BARE_NAME.match(label)
        relation = filed.get(name[1].lower()) if colon and name else None
        if relation is None or name is None or not value.strip():
            out.append(line)
            continue
        out.append(f"{relation}: {name[1]}, {value.strip()}")
    return out


def by_their_name(lines: Sequence[str], saved: Sequence[str]) -> list[str]:
    """``lines`` with one filed under what someone is to the user ("Son's work") put under their
    name where one line (saved, or of ``lines``) files one person so ("Son: Callum"): told "My son
    Callum lives in Aberdeen, he works on the oil rigs, two weeks on and two weeks off.", the notes
    pass wrote "Callum's work: oil rigs" beside "Son's work: two weeks on and two weeks off" and
    "Son's home: Aberdeen" (a `make run` chat, stop 61), two labels for one man's work. Under his
    name, the lines join his and say no more than his own line where they don't."""
    named: dict[str, set[str]] = {}
    for line in [*saved, *lines]:
        label, _, value = line.partition(":")
        one = individual(line)
        if one is not None and len(CAPITALISED.findall(value.partition(",")[0])) == 1:
            named.setdefault(label.strip().lower(), set()).add(leading_name(value) or one)
    out = []
    for line in lines:
        label, colon, value = line.partition(":")
        possessed = POSSESSED.match(label.strip())
        who = named.get(possessed["owner"].strip().lower(), set()) if colon and possessed else set()
        if possessed is None or len(who) != 1 or words(possessed["attribute"]) == ["name"]:
            out.append(line)
            continue
        out.append(f"{next(iter(who))}'s {possessed['attribute']}:{value}")
    return out


_THEIR_RELATIVE = re.compile(
    rf"\b(?P<owner>[{UPPER}][{LOWER}]+)['’]s\s+(?P<relation>(?i:{RELATION_PATTERN}))(?:{CALLED})?\s*,?\s+"
    rf"(?P<name>[{UPPER}][{LOWER}]+)\b"
)


# "with her husband Mark": whose is the one person named before it in the sentence
_HER_RELATIVE = re.compile(
    rf"\b(?i:her|his)\s+(?P<relation>(?i:{RELATION_PATTERN}))\s*,?\s+(?P<name>[{UPPER}][{LOWER}]+)\b"
)


def _relatives_said(said: str, filed: set[str]) -> list[tuple[str, str, str]]:
    """(owner, relation, name) for each relative ``said`` gives one of the ``filed`` people:
    "Callum's wife Fiona", or "Siobhan lives in Boston with her husband Mark", "her" being the
    one filed person the sentence names before it."""
    found = [(m["owner"], m["relation"].lower(), m["name"]) for m in _THEIR_RELATIVE.finditer(said)]
    for sentence in sentences(said):
        for match in _HER_RELATIVE.finditer(sentence):
            before = [w for w in CAPITALISED.findall(sentence[: match.start()]) if w.lower() in filed]
            if len(set(before)) == 1:
                found.append((before[0], match["relation"].lower(), match["name"]))
    return found


def relatives_of_theirs(lines: Sequence[str], saved: Sequence[str], said: str) -> list[str]:
    """``lines`` with a line for each relative of one of the user's people that ``said`` names
    as theirs ("Callum's wife Fiona") and no line files: told "Callum's wife Fiona is expecting
    their second baby in March.", the notes pass wrote "Fiona's second baby: in March" and never
    whose wife she is (a `make run` chat, stop 61). A line of ``lines`` that gives them to anyone
    else under that relation goes: "Boston's husband: Mark" for "My daughter Siobhan lives in
    Boston with her husband Mark" (the same chat)."""
    known = [*saved, *lines]
    filed = individuals(known)
    out = list(lines)
    for owner, relation, name in _relatives_said(said, filed):
        if owner.lower() not in filed or name.lower() in filed or relation not in RELATIONS:
            continue
        # filed already by whose relative they are ("Callum's wife: Fiona")
        if any(name in line.partition(":")[2] and owner in line.partition(":")[0] for line in known):
            continue
        out = [line for line in out if not _given_to_another(line, relation, name)]
        # before the lines under their name: who Fiona is, then her news
        at = next((i for i, line in enumerate(out) if line.startswith(f"{name}'s ")), len(out))
        out.insert(at, f"{owner}'s {relation}: {name}")
    return out


def _given_to_another(line: str, relation: str, name: str) -> bool:
    """Whether ``line`` files ``name`` as someone's ``relation`` ("Boston's husband: Mark")."""
    label, _, value = line.partition(":")
    possessed = POSSESSED.match(label.strip())
    return possessed is not None and words(possessed["attribute"]) == [relation] and leading_name(value) == name


_CHILD_LABELS = frozenset("son daughter child boy girl baby kid".split())
_OTHERS = re.compile(r"\b(?:they|their|they've|he|his|she|her)\b", re.IGNORECASE)


def children_of_theirs(lines: Sequence[str], saved: Sequence[str], said: str) -> list[str]:
    """``lines`` with a child the user told as someone else's filed as theirs: for "Callum's wife
    Fiona is expecting their second baby in March. They already have a wee boy, Rory, he's four."
    under "Son: Callum", the notes pass wrote "Son: Rory, four", and the next login greeted "I know
    you have a son named Rory" (a `make run` chat, stop 61). Where the sentences that name the
    child say no "I", "my" or "we" but "they", "his" or "her", the child is of the one filed person
    they or the sentence before name: "Callum's son: Rory, four"."""
    filed = individuals([*saved, *lines])
    told = sentences(said)
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        child = individual(line)
        if child is None or words(label) != [label.strip().lower()] or label.strip().lower() not in _CHILD_LABELS:
            out.append(line)
            continue
        naming = [i for i, s in enumerate(told) if child in words(s)]
        others = [s for i in naming for s in (told[i], told[i - 1] if i else "")]
        if (
            not naming
            or any(FIRST_PERSON.search(told[i]) for i in naming)
            or not any(_OTHERS.search(told[i]) for i in naming)
        ):
            out.append(line)
            continue
        parents = {w for s in others for w in CAPITALISED.findall(s) if w.lower() in filed - {child}}
        if len(parents) != 1:
            out.append(line)
            continue
        out.append(f"{parents.pop()}'s {label.strip().lower()}{sep}{value}")
    return out
