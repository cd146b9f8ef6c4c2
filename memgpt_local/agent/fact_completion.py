"""A line the notes pass wrote, completed from the user's words: a value cut off mid-clause read on
(``completed``), a doing told only by its day or cut before what it is for said whole
(``doing_said``, ``purpose_said``), a role the user calls themself (``role_said``), what they are
learning (``learning_said``, ``still_learning``), a favourite meal (``favourite_meal``), and what
they do with a thing not filed as what they eat (``what_they_do_not_eat``), and a trade not filed
as a pastime (``work_not_pastime``), where it is (``place_said``). Split from
``fact_lines``, which says whether a line may be kept."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgpt_local.agent.fact_lines import MEALS, label_of
from memgpt_local.agent.fact_wording import bare_day
from memgpt_local.text import (
    LOWER,
    RELATIONS,
    UPPER,
    WHEN_WORDS,
    normalize_space,
    words,
)

# a value cut off after a word that cannot end it: "Vegetarianism: Sam is" for "Sam is vegetarian
# and my mum thinks ..." (a `make run` chat, stop 53)
_VALUE_CUT_AT = frozenset(
    "is are was were am has have had will would a an the to of and or but my his her their our your with for "
    "from in at on by as that who".split()
)
_VALUE_END = re.compile(r"[.!?;,\n]|\s(?:and|but|so|because)\s", re.IGNORECASE)
_SAID_OF = re.compile(rf"^(?P<name>[{UPPER}][{LOWER}]+)\s+(?:is|are|was|has)\s+(?P<rest>.+)$")


def completed(line: str, said: str) -> str | None:
    """``line`` with a value cut off after a word that cannot end it ("Sam is") read on to the end
    of its clause in ``said`` ("Sam is vegetarian"), and a value that tells of someone by name
    filed under them: "Sam: vegetarian", which joins their saved line. None when the value is
    cut off and ``said`` does not go on from it, or says only whose the label's thing is ("Birthday:
    Sam's" for "it's Sam's birthday, not mine!", a `make run` chat, stop 53). Any other line is
    returned as it is."""
    label, _, value = line.partition(":")
    value = value.strip()
    if re.search(rf"(?<!\w){re.escape(value)}\s+{re.escape(label.strip())}\b", said, re.IGNORECASE):
        return None  # only whose the label's thing is: "Birthday: Sam's" for "it's Sam's birthday, not mine!"
    whose = re.fullmatch(rf"[{UPPER}][{LOWER}]+['’]s\s+(?P<what>\w+)", value)
    if whose and whose["what"].lower() in words(label):
        return None  # only whose the label's one is: "Wife's sister: Ola's sister" for "She's Ola's sister"
    said_words = words(value)
    if not said_words or said_words[-1] not in _VALUE_CUT_AT:
        return line
    at = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", said, re.IGNORECASE)
    if at is None:
        return None
    end = next((m.start() for m in _VALUE_END.finditer(said, at.end())), len(said))
    whole = said[at.start() : end].strip()
    if len(words(whole)) == len(said_words):
        return None
    of = _SAID_OF.match(whole)
    return f"{of['name']}: {of['rest']}" if of else f"{label.strip()}: {whole}"


def completed_lines(lines: Sequence[str], said: str) -> list[str]:
    """``lines`` each ``completed`` from ``said``, those it drops left out, a meal the user called
    their favourite labelled so (``favourite_meal``), a role of theirs said as one (``role_said``),
    a doing told only by its day said whole (``doing_said``), a doing cut before what it is for
    read on (``purpose_said``), what they do with a thing not filed as what they eat
    (``what_they_do_not_eat``), a trade not filed as a pastime (``work_not_pastime``), and where a
    value is read on (``place_said``)."""
    return [
        place_said(
            work_not_pastime(
                what_they_do_not_eat(
                    still_learning(
                        favourite_meal(role_said(doing_said(purpose_said(kept, said), said), said), said), said
                    ),
                    said,
                ),
                said,
            ),
            said,
        )
        for kept in (completed(line, said) for line in lines)
        if kept is not None
    ]


# labels that file a value as what the user eats, and the words a message says eating with
_EATING_LABELS = frozenset("diet food foods meal meals eats eating".split())
_EATING_SAID = re.compile(
    r"\b(?:eat\w*|ate|food\w*|diet\w*|meal\w*|cook\w*|dinner\w*|lunch\w*|breakfast\w*|snack\w*|favou?rite\w*"
    r"|vegan\w*|vegetarian\w*|likes?|loves?|hates?|allerg\w*|dish\w*|recipe\w*)\b",
    re.IGNORECASE,
)
_I_DO = r"\bI\s+(?:(?:mostly|mainly|usually|also|just|still|only)\s+)?(?P<verb>[a-z]+)\s+"


def what_they_do_not_eat(line: str, said: str) -> str:
    """``line`` under the user's own verb when the model filed what they do with something as
    what they eat: "Food: mostly spuds and onions" for "any tips for getting the garden ready for
    winter? I grow mostly spuds and onions" (a `make run` chat, stop 63), and the next login
    asked "What do you like about your food?". Only when the message says no word of eating and
    says the value right after "I" and its verb ("Grows: mostly spuds and onions")."""
    label, sep, value = line.partition(":")
    if not sep or normalize_space(label).lower() not in _EATING_LABELS or _EATING_SAID.search(said):
        return line
    told = re.search(rf"{_I_DO}{re.escape(value.strip())}(?!\w)", said, re.IGNORECASE)
    if told is None or told["verb"].lower() in {"am", "have", "had", "was"}:
        return line
    verb = told["verb"].lower()
    ending = "" if verb.endswith("s") else "es" if verb.endswith(("sh", "ch", "x")) else "s"
    return f"{verb.capitalize()}{ending}: {value.strip()}"


# labels that file a doing as a pastime, the verbs of a trade said as "I teach ...", and the words
# that make a doing a pastime all the same
PASTIME_LABELS = frozenset("hobby hobbies interest interests pastime pastimes passion".split())
_TRADE_VERBS = frozenset("teach tutor lecture nurse manage".split())
_PASTIME_SAID = re.compile(
    r"\b(?:hobby|hobbies|for\s+fun|spare\s+time|free\s+time|weekends?|evenings|volunteer\w*|unpaid|retired)\b",
    re.IGNORECASE,
)


def _bare_verb(verb: str) -> str:
    """``verb`` without the "-s" of "she teaches": "teach", "nurse"."""
    verb = verb.lower()
    return verb[:-2] if verb.endswith(("ches", "shes")) else verb[:-1] if verb.endswith("s") else verb


def work_not_pastime(line: str, said: str) -> str:
    """``line`` filed as work when the model filed the user's trade as a pastime: "Hobby: teaches
    piano in Gdansk" for "hi! I'm Marta, I teach piano in Gdansk" (a `make run` chat, stop 63),
    and "What do I do for a living?" had no work line to answer from. Only for a verb of a trade
    the user says of themself ("I teach", "I tutor") in a message that says no word of a pastime
    ("for fun", "at weekends", "as a hobby")."""
    label, sep, value = line.partition(":")
    if not sep or normalize_space(label).lower() not in PASTIME_LABELS or _PASTIME_SAID.search(said):
        return line
    doing = _bare_verb((words(value) or [""])[0])
    told = {m["verb"].lower() for m in re.finditer(_I_DO, said, re.IGNORECASE)}
    if doing not in _TRADE_VERBS or doing not in told:
        return line
    return f"Work: {value.strip()}"


_PURPOSE = re.compile(r"\s+to\s+[a-z]+\b")
_PURPOSE_MAX_WORDS = 10


# where a value said goes on to: " at glasgow uni", " in the west end"; up to four words, to its clause's end
_WHERE_AFTER = re.compile(
    r"\s+(?P<where>(?:at|in)\s+(?:[\w'-]+\s+){0,3}?[\w'-]+)(?=\s*(?:[.!?;,\n]|$|\s(?:and|but|so|because|I)\s))"
)
_NOT_A_PLACE = WHEN_WORDS | frozenset("moment time times all least first last end start beginning mind".split())


def place_said(line: str, said: str) -> str:
    """``line`` with where its value is, cut off in ``said`` ("at glasgow uni"), read on: "Course:
    2nd year history student" for "kai here, 2nd year history student at glasgow uni, I also work
    weekends" (a `make run` chat, stop 63), a place typed in lowercase that no line held. The
    value's last part (after its last comma) must be said word for word, and be followed by "at"
    or "in" and no more than four words to its clause's end, none of them a time ("at the
    moment", "in January")."""
    label, sep, value = line.partition(":")
    last = value.rpartition(",")[2].strip()
    if not sep or len(words(last)) < 2 or re.search(r"\b(?:at|in)\b", last, re.IGNORECASE):
        return line
    at = re.search(rf"(?<!\w){re.escape(last)}(?!\w)", said, re.IGNORECASE)
    where = _WHERE_AFTER.match(said, at.end()) if at is not None else None
    if where is None or _NOT_A_PLACE & set(words(where["where"])) or where["where"].lower() in line.lower():
        return line
    return f"{line.rstrip()} {where['where']}"


