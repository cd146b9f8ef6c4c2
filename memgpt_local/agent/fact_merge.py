"""How the lines of one notes pass are written into the human block (``merge``): a line whose
label the block holds replaces it, joins it or is kept out, the rest are appended, and the
oldest lines leave when the block is full. Split from ``facts.py``, which runs the pass."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import date
from difflib import SequenceMatcher

from memgpt_local.agent.fact_lines import label_of, tells_an_event
from memgpt_local.agent.fact_owners import (
    individual,
    leading_name,
    value_stems,
)
from memgpt_local.agent.fact_wording import bare_day
from memgpt_local.memory.core import default_text
from memgpt_local.memory.dates import MONTHS, WEEKDAYS, mentions
from memgpt_local.text import (
    LOWER,
    PETS,
    RELATIONS,
    STOPWORDS,
    UPPER,
    WHEN_WORDS,
    content_words,
    label_topics,
    normalize_space,
    sentences,
    stem,
    stems_said_otherwise,
    words,
)

BLOCK = "human"

_UNITS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
AGE = rf"(?:\d{{1,3}}|(?:{'|'.join(_TENS.split())})(?:-(?:{'|'.join(_UNITS.split()[:9])}))?|{'|'.join(_UNITS.split())})"
# an age, not a part of a date ("2026-12-03")
AGE_IN_VALUE = re.compile(rf"(?<![\w-]){AGE}(?![\w-])", re.IGNORECASE)


@dataclass
class Notes:
    """What one pass wrote: lines added, (old, new) lines replaced, lines moved out, lines
    dropped (not said by the user, or a passing state), and (saved, new) lines where the saved one stayed (the
    user did not say it changed)."""

    added: list[str] = field(default_factory=list)
    replaced: list[tuple[str, str]] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    kept: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.replaced or self.moved)

    def lines(self) -> list[str]:
        """One line per change, for the notice and the chat."""
        out = [f"saved: {line}" for line in self.added]
        out += [f"changed: {old} -> {new}" for old, new in self.replaced]
        out += [f"moved to archival memory: {line}" for line in self.moved]
        return out


# words that say a fact changed: "moved", "now", "no longer", "switched", "quit", "actually" ...
_CHANGE = re.compile(
    r"\b(?:mov(?:e|ed|es|ing)|relocat\w*|now|nowadays|these\s+days|any\s?more|no\s+longer|new|chang\w*"
    r"|switch\w*|start(?:ed|ing)|quit|left|leaving|retir\w*|became|become|instead|actually|used\s+to"
    r"|since|finally|not\b.*\bbut|got\s+(?:a|an)\b)",
    re.IGNORECASE,
)


def states_a_change(line: str, said: str) -> bool:
    """Whether ``said`` says the fact of ``line`` changed: a sentence holding words of its value
    also holds a word of change ("We finally left Leeds. I live in York now.")."""
    value = value_stems(line)
    return any(
        value & {stem(w) for w in content_words(sentence)} and _CHANGE.search(sentence) for sentence in sentences(said)
    )


def replaces(old: str, new: str, said: str) -> bool:
    """Whether ``new`` may replace the saved line ``old`` (the same label): the user said the
    fact changed, or the new value builds on the old one (they share a word). A line of many
    values (``holds_many``) changes only when what the user said of the old value says so
    ("I quit swimming"): "I've taken up pottery" adds a hobby, it ends none."""
    if value_stems(old) & value_stems(new):
        return True
    return states_a_change(old, said) if holds_many(old) else states_a_change(new, said)


# labels of lines that gather values: a second hobby is one more, not a change
_MANY_VALUES = frozenset(
    "hobby hobbies interest interests like likes dislike dislikes sport sports music friend friends "
    "language languages learning studying plan plans".split()
)


def holds_many(line: str) -> bool:
    """Whether ``line``'s label gathers several values ("Hobby", "Likes")."""
    return (label_of(line) or "") in _MANY_VALUES


