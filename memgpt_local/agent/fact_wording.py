"""How a line the notes pass wrote is worded before it is written: its label's words spelt as
the user wrote them (``unglued``), the user's own words said of them (``as_note``), a label
said plainly (``plain_label``, ``trip_label``, ``tidied``), and whether a value says only a day
(``bare_day``). Split from ``fact_lines``, which says whether a line is worth saving."""

from __future__ import annotations

import re
import unicodedata

from memgpt_local.text import (
    LOWER,
    RELATIONS,
    UPPER,
    normalize_space,
    sentences,
    stem,
    stems,
    words,
)

# labels for where the user lives now
HOME_LABELS = frozenset(("home", "lives", "lives in", "location", "city", "town", "residence", "address"))
# the words by which a value speaks of the user, so it is not another one's news
THE_USER = frozenset("i i'm i've me my we we're we've our us".split())


def unglued(line: str, said: str) -> str:
    """``line`` with each word of its label that runs words of ``said`` together spelt as the
    user wrote them: "Retired from thepostoffice: last year" for "retired from the post office
    last year" (a `make run` chat, stop 50; too short for ``glued_label``, it was saved)."""
    label, colon, value = line.partition(":")
    heard = words(said)
    spoken = set(heard)
    out = []
    for word in label.split():
        bare = word.lower().strip(",.;'\"")
        if len(bare) >= 8 and bare.isalpha() and bare not in spoken:
            for n in range(2, 5):
                runs = (heard[i : i + n] for i in range(len(heard) - n + 1))
                match = next((run for run in runs if "".join(run) == bare), None)
                if match is not None:  # as the user wrote it: "the Azores", not "the azores"
                    written = re.search(r"\b" + r"\W+".join(map(re.escape, match)) + r"\b", said, re.IGNORECASE)
                    word = written[0] if written else " ".join(match)
                    break
        if len(bare) >= 6 and bare.isalpha() and bare not in spoken:
            # or a letter left out: "Alloment: grows tomatoes" for "I've got an allotment" (stop 59)
            meant = next((w for w in heard if one_letter_off(bare, w) or _one_letter_more(w, bare)), None)
            if meant is not None:
                word = meant.capitalize() if word[:1].isupper() else meant
        out.append(word)
    return _names_as_said(f"{' '.join(out)}{colon}{value}" if colon else line, said)


def _folded(word: str) -> str:
    """``word`` lowercase without its accents: "Zoë" is "zoe"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def _names_as_said(line: str, said: str) -> str:
    """``line`` with each name the user never wrote spelt as the one they did, where the two differ
    only by accents or by a letter: "Zoey helps on: Saturdays" for "My daughter Zoë helps me on
    Saturdays" (a `make run` chat, stop 58)."""
    names = {w for w in re.findall(rf"\b[{UPPER}][{LOWER}]+\b", said)}

    def as_said(found: re.Match[str]) -> str:
        word = found[0]
        if word in names:
            return word
        fold = _folded(word)
        meant = [n for n in names if _folded(n) == fold or _one_letter_more(fold, _folded(n))]
        return meant[0] if len(meant) == 1 else word

    return re.sub(rf"\b[{UPPER}][{LOWER}]+\b", as_said, line)


def _one_letter_more(longer: str, shorter: str) -> bool:
    """Whether ``longer`` is ``shorter`` with one letter put in after its first two ("zoey", "zoe"),
    not an "s" at its end ("Thursdays" for "Thursday" is another word)."""
    return (
        len(shorter) >= 3
        and longer != f"{shorter}s"
        and len(longer) == len(shorter) + 1
        and any(longer[:i] + longer[i + 1 :] == shorter for i in range(2, len(longer)))
    )