def purpose_said(line: str, said: str) -> str:
    """``line`` with a value cut off before what it is for read on to the end of its clause in
    ``said``: "Daughter: Aoife, coming down from Dublin" for "my daughter Aoife is coming down from
    Dublin to mind Finn while I'm in hospital" (a `make run` chat, stop 63); asked "who's minding
    the dog while I'm in?", the reply had nothing to answer from. A value's last part (after its
    last comma) must be said word for word, and what it is for in ten words or fewer."""
    label, sep, value = line.partition(":")
    last = value.rpartition(",")[2].strip()
    if not sep or len(words(last)) < 2:
        return line
    at = re.search(rf"(?<!\w){re.escape(last)}(?!\w)", said, re.IGNORECASE)
    if at is None or _PURPOSE.match(said, at.end()) is None:
        return line
    end = next((m.start() for m in _VALUE_END.finditer(said, at.end())), len(said))
    purpose = said[at.end() : end].rstrip()
    if len(words(purpose)) > _PURPOSE_MAX_WORDS:
        return line
    return f"{line.rstrip()}{purpose}"


def doing_said(line: str, said: str) -> str:
    """``line`` with a value that says only a day, under a label the user said as what they do,
    read on to the end of its clause in ``said``: "Coach: Saturday" for "I teach PE ... and coach
    my daughter's under-12 football team on Saturdays" (a `make run` chat, stop 62) is "Coach: my
    daughter's under-12 football team on Saturdays"."""
    label, sep, value = line.partition(":")
    verb = label.strip()
    if not sep or len(words(verb)) != 1 or not bare_day(line):
        return line
    at = re.search(rf"\b(?:I|and|also)\s+{re.escape(verb)}\s+(?=\w)", said, re.IGNORECASE)
    if at is None:
        return line
    end = next((m.start() for m in _VALUE_END.finditer(said, at.end())), len(said))
    told = re.sub(r"^(?:my|our)\s+", "", said[at.end() : end].strip(), flags=re.IGNORECASE)
    day = {w for w in words(value) if len(w) > 2}
    # the day it gave is in what was said: "Saturday" in "on Saturdays"
    return f"{verb}: {told}" if day and all(any(t.startswith(d[:5]) for t in words(told)) for d in day) else line