def with_value_of(old: str, new: str) -> str:
    """The saved line ``old`` with the value of ``new`` added: "Hobby: running; pottery". A
    relative's name goes first: "Mum: Abena, 71; flying in from Accra next Friday", not after
    what was said of her before her name was (a `make run` chat, stop 59)."""
    label, _, value = old.partition(":")
    added = new.partition(":")[2].strip()
    if label.strip().lower() in RELATIONS and leading_name(added) and not leading_name(value):
        return f"{label}: {added}; {value.strip()}"
    return f"{old.rstrip()}; {added}"


def block_lines(value: str) -> list[str]:
    """The non-empty lines of a human block's text; none for the packaged default text."""
    return [] if value.strip() == default_text(BLOCK).strip() else [ln for ln in value.splitlines() if ln.strip()]


def said_twice(line: str, other: str) -> bool:
    """Whether ``line`` says what ``other`` says under another label: values of three content
    words or more, four in five of them shared. For "Outside school I mostly climb at the
    bouldering gym on Thursdays" a `make run` chat saved "Hobbies: climbing at the bouldering
    gym on Thursdays" and "Outside school: climbs at the bouldering gym on Thursdays" (stop 47)."""
    mine, theirs = value_stems(line), value_stems(other)
    return min(len(mine), len(theirs)) >= 3 and len(mine & theirs) * 5 >= len(mine | theirs) * 4


def told_in(line: str, old: str) -> bool:
    """Whether ``old`` already tells all that ``line``'s value does, a word counting as said
    where ``old`` says one people ask about the same thing with (``said_otherwise``): "Omar,
    wedding in May (2027-05)" was added to "Big brother: Omar, getting married in May (2027-05)"
    (a `make run` chat, stop 62)."""
    held = value_stems(old)
    return all(stems_said_otherwise(w) & held for w in content_words(line.partition(":")[2]))


def _line_stems(line: str) -> set[str]:
    """The stems of the content words of ``line``, its label's and its value's."""
    return {stem(w) for w in content_words(line)}


def _same_value_same_one(line: str, other: str) -> bool:
    """Whether ``line`` says ``other``'s value word for word under a label of a word in common:
    "Luis lives in: Alicante" beside "Luis's home: Alicante" (a `make run` chat, stop 58), or
    a value of two words or more under labels of the user's own."""
    value, other_value = (normalize_space(ln.partition(":")[2]).lower().rstrip(".") for ln in (line, other))
    labels = [{stem(w) for w in content_words(ln.partition(":")[0]) if len(w) > 1} for ln in (line, other)]
    if not value or value != other_value:
        return False
    # or a value of several words under any label of the user's own: "Title: maid of honour" beside
    # "Role: maid of honour" (a `make run` chat, stop 62)
    theirs = any("'" in ln.partition(":")[0] or individual(ln) for ln in (line, other))
    return bool(labels[0] & labels[1]) or (not theirs and len(content_words(value)) >= 2)


# labels that only say what kind of news a line is: "Health: knee is playing up", "Facts: ..."
_HEADINGS = frozenset(
    stem(w)
    for w in "health news update updates status condition issue issues problem fact facts info details notes "
    # "Plan: training for the Cardiff half marathon in March (2027-03)" beside "Training: Cardiff half
    # marathon in March (2027-03), first one since knee injury" (a `make run` chat, stop 62)
    "plan plans".split()
)
_HEDGES = frozenset(stem(w) for w in "mostly mainly usually really also lately".split())
# label words that only say what kind of thing is told of someone: "Finn's personality: thinks he's
# a pup" beside "Dog: Finn (border collie, 9 years old, thinks he's a pup)" (a `make run` chat, stop 63)
_DESCRIBING = frozenset(
    stem(w) for w in "personality character nature temperament traits trait quirk quirks behaviour behavior".split()
)


def _told_under_a_heading(line: str, others: Sequence[str]) -> bool:
    """Whether ``line`` says no more than ``others`` together under a heading: "Health: knee is
    playing up" beside "Knee: has been playing up", and "Facts: keeps an allotment, tomatoes and
    runner beans mostly" beside "Hobby: keeping an allotment" and "Fruits: tomatoes and runner
    beans" (`make run` chats, stop 59)."""
    label = {stem(w) for w in content_words(line.partition(":")[0])}
    told = set().union(*(_line_stems(other) for other in others if other != line))
    return bool(label) and label <= _HEADINGS and _line_stems(line) - label - _HEDGES <= told


