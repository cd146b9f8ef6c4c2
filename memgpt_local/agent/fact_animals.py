"""Animals in the notes: only those the user says are theirs are saved, with what kind they are,
and a person filed under an animal goes under their relation."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgpt_local.agent.fact_owners import (
    ANIMAL_WORDS,
    MY_NAMED,
    NAMED_RELATION,
    PET_PATTERN,
    animal_label,
    individual,
    label_kinds,
    leading_name,
)
from memgpt_local.text import LOWER, UPPER, content_words, normalize_space, sentences, stem, words

# words that say an animal is the user's: "my dog", "we adopted him", "a cat called Miso"
_OWNERSHIP = re.compile(
    r"\b(?:my|our|ours|mine|have|has|had|got|get|getting|keep|keeps|kept|adopt\w*|own|owns|rescued|called|named)\b",
    re.IGNORECASE,
)


def owned_animals(lines: Sequence[str], said: str) -> list[str]:
    """``lines`` less the animals the user never said are theirs. A vet's "I
    work as a vet in a small practice outside Porto, mostly cats and dogs but sometimes goats"
    was saved as "Pets: cats, dogs, goats" (a `make run` chat, stop 48). An animal line stays
    when it names the animal, or when a sentence that speaks of it says whose it is ("my", "we
    adopted", "called ...")."""
    kept = []
    for line in lines:
        label, _, value = line.partition(":")
        topic = {stem(w) for w in content_words(f"{label} {value}")} | {stem(w) for w in label_kinds(label)}
        speaking = [s for s in sentences(said) if topic & {stem(w) for w in words(s)}]
        if not animal_label(label) or leading_name(value) is not None or any(_OWNERSHIP.search(s) for s in speaking):
            kept.append(line)
    return kept


# an animal named with what it is: "our rescue greyhound Biscuit", "my old tabby cat, Mango"
# the name in any case: "live in tallinn with my cat pushok" (a `make run` chat, stop 59); only a line's own
# value is looked up, so "my cat is ..." names nothing
_ANIMAL_NAMED = re.compile(
    rf"\b(?i:my|our)\s+(?P<kind>(?:[{LOWER}]+\s+){{0,2}}?(?i:{PET_PATTERN}))\s*,?\s+(?P<name>[{UPPER}{LOWER}][{LOWER}]+)\b(?!')"
)


def animal_kinds(lines: Sequence[str], said: str) -> list[str]:
    """``lines`` with an animal's line that holds only its name given what ``said`` says it is:
    "our rescue greyhound Biscuit" was saved "Pet: Biscuit", and what kind of dog the user has
    was nowhere (a `make run` chat, stop 55); it is "Pet: Biscuit, rescue greyhound"."""
    kinds = {m["name"].lower(): normalize_space(m["kind"]).lower() for m in _ANIMAL_NAMED.finditer(said)}
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        name = value.strip()
        kind = kinds.get(name.lower())
        if not animal_label(label) or kind is None or set(kind.split()) <= set(words(label)):
            out.append(line)
            continue
        out.append(f"{label}{sep} {name}, {kind}")
    return out


def people_not_animals(lines: Sequence[str], saved: Sequence[str], said: str) -> list[str]:
    """``lines`` with a person the user named by relation, filed under an animal, put under that
    relation. Told "My husband Rui is a sound engineer" beside a greyhound,
    the notes pass wrote "Pet: Rui (sound engineer)", and the next message's "Rui's working on a
    film soundtrack right now" replaced "Pet: Tinto (greyhound)" with "Pet: Rui (working on a film
    soundtrack)" (a `make run` chat, stop 48): the dog was gone. A one-word label takes the
    relation; a longer one ("Adopted dog: Rui") is dropped."""
    called = {m["name"].lower(): m["relation"].capitalize() for m in NAMED_RELATION.finditer(said)}
    for line in saved:  # and one a saved line files: "Pet: Tinto (lazy)" beside "Dog: Tinto (greyhound)"
        label, _, value = line.partition(":")
        name = leading_name(value)
        if name and individual(line):
            called.setdefault(name.lower(), label.strip())
    animals = {m["name"].lower() for m in MY_NAMED.finditer(said) if m["kind"].lower() in ANIMAL_WORDS}
    kept = []
    for line in lines:
        label, sep, value = line.partition(":")
        name = leading_name(value)
        relation = called.get(name.lower()) if name else None
        if not animal_label(label) or relation in (None, label.strip()) or name is None or name.lower() in animals:
            kept.append(line)
        elif len(words(label)) == 1:
            kept.append(f"{relation}{sep}{value}")
    return kept