_ME = frozenset("me i myself user you".split())


def role_said(line: str, said: str) -> str:
    """``line`` as "Role: ..." when the model filed the user under what they are: "Maid of honour:
    me" for "... and I'm the maid of honour" was dropped as a fact the message does not state (a
    `make run` chat, stop 62), and "I'm one of the bridesmaids!" was saved "Bridesmaids: one of
    the bridesmaids". Only a role the user calls themself ("I'm the ...", "I am a ...", "I'm one
    of the ...")."""
    label, sep, value = line.partition(":")
    role = normalize_space(label).lower()
    told = value.strip().lower().rstrip(".!")
    if not sep or not role or (told not in _ME and told != f"one of the {role}"):
        return line
    called = re.search(
        rf"\bI(?:'m|’m|\s+am)\s+(?P<one_of>one\s+of\s+the\s+)?(?:(?<=the\s)|the\s+|a\s+|an\s+|their\s+|her\s+|his\s+)"
        rf"{re.escape(role)}\b",
        said,
        re.IGNORECASE,
    )
    if called is None:
        return line
    return f"Role: one of the {role}" if called["one_of"] else f"Role: {role}"


_LEARNING = r"(?:learning|learn|studying|study|practising|practicing)\s+(?:the\s+|some\s+)?"
_LESSONS = r"\s+(?:lessons|classes|class|course|lesson)\b"
_GIVES_LESSONS = re.compile(r"\b(?:teach\w*|tutor\w*|give|gives|giving|run|runs|running)\b", re.IGNORECASE)


