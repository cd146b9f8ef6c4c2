"""Whose fact is it: the notes pass's lines checked against who the user said things of.

A 1.5B model fits what the user says of their people into whatever labels its examples hold:
"Son: Ines" for "my daughter Ines", "Son: once drove dad's car into a pond" where "he" was a
brother, "Friend: Tomasz" for a saved partner, "Marine biologist: Tomasz" for the user's own
job. Each function here takes the lines of one pass and what the user ``said`` and puts the
people right, or drops a line that is about nobody the user spoke of.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memgpt_local.memory.dates import HOLIDAY_WORDS, MONTHS, WEEKDAYS
from memgpt_local.text import (
    CAPITALISED,
    FIRST_PERSON,
    LOWER,
    PETS,
    RELATIONS,
    SENTENCE_OPENERS,
    STOPWORDS,
    UPPER,
    WHEN_WORDS,
    content_words,
    introduced_name,
    sentences,
    stem,
    words,
)

RELATION_PATTERN = "(?:" + "|".join(sorted(RELATIONS, key=len, reverse=True)) + ")"
# the user's people and animals as a clause's subject: "my sister", "our old cat" ("our old cat Mimi is
# 14 and the vet says her kidneys are failing" was saved "Age: 14" beside "Cat: Mimi, 14", a `make run`
# chat, stop 64)
_KIN_OR_PET = "(?:" + "|".join(sorted(RELATIONS | PETS, key=len, reverse=True)) + ")"
_SUBJECT_ADJECTIVES = "(?:old|little|big|new|eldest|youngest|older|younger|oldest|baby|dear)"


def value_stems(line: str) -> set[str]:
    """The stems of the content words of ``line``'s value (after its first colon)."""
    return {stem(w) for w in content_words(line.partition(":")[2])}


# "my wife Efua", "my wife, Efua", and "my wife's called Efua" (a `make run` chat, stop 59)
CALLED = r"(?:['’]s\s+called|\s+is\s+called|\s+is\s+named|['’]s\s+name\s+is|\s+name\s+is)"
NAMED_RELATION = re.compile(
    rf"\b(?i:my\s+(?P<relation>{RELATION_PATTERN})(?:{CALLED})?)\s*,?\s+(?P<name>[{UPPER}][{LOWER}]+)\b"
)