_THEIR_LABEL = re.compile(r"^\s*(?P<name>[A-Z][a-z]+)['’]s\s+(?P<what>.+?)\s*$")


def _said_in_their_own_line(line: str, others: Sequence[str]) -> bool:
    """Whether ``line``, under one of the user's people's name ("Marte's marriage: June in
    Trondheim"), says no more than the line that files them ("Sister: Marte, getting married in
    June (2027-06) in Trondheim"): both were saved for one message, in two `make run` chats of
    stop 60."""
    theirs = _THEIR_LABEL.match(line.partition(":")[0])
    if theirs is None:
        return False
    name = theirs["name"].lower()
    # or under who they are: "Girlfriend's work: works crazy shifts" beside "Girlfriend: Lena, paediatric
    # nurse, works crazy shifts" (a `make run` chat, stop 60)
    told = set().union(
        *(
            _line_stems(other)
            for other in others
            if other != line and (individual(other) == name or individual(other) and _label_key(other) == name)
        )
    )
    says = {w for w in _line_stems(line) if len(w) > 1} - {stem(name)} - _HEDGES - _DESCRIBING  # not "s" of "Marte's"
    # a label's word told by its topic: "Callum's home: Aberdeen" beside "Son: Callum, lives in Aberdeen" (stop 61)
    says -= {stem(w) for w in words(theirs["what"]) if {stem(t) for t in label_topics(w)} & told}
    # and an age by one said: "Cerys's age: 11" beside "Daughter: Cerys, 11 years old" (a `make run` chat, stop 62)
    if any(other != line and individual(other) == name and AGE_IN_VALUE.search(other) for other in others):
        says -= {stem("age")}
    return bool(told) and says <= told


def _said_in_one_line(line: str, others: Sequence[str]) -> bool:
    """Whether one of ``others`` says all that ``line`` says, less the relation of a person it
    names that another line files ("partner" of "Partner: Dev") and a label's word told by its
    topic ("destination" of a trip): "Partner Dev's 30th: Seville", the answer to "I don't know
    where you and your partner Dev are going in April ...", and "Destination: Seville" beside
    "Travel: going to Seville in April (2027-04) for Dev's 30th" (a `make run` chat, stop 62).
    A line that files someone the line does not name says nothing of the user's own: "Home:
    Leeds" is not "Sister: Anjali, lives in Leeds"."""
    named = {name for other in others if (name := individual(other)) and re.search(rf"\b{name}\b", line, re.I)}
    filing = {stem(w) for other in others if individual(other) in named for w in content_words(label_of(other) or "")}
    value = {w for w in value_stems(line) if len(w) > 1} - filing
    label = [w for w in content_words(line.partition(":")[0]) if len(w) > 1 and stem(w) not in filing]
    for other in others:
        if other == line or individual(other) not in (None, *named):
            continue
        told = _line_stems(other)
        unsaid = [w for w in label if stem(w) not in told and not {stem(t) for t in label_topics(w)} & told]
        if value and value <= told and not unsaid:
            return True
    return False


_ISO_PART = re.compile(r"\b\d{4}(?:-\d{2}(?:-\d{2})?)?\b")


def dated_ahead(line: str, today: date) -> bool:
    """Whether ``line`` holds a day (or month, or year) after ``today``: a plan."""
    now = today.isoformat()
    return any(found > now[: len(found)] for found in _ISO_PART.findall(line.partition(":")[2]))


# a visit that happened: "landed safely", "arrived this morning", "got here on Friday"
_CAME = re.compile(
    r"(?:finally\s+|safely\s+)?(?:arrived|landed|came|got\s+(?:here|in|back)|made\s+it|turned\s+up)\b", re.I
)