_I_AM_LEARNING = re.compile(
    r"\bI(?:'m|\s+am|’m)\s+(?:(?:now|currently|finally|also)\s+)?(?P<verb>learning|studying)\s+"
    rf"(?P<what>(?:to\s+|the\s+)?[{UPPER}{LOWER}][\w'-]*(?:\s+(?!(?:at|for|because|with|since|so|and|but|in|on|from|"
    rf"this|every|now|again)\b)[{LOWER}][\w'-]*){{0,2}})"
)


def learning_said(lines: Sequence[str], saved: Sequence[str], said: str) -> list[str]:
    """``lines`` and a "Learning: ..." line for what the user says they are learning when no
    line, saved or new, holds it: for "I'm learning the oud at the moment, my grandfather used to
    play it. Lessons are on Thursday evenings." a `make run` chat saved "Grandfather: played the
    oud" and "Lessons: on Thursday evenings" and never that the user learns it (stop 57)."""
    out = list(lines)
    for match in _I_AM_LEARNING.finditer(said):
        what = match["what"]
        topic = [w for w in words(what) if w not in ("to", "the")]
        if not topic or topic[-1] in ("moment", "lot", "bit", "lots"):
            continue
        # a line of the user's that holds it; "Grandfather: played the oud" is the grandfather's
        if any(
            all(w in words(line.partition(":")[2]) for w in topic)
            and not set(words(label_of(line) or "")) & RELATIONS
            and "'" not in line.partition(":")[0]
            for line in [*saved, *out]
        ):
            continue
        out.append(f"{match['verb'].capitalize()}: {what}")
    return out


def still_learning(line: str, said: str) -> str:
    """``line`` saying that the user is learning what its value names, where ``said`` says so:
    "Language: Spanish" for "I'm taking Spanish lessons" reads as a language the user speaks (a
    `make run` chat saved it, stop 56); it is "Language: learning Spanish"."""
    label, sep, value = line.partition(":")
    thing = value.strip()
    if not sep or not thing or re.search(r"\b(?:learn|lesson|class|course|stud)", thing, re.IGNORECASE):
        return line
    said_as = re.escape(thing)
    if re.search(rf"\b{_LEARNING}{said_as}\b", said, re.IGNORECASE):
        return f"{label}{sep} learning {thing}"
    # lessons the user takes, not ones they give ("I teach Spanish classes")
    if re.search(rf"(?<!\w){said_as}{_LESSONS}", said, re.IGNORECASE) and not _GIVES_LESSONS.search(said):
        return f"{label}{sep} learning {thing}"
    return line


def favourite_meal(line: str, said: str) -> str:
    """``line`` under "Favourite <meal>" when its label is a meal ``said`` calls the user's
    favourite: "Dinner: lamb tagine" for "my favourite dinner is lamb tagine" was dropped as one
    meal, the day's news (eval chat seed 36, stop 55)."""
    label, sep, value = line.partition(":")
    meal = normalize_space(label).lower()
    if not sep or not meal or not set(words(meal)) <= MEALS:
        return line
    if re.search(rf"\bfavou?rite\s+{re.escape(meal)}\b", said, re.IGNORECASE):
        return f"Favourite {meal}{sep}{value}"
    return line
