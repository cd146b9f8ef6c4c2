"""Relative dates in what was said, resolved against when it was said.

A message from 2025-03-04 that says "we got back yesterday" means 2025-03-03; a model that
reads the hit months later cannot work that out reliably, so search results show the date
next to the phrase. ``mentions`` finds the phrases (today, tonight, yesterday, the day before
yesterday, tomorrow, "three days ago", "in two weeks", "last Sunday", "on Saturday", "this
Friday", "next Monday", last/this/next week, weekend, month and year, "next June", "in
March", "14 February", "June 3rd", "over Christmas", "at Easter"); ``annotate`` writes
their dates in ("we got back yesterday (2025-03-03)") and ``date_notes`` lists them
("yesterday = 2025-03-03"), to show beside a text that must stay as it was said.

Days are the UTC days of the timestamp (the days search results show). "last Sunday" and
"this past Sunday" are the latest Sunday before the day; "next Sunday" and "this coming
Sunday" the first one after it. A bare "on Sunday", "this Sunday", "in June" or "14 June" is
ahead (the first one after the day, from the day itself for "this", "in" and a day of a month)
unless its clause says it in the past ("we saw a band on Saturday", "it was amazing on
Saturday", "we went to Rome in June") and not also in the future ("will", "going to", or the
present progressive: "we're moving on Saturday"); then it is the latest one before. A week is
Monday to Sunday, shown by its Monday. Months are named with their capital ("this may be
hard" is no month); a day or month followed by a year is no relative date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from memgpt_local.text import LOWER

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
# holidays with a day of their own, as (month, day); Easter by ``easter_sunday``
HOLIDAYS = {
    "christmas eve": (12, 24),
    "christmas day": (12, 25),
    "christmas": (12, 25),
    "xmas": (12, 25),
    "boxing day": (12, 26),
    "new year's eve": (12, 31),
    "new years eve": (12, 31),
    "new year's day": (1, 1),
    "new year's": (1, 1),
    "new year": (1, 1),
    "halloween": (10, 31),
    "valentine's day": (2, 14),
    "valentines day": (2, 14),
    "easter sunday": None,
    "easter": None,
}
HOLIDAY_WORDS = frozenset(name.split()[0] for name in HOLIDAYS)  # the word each holiday is named by first
_HOLIDAY = "|".join(re.escape(k).replace("'", "['’]") for k in sorted(HOLIDAYS, key=len, reverse=True))
_NUMBER = r"(?P<n>\d{1,3}|" + "|".join(sorted((re.escape(k) for k in NUMBERS), key=len, reverse=True)) + r")"
_DAY = "|".join(WEEKDAYS)
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH = "(?-i:" + "|".join(MONTHS) + ")"
# beside a day's number a month is one in any case: "exams start on the 11th of january" was dated
# "on the 11th (2026-12-11)" in December (a `make run` chat, stop 63), and the next login greeted
# "... the 11th of January, which is in 4 days"
_MONTH_BY_A_DAY = "(?i:" + "|".join(MONTHS) + ")"
_DATE = r"(?P<d>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_NO_YEAR = r"(?!,?\s*\d)"  # "June 3, 2027" and "in June 2019" are no relative dates
_PATTERNS = (
    ("count_ago", rf"{_NUMBER}\s+(?P<unit>day|week|month|year)s?\s+ago"),
    ("count_in", rf"in\s+{_NUMBER}\s+(?P<unit>day|week|month|year)s?"),
    ("days", "|".join(sorted((re.escape(k) for k in _DAY_WORDS), key=len, reverse=True))),
    # "moved our dinner to Sunday": the day a plan moves to, ahead (bench_notes moved-held, stop 51)
    # not a habit: "lessons are on Thursday evenings" was dated to the next Thursday (a `make run` chat, stop 57)
    (
        "weekday",
        rf"(?P<which>last|this\s+past|this\s+coming|next|this|on|to)\s+(?P<day>{_DAY})"
        r"(?!\s+(?:mornings|afternoons|evenings|nights|lunchtimes)\b)",
    ),
    ("period", r"(?P<which>last|this|next)\s+(?P<period>week|weekend|month|year)"),
    ("day_month", rf"(?:the\s+)?{_DATE}\s+(?:of\s+)?(?P<month>{_MONTH_BY_A_DAY}){_NO_YEAR}"),
    # (before its day, in lowercase only with the day's ordinal: "i may 3 times" is no day)
    (
        "month_day",
        rf"(?P<month>{_MONTH}|{_MONTH_BY_A_DAY}(?=\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)\b))\s+(?:the\s+)?{_DATE}{_NO_YEAR}",
    ),
    # "the half marathon got moved to May": the month a plan moves to, ahead (a `make run` chat, stop 55)
    # and a part of it, or by when: "thesis is due end of march" (a `make run` chat, stop 61); typed in
    # lowercase too, where no verb reads so (``_lowercase_month``)
    (
        "month",
        r"(?P<which>last|this|next|in|to|by|until|till|before|(?:the\s+)?(?:end|start|beginning|middle)\s+of"
        rf"|early|mid|late)\s+(?P<month>(?i:{'|'.join(MONTHS)})){_NO_YEAR}",
    ),
    # a day of the month said alone: "cook for Declan's birthday on the 19th" (a `make run` chat,
    # stop 50), "our holiday is now the 19th" (bench_notes moved-held2), "the dentist moved it to the
    # 22nd" (a `make run` chat, stop 55); not "the 19th of December"
    # (``day_month``) nor "on the 5th floor"
    # a holiday after a word of when: "coming to stay over Christmas" (a `make run` chat, stop 52);
    # not "Christmas presents" nor "a Halloween costume"
    (
        "holiday",
        r"(?P<which>on|over|at|for|before|after|until|till|by|around|during|since|this|next|last)\s+"
        rf"(?:the\s+)?(?P<holiday>{_HOLIDAY})",
    ),
    (
        "nth",
        rf"(?:on|by|until|till|before|after|from|now|to)\s+the\s+(?P<d>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)"
        rf"(?!\s+(?:of\s+)?{_MONTH_BY_A_DAY})(?!\s+(?:century|centuries|floor|time|times|hole|round|lap|row|grade|place"
        r"|birthday|anniversary|minute|day|week|year)\b)",
    ),
)
_PHRASE = re.compile(
    r"(?<![\w-])(?:"
    + "|".join(f"(?P<{name}>{re.sub(r'[(][?]P<[a-z]+>', '(?:', pattern)})" for name, pattern in _PATTERNS)
    + r")(?![\w-]|['’]\w)",
    re.IGNORECASE,
)
_GROUPS = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in _PATTERNS}
_FUTURE = re.compile(
    r"\b(will|won't|shall|going to|gonna|plan(?:ning)? to|can't wait|looking forward|hoping to|hope to)\b|'ll\b"
    # what was arranged is ahead: "We finally booked flights to visit him in April" was dated to the April
    # before (a `make run` chat, stop 60)
    r"|\b(?:booked|planned|arranged|organi[sz]ed|reserved|signed\s+up|registered)\b(?=.*\b(?:to|for)\s)",
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
# a clause says its day in the past by a past form: "we saw a band on Saturday", "it was amazing
# on Saturday"; with none, a bare day is ahead ("my brother starts his new job on Thursday" was
# dated to the Thursday before in a `make run` chat). An -ed word after a form of "be" or "get"
# is a state ("I'm booked on Friday", "they're getting married in June"), one after "have" is in
# the present perfect ("Exam's on Tuesday and I haven't revised at all"), and some -ed words are
# no verbs at all; "could" is past only as "could not", "could have" ("What could I cook on the
# 19th?", "Any ideas what I could bake for Orla's birthday on the 22nd?" ask about a day ahead)
_PAST_FORMS = (
    "was|wasn't|were|weren't|had|hadn't|did|didn't|"
    r"could(?=\s+(?:not|have|never|hardly|barely)\b)|couldn't|went|got|saw|came|took|made|said|told|gave|"
    "found|met|left|set|ran|ate|drank|bought|brought|thought|felt|kept|lost|won|sent|spent|wrote|heard|held|"
    "stood|sat|slept|fell|flew|drove|rode|broke|spoke|chose|wore|began|sang|swam|threw|knew|grew|forgot|"
    "caught|taught|fought|paid|built|lent|meant|sold|woke|became|ago"
)
_PAST = re.compile(rf"\b(?:{_PAST_FORMS})\b|(?P<before>\b[\w']+\s+)?\b(?P<ed>[{LOWER}]+ed)\b", re.IGNORECASE)
_STATE_BEFORE = re.compile(
    r"\b(?:am|is|are|be|been|being|get|gets|getting|have|has|haven't|hasn't|\w+['’](?:m|re|s|ve))\s+$", re.IGNORECASE
)
_NOT_PAST = frozenset(
    "bed red need seed feed speed weed shed wed hundred sacred naked wicked shred breed bleed proceed exceed "
    "succeed indeed steed reed greed deed freed ted ned fred jed "
    # feelings and arrangements said without "I'm": "Excited for Friday!", "Supposed to meet on Monday"
    "excited tired bored interested worried scared stressed thrilled pleased delighted relieved exhausted "
    "annoyed nervous surprised supposed scheduled".split()
)
_HAVE_BEFORE = re.compile(r"(?:\w['’](?:s|ve)|\b(?:have|has))\s+$", re.IGNORECASE)
_CLAUSE_STOPS = ".!?\n,;"


def said_in_the_past(clause: str) -> bool:
    """Whether ``clause`` holds a past form of a verb ("saw", "was", "moved"), an -ed state
    ("is booked", "'re getting married") left out."""
    for m in _PAST.finditer(clause):
        if not m["ed"]:
            if m[0].lower() == "got" and _HAVE_BEFORE.search(clause[: m.start()]):
                continue  # "Ola's got a concert on Saturday", "I've got an exam": she has one
            return True
        if m["ed"].lower() not in _NOT_PAST and not (m["before"] and _STATE_BEFORE.search(m["before"])):
            return True
    return False


def _ahead(clause: str) -> bool:
    """Whether a bare day in ``clause`` ("on Saturday", "in June") lies ahead: the clause speaks
    of the future, or of no past."""
    return bool(_FUTURE.search(clause) or _PROGRESSIVE.search(clause)) or not said_in_the_past(clause)


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
    elif which in ("next", "this coming", "to") or which == "on":
        offset = ahead or 7
    else:  # "this": the one of the current stretch of days, ahead unless the past is meant
        offset = ahead if future else -back
    return (day + timedelta(days=offset)).isoformat()


def _month(day: date, which: str, name: str, future: bool) -> str:
    """ "next June": the first June after this month; "last June": the latest one before it;
    "this June": this year's; "in June": this month's or the first after, or in the past the
    latest up to this month."""
    month = MONTHS.index(name.capitalize()) + 1
    which = which.lower()
    if which == "this":
        year = day.year
    elif which in ("next", "to"):
        year = day.year if month > day.month else day.year + 1
    elif which == "last":
        year = day.year if month < day.month else day.year - 1
    elif future:
        year = day.year if month >= day.month else day.year + 1
    else:
        year = day.year if month <= day.month else day.year - 1
    return f"{year:04d}-{month:02d}"


def _day_of_month(day: date, number: int, name: str, future: bool) -> str | None:
    """ "14 June": the first 14 June from the day on, or in the past the latest up to it; None for
    a day no month has ("31 June")."""
    month = MONTHS.index(name.capitalize()) + 1
    years = range(day.year, day.year + 9) if future else range(day.year, day.year - 9, -1)
    for year in years:
        try:
            candidate = date(year, month, number)
        except ValueError:
            continue
        if (candidate >= day) if future else (candidate <= day):
            return candidate.isoformat()
    return None


def _nth(day: date, number: int, future: bool) -> str | None:
    """ "on the 19th": that day of this month, or of the next month that has it (in the past,
    of the last one)."""
    step = 1 if future else -1
    year, month = day.year, day.month
    for _ in range(13):
        try:
            candidate = date(year, month, number)
        except ValueError:
            candidate = None
        if candidate is not None and ((candidate >= day) if future else (candidate <= day)):
            return candidate.isoformat()
        month += step
        year, month = (year + 1, 1) if month > 12 else (year - 1, 12) if month < 1 else (year, month)
    return None


def easter_sunday(year: int) -> date:
    """Easter Sunday of ``year`` (the Gregorian computus)."""
    golden = year % 19
    century, of_century = divmod(year, 100)
    leap_skips, leap_left = divmod(century, 4)
    correction = (century + 8) // 25
    moon = (century - correction + 1) // 3
    epact = (19 * golden + century - leap_skips - moon + 15) % 30
    weekday = (32 + 2 * leap_left + 2 * (of_century // 4) - epact - of_century % 4) % 7
    shift = (golden + 11 * epact + 22 * weekday) // 451
    month, day = divmod(epact + weekday - 7 * shift + 114, 31)
    return date(year, month, day + 1)


def _holiday(day: date, which: str, name: str, future: bool) -> str:
    """ "over Christmas": the next one from the day on, or the latest up to it when said in the
    past; "last Christmas" the latest before, "next Christmas" the first after."""
    fixed = HOLIDAYS[" ".join(name.lower().replace("’", "'").split())]

    def on(year: int) -> date:
        return easter_sunday(year) if fixed is None else date(year, *fixed)

    which = which.lower()
    if which == "last" or (which not in ("next", "this") and not future):
        year = day.year if on(day.year) < day or (which != "last" and on(day.year) == day) else day.year - 1
    else:
        year = day.year if on(day.year) > day or (which != "next" and on(day.year) == day) else day.year + 1
    return on(year).isoformat()


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


def _value(kind: str, phrase: str, day: date, future: bool) -> str | None:
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
    if kind == "month":
        return _month(day, m["which"], m["month"], future)
    if kind == "nth":
        return _nth(day, int(m["d"]), future or phrase.lower().startswith("to"))  # moved to it: ahead
    if kind == "holiday":
        return _holiday(day, m["which"], m["holiday"], future)
    if kind in ("day_month", "month_day"):
        return _day_of_month(day, int(m["d"]), m["month"], future)
    return _period(day, m["which"], m["period"])


_FORWARD = re.compile(r"(?:the day after )?tomorrow|in\s|next\s|this\s+coming\s", re.IGNORECASE)


def said_as_future(text: str, mention: Mention) -> bool:
    """Whether ``mention`` (of ``text``) names a day ahead by its own words ("tomorrow", "next
    Friday", "in two weeks") or its clause speaks of the future or of no past ("my brother
    starts his new job on Thursday"). The clause alone counts: "You won't believe it, two of
    my students set a lab bench on fire on Tuesday" is a past Tuesday, whatever "won't" says."""
    if _FORWARD.match(mention.phrase):
        return True
    return _ahead(_around(text, mention.start, mention.end, _CLAUSE_STOPS))


# "in 3 years" said of how long it has been: "first time in 3 years" was dated 2029 ("First time in: 3
# years (2029)", a `make run` chat, stop 51), as would be "haven't seen them in 3 years"
_HOW_LONG_BEFORE = re.compile(
    # "my first time on a plane in ten years" was dated 2036 (a `make run` chat, stop 61)
    r"(?:\btime|\b(?:first|only|last)\s+time\b[^.!?;,]*|\b(?:haven't|hasn't|hadn't|have\s+not|has\s+not|never|not)\b[^.!?;]*)\s*$",
    re.IGNORECASE,
)


_MOVED_TO = re.compile(
    r"\b(?:mov(?:e|ed|es|ing)|postpon\w*|push\w*|put\s+(?:it\s+)?off|reschedul\w*|chang\w*|brought|bring\w*|shift\w*)\b",
    re.IGNORECASE,
)


def _sentence_of(text: str, m: re.Match[str]) -> str:
    left = max(text.rfind(mark, 0, m.start()) for mark in ".!?\n")
    ends = [i for i in (text.find(mark, m.end()) for mark in ".!?\n") if i >= 0]
    return text[left + 1 : min(ends, default=len(text))]


_BY_WHEN = frozenset("in by until till of early mid late".split())  # words before a month that no verb follows


def _lowercase_month(phrase: str) -> bool:
    """Whether a month ``phrase`` is one, its month capitalised or typed in lowercase after a word
    no verb follows: "in july", "end of march", not "to march" nor "this may be"."""
    *before, month = phrase.split()
    if month[:1].isupper():
        return True
    return before[-1].lower() in _BY_WHEN or (month.lower() != "may" and before[-1].lower() not in ("to", "this"))


def mentions(text: str, when: datetime | date) -> list[Mention]:
    """The relative date phrases of ``text``, said at ``when``, in order."""
    day = day_of(when)
    found = []
    for m in _PHRASE.finditer(text):
        kind = m.lastgroup
        assert kind is not None
        if kind == "count_in" and _HOW_LONG_BEFORE.search(text[max(0, m.start() - 60) : m.start()]):
            continue  # how long since, not when: "the first time in 3 years"
        if (
            kind in ("weekday", "month", "nth")
            and m.group(0).lower().startswith("to")
            and not _MOVED_TO.search(_sentence_of(text, m))
        ):
            continue  # "from Friday to Sunday" and "from March to May" are no plan moved
        if kind == "month" and not _lowercase_month(m.group(0)):
            continue
        value = _value(kind, m.group(0), day, _ahead(_around(text, m.start(), m.end(), _CLAUSE_STOPS)))
        if value is not None:
            found.append(Mention(m.start(), m.end(), m.group(0), value))
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


ISO_DAY = re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")  # groups y, m, d


def iso_day(match: re.Match[str]) -> date | None:
    """The day a match of a pattern with groups ``y``, ``m`` and ``d`` spells (None: no such day)."""
    try:
        return date(int(match["y"]), int(match["m"]), int(match["d"]))
    except ValueError:
        return None


def first_iso_day(text: str) -> date | None:
    """The first YYYY-MM-DD day ``text`` names, if any."""
    match = ISO_DAY.search(text)
    return iso_day(match) if match else None


def spoken_day(day: date, today: date) -> str:
    """``day`` as a person says it: "Tuesday 8 December", with the year when it is not ``today``'s."""
    said = f"{WEEKDAYS[day.weekday()].capitalize()} {day.day} {MONTHS[day.month - 1]}"
    return said if day.year == today.year else f"{said} {day.year}"


def spoken_days(text: str, today: date) -> str:
    """``text`` with its YYYY-MM-DD days and YYYY-MM months as a person says them ("(2026-12-08)"
    is "(Tuesday 8 December)", "(2027-03)" "(March 2027)"). A greeting written from "Ines's age:
    7 next Tuesday (2026-12-08)" said "Ines's age is 7 next Tuesday (2026-12-08)" to the user."""

    def say(m: re.Match[str]) -> str:
        day = iso_day(m)
        if day is None:
            return m[0]
        named = m["weekday"]  # "on Friday, 2026-12-04" is "on Friday 4 December", not "Friday, Friday"
        kept = m[0][: m.start("y") - m.start()] if named and named.lower() != WEEKDAYS[day.weekday()] else ""
        return kept + spoken_day(day, today)

    def say_month(m: re.Match[str]) -> str:
        return f"{MONTHS[int(m['m']) - 1]} {m['y']}"

    def said_once(m: re.Match[str]) -> str:
        # "on Sunday (2026-12-13)" is "on Sunday 13 December", "in April (2027-04)" "in April 2027":
        # shown "in April (April 2027)", a greeting said so (a `make run` chat, stop 55)
        day = iso_day(m) if m["d"] else None
        if day is not None and m["name"].lower() == WEEKDAYS[day.weekday()]:
            return spoken_day(day, today)
        if m["d"] is None and m["name"].lower() == MONTHS[int(m["m"]) - 1].lower():
            return f"{MONTHS[int(m['m']) - 1]} {m['y']}"
        return m[0]

    for pattern in _DATE_AFTER_NAME:
        text = pattern.sub(said_once, text)
    return _ISO_MONTH.sub(say_month, _NAMED_ISO_DAY.sub(say, text))


def with_days_in_full(text: str) -> str:
    """``text`` with each YYYY-MM-DD day followed by the day said in full ("2025-05-10" is
    "2025-05-10 (Saturday 10 May 2025)"): the words a reply may say it by."""

    def full(m: re.Match[str]) -> str:
        d = iso_day(m)
        return m[0] if d is None else f"{m[0]} ({spoken_day(d, d)} {d.year})"

    return ISO_DAY.sub(full, text)


# a month without its day, as the fact notes date "in March": "(2027-03)" is "(March 2027)". A
# greeting said "your trip to Peru in 2027-09" (eval chat, stop 42)
_ISO_MONTH = re.compile(r"\b(?P<y>\d{4})-(?P<m>0[1-9]|1[0-2])\b(?!-\d)")
# a weekday or month, then its date in brackets or after a comma: "Sunday (2026-12-13)", "in March, 2027-03"
_ISO_PARTS = r"(?P<y>\d{4})-(?P<m>0[1-9]|1[0-2])(?:-(?P<d>\d\d))?"
_DATED_NAME = rf"\b(?P<name>{'|'.join(WEEKDAYS)}|{'|'.join(MONTHS)})"
_DATE_AFTER_NAME = (
    re.compile(rf"{_DATED_NAME}\s+\({_ISO_PARTS}\)", re.IGNORECASE),
    re.compile(rf"{_DATED_NAME},\s+{_ISO_PARTS}\b(?!-)", re.IGNORECASE),
)
_NAMED_ISO_DAY = re.compile(rf"(?:\b(?P<weekday>{'|'.join(WEEKDAYS)}),?\s+)?{ISO_DAY.pattern}", re.IGNORECASE)