def one_letter_off(written: str, said: str) -> bool:
    """Whether ``written`` is the word ``said`` with one letter after the first changed, or two
    next to each other swapped: "Lesions" for "Lessons are on Thursday evenings" (a `make run`
    chat, stop 57)."""
    if len(written) != len(said) or written[0] != said[0] or written == said:
        return False
    differ = [i for i, (a, b) in enumerate(zip(written, said)) if a != b]
    if len(differ) == 1:
        return True
    return (
        len(differ) == 2
        and differ[1] == differ[0] + 1
        and written[differ[0]] == said[differ[1]]
        and written[differ[1]] == said[differ[0]]
    )


# a value that starts as the user's own sentence: its subject is dropped, a few verbs change
_OWN_SUBJECT = (
    (re.compile(r"^(?:i'm|i am|im|we're|we are)\s+", re.I), ""),
    (re.compile(r"^(?:i've got|i have got|i've|i have)\s+", re.I), "has "),
    (re.compile(r"^(?:i don't|i do not)\s+", re.I), "does not "),
    (re.compile(r"^i'd\s+", re.I), "would "),
    (re.compile(r"^i'll\s+", re.I), "will "),
    (re.compile(r"^i\s+", re.I), ""),
)
# first-person words inside a value, said of the user instead
_OWN_WORDS = {"my": "their", "me": "them", "mine": "theirs", "myself": "themself"}
_OWN_WORD = re.compile(r"\b(?:my|me|mine|myself)\b", re.I)


def as_note(line: str) -> str:
    """``line`` with a value that speaks as the user turned into a note about them: "Speech:
    I'm giving a speech" is "Speech: giving a speech", "Health: dairy does not agree with me"
    is "Health: dairy does not agree with them". A `make run` login read "Speech: I'm giving a
    speech" from core memory and greeted "I'm a pharmacist in Leicester and I'm giving a
    speech.": the model took the user's words as its own."""
    label, sep, value = line.partition(":")
    if not sep:
        return line
    text = value.strip()
    for pattern, replacement in _OWN_SUBJECT:
        if pattern.match(text):
            text = pattern.sub(replacement, text, count=1)
            break
    text = _OWN_WORD.sub(lambda m: _OWN_WORDS[m[0].lower()], text)
    text = _BARE_AGE.sub(r"\g<name> (age \g<n>)", text)
    return f"{label}: {text}" if text else line


# a number in brackets after a name is an age the model cannot read: under "Carla's children: Tiago (5)
# and Inês (2)" it answered "How old is Inês?" with "I don't know anything about Inês's age." (a `make
# run` chat, stop 60); "Tiago (age 5) and Inês (age 2)" says it
_BARE_AGE = re.compile(rf"\b(?P<name>[{UPPER}][{LOWER}]+)\s+\((?P<n>\d{{1,2}})\)")


_NAME_OF = re.compile(r"^(?P<owner>.+?)'s\s+name$", re.IGNORECASE)
_ENDS_WITH_VERB = re.compile(r"^(?P<head>.+?)\s+(?:is|are|was|were)$", re.IGNORECASE)
# "Leila's dad has: the flu" (a `make run` chat, stop 57): the verb goes with its object
_ENDS_WITH_HAVING = re.compile(r"^(?P<head>.+?)\s+(?P<verb>has|have|had)$", re.IGNORECASE)
_POSSESSIVE = re.compile(r"^(?:their|my|his|her|the user's)\s+(?=\w)", re.IGNORECASE)


# "New home: Quaiweenbury" beside "Home: Quaiweenbury" (eval chat seed 25, stop 47): where the user
# lives, or works, is one line, the newest value its value
_NOW_QUALIFIER = re.compile(r"^(?:new|current|present|latest)\s+(?P<topic>.+)$", re.IGNORECASE)
# "Allergy to pollen: yes" beside "Allergy: pollen" (eval chat seed 27, stop 47), and "What am I
# allergic to?" was answered "Your allergy to pollen is yes."
_TRAIT_OF = re.compile(rf"^(?P<topic>[{UPPER}{LOWER}-]+)\s+(?:to|of)\s+(?P<what>.+)$", re.IGNORECASE)
WORK_LABELS = frozenset(("work", "job", "workplace", "employer", "school", "office"))
# names of the user's work that say no more than "Work": "Occupation: Pharmacist by trade, based in
# Klembuxnoenton" was denied to "What's my job?" and missed by the work question (eval chat seed 30,
# second wording, stop 50); one label keeps one work line
WORK_NAMES = frozenset(("occupation", "profession", "job", "career", "employment", "trade"))