def plan_come_to_pass(old: str, new: str, today: date) -> str | None:
    """A relative's saved line ``old`` with its plan (a part dated after ``today``) put as ``new``
    says it happened, dated today when it says no day; None when ``new`` tells no such thing.
    "Mum landed safely!" left "Mum: Abena, 71; flying in from Accra next Friday (2026-12-11)" as
    it was, and "My mum arrived this morning" replaced the line, her name with it (a `make run`
    chat, stop 59)."""
    label, _, value = old.partition(":")
    if label.strip().lower() not in RELATIONS | PETS or not _CAME.match(new.partition(":")[2].strip()):
        return None
    parts = [p.strip() for p in value.split(";")]
    ahead = [i for i, part in enumerate(parts) if dated_ahead(f"{label}: {part}", today)]
    if len(ahead) != 1:
        return None
    happened = new.partition(":")[2].strip()
    if not _ISO_PART.search(happened):
        happened = f"{happened} ({today.isoformat()})"
    parts[ahead[0]] = happened
    return f"{label}: {'; '.join(parts)}"


# words that say a fact ended: a plan beside it replaces it ("I left the practice, I start at the hospital on Monday")
_ENDED = re.compile(
    r"\b(?:quit|left|resign\w*|handed\s+in\s+my\s+notice|retired|finished|no\s+longer|sold)\b", re.IGNORECASE
)


def _singular(word: str) -> str:
    """``word`` without a plural ending: "buses" is "bus", "shops" is "shop"; "bus" stays."""
    if len(word) > 4 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return f"{word[:-3]}y"  # "hobbies" is "hobby"
    return word[:-1] if word.endswith("s") and not word.endswith(("ss", "us", "is")) else word


def _label_key(line: str) -> str | None:
    """``line``'s label in the singular: "Hobby: padel" files under "Hobbies: padel every
    Wednesday night with Luis" (a `make run` chat, stop 58, kept both)."""
    label = label_of(line)
    return None if label is None else " ".join(_singular(w) for w in label.split())


def _singulars(text: str) -> set[str]:
    """The content words of ``text``, each without a plural ending."""
    return {_singular(w) for w in content_words(text)}


def _plan_beside(old: str, new: str, today: date | None, said: str = "") -> bool:
    if today is None or not dated_ahead(new, today) or _ISO_PART.search(old.partition(":")[2]):
        return False

    def forms(text: str) -> set[str]:  # "the buses" is "Work: drives the night bus"
        return {stem(w) for w in _singulars(text)}

    ended = any(forms(old.partition(":")[2]) & forms(s) and _ENDED.search(s) for s in sentences(said))
    return not ended


# words that say a plan moved to another day: "the trip got moved, we fly on the 20th now instead"
# ("change of plan: Elodie is now arriving on the 20th" had left her Christmas visit as it was, a
# `make run` chat, stop 52)
_MOVED = re.compile(
    r"\b(?:moved|postponed|pushed(?:\s+(?:back|forward|to))?|rescheduled|brought\s+forward|delayed|put\s+off"
    r"|change\s+of\s+plans?|plans?\s+(?:have\s+|has\s+)?changed|instead|now)\b",
    re.IGNORECASE,
)
_DAY_NOTE = re.compile(r"\([^()]*\d{4}-\d\d(?:-\d\d)?\)")
# the words of a journey: a flight that moved moves the trip it is part of
_TRAVEL = frozenset(
    stem(w) for w in "trip flight fly flying departure depart leave leaving holiday vacation journey travel".split()
)


_NOT_WHAT = frozenset(
    stem(w) for w in "moved move postponed pushed back forward delayed rescheduled now day days".split()
)


def _what(line: str) -> set[str]:
    """The stems of what ``line`` is about: its content words, less days and words of moving."""
    text = _DAY_NOTE.sub(" ", line)
    return {stem(w) for w in content_words(text) if len(w) > 2 and not w[:1].isdigit()} - _NOT_WHAT


def moves_a_saved_plan(saved: Sequence[str], said: str, today: date) -> bool:
    """Whether ``said`` tells a saved plan ahead moved, naming it by a word of what it is: "Change
    of plans, book club is on the 15th now." says nothing of its writer, and was never read for
    facts beside "Book club: at Ana's on the 12th" (bench_notes whose-held)."""
    if not _MOVED.search(said):
        return False
    heard = {stem(w) for w in _singulars(said)}
    return any(dated_ahead(line, today) and _what(line.partition(":")[0]) & heard for line in saved)


