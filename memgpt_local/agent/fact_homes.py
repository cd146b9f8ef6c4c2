"""Where a line the notes pass wrote files a place: a home the user never told as one
(``home_unsaid``), a place they only visited (``place_of_a_visit``), where they grew up
(``childhood_home``), where they moved from and to (``moved_home``, ``moved_to``), and a work
place kept in the work line (``with_work_place``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgpt_local.agent.fact_owners import CLAUSE_SPLIT
from memgpt_local.agent.fact_wording import HOME_LABELS, WORK_LABELS
from memgpt_local.text import UPPER, WHEN_WORDS, content_words, normalize_space, sentences, stem, stems, words

# what says a place is only where the user comes from
_GREW_UP = re.compile(r"\b(?:grew up|grow up|growing up|was born|were born|raised|childhood)\b", re.IGNORECASE)
_LIVES_NOW = re.compile(r"\b(?:live|lives|living|moved|move|now|based|home)\b", re.IGNORECASE)
GREW_UP_LABEL = "Hometown"


def childhood_home(line: str, said: str) -> str:
    """``line`` under "Hometown" when the model filed the place the user grew up in as their
    home: "We grew up in Wroclaw" was saved as "Home: Wroclaw" in a `make run` chat, beside
    "Work: paramedic in Bristol", and where the user lives would be answered with it. Only when
    ``said`` says "grew up" (or "born", "raised") and nothing of living there now."""
    label, sep, value = line.partition(":")
    said_as_childhood = _GREW_UP_LABEL.search(label) or normalize_space(label).lower() in _CHILDHOOD_LABELS
    home_said_grown_up_in = (
        normalize_space(label).lower() in HOME_LABELS and _GREW_UP.search(said) and not _LIVES_NOW.search(said)
    )
    # "Grew up in: Osaka" beside "Hometown: Osaka" (a `make run` chat, stop 54): one label
    return f"{GREW_UP_LABEL}{sep}{value}" if said_as_childhood or home_said_grown_up_in else line


_CHILDHOOD_LABELS = frozenset(("birthplace", "place of birth", "home town"))
_GREW_UP_LABEL = re.compile(r"\b(?:grew up|grow up|growing up|born|raised)\b", re.IGNORECASE)


# a place the user was at once: "found that out the hard way in Gdansk last summer"
_ONCE = re.compile(
    r"\b(?:last\s+(?:summer|winter|spring|autumn|fall|year|month|week|weekend|night|time)|\d+\s+(?:years?|months?|weeks?)"
    r"\s+ago|yesterday|on\s+(?:holiday|vacation|a\s+trip)|trip|visit\w*|travel\w*)\b",
    re.IGNORECASE,
)


def place_of_a_visit(line: str, said: str) -> bool:
    """Whether a home ``line`` names a place ``said`` speaks of only as where the user once was:
    "Location: Gdansk, last summer" for "I'm allergic to shellfish, found that out the hard way in
    Gdansk last summer", beside "Work: teaches maths at a secondary school in Wroclaw" (a `make
    run` chat, stop 49): asked where they live, the assistant would say Gdansk."""
    label, _, value = line.partition(":")
    if normalize_space(label).lower() not in HOME_LABELS:
        return False
    places = {w.lower() for w in re.findall(rf"\b[{UPPER}][\w'-]+", value)}
    holding = [s for s in sentences(said) if places & set(words(s))]
    return bool(holding) and all(_ONCE.search(s) and not _LIVES_NOW.search(s) for s in holding)


# what tells where someone lives: "I live in", "we're just outside Leeds", "home", "moved"
_HOME_SAID = re.compile(
    r"\b(?:live|lives|living|lived|home|homes|house|flat|apartment|move|moved|moving|based|born|raised|grew|"
    r"neighbou?rhood|local|locals|settled|rent|renting|reside\w*|address)\b|\bhere\s+in\b|\bcome\s+from\b"
    r"|\b(?:I['’]m|I\s+am|we['’]re|we\s+are)\s+(?:\w+\s+)?(?:in|near|outside|from)\b"
    # who the user is, then where from: "I'm a retired bus driver from Glasgow" lost "Home: Glasgow"
    # (a `make run` chat, stop 61); said as what they are ("a ..."), not "I'm driving down from Leeds"
    r"|\b(?:I['’]m|I\s+am)\s+(?:(?-i:[A-Z])[\w'-]+,?\s+)?an?\s+(?:[\w-]+\s+){1,4}from\s+(?-i:[A-Z])",
    re.IGNORECASE,
)


def home_unsaid(line: str, said: str) -> bool:
    """Whether ``line`` is a home that ``said`` never tells as one: "I drive the number 42 bus in
    Manchester" was saved "Home: Manchester (drives the bus for eleven years)", and "I've got an
    allotment where I grow tomatoes" then replaced it with "Home: an allotment where I grow
    tomatoes and runner beans", answered "you live in an allotment" (a `make run` chat, stop 59)."""
    label, sep, _ = line.partition(":")
    return bool(sep) and normalize_space(label).lower() in HOME_LABELS and not _HOME_SAID.search(said)


def with_work_place(lines: Sequence[str], dropped: Sequence[str], said: str) -> list[str]:
    """``lines`` with the place of a home line dropped as unsaid (``home_unsaid``) kept in the
    work line, where ``said`` tells it as where the user works ("in Bergen" beside the job in one
    sentence): "I'm a maths teacher at a secondary school in Bergen." was saved "Work: maths
    teacher", "Home: Bergen" dropped, and Bergen was lost (a `make run` chat, stop 60). A place
    the sentence tells the job in that no line holds is kept too: "I run a little bakery in Bristol
    with my partner Sami" was saved "Work: runs a bakery" and no more (a `make run` chat, stop 62)."""
    places = [
        line.partition(":")[2].strip()
        for line in dropped
        if normalize_space(line.partition(":")[0]).lower() in HOME_LABELS and home_unsaid(line, said)
    ]
    told_in: list[tuple[str, list[str], tuple[str, ...]]] = [(place, sentences(said), ("in",)) for place in places]
    # (that one in the job's own clause: "I work nights as a nurse and live in Leeds" is no work place),
    # or where the user says they are from beside their job: "Tomás here, retired postman from Cork"
    # (a `make run` chat, stop 63, saved "Work: retired postman" and no more)
    held = " ".join(line.partition(":")[2] for line in lines)
    clauses = [c for s in sentences(said) for c in CLAUSE_SPLIT.split(s)]
    for m in _IN_A_PLACE.finditer(said):
        if m["place"] not in held and m["place"].split()[0].lower() not in WHEN_WORDS:
            told_in.append((m["place"], clauses, ("in", "from")))
    out = list(lines)
    for place, texts, before in told_in:
        if not re.fullmatch(_PLACE, place):
            continue
        for i, line in enumerate(out):
            label, _, value = line.partition(":")
            if normalize_space(label).lower() not in WORK_LABELS or place in value:
                continue
            job = {stem(w) for w in content_words(value)}
            for text in texts:
                at = re.search(rf"\b(?P<before>{'|'.join(before)})\s+{re.escape(place)}\b", text)
                if at is not None and job & stems(text):
                    out[i] = f"{line.rstrip()} {at['before']} {place}"
                    break
    return out


_PLACE = rf"[{UPPER}][\w'-]*(?:\s+[{UPPER}][\w'-]*)*"
_IN_A_PLACE = re.compile(rf"\b(?:in|from)\s+(?P<place>{_PLACE})")
_MOVED = (  # a home line that names the old place first
    re.compile(rf"^\s*(?P<old>{_PLACE})\s*[(,;-]\s*(?:just\s+|recently\s+)?moved\s+to\s+(?P<new>{_PLACE})\s*\)?\s*$"),
    re.compile(rf"^\s*(?:just\s+)?moved\s+from\s+(?P<old>{_PLACE})\s+to\s+(?P<new>{_PLACE})\s*$", re.IGNORECASE),
    # "Home: Pothzaanbury (left Klembuxnoenton)" was read as "where you left Klembuxnoenton" (eval
    # chat seed 30, second wording, stop 50)
    re.compile(rf"^\s*(?P<new>{_PLACE})\s*\(\s*(?i:left|leaving)\s+(?P<old>{_PLACE})\s*\)\s*$"),
)


def moved_home(line: str) -> str:
    """A home ``line`` that names where the user moved from first, with where they live now
    first: eval chat seed 24 saved "Home: Thaistuelton (moved to Thouxshaisbury)" for a move to
    Thouxshaisbury, and where the user lives was answered with the old town."""
    label, sep, value = line.partition(":")
    if normalize_space(label).lower() not in HOME_LABELS:
        return line
    for pattern in _MOVED:
        match = pattern.match(value)
        if match and match["old"] != match["new"]:
            return f"{label}{sep} {match['new']} (moved from {match['old']})"
    return line


# where the user moved to: "I've moved from Kondgruetteton to Surktoettebury!"
_MOVED_TO = re.compile(
    r"\b(?i:I|I've|I'm|I\s+have|we|we've|we're|we\s+have)\s+(?:\w+\s+){0,2}?(?i:moved|moving|relocated|relocating)\b"
    rf"(?:\s+\w+){{0,3}}?\s+(?:from\s+[{UPPER}][\w-]+\s+)?to\s+(?P<place>[{UPPER}][\w-]+)"
)


def moved_to(line: str, said: str) -> str:
    """``line`` under "Home" when its value is only the place ``said`` says the user moved to:
    "Big news: I've moved from Kondgruetteton to Surktoettebury!" was written "Work:
    Surktoettebury", which replaced the job, and the old home stayed (eval chat seed 34, stop 54;
    stop 53's code the same)."""
    label, sep, value = line.partition(":")
    if not sep or normalize_space(label).lower() in HOME_LABELS:
        return line
    places = {m["place"] for m in _MOVED_TO.finditer(said)}
    return f"Home{sep} {value.strip()}" if value.strip() in places else line