_OWNER_LIKES = re.compile(rf"^(?P<owner>[{UPPER}][\w-]+)'s\s+(?:loves?|likes?|favou?rites?|enjoys?)$")
_FAMILY_LABELS = frozenset("family relative relatives relation relations relationship".split())
_FAMILY_MEMBER = re.compile(rf"^(?P<name>[{UPPER}][\w'-]+)\s*[,(]?\s*(?:my\s+)?(?P<relation>[{LOWER}]+)\)?$")
# a label of one word and where or with whom: "Trip to the Azores", "Dinner with Jo"
_HEAD_AND_PLACE = re.compile(rf"^(?P<head>[{UPPER}{LOWER}]+)\s+(?P<place>(?:to|in|at|with)\s+\S.*)$")


# a label that tells a plan moved, its mover first: "Lars moved dinner", "Rescheduled our dinner"
_MOVED_LABEL = re.compile(
    rf"^(?:[{UPPER}][\w-]+\s+)?(?i:moved|postponed|rescheduled|pushed|put\s+off)\s+"
    r"(?:(?i:our|my|the|his|her|their)\s+)?(?P<thing>\w[\w\s'-]*)$"
)
# a label that tells a plan moved, the plan first: "Porto moved to: February" (a `make run` chat, stop 58)
_LABEL_THEN_MOVED = re.compile(
    r"^(?P<thing>[\w'-]+(?:\s+[\w'-]+)?)\s+(?P<moved>(?i:moved|postponed|rescheduled|pushed\s+back|put\s+off|delayed))"
    r"(?P<rest>(?:\s+(?i:to|until|till|from|by|again|back)\b.*)?)$"
)
_NOT_MOVED_THINGS = frozenset("house home back forward in out away on up".split())  # "Moved house: last year"
_OWNER_LABEL = re.compile(rf"^([{UPPER}][\w-]+)['’]s\s")
# a label that names what the user asked for about a topic, not the topic
_ASKED_FOR = re.compile(r"^(?P<topic>\w.*?)\s+(?i:tips|ideas|advice|suggestions|recommendations|help|questions?)$")


_ONLY_A_DAY = re.compile(
    r"^(?:(?:this|next|on|this\s+coming|coming)\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|weekend|week)(?:\s+(?:morning|afternoon|evening|night))?$|^(?:tomorrow|tonight)(?:\s+\w+)?$",
    re.IGNORECASE,
)


_TRAVELS = re.compile(
    r"\b(?:going|go|goes|flying|fly|flies|driving|drive|heading|head|off|trip|travel\w*|holiday)\b", re.I
)


def trip_label(line: str, said: str) -> str:
    """``line`` filed as a trip when its label is the place the user said they go to and a word
    they never said: "Ana and I are going to Porto in January for her birthday." was saved
    "Porto party: her birthday in January", and the next login said "Ana is going to have a
    Porto party" (a `make run` chat, stop 58). It is "Trip: to Porto, her birthday in January"."""
    label, sep, value = line.partition(":")
    head = label.split()
    if not sep or len(head) != 2 or not head[0][:1].isupper() or stem(head[1]) in stems(said):
        return line
    place = head[0]
    went = any(
        re.search(rf"\bto\s+{re.escape(place)}\b", sentence) and _TRAVELS.search(sentence)
        for sentence in sentences(said)
    )
    if not went:
        return line
    value = value.strip()
    return f"Trip: {value}" if place in value else f"Trip: to {place}, {value}"