def moved_plan(line: str, current: Sequence[str], said: str, today: date | None) -> int | None:
    """The index of the one saved plan ahead that ``line``, a plan the user said moved, moves:
    one of the same thing (a word of what it is in common), or a journey for a flight or a
    departure. "our flight got pushed back, we now leave on the 21st" was written "Departure: on
    the 21st" beside "Trip: to Lagos to see parents (on the 19th, 2026-12-19)", which stayed (a
    `make run` chat, stop 51)."""
    if today is None or not _MOVED.search(said) or not dated_ahead(line, today):
        return None
    what = _what(line)
    travels = bool(what & _TRAVEL)
    plans = [
        i
        for i, old in enumerate(current)
        if old != line and dated_ahead(old, today) and (what & _what(old) or (travels and _what(old) & _TRAVEL))
    ]
    return plans[0] if len(plans) == 1 else None


def rescheduled(old: str, new: str, said: str, today: date | None) -> str:
    """``new`` for a plan ``old`` that the user said moved to another day, with what ``old``
    said of it besides its day when ``new`` left that out: "Trip: to the Azores next week"
    became "Trip: moved to fly on the 20th" for "the trip got moved, we fly on the 20th now
    instead", and the Azores were gone (a `make run` chat, stop 51); it is "Trip: to the
    Azores, moved to fly on the 20th". A new line naming a place or a person of its own is
    another plan, and stands as it is."""
    old_value, new_value = old.partition(":")[2], new.partition(":")[2]
    if today is None or not _MOVED.search(said) or not (_ISO_PART.search(old_value) and _ISO_PART.search(new_value)):
        return new
    rest = _DAY_NOTE.sub(" ", old_value)
    for mention in reversed(mentions(rest, today)):
        rest = rest[: mention.start] + rest[mention.end :]
    rest = re.sub(r"\s+([,;])", r"\1", normalize_space(rest)).strip(" ,;:-")
    names = {
        w
        for w in re.findall(rf"\b[{UPPER}][\w'-]+", new_value)
        if w.lower() not in old_value.lower() and w.lower() not in WHEN_WORDS
    }
    if not rest or names or not value_stems(f"x: {rest}") - value_stems(new):
        return new
    day = _DAY_NOTE.search(new_value)
    if bare_day(new) and day is not None:
        # "Elodie's arrival: 20th (2026-12-20)" moves her visit "to the 20th", as it was said
        # (a `make run` chat, stop 52), not "Elodie, coming to stay, 20th"
        said_as = [m.phrase for m in mentions(said, today) if m.value in day[0]]
        phrase = re.sub(r"^(?:on|to|for|at)\s+", "", said_as[0], flags=re.IGNORECASE) if said_as else ""
        if phrase:
            return f"{new.partition(':')[0]}: {rest}, moved to {phrase} {day[0]}"
    return f"{new.partition(':')[0]}: {rest}, {new_value.strip()}"


def _day_filed(line: str, old: str) -> bool:
    """Whether ``line`` says only a day (``bare_day``) that the saved line ``old`` files already:
    "Flight: on the 20th (2026-12-20)" beside "Trip: to the Azores, moved to fly on the 20th
    (2026-12-20)", for "we fly on the 20th, remember?" (a `make run` chat, stop 51)."""
    day = _DAY_NOTE.search(line.partition(":")[2])
    return bare_day(line) and day is not None and day[0] in old.partition(":")[2]


_MOVED_FROM = re.compile(r"\(moved from (?P<old>[^)]+)\)")


def _leave_old_base(current: list[str], notes: Notes) -> None:
    """Where the user moved from, taken out of the lines that say they are based there: after
    "We finally left Burquoanton. I live in Nousaorabury now." the block still held "Work:
    Librarian by trade, based in Burquoanton" beside "Home: Nousaorabury (moved from
    Burquoanton)" (eval chat seed 31, the second wording, stop 51)."""
    for new in [*notes.added, *(n for _, n in notes.replaced)]:
        moved = _MOVED_FROM.search(new)
        if moved is None:
            continue
        based = re.compile(rf",?\s*\bbased (?:in|at|out of) {re.escape(moved['old'].strip())}\b", re.IGNORECASE)
        for i, line in enumerate(current):
            if line == new or not based.search(line):
                continue
            left = based.sub("", line)
            if line in notes.added:
                notes.added[notes.added.index(line)] = left
            else:
                notes.replaced.append((line, left))
            current[i] = left


