"""Relative dates in what was said, resolved against when it was said.

A message from 2025-03-04 that says "we got back yesterday" means 2025-03-03; a model that
reads the hit months later cannot work that out reliably, so search results show the date
next to the phrase. ``mentions`` finds the phrases (today, tonight, yesterday, the day before
yesterday, tomorrow, "three days ago", "in two weeks", "last Sunday", "on Saturday", "this
Friday", "next Monday", last/this/next week, weekend, month and year); ``annotate`` writes
their dates in ("we got back yesterday (2025-03-03)") and ``date_notes`` lists them
("yesterday = 2025-03-03"), to show beside a text that must stay as it was said.

Days are the UTC days of the timestamp (the days search results show). "last Sunday" and
"this past Sunday" are the latest Sunday before the day; "next Sunday" and "this coming
Sunday" the first one after it; a bare "on Sunday" or "this Sunday" is the latest one before
(from the day itself, for "this") unless its sentence speaks of the future ("will", "going
to", ...) or its clause is in the present progressive ("we're moving on Saturday"), then the
first one after. A week is Monday to Sunday, shown by its Monday.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "a couple of": 2,
    "couple of": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_DAY_WORDS = {
    "the day before yesterday": -2,
    "the day after tomorrow": 2,
    "yesterday": -1,
    "last night": -1,
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
    "tomorrow": 1,
}
_NUMBER = r"(?P<n>\d{1,3}|" + "|".join(sorted((re.escape(k) for k in NUMBERS), key=len, reverse=True)) + r")"
_DAY = "|".join(WEEKDAYS)
_PATTERNS = (
    ("count_ago", rf"{_NUMBER}\s+(?P<unit>day|week|month|year)s?\s+ago"),
    ("count_in", rf"in\s+{_NUMBER}\s+(?P<unit>day|week|month|year)s?"),
    ("days", "|".join(sorted((re.escape(k) for k in _DAY_WORDS), key=len, reverse=True))),
    ("weekday", rf"(?P<which>last|this\s+past|this\s+coming|next|this|on)\s+(?P<day>{_DAY})"),
    ("period", r"(?P<which>last|this|next)\s+(?P<period>week|weekend|month|year)"),
)
_PHRASE = re.compile(
    r"(?<![\w-])(?:"
    + "|".join(f"(?P<{name}>{re.sub(r'[(][?]P<[a-z]+>', '(?:', pattern)})" for name, pattern in _PATTERNS)
    + r")(?![\w-]|['’]\w)",
    re.IGNORECASE,
)
_GROUPS = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in _PATTERNS}
_FUTURE = re.compile(
    r"\b(will|won't|shall|going to|gonna|plan(?:ning)? to|can't wait|looking forward|hoping to|hope to)\b|'ll\b",
    re.IGNORECASE,
)
# the present progressive in the day's own clause is an arrangement: "Rui is flying in on Friday",
# "we're moving on Saturday" (a `make run` chat dated Rui's flight to the Friday before); words in
# -ing that are no verb ("it was amazing", "nothing") do not count
_NOT_VERBS = (
    "amazing|boring|interesting|exciting|annoying|tiring|relaxing|exhausting|amusing|disappointing|"
    "terrifying|charming|stunning|surprising|confusing|frustrating|worrying|thing|things|nothing|something|"
    "anything|everything|morning|evening|king|ring|spring|string|during|ceiling|building|wedding|pudding"
)
_PROGRESSIVE = re.compile(
    rf"(?:\b(?:am|is|are)|\w['’](?:m|re|s))\s+(?:\w+\s+)?(?!(?:{_NOT_VERBS})\b)\w+ing\b", re.IGNORECASE
)
_CLAUSE_STOPS = ".!?\n,;"
# already dated: "yesterday (2025-03-03)", "last week (week of ...)", "(moved yesterday, 2025-03-03)"
_DATED = re.compile(r"(?:\s*\(|,\s*)(?:week(?:end)? of )?\d{4}")


@dataclass(frozen=True)
class Mention:
    """A relative date phrase at ``text[start:end]`` and the date it stands for, as shown."""

    start: int
    end: int
    phrase: str
    value: str  # "2025-03-03", "week of 2025-02-24", "weekend of 2025-03-01", "2025-02", "2024"


def day_of(when: datetime | date) -> date:
    """The UTC day of a timestamp (naive ones are taken as UTC)."""
    if isinstance(when, datetime):
        if when.tzinfo is not None:
            when = when.astimezone(timezone.utc)
        return when.date()
    return when


def _number(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else NUMBERS[word]


def _shift_months(day: date, months: int) -> str:
    index = day.year * 12 + day.month - 1 + months
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def _counted(day: date, n: int, unit: str, sign: int) -> str:
    if unit == "day":
        return (day + timedelta(days=sign * n)).isoformat()
    if unit == "week":
        return (day + timedelta(weeks=sign * n)).isoformat()
    if unit == "month":
        return _shift_months(day, sign * n)
    return f"{day.year + sign * n:04d}"


def _weekday(day: date, which: str, name: str, future: bool) -> str:
    target = WEEKDAYS.index(name.lower())
    back = (day.weekday() - target) % 7  # 0..6 days since the latest such day (today included)
    ahead = (target - day.weekday()) % 7  # 0..6 days until the next one (today included)
    which = " ".join(which.lower().split())
    if which in ("last", "this past") or (which == "on" and not future):
        offset = -(back or 7)
    elif which in ("next", "this coming") or which == "on":
        offset = ahead or 7
    else:  # "this": the one of the current stretch of days, looking back unless the future is meant
        offset = ahead if future else -back
    return (day + timedelta(days=offset)).isoformat()


def _period(day: date, which: str, period: str) -> str:
    step = {"last": -1, "this": 0, "next": 1}[which.lower()]
    monday = day - timedelta(days=day.weekday())
    if period.lower() == "week":
        return f"week of {(monday + timedelta(weeks=step)).isoformat()}"
    if period.lower() == "weekend":
        return f"weekend of {(monday + timedelta(weeks=step, days=5)).isoformat()}"
    if period.lower() == "month":
        return _shift_months(day, step)
    return f"{day.year + step:04d}"


def _around(text: str, start: int, end: int, stops: str = ".!?\n") -> str:
    """The stretch of ``text`` around ``text[start:end]`` between two of ``stops``: its sentence,
    or with ``,;`` added its clause."""
    left = max(text.rfind(c, 0, start) for c in stops)
    rights = [i for i in (text.find(c, end) for c in stops) if i >= 0]
    return text[left + 1 : min(rights) if rights else len(text)]


def _value(kind: str, phrase: str, day: date, future: bool) -> str:
    m = _GROUPS[kind].fullmatch(phrase)
    assert m is not None
    if kind == "count_ago":
        return _counted(day, _number(m["n"]), m["unit"].lower(), -1)
    if kind == "count_in":
        return _counted(day, _number(m["n"]), m["unit"].lower(), 1)
    if kind == "days":
        return (day + timedelta(days=_DAY_WORDS[" ".join(phrase.lower().split())])).isoformat()
    if kind == "weekday":
        return _weekday(day, m["which"], m["day"], future)
    return _period(day, m["which"], m["period"])


_FORWARD = re.compile(r"(?:the day after )?tomorrow|in\s|next\s|this\s+coming\s", re.IGNORECASE)


def said_as_future(text: str, mention: Mention) -> bool:
    """Whether ``mention`` (of ``text``) names a day ahead by its own words ("tomorrow", "next
    Friday", "in two weeks") or its clause speaks of the future. Weaker than the sentence test
    ``mentions`` uses for a bare "on Tuesday": "You won't believe it, two of my students set a
    lab bench on fire on Tuesday" is a past Tuesday to the user, whatever "won't" says."""
    if _FORWARD.match(mention.phrase):
        return True
    clause = _around(text, mention.start, mention.end, _CLAUSE_STOPS)
    return bool(_FUTURE.search(clause) or _PROGRESSIVE.search(clause))


def mentions(text: str, when: datetime | date) -> list[Mention]:
    """The relative date phrases of ``text``, said at ``when``, in order."""
    day = day_of(when)
    found = []
    for m in _PHRASE.finditer(text):
        kind = m.lastgroup
        assert kind is not None
        sentence = _around(text, m.start(), m.end())
        future = bool(_FUTURE.search(sentence) or _PROGRESSIVE.search(_around(text, m.start(), m.end(), _CLAUSE_STOPS)))
        found.append(Mention(m.start(), m.end(), m.group(0), _value(kind, m.group(0), day, future)))
    return found


def annotate(text: str, when: datetime | date, context: str | None = None) -> str:
    """``text`` with the date of each relative date phrase written after it, in brackets:
    "we got back yesterday (2025-03-03)". Phrases already followed by a date are left alone.
    A phrase that ``context`` (the words ``text`` was taken from) also holds gets the date it
    has there, where its sentence tells past from future ("on Friday" in "Sister: Ola, flies
    in on Friday", from "She'll fly in on Friday")."""
    said = {m.phrase.lower(): m.value for m in mentions(context, when)} if context else {}
    out, last = [], 0
    for mention in mentions(text, when):
        if _DATED.match(text, mention.end):
            continue
        value = said.get(mention.phrase.lower(), mention.value)
        inside = text.startswith(")", mention.end)  # "(moved last weekend)": no brackets in brackets
        out.append(text[last : mention.end] + (f", {value}" if inside else f" ({value})"))
        last = mention.end
    return "".join(out) + text[last:]


def date_notes(text: str, when: datetime | date) -> list[str]:
    """The day of each relative date phrase of ``text``, each phrase once, to show beside it:
    ["yesterday = 2025-03-03", "on saturday = 2025-03-01"]."""
    return list(dict.fromkeys(f"{m.phrase.lower()} = {m.value}" for m in mentions(text, when)))