_YES = ("yes", "true")
_YES_AFTER = re.compile(r"\s*:\s*(?:yes|true)\.?\s*$", re.IGNORECASE)
_LABEL_AS_FACT = 3  # words of a label that holds the whole fact


def fact_of_yes(line: str, said: str) -> str:
    """``line`` with a fact the model wrote into its label and answered "yes" told as a value:
    "Thesis due end-of-march: yes" is "Thesis: due end of march", "Supervisor: keeps changing her
    mind about chapter 3: yes" is "Supervisor: keeps changing her mind about chapter 3" (a `make
    run` chat, stop 61; the month, run together, was never dated). A short label stays ("Vegetarian:
    yes"), and a trait of something is ``plain_label``'s ("Allergy to pollen: yes")."""
    label, sep, value = line.partition(":")
    if not sep:
        return line
    value = _YES_AFTER.sub("", value)
    head = label.split()
    if value.strip().lower().rstrip(".") not in _YES or len(head) < _LABEL_AS_FACT or _TRAIT_OF.match(label.strip()):
        return f"{label}{sep}{value}"
    told = " ".join(head[1:])
    # words the model joined with hyphens, where the user spaced them ("end of march")
    spaced = told.replace("-", " ")
    if spaced != told and spaced.lower() in normalize_space(said).lower():
        told = spaced
    return f"{head[0]}: {told}"


def tidied(line: str, said: str) -> str:
    """``line`` as the notes write it, from what the model wrote after ``said``: its words read as
    the user wrote them (``unglued``), a fact said as a label and "yes" told as one
    (``fact_of_yes``), a trip filed as one (``trip_label``), its label plain (``plain_label``)."""
    return plain_label(trip_label(fact_of_yes(unglued(line, said), said), said))