def _plan_unlike(old: str, new: str, today: date | None) -> bool:
    """Whether ``new`` says nothing of the plan ahead ``old`` is: no day, no word in common."""
    if today is None or not dated_ahead(old, today) or _ISO_PART.search(new.partition(":")[2]):
        return False
    undated = _ISO_PART.sub(" ", _DAY_NOTE.sub(" ", old))  # "12" of "2026-12-22" is no word of it
    return not value_stems(undated) & value_stems(new)


def _without_name(line: str, name: str) -> str:
    """``line`` with the name its value begins with taken out: "Husband: working on a film soundtrack"
    for "Husband: Rui (working on a film soundtrack)"."""
    label, _, value = line.partition(":")
    rest = re.sub(rf"^\s*{re.escape(name)}\b[\s,;:-]*", "", value, flags=re.IGNORECASE).strip()
    if rest.startswith("(") and rest.endswith(")") and rest.count("(") == 1:
        rest = rest[1:-1].strip()
    return f"{label}: {rest}" if rest else line


def _detail_changed(old: str, name: str, said: str) -> bool:
    """Whether ``said`` says the saved detail of someone's line ``old`` changed: a sentence that
    holds a word of that detail (the name aside) also holds a word of change."""

    # whole words: "soundtrack" is no word of "sound engineer"
    detail = _singulars(old.partition(":")[2]) - {name.lower()}
    return any(detail & _singulars(sentence) and _CHANGE.search(sentence) for sentence in sentences(said))