def _in_case_of(word: str) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` replacement: ``word``, capitalised where the match was."""
    return lambda m: word.capitalize() if m[0][0].isupper() else word


def said_relations(lines: Sequence[str], said: str) -> list[str]:
    """``lines`` with a relation in a label that the user gave someone else put right: for "my
    daughter Ines turns seven next Tuesday" a `make run` chat saved "Son: Ines" (the notes
    examples hold a son). A label's relation stays when the user said it, or when the user
    named the person in its line with no relation at all."""
    called = {m["name"]: m["relation"].lower() for m in NAMED_RELATION.finditer(said)}
    heard = set(words(said))
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        for word in words(label):
            if word not in RELATIONS:
                continue
            said_as = next((rel for name, rel in called.items() if name in value or name in label), None)
            # a relation the user said of another stays, unless the line names one the user gave
            # another relation: "My wife's called Efua, ... My mother is flying in ..." saved
            # "Mother: Efua, works as a pharmacist" (a `make run` chat, stop 59)
            said_of_another = word in heard or f"{word}s" in heard
            if said_of_another and not (said_as is not None and leading_name(value) in called):
                continue
            if said_as is not None and said_as != word:
                label = re.sub(rf"\b{word}\b", _in_case_of(said_as), label, flags=re.IGNORECASE)
        out.append(f"{label}{sep}{value}")
    return out


_RELATIVES_THING = re.compile(
    rf"\b(?i:(?:my|our)\s+(?P<relation>{RELATION_PATTERN}))\s*,?\s+(?P<name>[{UPPER}][{LOWER}]+)['’]s\s+\w"
)


def relatives_not_their_things(lines: Sequence[str], said: str) -> list[str]:
    """``lines`` with a relative filed under what the user said of them put back to the person:
    for "My partner Ewa coaches our son Kuba's football team" a `make run` chat saved "Son:
    Kuba's football team" (stop 56); the son is Kuba. A line whose label is the relation alone
    and whose value opens with the possessive the user said after it ("our son Kuba's ...") files
    the person."""
    owned = {(m["relation"].lower(), m["name"]) for m in _RELATIVES_THING.finditer(said)}
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        possessive = re.match(rf"\s*([{UPPER}][{LOWER}]+)['’]s\s", value)
        if sep and possessive and (label.strip().lower(), possessive[1]) in owned:
            line = f"{label}{sep} {possessive[1]}"
        out.append(line)
    return out


# the words for one kind of relative: "Mum" is heard in "my mother"
_KIN_GROUPS = (
    "mother mum mom mama mummy mommy parent parents",
    "father dad papa daddy parent parents",
    "son sons daughter daughters child children kid kids baby girl girls boy boys lad lads twins",
    "sister brother sibling siblings twin",
    "grandmother grandma gran granny nan grandparent grandparents",
    "grandfather grandpa grandad granddad grandparent grandparents",
    "wife husband partner spouse",
    "fiance fiancee",
    "aunt auntie",
    "uncle",
    "cousin",
    "niece nephew",
    "stepson stepdaughter stepmother stepfather",
)
_KIN: dict[str, frozenset[str]] = {}
for _group in _KIN_GROUPS:
    for _word in _group.split():
        _KIN[_word] = _KIN.get(_word, frozenset()) | frozenset(_group.split())
# but not by the words of the other sex: "coach my daughter's under-12 football team" was saved "Son:
# daughter's under-12 football team" (a `make run` chat, stop 62)
_SONS, _DAUGHTERS = frozenset("son sons boy boys lad lads".split()), frozenset("daughter daughters girl girls".split())
_OTHER_SEX = {
    **{word: _DAUGHTERS for word in _SONS},
    **{word: _SONS for word in _DAUGHTERS},
    "brother": frozenset({"sister", "sisters"}),
    "sister": frozenset({"brother", "brothers"}),
    "wife": frozenset({"husband"}),
    "husband": frozenset({"wife"}),
}
for _word, _other in _OTHER_SEX.items():
    _KIN[_word] = _KIN[_word] - _other


def unheard_kin(line: str, said: str, saved: Sequence[str] = ()) -> bool:
    """Whether ``line``'s label names a relative the user did not speak of in ``said`` (no
    word for that kind of relative): for "We grew up in Wroclaw and he once drove my dad's car
    into a pond", "he" being the brother of an earlier message, a `make run` chat saved "Son:
    once drove dad's car into a pond" (the notes examples hold a son). Such a line is about
    someone else than the model says; ``said_relations`` first renames one the user named. A
    line about someone a ``saved`` line files under that label is theirs ("Husband: Rui (working
    on a film soundtrack)" beside "Husband: Rui (sound engineer)", for "Rui's working on ...")."""
    one = individual(line)
    if one is not None and any(label_of_line(old) == label_of_line(line) and individual(old) == one for old in saved):
        return False
    heard = set(words(said))
    heard |= {w[:-1] for w in heard if w.endswith("s")}
    # and a relation by the name of the one a saved line files under it: "Partner's dad: had a stroke"
    # for "Sami's dad had a stroke ..." beside "Partner: Sami" (bench_notes relatives-held, stop 62)
    heard |= {
        word
        for old in saved
        if (one := individual(old)) is not None and one in heard
        for word in words(label_of_line(old))
    }
    return any(word in _KIN and not _KIN[word] & heard for word in words(line.partition(":")[0]))


POSSESSED = re.compile(r"^(?P<owner>[\w -]+?)'s\s+(?P<attribute>.+)$")
_WORK_WORDS = frozenset("job jobs work profession career occupation role".split())


def label_of_line(line: str) -> str:
    """``line``'s label, lowercase and trimmed."""
    return line.partition(":")[0].strip().lower()


def _first_word(text: str) -> str:
    said = words(text)
    return said[0] if said else ""


def refiled(line: str, lines: Sequence[str], said: str) -> str | None:
    """``line`` filed rightly, beside the other ``lines``, when the model filed it under an
    attribute of someone's that the user never said ("Sister's job"): the person's own line
    again, its value beginning with the name another line gives them, goes under their label
    ("Sister's job: Vanbuton, visiting this weekend" is "Sister: Vanbuton, visiting this
    weekend", for "My sister Vanbuton is visiting this weekend."), and a job given to an animal
    is no fact (None: "Stoxraette's job: boss of the house" beside "Tortoise: Stoxraette", for
    "she's the boss of the house"). Both were saved in an eval chat (seed 16), and "What's my
    sister's name?" was answered "... and she works as Vanbuton, visiting this weekend."."""
    label, _, value = line.partition(":")
    possessed = POSSESSED.match(label.strip())
    if possessed is None:
        return line
    heard = {stem(w) for w in words(said)}
    attribute = [w for w in words(possessed["attribute"]) if w not in STOPWORDS]
    if not attribute or all(stem(w) in heard for w in attribute):
        return line
    owner = possessed["owner"].strip().lower()
    others = [other.partition(":") for other in lines if other != line]
    own_label = next(
        (lab.strip() for lab, _, v in others if lab.strip().lower() == owner and _first_word(v) == _first_word(value)),
        None,
    )
    if own_label is not None:
        name, _, rest = value.strip().partition(" ")
        if _only_when(rest):
            # "Sister's wedding: Anjali, in June" for "My sister Anjali is getting married in June": without
            # its label's word the day tells nothing ("Sister: Anjali; in June", a `make run` chat, stop 55)
            return f"{own_label}: {name} {' '.join(attribute)} {rest.strip()}"
        return f"{own_label}:{value}"
    animals = {_first_word(v) for lab, _, v in others if set(words(lab)) & (PETS | {"pet", "pets"})}
    if (owner in PETS or owner in animals) and _WORK_WORDS & set(attribute):
        return None
    return line


_ISO_DAY_NOTE = re.compile(r"\(?\d{4}-\d\d(?:-\d\d)?\)?")


def _only_when(text: str) -> bool:
    """Whether ``text`` says no more than a day: "in June (2027-06)", "on the 3rd"."""
    said = words(_ISO_DAY_NOTE.sub(" ", text))
    return bool(said) and all(w in WHEN_WORDS or w in STOPWORDS or w[:1].isdigit() for w in said)


_POSSESSIVE_START = re.compile(r"^\s*[\w-]+['’]s\b")


def kept_relations(lines: Sequence[str], saved: Sequence[str], said: str) -> list[str]:
    """``lines`` with a relation the user did not say, given to someone a ``saved`` line gives
    another, put back: told "Tomasz is the baker! His bakery is called Rewena & Rye." under
    "Partner: Tomasz", the notes pass wrote "Friend: Tomasz", "Friend's job: baker" and
    "Friend's bakery: Rewena & Rye" (a `make run` chat, stop 43); they read "Partner: ...",
    "Partner's job: ...", "Partner's bakery: ...". A relation the user said stays (a change)."""
    heard = set(words(said))
    known: dict[str, str] = {}
    for line in saved:
        label, _, value = line.partition(":")
        if set(words(label)) & RELATIONS and "'" not in label:
            known.setdefault(_first_word(value), label.strip())
    swaps: dict[str, str] = {}
    for line in lines:
        label, _, value = line.partition(":")
        said_as = [w for w in words(label) if w in RELATIONS and w not in heard and f"{w}s" not in heard]
        # "Father: Elodie's dad" is of Elodie's father, not of Elodie ("Granddaughter: Elodie's
        # dad" then replaced her line and its plan, a `make run` chat, stop 52)
        saved_as = None if _POSSESSIVE_START.match(value) else known.get(_first_word(value))
        if len(words(label)) == 1 and said_as and saved_as and saved_as.lower() != label.strip().lower():
            swaps[said_as[0]] = saved_as
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        for word, saved_as in swaps.items():
            label = re.sub(rf"\b{word}\b", _in_case_of(saved_as.lower()), label, flags=re.IGNORECASE)
        out.append(f"{label}{sep}{value}")
    return out


BARE_NAME = re.compile(rf"^\s*([{UPPER}][{LOWER}]+)\s*$")
OWNED = RELATIONS | PETS | {"pet", "pets"}  # label words that name one of the user's people or animals


def files_a_saved_person(line: str, saved: Sequence[str]) -> bool:
    """Whether ``line`` is only the name of someone a ``saved`` line gives under a relation or
    an animal, filed under a label that is neither: told "I'm the marine biologist, remember!
    Tomasz is the baker." under "Partner: Tomasz", the notes pass wrote "Marine biologist:
    Tomasz" and "Baker: Tomasz" (a `make run` chat, stop 43); the first is wrong, and neither
    reads as a fact about anyone."""
    label, colon, value = line.partition(":")
    name = BARE_NAME.match(value)
    if not colon or name is None or set(words(label)) & (OWNED | {"name"}):
        return False
    owners = (other.partition(":") for other in saved)
    return any(set(words(lab)) & OWNED and _first_word(value) == name[1].lower() for lab, _, value in owners)


# words that start a sentence with a capital and name nobody: "Sunday's match is at three"; "It's
# Spirited Away." was filed as "It's favourite film" (a `make run` chat, stop 55)
NOT_A_NAME = (
    frozenset(
        (*WEEKDAYS, *(month.lower() for month in MONTHS), "today", "tomorrow", "tonight", "yesterday", "everyone")
    )
    | STOPWORDS
    | frozenset("he she there here".split())
    # words that open a sentence capitalised: "Right now a big oak table for a café." filed the
    # daughter's help as "Right's ..." (a `make run` chat, stop 58)
    | SENTENCE_OPENERS
    | frozenset(
        "right just now so anyway honestly also still actually yes no oh maybe everything nothing something "
        "someone somebody everybody nobody work home".split()
    )
)
PET_PATTERN = "(?:" + "|".join(sorted(PETS | {"pet"}, key=len, reverse=True)) + ")"
# someone named with who they are to the user: "my partner Sam", "our rabbit, Biscuit"
MY_NAMED = re.compile(
    rf"\b(?i:(?:my|our)\s+(?P<kind>{RELATION_PATTERN}|{PET_PATTERN}))\s*,?\s+(?P<name>[{UPPER}][{LOWER}]+)\b(?!')"
)


def _files(line: str, name: str, kind: str) -> bool:
    """Whether ``line`` files ``name`` as one of the user's people or animals: "Partner: Sam,
    a nurse", "Sam: my partner"."""
    label, _, value = line.partition(":")
    in_label, in_value = set(words(label)), set(words(value))
    return bool(in_label & OWNED and name in in_value) or (name in in_label and kind in in_value)


def named_people(lines: Sequence[str], saved: Sequence[str], said: str) -> list[str]:
    """``lines`` and a "Relation: Name" line for each person or animal ``said`` names with who
    they are ("my partner Sam", "our rabbit Biscuit") that no line, saved or new, files under a
    relation or an animal. For "I live with my partner Sam and our rabbit Biscuit" a `make run`
    chat saved only "Home: Norwich (lives with Sam and Biscuit)"; the user moved, that line was
    replaced, both were gone, and "What's Sam's favourite board game?" was answered with a game
    from the assistant's own gift ideas (stop 47)."""
    out = list(lines)
    for match in MY_NAMED.finditer(said):
        kind, name = match["kind"].lower(), match["name"]
        if name.lower() in NOT_A_NAME or any(_files(line, name.lower(), kind) for line in [*saved, *out]):
            continue
        out.append(f"{kind.capitalize()}: {name}")
    return out


_HE_OR_SHE = re.compile(r"^(?:he|she)(?:'s)?\b", re.IGNORECASE)
# who an earlier sentence speaks of: "Sam's birthday", "my partner Sam", "my sister"
_SPOKEN_OF = re.compile(
    rf"\b(?P<owner>[{UPPER}][{LOWER}]+)'s\b|\b(?i:(?:my|our)\s+(?P<kind>{RELATION_PATTERN}))(?:\s*,?\s+(?P<name>[{UPPER}][{LOWER}]+))?\b"
)


def _last_spoken_of(text: str) -> str | None:
    """The person ``text`` speaks of last, by name where it gives one."""
    found = None
    for match in _SPOKEN_OF.finditer(text):
        who = match["owner"] or match["name"] or match["kind"].lower()
        if who.lower() not in NOT_A_NAME:
            found = who
    return found


def someone_elses(lines: Sequence[str], said: str, user: str = "", named: str = "") -> list[str]:
    """``lines`` with a fact the user told of someone else, in a sentence that begins "He" or
    "She" and says nothing in the first person, filed under that person: for "Sam's birthday is
    next Saturday and I have no idea what to get him. He loves board games and cooking." a
    `make run` chat added "board games and cooking" to the user's own "Hobbies" line (stop 47);
    it is "Sam's hobbies: board games and cooking". A line whose label already names someone
    stays; one whose person no earlier sentence names is dropped. ``user`` is the user's own
    name ("Sam here! He ..." never makes a line Sam's). ``named`` is ``said`` with whom its
    pronouns mean put in (``pronouns_named``): its subject is the owner ("it's Julien, he's
    Elodie's dad. he's a cardiologist in Lyon." is Julien's job, not Elodie's; stop 52)."""
    told = sentences(said)
    resolved = sentences(named) if named else []
    resolved = resolved if len(resolved) == len(told) else []
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        about = value_stems(line)
        if not about or set(words(label)) & (OWNED | {"name"}) or "'" in label:
            out.append(line)
            continue
        holding = [i for i, s in enumerate(told) if len(about & {stem(w) for w in words(s)}) * 2 >= len(about)]
        theirs = [i for i in holding if _HE_OR_SHE.match(told[i]) and not FIRST_PERSON.search(told[i])]
        if not holding or theirs != holding:
            out.append(line)
            continue
        subject = _NAMED_SUBJECT.match(resolved[theirs[0]]) if resolved else None
        if (
            subject is not None
            and (subject["name"] or subject["kind"])
            and (subject["name"] or "").lower() not in NOT_A_NAME
        ):
            owner: str | None = subject["name"] or subject["kind"].lower()
        else:
            owner = _last_spoken_of(" ".join(told[: theirs[0]]))
        if owner is not None and owner.lower() in words(label):  # "Maya paints: huge canvases"
            out.append(line)
            continue
        if owner is None or owner.lower() == user.lower():
            continue
        out.append(f"{owner[0].upper()}{owner[1:]}'s {label.strip().lower()}{sep}{value}")
    return out


# a clause that tells of the one just named: "a ginger cat, Pierogi, who only eats tuna"
_RELATIVE = re.compile(rf"\b(?P<name>[{UPPER}][{LOWER}]+),?\s+(?:who|which)\s+(?P<clause>[^,.;!?]+)")


def told_of_in_a_clause(lines: Sequence[str], said: str, user: str = "") -> list[str]:
    """``lines`` with a fact said in a clause about someone named ("..., who ...") filed under
    them: for "we've got a ginger cat, Pierogi, who only eats tuna" a `make run` chat saved the
    user's own "Diet: only eats tuna" (stop 48); it is "Pierogi's diet: only eats tuna". A line
    whose label already names someone stays, and so does one the clause does not hold whole."""
    clauses = [(m["name"], {stem(w) for w in words(m["clause"])}) for m in _RELATIVE.finditer(said)]
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        about = value_stems(line)
        owner = next((name for name, clause in clauses if about and about <= clause), None)
        if owner is None or owner.lower() in (user.lower(), *NOT_A_NAME) or "'" in label:
            out.append(line)
        elif set(words(label)) & (OWNED | {"name"}) or owner.lower() in words(label):
            out.append(line)
        else:
            out.append(f"{owner}'s {label.strip().lower()}{sep}{value}")
    return out


# a clause of a sentence that opens with "he" or "she": ", she's seven", "and he loved it"
_CLAUSE_PRONOUN = re.compile(
    r"(?:[,;:]|\s-|\b(?:and|but|because|so|though|although|since|as))\s+(?P<pronoun>he|she)\b", re.IGNORECASE
)
# a sentence that says whom the one before meant: "Luis, I mean.", "I mean Luis."
_MEANT = re.compile(
    rf"^\W*(?:(?i:i\s+mean)\s+(?P<a>[{UPPER}][{LOWER}]+)|(?P<b>[{UPPER}][{LOWER}]+),?\s+(?i:i\s+mean))\W*$"
)
_SENTENCE_PRONOUN = re.compile(r"^(?:(?:oh|and|but|well|also|btw|so)\b,?\s*)*(?P<pronoun>he|she)\b", re.IGNORECASE)
# a capitalised word after these is a place or a time, not a person: "outside Dijon", "over Christmas"
_BEFORE_A_PLACE = frozenset(
    "in to from near outside at of around into via across through towards toward over for during visit visiting "
    "until till since by on".split()
)
HOLIDAY_NAMES = HOLIDAY_WORDS | set("eid diwali hanukkah ramadan thanksgiving".split())


def _people_in(text: str) -> set[str]:
    """Who ``text`` speaks of: "my sister" or the name after it, a name with "'s", any other
    capitalised word past the first of its sentence that is no place or time."""
    found = {m["owner"] or m["name"] or f"{m[0].split()[0]} {m['kind']}".lower() for m in _SPOKEN_OF.finditer(text)}
    for sentence in sentences(text):
        tokens = sentence.split()
        for i, token in enumerate(tokens[1:], start=1):
            word = token.strip(",;:'\"()?!.")
            if word.endswith("'s"):
                word = word[:-2]
            if re.fullmatch(rf"[{UPPER}][{LOWER}]+", word) and tokens[i - 1].lower() not in _BEFORE_A_PLACE:
                found.add(word)
    return {who for who in found if who.lower() not in NOT_A_NAME | HOLIDAY_NAMES}


def _named(pronoun: re.Match[str], who: str) -> str:
    """The words ``pronoun`` matched, the pronoun made ``who`` (capitalised where it was)."""
    said = pronoun["pronoun"]
    return (
        pronoun[0][: pronoun.start("pronoun") - pronoun.start()]
        + (who[:1].upper() if said[0].isupper() else who[:1])
        + who[1:]
    )


# "him" or "her" as the one met, visited or missed: "We finally booked flights to visit him in April"
# after "Your brother Cian is moving to Canada in February 2027." was saved "Flights: booked to visit
# him in April" (a `make run` chat, stop 60), and no later question could tell whom
_OBJECT_PRONOUN = re.compile(
    r"\b(?P<verb>visit(?:ing)?|see(?:ing)?|meet(?:ing)?|call(?:ing)?|miss(?:ing)?|join(?:ing)?|surpris(?:e|ing)"
    r"|(?:pick(?:ing)?|see(?:ing)?)\s+off|stay(?:ing)?\s+with|fly(?:ing)?\s+out\s+to|go(?:ing)?\s+(?:to\s+)?see)"
    r"\s+(?P<pronoun>him|her)\b",
    re.IGNORECASE,
)


def objects_named(line: str, said: str, user: str = "", before: str = "") -> str:
    """``line`` with "him" or "her" after a verb of meeting or visiting made the one person the
    user's message ``said`` names by name, or where it names no one, the one the assistant's
    message ``before`` names: "Flight: flying over to see him at Christmas" for "my son Rui lives
    in London, I'm flying over to see him at Christmas" (a `make run` chat, stop 64)."""
    if not _OBJECT_PRONOUN.search(line):
        return line
    spoken_of = _people_in(said)  # "my son Rui" is one: "Rui"; "my dad and my brother Tom" two
    named = {p for p in (spoken_of or _people_in(before)) if p[:1].isupper()}  # by name, not "your brother"
    who = _the_one(named, user) if len(spoken_of) <= 1 else None
    # one the message names is who "him" is only when named before it: "visit him, Declan says hi"
    pronoun = _OBJECT_PRONOUN.search(said)
    if spoken_of and who is not None and (pronoun is None or not 0 <= said.find(who) < pronoun.start()):
        return line
    if who is None:
        return line
    return _OBJECT_PRONOUN.sub(lambda m: f"{m['verb']} {who}", line)


def _the_one(people: set[str], user: str = "") -> str | None:
    """The one of ``people``, when there is one and it is not the ``user``; else None."""
    if len(people) != 1 or (user and user.lower() in {p.lower() for p in people}):
        return None
    return next(iter(people))


def pronouns_named(said: str, user: str = "", before: str = "") -> str:
    """``said`` with "he" or "she" that opens a clause or a sentence given the name of the one
    person the words before it speak of (in its sentence, or the sentence before for one that
    opens with it). "Our granddaughter Elodie is coming to stay over Christmas, she's seven."
    was read as the user's own "Age: 7" (a `make run` chat, stop 52); it is read as "...,
    Elodie's seven." Where the words before it in its sentence speak of no one, the sentence
    before (for the first, ``before``: the assistant's message it answers) is read:
    "banana bread is a great idea, she loves bananas" after a reply about baking with Elodie
    saved the user's own "Fruit: bananas" (stop 52). Where they speak of two, or of the user
    by ``user``, the pronoun stays."""

    out: list[str] = []
    told: dict[str, str] = {}  # whom each pronoun was last read as
    said_as = sentences(said)
    for i, sentence in enumerate(said_as[1:], 1):
        # whom the sentence before meant, said after it: "He lives in Alicante, by the way. Luis, I
        # mean." was saved "He's home: Alicante" (a `make run` chat, stop 58)
        meant = _MEANT.match(sentence)
        opening = _SENTENCE_PRONOUN.match(said_as[i - 1])
        if meant and opening:
            who = meant["a"] or meant["b"]
            said_as[i - 1] = _named(opening, who) + said_as[i - 1][opening.end() :]
            told[opening["pronoun"].lower()] = who
    for sentence in said_as:
        # the nearest sentence before that speaks of anyone: "no, I don't think I ever said. it's
        # cassoulet, he'd eat it every day." after "I don't know Henri's favourite food." (stop 52)
        earlier = next((text for text in reversed(out) if _people_in(text)), before)
        opening = _SENTENCE_PRONOUN.match(sentence)
        # the same pronoun goes on meaning the same one: "it's Julien, he's Elodie's dad. he's a
        # cardiologist in Lyon." (a `make run` chat, stop 52: the job was saved as Elodie's)
        who = (_the_one(_people_in(earlier), user) or told.get(opening["pronoun"].lower())) if opening else None
        if opening and who:
            sentence = _named(opening, who) + sentence[opening.end() :]
            told[opening["pronoun"].lower()] = who
        at = 0
        while (match := _CLAUSE_PRONOUN.search(sentence, at)) is not None:
            head = sentence[: match.start()]
            people = _people_in(head)
            who = _the_one(_people_in(head), user) if people else _the_one(_people_in(earlier), user)
            # the same pronoun again in the sentence, past another capitalised word: "called Bamse,
            # he's a Bernese mountain dog and he's nearly twelve" was read as the user's "Age:
            # nearly twelve" (a `make run` chat, stop 60)
            before_now = told.get(match["pronoun"].lower())
            if who is None and before_now in people:
                who = before_now
            if who:
                named_as = _named(match, who)
                sentence = head + named_as + sentence[match.end() :]
                told[match["pronoun"].lower()] = who
                at = match.start() + len(named_as)
            else:
                at = match.end()
        out.append(sentence)
    return " ".join(out)


# a clause whose subject is someone the user names: "Julien's a cardiologist in Lyon", "my sister
# Ana just turned 40", "my mum lands on Friday"
# (and two of them: "our twins Ravi and Maya are both at university in Leeds" was saved as the
# user's "University: Leeds", and "Where did I go to university?" answered "Leeds"; eval-like
# `make run` chat, stop 55)
_NAMED_SUBJECT = re.compile(
    rf"^(?:(?i:and|but|so|also|oh|anyway|well)\s+)*"
    rf"(?:(?i:(?:my|our)\s+(?:{_SUBJECT_ADJECTIVES}\s+)?(?P<kind>{_KIN_OR_PET})s?)\b\s*,?\s*)?"
    rf"(?P<name>[{UPPER}][{LOWER}]+(?:\s+&\s+[{UPPER}][{LOWER}]+)?)?(?:['’]s\b|\s+(?:is|are|was|were|has|have|had|just|now|still"
    r"|works|work|worked|lives|live|lived|loves|love|likes|like|turned|turns|teaches|plays|does|did|got|gets|goes|go"
    r"|went)\b)"
)
_TWO_NAMES = re.compile(rf"\b([{UPPER}][{LOWER}]+) and ([{UPPER}][{LOWER}]+)\b")
# where a sentence's clauses part: "Sam got a job in Bath, so we're moving there"
CLAUSE_SPLIT = re.compile(r"[,;:]\s+|\s+(?:and|but|because|so)\s+")


# number words by their stems, as digits
_NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
} | {word: str(10 * n) for n, word in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)}


def _said_stems(text: str) -> set[str]:
    """The stems of ``text``'s content words, a number word as its digits."""
    return {_NUMBER_WORDS.get(w) or stem(w) for w in content_words(text)}


def told_of_by_subject(lines: Sequence[str], said: str, user: str = "") -> list[str]:
    """``lines`` with a fact filed as the user's that ``said`` tells only in clauses whose subject
    is someone else, filed under them: "it's Julien, he's Elodie's dad. he's a cardiologist in
    Lyon." (the pronouns named: "Julien's a cardiologist in Lyon") was saved as the user's own
    "Work: cardiologist in Lyon", over their own job (a `make run` chat, stop 52); "my sister Ana
    just turned 40" as "Age: 40". A clause that also says "I" or "my" past its subject counts
    as the user's."""
    # two people named together are one subject: "Ravi and Maya are both at university"
    together = [_TWO_NAMES.sub(r"\1 & \2", s) for s in sentences(said)]
    told = [_subjects_of(sentence) for sentence in together]
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        # "Age: 7" for "she's seven"; a year the notes put in ("moved in last year, 2025") is not said
        about = {s for s in _said_stems(value) if not _YEAR.fullmatch(s) or s in said}
        if not about or "'" in label or set(words(label)) & (OWNED | {"name"}):
            out.append(line)
            continue
        holding = [(c, who) for clauses in told for c, who in clauses if about <= _said_stems(c)]
        if not holding:
            # a value told across a sentence's clauses: "Health: dementia, moved into carehome" for "My
            # dad's got dementia and moved into a care home in Llanelli" (a `make run` chat, stop 62)
            holding = [
                (c, who)
                for clauses in told
                if about <= _said_stems(" ".join(c for c, _ in clauses))
                for c, who in clauses
                if about & _said_stems(c)
            ]
        owners = {who for _, who in holding if who is not None}
        if len(owners) != 1 or "" in owners or next(iter(owners)).lower() in (user.lower(), *NOT_A_NAME):
            out.append(line)
            continue
        if set(words(next(iter(owners)))) & set(words(label)):  # "Lessons are on ...": the thing, not a name
            out.append(line)
            continue
        owner = next(iter(owners)).replace(" & ", " and ")
        out.append(f"{owner[0].upper()}{owner[1:]}'s {label.strip().lower()}{sep}{value}")
    return out


_YEAR = re.compile(r"(?:19|20)\d\d")


def unheard_kin_told_of(lines: Sequence[str], said: str, user: str = "") -> dict[str, str]:
    """Of ``lines`` filed as a relative's the user did not speak of (``unheard_kin``), those whose
    values ``said`` tells in clauses about a relative it did, as those relatives' lines (old line:
    new line): for "my mum's got diabetes and moved in with my aunt in Cardiff last year, so I try
    to visit every other weekend" beside "Partner: Sami", the notes pass wrote "Partner's health:
    diabetes" and "Partner's home: Cardiff" and nothing was saved (a `make run` chat, stop 62);
    they are the mum's. A line whose value no clause about one relative tells is not here."""
    plain: dict[str, str] = {}
    for line in lines:
        label, sep, value = line.partition(":")
        if sep and (owned := POSSESSED.match(label.strip())):
            attribute = owned["attribute"]
            plain[line] = f"{attribute[0].upper()}{attribute[1:]}{sep}{value}"
    refiled = told_of_by_subject(list(plain.values()), said, user)
    return {old: new for (old, bare), new in zip(plain.items(), refiled) if new != bare}


# the verbs a clause goes on with, its subject the clause's before: "... and moved into a care home"
_GOES_ON = re.compile(
    r"^(?:got|gets|has|had|is|was|went|goes|lives|lived|works|worked|started|starts|loves|hates|fell|broke|came"
    r"|comes|left|leaves|turned|turns|took|takes|\w+ed)\b"
)


def _subjects_of(sentence: str) -> list[tuple[str, str | None]]:
    """Each clause of ``sentence`` with whose it is: a name or a relation said as its subject
    ("my sister Ana just turned 40": "Ana"), "" for the user's (no subject, or one that says "I"
    or "my" past it), None for "he" or "she" (someone's, but whose is said elsewhere). A clause
    that goes on with a verb is its clause's before ("and moved into a care home")."""
    out: list[tuple[str, str | None]] = []
    for clause in (c.strip() for c in CLAUSE_SPLIT.split(sentence) if c.strip()):
        who: str | None
        if _HE_OR_SHE.match(clause):
            who = None  # someone's, not the user's: the message as said, beside the one with names put in
        elif (subject := _NAMED_SUBJECT.match(clause)) is not None:
            named = subject["name"] or (subject["kind"] or "").lower()
            who = "" if not named or FIRST_PERSON.search(clause[subject.end() :]) else named
        elif out and out[-1][1] and _GOES_ON.match(clause):  # "... and moved in with my aunt": still hers
            who = out[-1][1]
        else:
            who = ""
        out.append((clause, who))
    return out


# the words one relative goes by: "Wife" files "my partner", "Sister" never "my brother"
_SAME_KIN_GROUPS = (
    "mother mum mom mama mummy mommy parent parents",
    "father dad papa daddy parent parents",
    "son daughter child children kid kids baby girl girls boy boys twins",
    "sister sibling siblings twin",
    "brother sibling siblings twin",
    "grandmother grandma gran granny nan grandparent grandparents",
    "grandfather grandpa grandad granddad grandparent grandparents",
    "wife husband partner spouse boyfriend girlfriend fiance fiancee",
)


def same_kin(kind: str, label_words: set[str]) -> bool:
    """Whether the relative ``kind`` names is the one a label of ``label_words`` files."""
    return kind in label_words or any(kind in g.split() and label_words & set(g.split()) for g in _SAME_KIN_GROUPS)


def kin_told_of_another(lines: Sequence[str], said: str) -> list[str]:
    """``lines`` with a relative's line whose value ``said`` tells only of another relative
    filed under that one: "My wife Ola is vegan and my mum says that's nonsense" was saved as
    "Mum: vegan" (a `make run` chat, stop 53); it is "Wife: Ola, vegan". One told of someone
    else's relative is theirs: "Rui's mum broke her hip" is "Rui's mum: ...", not the user's
    mum's. A value a clause with no relative for its subject tells stays where the notes pass
    put it."""
    clauses = [c for s in sentences(said) for c in CLAUSE_SPLIT.split(s) if c.strip()]
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        kin = set(words(label))
        name = individual(line)
        about = _said_stems(value) - ({stem(name)} if name else set())
        if not about or "'" in label or not kin or not kin <= set(_KIN):
            out.append(line)
            continue
        subjects = [_kin_subject(c.strip()) for c in clauses if about <= _said_stems(c)]
        if not subjects or len(set(subjects)) != 1 or (found := subjects[0]) is None:
            out.append(line)
            continue
        owner, kind, who = found
        if owner and same_kin(kind, kin) and not name:
            out.append(f"{owner}'s {kind}{sep}{value}")  # "Rui's mum broke her hip": not the user's mum
            continue
        if owner or same_kin(kind, kin) or (name and who and name != who.lower()):
            out.append(line)
            continue
        told = ", ".join(p for p in (None if name else who, value.strip()) if p)
        out.append(f"{kind.capitalize()}{sep} {told}")
    return out


# a clause whose subject is someone's relative: "Rui's mum broke her hip"
_THEIR_KIN_SUBJECT = re.compile(
    rf"^(?:(?i:and|but|so|also|oh|anyway|well)\s+)*(?P<owner>[{UPPER}][{LOWER}]+)['’]s\s+(?P<kind>(?i:{RELATION_PATTERN}))\b"
)


def _kin_subject(clause: str) -> tuple[str, str, str | None] | None:
    """(whose, which relative, their name) of the relative ``clause`` is about: ("", "wife",
    "Ola") for "My wife Ola is vegan", ("Rui", "mum", None) for "Rui's mum broke her hip"."""
    if theirs := _THEIR_KIN_SUBJECT.match(clause):
        return theirs["owner"], theirs["kind"].lower(), None
    mine = _NAMED_SUBJECT.match(clause)
    return ("", mine["kind"].lower(), mine["name"]) if mine and mine["kind"] else None


# "She's Ola's sister actually, not mine!", "Magda is my wife's sister, not mine"; "she's not my
# sister, she's Ola's"
_OWNER = rf"(?P<owner>[{UPPER}][{LOWER}]+|(?i:my\s+{RELATION_PATTERN}))"
_WHO = rf"(?P<who>(?i:he|she)|[{UPPER}][{LOWER}]+)(?:['’]s|\s+is)\s+(?:(?i:actually|really)\s+)?"
_DISOWNED = (
    re.compile(rf"\b{_WHO}{_OWNER}['’]s\s+(?P<relation>(?i:{RELATION_PATTERN}))\b[^.!?]*?\bnot\s+mine\b"),
    re.compile(
        rf"\b{_WHO}not\s+my\s+(?P<relation>(?i:{RELATION_PATTERN}))\b[,;]?\s+(?:(?i:but\s+)?(?i:he|she)(?:['’]s|\s+is)"
        rf"\s+)?{_OWNER}['’]s\b"
    ),
)


def disowned_relatives(saved: Sequence[str], said: str, answering: str = "") -> list[tuple[str, str]]:
    """(saved line, line filed under its owner) for a relative the user says is someone else's:
    "Ola's sister Magda turns 40" was saved as "Sister: Magda, ...", the greeting spoke of "a
    sister named Magda", and "She's Ola's sister actually, not mine!" saved "Wife's sister: Ola's
    sister" and left the sister (a `make run` chat, stop 53). "she" is the one ``answering``
    (the assistant's message the user answered) names, or the only one filed under the label."""
    out: list[tuple[str, str]] = []
    for pattern in _DISOWNED:
        for m in pattern.finditer(said):
            relation = m["relation"].lower()
            filed = [
                ln for ln in saved if "'" not in label_of_line(ln) and same_kin(relation, set(words(label_of_line(ln))))
            ]
            who = m["who"].lower()
            if who in ("he", "she"):
                named = [ln for ln in filed if (one := individual(ln)) and re.search(rf"\b{one}\b", answering, re.I)]
                filed = named if named or len(filed) != 1 else filed
            else:
                filed = [ln for ln in filed if individual(ln) == who]
            owner = re.sub(r"(?i)^my\s+", "", m["owner"])
            if len(filed) == 1 and owner.lower() not in ("my", who) and all(old != filed[0] for old, _ in out):
                value = filed[0].partition(":")[2]
                out.append((filed[0], f"{owner[0].upper()}{owner[1:]}'s {relation}:{value}"))
    return out


_SPOUSE_WORDS = frozenset("spouse partner husband wife".split())  # a relation label the notes pass writes
# "Julien and his wife Chloé": Chloé is Julien's wife, not the user's; so is "Ola's sister Magda" Ola's
_THEIR_NAMED_RELATION = re.compile(
    rf"\b(?:(?i:his|her|their)|(?P<owner>[{UPPER}][{LOWER}]+)['’]s)\s+(?P<relation>(?i:{RELATION_PATTERN}))\s*,?\s+"
    rf"(?P<name>[{UPPER}][\w-]+)"
)


# a capitalised word after these is a place: "Ceri lives in Cardiff with her husband Owain" is Ceri's
_AT_A_PLACE = re.compile(r"\b(?:in|at|from|to|near|into|around|outside|across)\s+$", re.IGNORECASE)


def _owner_before(text: str) -> str | None:
    """The last name in ``text``'s last sentence, no place: whose "his wife" is. "Ceri lives in
    Cardiff with her husband Owain" had filed "Cardiff's husband: Owain" (stop 61)."""
    told = sentences(text)
    last = told[-1] if told else ""
    names = [
        m[0]
        for m in CAPITALISED.finditer(last)
        if m[0].lower() not in STOPWORDS and not _AT_A_PLACE.search(last[: m.start()])
    ]
    return names[-1] if names else None


def their_relations(lines: Sequence[str], said: str, user: str = "") -> list[str]:
    """``lines`` with a person the user named as someone else's relative ("Julien and his wife
    Chloé") filed as theirs: the notes pass wrote "Spouse: Chloé", the user's own (a `make run`
    chat, stop 52); it is "Julien's wife: Chloé"."""
    theirs = {}
    for m in _THEIR_NAMED_RELATION.finditer(said):
        owner = m["owner"] or _owner_before(said[: m.start()])
        if owner is not None and owner.lower() not in (user.lower(), *NOT_A_NAME):
            theirs[m["name"].lower()] = (owner, m["relation"].lower())
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        found = theirs.get(_first_word(value))
        if found is None or "'" in label or not set(words(label)) <= RELATIONS | _SPOUSE_WORDS:
            out.append(line)
            continue
        owner, relation = found
        out.append(f"{owner}'s {relation}{sep}{value}")
    return out


_WHOSE_DENIED = re.compile(rf"\b(?P<owner>[{UPPER}][{LOWER}]+)['’]s\s+(?P<what>[{LOWER}]+(?:\s+[{LOWER}]+)?)")


def owned_as_denied(lines: Sequence[str], denial: str, said: str, user: str = "") -> list[str]:
    """``lines`` with the fact the user gave in answer to a denial of someone's ("I don't know
    Henri's favourite food.") filed under them: "it's cassoulet, he'd eat it every day" was
    saved as the user's own "Favorite dish: cassoulet" (a `make run` chat, stop 52). A line
    whose label says a word of what was denied, and no one's, is theirs, unless the sentence
    that says it speaks of the user ("my favourite food is sushi")."""
    whose = [m for m in _WHOSE_DENIED.finditer(denial) if m["owner"].lower() not in (user.lower(), *NOT_A_NAME)]
    if len(whose) != 1:
        return list(lines)
    owner, what = whose[0]["owner"], _said_stems(whose[0]["what"])
    out = []
    for line in lines:
        label, sep, value = line.partition(":")
        mine = "'" not in label and not set(words(label)) & (OWNED | {"name"})
        about = _said_stems(value)
        holding = [s for s in sentences(said) if about and about <= _said_stems(s)]
        theirs = mine and what & _said_stems(label) and holding and not any(FIRST_PERSON.search(s) for s in holding)
        out.append(f"{owner}'s {label.strip().lower()}{sep}{value}" if theirs else line)
    return out


def user_name(lines: Sequence[str], said: str) -> str:
    """The user's first name: from a "Name:" line of ``lines``, else as ``said`` introduces them."""
    for line in lines:
        label, _, value = line.partition(":")
        if words(label) == ["name"] and words(value):
            return value.split()[0]
    return introduced_name(said) or ""


_SOMEONE_ELSE = re.compile(r"\b(?:he|she|him|his|her|hers|they|them|their|theirs)\b", re.IGNORECASE)


def the_users_own(line: str, said: str) -> str:
    """``line`` under the user's own label when the model filed it as someone's ("Founean's
    allergies: sesame") that ``said`` never speaks of (no word of them, no "he", "she" or
    "they"), and the sentence that holds its value speaks in the first person. Told "Note that
    sesame makes me ill (allergy), but lamb tagine is my absolute favourite meal." beside "Cat:
    Founean", eval chat seed 26 (stop 47) saved "Founean's allergies: sesame" and "Founean's
    favorite food: lamb tagine"; asked later what the user cannot eat, the right draft was held
    as the cat's and the cat's "favourite food" went out."""
    label, sep, value = line.partition(":")
    possessed = POSSESSED.match(label.strip())
    if possessed is None:
        return line
    owner = set(words(possessed["owner"]))
    about = value_stems(line)
    if owner & set(words(said)) or _SOMEONE_ELSE.search(said):
        # they are spoken of: the value's own clauses must speak as "I" and not of them. "My sister
        # Anjali is getting married in June and I'm designing the invitations." was saved "Sister's
        # work: designing invitations" (a `make run` chat, stop 55)
        parts = [c for s in sentences(said) for c in CLAUSE_SPLIT.split(s)]
        holding = [c for c in parts if about and about <= {stem(w) for w in words(c)}]
        if not holding or any(owner & set(words(c)) or _SOMEONE_ELSE.search(c) for c in holding):
            return line
    else:
        holding = [s for s in sentences(said) if about and about <= {stem(w) for w in words(s)}]
    if not holding or not all(FIRST_PERSON.search(s) for s in holding):
        return line
    attribute = possessed["attribute"].strip()
    return f"{attribute[0].upper()}{attribute[1:]}{sep}{value}"


ANIMAL_WORDS = PETS | {"pet", "pets", "animal", "animals"}


def label_kinds(label: str) -> set[str]:
    """The words of ``label``, each also in the singular ("Horses" is a horse, "Ponies" a pony)."""
    said = words(label)
    return {*said, *(w[:-1] for w in said if w.endswith("s")), *(f"{w[:-3]}y" for w in said if w.endswith("ies"))}


def animal_label(label: str) -> bool:
    return "'" not in label and bool(label_kinds(label) & ANIMAL_WORDS)


def leading_name(value: str) -> str | None:
    """The name ``value`` begins with ("Rui (sound engineer)": "Rui"), if it begins with one."""
    first = value.strip().split(maxsplit=1)[0].strip(",;:()") if value.strip() else ""
    if not first[:1].isupper() or not first.isalpha() or first.lower() in STOPWORDS | NOT_A_NAME:
        return None
    return first


def individual(line: str) -> str | None:
    """The one person or animal ``line`` files under who they are to the user ("Husband: Rui,
    sound engineer", "Dog: Tinto"), lowercase; None for any other line."""
    label, colon, value = line.partition(":")
    if not colon or "'" in label or not label_kinds(label) & OWNED:
        return None
    name = leading_name(value)
    return name.lower() if name else None


def individuals(lines: Sequence[str]) -> set[str]:
    """The people and animals ``lines`` file (``individual``), lowercase."""
    return {one for one in map(individual, lines) if one is not None}


# words that make a sentence today's news, not a lasting fact