def plain_label(line: str) -> str:
    """``line`` with a label that says more than its topic made plain: "Parrot's name: Kiwi" is
    "Parrot: Kiwi" (an eval chat block held "Parrot's name: Drarkmeette" beside the same fact as
    "Parrot: ..."), and a label the model began as a clause loses its verb, "Mushroom risotto
    is: their favourite dinner" is "Favourite dinner: Mushroom risotto" (what it is, by whose
    word) and "Tiago is: coming on Saturday" is "Tiago: coming on Saturday"; "New home: Leeds" is
    "Home: Leeds", and "Occupation: pharmacist" is "Work: pharmacist"."""
    label, sep, value = line.partition(":")
    label, value = label.strip(), value.strip()
    if not sep or not value:
        return line
    if label.lower() in WORK_NAMES:
        return f"Work: {value}"
    if _ONLY_A_DAY.match(label) and not _ONLY_A_DAY.match(value):
        # "Next Saturday: driving over to Leila's parents ..." (a `make run` chat, stop 57): the plan
        # is the fact, the day is when
        day = f"{label[0].lower()}{label[1:]}"
        return f"{value[0].upper()}{value[1:]}: {day}" if len(value.split()) <= 2 else f"Plan: {value}, {day}"
    owner = _OWNER_LABEL.match(label)
    if owner and value.startswith(f"{owner[1]} ") and len(value.split()) > 2:
        # "Sam's work: Sam got a job at the university in Bath" (a `make run` chat, stop 55)
        value = value[len(owner[1]) + 1 :]
        line = f"{label}: {value}"
    plan = _LABEL_THEN_MOVED.match(label)
    if plan and not set(words(plan["thing"])) & (THE_USER | _NOT_MOVED_THINGS | {"he", "she", "they"}):
        # "Porto moved to: February, flights were cheaper" is "Porto: moved to February, flights were cheaper"
        rest = plan["rest"].strip()
        joined = " " if not rest or rest.lower() in ("to", "until", "till") else ", "
        told = normalize_space(f"{plan['moved']} {rest}")
        return f"{plan['thing']}: {told}{joined}{value}"
    moved = _MOVED_LABEL.match(label)
    day = re.sub(r"^(?:to|until|till)\s+", "", value, flags=re.IGNORECASE)
    if moved and bare_day(f"x: {day}") and moved["thing"].lower() not in _NOT_MOVED_THINGS:
        # "Lars moved dinner: Sunday" for "Lars moved our dinner to Sunday." (bench_notes moved-held)
        return f"{moved['thing'][0].upper()}{moved['thing'][1:]}: moved to {day}"
    asked = _ASKED_FOR.match(label)
    if asked:  # "Long run tips: on Sunday" for "any tips for a long run on Sunday?" (a `make run` chat, stop 55)
        return plain_label(f"{asked['topic']}: {value}")
    trait = _TRAIT_OF.match(label)
    if trait and value.lower().rstrip(".") in ("yes", "true"):
        return f"{trait['topic']}: {trait['what']}"
    now = _NOW_QUALIFIER.match(label)
    if now and now["topic"].lower() in HOME_LABELS | WORK_LABELS | WORK_NAMES:
        return plain_label(f"{now['topic'][0].upper()}{now['topic'][1:]}: {value}")
    liked = _OWNER_LIKES.match(value)
    if liked:  # "Spicy food: Adaeze's loves" for "she loves spicy food" (a `make run` chat, stop 51)
        return f"{liked['owner']}'s likes: {label[0].lower()}{label[1:]}"
    kin = _FAMILY_MEMBER.match(value)
    if label.lower() in _FAMILY_LABELS and kin and kin["relation"].lower() in RELATIONS:
        # "Family: Adaeze, wife" beside "Wife: Adaeze" for "my wife Adaeze and I" (a `make run` chat, stop 51)
        return f"{kin['relation'].capitalize()}: {kin['name']}"
    where = _HEAD_AND_PLACE.match(label)
    if where and not where["head"].lower().endswith("ed") and any(w[:1].isupper() for w in where["place"].split()):
        # "Trip to the Azores: next week" is "Trip: to the Azores next week", under the label a later change will use
        return f"{where['head']}: {where['place']} {value}"
    named = _NAME_OF.match(label)
    if named and named["owner"].lower() not in ("my", "your", "their", "user", "the user"):
        return f"{named['owner']}: {value}"
    having = _ENDS_WITH_HAVING.match(label)
    if having is not None:
        return f"{having['head']}: {having['verb'].lower()} {value}"
    clause = _ENDS_WITH_VERB.match(label)
    if clause is None:
        return line
    topic = _POSSESSIVE.sub("", value)
    if topic != value and len(topic.split()) <= 3:  # "their favourite dinner": the value is the label
        return f"{topic[0].upper()}{topic[1:]}: {clause['head']}"
    return f"{clause['head']}: {value}"


_DAY_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight weekend week next this on".split()
)
# words around a day that say nothing more of it: "Hiking: planned for next week"
PLAN_FILLER = frozenset("planned scheduled for of the in".split())
_MONTH_WORDS = frozenset(
    "january february march april may june july august september october november december".split()
)
_ISO_NOTE = re.compile(r"\((?:week of |weekend of )?\d{4}-\d\d(?:-\d\d)?\)|\d{4}-\d\d(?:-\d\d)?")


_ORDINAL = re.compile(r"^\d{1,2}(?:st|nd|rd|th)?$")


def day_words(line: str) -> set[str]:
    return set(words(_ISO_NOTE.sub(" ", line.partition(":")[2])))


def bare_day(line: str) -> bool:
    """Whether ``line``'s value says only a day ("Saturday", "planned for next week", "on the
    20th (2026-12-20)")."""
    said = day_words(line)
    days = {w for w in said if w in _DAY_WORDS or w in _MONTH_WORDS or _ORDINAL.match(w)}
    return bool(said - PLAN_FILLER) and said <= days | PLAN_FILLER