# a clause of long ago: "came to England in 1982 for a teaching job", "used to run marathons"
_LONG_AGO = re.compile(
    r"\b(?:\d+|a\s+few|many|two|three|four|five|ten|twenty)\s+years\s+ago\b|\bused\s+to\b|\bback\s+then\b"
    r"|\bas\s+a\s+(?:kid|child|boy|girl|teenager)\b|\bwhen\s+I\s+was\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
_CLAUSE = re.compile(r"[^,;.!?]+")


def told_years_ago(line: str, said: str, today: date | None) -> bool:
    """Whether the clause of ``said`` that tells ``line``'s value (half its words or more) tells
    of long ago: a year before ``today``'s, "years ago", "used to". "I grew up in Osaka, came to
    England in 1982 for a teaching job." made "Work: retired maths teacher" into "Work: teaching
    job in England" (a `make run` chat, stop 54); a past of the user's is no change of the fact
    saved."""
    about = value_stems(line)
    if not about:
        return False
    for clause in _CLAUSE.findall(said):
        if len(about & {stem(w) for w in content_words(clause)}) * 2 < len(about):
            continue
        years = [int(y) for y in _YEAR.findall(clause)]
        if _LONG_AGO.search(clause) or (today is not None and years and max(years) < today.year):
            return True
    return False


def merge(
    value: str,
    lines: Sequence[str],
    limit: int,
    said: str,
    today: date | None = None,
    settled: Collection[str] = (),
) -> tuple[str, Notes]:
    """``value`` (a block's text) with ``lines`` (read from the user's words ``said``) written
    in: a line whose label the block holds replaces it when ``replaces`` allows, one it already
    holds changes nothing, the rest are appended; oldest lines leave when the result would
    exceed ``limit``. A plan (a line dated after ``today``) joins an undated saved line rather
    than replacing it: it has not happened yet. "I start at a new school in January" made
    "Work: teaches chemistry at a secondary school in Norwich" into "Work: new school in
    January (2027-01)" (a `make run` chat, stop 47), and the job was gone. A line whose label is
    ``settled`` replaces the saved one outright: the work question saw the saved job and wrote
    the work now ("Work: barista ...; gardener at the botanical garden, from the 1st" kept the
    old job beside the new one, bench_notes jobs-held, stop 50)."""
    notes = Notes()
    current = block_lines(value)
    for line in lines:
        label, key = label_of(line), _label_key(line)
        same = next((i for i, old in enumerate(current) if _label_key(old) == key), None)
        if any(normalize_space(old).lower() == line.lower() for old in current):
            continue
        one = individual(line)
        if same is not None and one is not None and individual(current[same]) not in (None, one):
            # "Dog: Tinto" does not make "Dog: Rex" go: a second one, or the line that files it
            same = next((i for i, old in enumerate(current) if _label_key(old) == key and individual(old) == one), None)
        if same is not None and one is not None and individual(current[same]) == one:
            if told_in(line, current[same]):
                continue
            aged = all(AGE_IN_VALUE.search(ln.partition(":")[2]) for ln in (current[same], line))
            if (
                not aged
                and not value_stems(current[same]) <= value_stems(line)
                and not _detail_changed(current[same], one, said)
            ):
                # more about the same person: "Husband: Rui (sound engineer); working on a film soundtrack"
                gathered = with_value_of(current[same], _without_name(line, one))
                notes.replaced.append((current[same], gathered))
                current[same] = gathered
                continue
        if same is not None and told_in(line, current[same]):
            continue  # a part of the saved line, said again
        written = [*notes.added, *(new for _, new in notes.replaced)]
        if same is None and (
            any(said_twice(line, old) or _day_filed(line, old) or _same_value_same_one(line, old) for old in current)
            or any(_line_stems(line) <= _line_stems(new) for new in written)
            or _told_under_a_heading(line, [*current, *written, *lines])
            or _said_in_their_own_line(line, [*current, *written, *lines])
            or _said_in_one_line(line, current)
        ):
            continue
        trip = moved_plan(line, current, said, today) if same is None else None
        if trip is not None:
            old = current[trip]
            if old in notes.added or old in (new for _, new in notes.replaced):
                # moved once by this pass already: "Porto: moved, flights were cheaper" after "Porto:
                # moved to February (2027-02), ..." wrote the move twice into the trip (a `make run` chat, stop 58)
                if value_stems(line) - value_stems(old):
                    current.append(line)
                    notes.added.append(line)
                continue
            moved = rescheduled(old, f"{old.partition(':')[0]}: {line.partition(':')[2].strip()}", said, today)
            if old in notes.added:
                notes.added[notes.added.index(old)] = moved
            else:
                notes.replaced.append((old, moved))
            current[trip] = moved
        elif same is None:
            current.append(line)
            notes.added.append(line)
        else:
            # a line this pass wrote is not replaced by its next: "Wife: Sara, got a new job at the
            # council" then "Wife: starts Monday", for "... she starts Monday"
            fresh = current[same] in notes.added or current[same] in (new for _, new in notes.replaced)
            came = None if fresh or today is None else plan_come_to_pass(current[same], line, today)
            if came is not None:
                notes.replaced.append((current[same], came))
                current[same] = came
                continue
            if fresh:  # unless it says all that one did and more
                changes = value_stems(current[same]) <= value_stems(line)
            else:
                changes = label in settled or replaces(current[same], line, said)
                if changes and label not in settled and _plan_unlike(current[same], line, today):
                    changes = (
                        False  # "Flight: to Rio on the 22nd" is no "Flight: 12 hours" (a `make run` chat, stop 51)
                    )
                if changes and label not in settled and told_years_ago(line, said, today):
                    changes = False  # "came to England in 1982 for a teaching job" is no job now
            # a plan joins the line it will change; "I've taken up pottery" joins "Hobby: running"
            # (eval chat seed 22)
            beside = label not in settled and _plan_beside(current[same], line, today, said)
            # a relative's line gathers what is told of them: "Mum: never eats turkey" was kept out
            # for "Mum: flying in from Chennai ..." (a `make run` chat, stop 53)
            of_a_relative = (label in RELATIONS or label in PETS) and not tells_an_event(line)
            if beside or (not changes and (holds_many(line) or fresh or of_a_relative)):
                # the same one's plan joins without their name again: "Granddaughter: Saoirse; Saoirse,
                # starts medicine in September" (a `make run` chat, stop 50)
                same_one = one is not None and individual(current[same]) == one
                gathered = with_value_of(current[same], _without_name(line, one) if same_one and one else line)
                if current[same] in notes.added:  # said as one new line
                    notes.added[notes.added.index(current[same])] = gathered
                else:
                    notes.replaced.append((current[same], gathered))
                current[same] = gathered
            elif changes:
                line = rescheduled(current[same], line, said, today)
                if current[same] in notes.added:
                    notes.added[notes.added.index(current[same])] = line
                else:
                    notes.replaced.append((current[same], line))
                current[same] = line
            else:
                notes.kept.append((current[same], line))
    _leave_old_base(current, notes)
    kept_new = set(notes.added) | {new for _, new in notes.replaced}
    while len("\n".join(current)) > limit and any(ln not in kept_new for ln in current):
        oldest = next(ln for ln in current if ln not in kept_new)
        current.remove(oldest)
        notes.moved.append(oldest)
    return "\n".join(current), notes


# "lessons, not lesions", "it's Sara not Sarah": the word the user meant, then the one they did not
# ("it's a trip, not a party": one thing for another, said with its article)
_IT_IS_A = re.compile(r"\b(?:it's|it\s+is|it\s+was|that's|that\s+is|its)\s+(?:a|an|the)\s+$", re.IGNORECASE)
_NOT_THAT = re.compile(
    rf"\b(?P<right>[{UPPER}{LOWER}][\w'-]*)\s*,?\s+not\s+(?P<article>(?i:a|an|the)\s+)?(?P<wrong>[{UPPER}{LOWER}][\w'-]*)\b"
)


def corrected_words(saved: Sequence[str], said: str) -> list[tuple[str, str]]:
    """(saved line, the line with the user's word for it) for each word the user puts right ("X,
    not Y") that a saved line says and the user's word does not: the notes pass saved "Lesions:
    on Thursday evenings", the greeting read it out, and "Ha, lessons, not lesions!" changed
    nothing (a `make run` chat, stop 57). The word keeps the case it had in the line."""
    out: list[tuple[str, str]] = []
    for m in _NOT_THAT.finditer(said):
        right, wrong = m["right"], m["wrong"]
        # a thing for a thing only as what something is: "It's a trip, not a party", never "Ana has a
        # cat, not a dog" (which says nothing against "Dog: Pimienta")
        a_thing = bool(m["article"] and _IT_IS_A.search(said[: m.start()]))
        if right.lower() == wrong.lower() or not _one_for_another(right, wrong, a_thing):
            continue
        pattern = re.compile(rf"(?<![\w'-]){re.escape(wrong)}(?![\w'-])", re.IGNORECASE)
        for line in saved:
            if not pattern.search(line) or any(old == line for old, _ in out):
                continue

            def cased(found: re.Match[str], right: str = right) -> str:
                return right[0].upper() + right[1:] if found[0][0].isupper() else right.lower()

            out.append((line, pattern.sub(cased, line)))
    return out


_DAY_NAMES = frozenset(WEEKDAYS) | {month.lower() for month in MONTHS}


def _one_for_another(right: str, wrong: str, a_thing: bool = False) -> bool:
    """Whether the user's ``right`` can stand for ``wrong``: a spelling near it ("lessons" for
    "lesions", "Sara" for "Sarah"), two names, or a thing for a thing (``a_thing``: "It's a trip,
    not a party!" for "Porto party: ...", a `make run` chat, stop 58). "Mum's the one, not Dad"
    puts no "One" for "Dad"; a day is left to the notes pass, which writes its date ("Tuesday,
    not Thursday")."""
    a, b = right.lower(), wrong.lower()
    if a in _DAY_NAMES or b in _DAY_NAMES or a in ("one", "ones") or a in STOPWORDS or b in STOPWORDS:
        return False
    if a_thing:
        return True
    if SequenceMatcher(None, a, b).ratio() >= 0.6:
        return True
    return right[0].isupper() and wrong[0].isupper() and a not in STOPWORDS and b not in STOPWORDS
