"""Relative dates resolved against when they were said, and shown next to search hits."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

import pytest

from memgpt_local.eval.conversation_facts import relative_date
from memgpt_local.functions.results import format_hits
from memgpt_local.memory.dates import annotate, date_notes, mentions, spoken_days
from memgpt_local.schemas import SearchHit

TUESDAY = datetime(2025, 3, 4, 18, 30, tzinfo=timezone.utc)  # a Tuesday evening


@pytest.mark.parametrize(
    "said, shown",
    [
        ("We got back yesterday, so tired.", "We got back yesterday (2025-03-03), so tired."),
        ("Last Sunday we went hiking.", "Last Sunday (2025-03-02) we went hiking."),
        ("this past Monday", "this past Monday (2025-03-03)"),
        ("Two weeks ago I ran a race.", "Two weeks ago (2025-02-18) I ran a race."),
        ("a couple of weeks ago", "a couple of weeks ago (2025-02-18)"),
        ("We saw a band on Saturday.", "We saw a band on Saturday (2025-03-01)."),
        ("I will see her on Saturday!", "I will see her on Saturday (2025-03-08)!"),
        ("last Tuesday", "last Tuesday (2025-02-25)"),  # a week back, not today
        ("next Tuesday", "next Tuesday (2025-03-11)"),
        ("this coming Friday", "this coming Friday (2025-03-07)"),
        ("This Friday we are going to the lake.", "This Friday (2025-03-07) we are going to the lake."),
        # the present progressive in the day's clause is an arrangement; past forms and -ing
        # adjectives are not, nor a progressive in another clause
        ("My brother is flying in on Friday.", "My brother is flying in on Friday (2025-03-07)."),
        ("We're moving on Saturday, finally!", "We're moving on Saturday (2025-03-08), finally!"),
        ("I was working on Saturday.", "I was working on Saturday (2025-03-01)."),
        ("It was amazing on Saturday.", "It was amazing on Saturday (2025-03-01)."),
        ("We went on Saturday, it is raining now.", "We went on Saturday (2025-03-01), it is raining now."),
        # with no past form in its clause, a bare day is ahead: a scheduled event in the present
        # simple (a `make run` chat dated a brother's new job to the Thursday before), a plan with no
        # verb, feelings and arrangements; "set" and "visited" are past
        ("My brother starts his new job on Friday.", "My brother starts his new job on Friday (2025-03-07)."),
        ("Dinner with Sam on Saturday.", "Dinner with Sam on Saturday (2025-03-08)."),
        ("Excited for the gig on Friday!", "Excited for the gig on Friday (2025-03-07)!"),
        ("I'm booked on Friday.", "I'm booked on Friday (2025-03-07)."),
        ("Exam's on Friday and I haven't revised.", "Exam's on Friday (2025-03-07) and I haven't revised."),
        ("They set a bench on fire on Monday.", "They set a bench on fire on Monday (2025-03-03)."),
        ("My sister visited on Monday.", "My sister visited on Monday (2025-03-03)."),
        ("I'm free on Tuesday.", "I'm free on Tuesday (2025-03-11)."),  # said on a Tuesday: the next
        # months, and days of a month, by tense; "may" without its capital is no month
        ("Got tickets to see Radiohead next June.", "Got tickets to see Radiohead next June (2025-06)."),
        ("next March", "next March (2026-03)"),  # said in March: the one after
        ("last March", "last March (2024-03)"),
        ("We went to Rome in June.", "We went to Rome in June (2024-06)."),
        ("We're going to Rome in June.", "We're going to Rome in June (2025-06)."),
        ("My exam is on 14 January.", "My exam is on 14 January (2026-01-14)."),
        ("Her birthday was on the 2nd of February.", "Her birthday was on the 2nd of February (2025-02-02)."),
        ("The party is March 4th!", "The party is March 4th (2025-03-04)!"),  # today
        ("Tonight is pizza night.", "Tonight (2025-03-04) is pizza night."),
        ("the day before yesterday", "the day before yesterday (2025-03-02)"),
        ("tomorrow morning", "tomorrow (2025-03-05) morning"),
        ("In 3 days we fly.", "In 3 days (2025-03-07) we fly."),
        ("in two weeks", "in two weeks (2025-03-18)"),
        ("last weekend was fun", "last weekend (weekend of 2025-03-01) was fun"),
        ("See you next week", "See you next week (week of 2025-03-10)"),
        ("last month", "last month (2025-02)"),
        ("three months ago", "three months ago (2024-12)"),
        ("last year", "last year (2024)"),
        # the day a plan moves to (bench_notes moved-held, stop 51)
        ("Lars moved our dinner to Sunday.", "Lars moved our dinner to Sunday (2025-03-09)."),
        # the month a plan moves to (a `make run` chat, stop 55)
        ("The race got moved to May.", "The race got moved to May (2025-05)."),
        ("Our holiday is now the 19th.", "Our holiday is now the 19th (2025-03-19)."),  # bench_notes moved-held2
        ("They pushed the wedding to February.", "They pushed the wedding to February (2026-02)."),
        # (a `make run` chat, stop 55)
        ("The dentist moved it to the 22nd.", "The dentist moved it to the 22nd (2025-03-22)."),
        # a part of a month, and a month typed in lowercase (a `make run` chat, stop 61)
        ("thesis is due end of march", "thesis is due end of march (2025-03)"),
        ("my graduation in july", "my graduation in july (2025-07)"),
        ("I need it by April.", "I need it by April (2025-04)."),
        ("She's back in early may.", "She's back in early may (2025-05)."),
    ],
)
def test_annotate_writes_the_day_after_each_phrase(said, shown):
    assert annotate(said, TUESDAY) == shown


@pytest.mark.parametrize(
    "text",
    [
        "today's weather is awful",  # a possessive is not a date to resolve
        "yesterday (2025-03-03) we went",  # already dated
        "We volunteer on Saturdays.",  # a habit, not a day
        "Lessons are on Thursday evenings.",  # a `make run` chat (stop 57)
        "He plays football on Saturday mornings.",
        "this may be hard",
        "We march to the square at noon.",
        "We're going to march on the parliament.",  # a verb, not a month (stop 61)
        "next may be better",
        "The wedding is on June 3rd, 2027.",  # a year: no relative date
        "We met in June 2019.",
        "I was born on 31 June.",  # no such day
        "the yesterday-ish feeling",
        "Nothing relative here, just 2025-03-03.",
        # how long it has been, not when (a `make run` chat, stop 51: "First time in: 3 years (2029)")
        "off to Lagos to see her parents, first time in 3 years",
        "I haven't seen them in two years.",
        "my first time on a plane in ten years",  # a `make run` chat (stop 61): dated 2036
        "We camped from Friday to Sunday.",  # no plan moved
        "I worked there from March to May.",
    ],
)
def test_annotate_leaves_the_rest_alone(text):
    assert annotate(text, TUESDAY) == text


def test_days_are_utc_days_and_naive_times_are_utc():
    late = datetime(2025, 3, 4, 23, 30, tzinfo=timezone(timedelta(hours=-5)))  # 04:30 UTC on the 5th
    assert annotate("yesterday", late) == "yesterday (2025-03-04)"
    assert annotate("yesterday", datetime(2025, 3, 4, 12)) == "yesterday (2025-03-03)"
    assert annotate("yesterday", date(2025, 1, 1)) == "yesterday (2024-12-31)"


def test_mentions_give_positions_and_values():
    found = mentions("Yesterday was long; tomorrow we rest.", TUESDAY)
    assert [(m.phrase, m.value) for m in found] == [("Yesterday", "2025-03-03"), ("tomorrow", "2025-03-05")]
    assert all("Yesterday was long; tomorrow we rest."[m.start : m.end] == m.phrase for m in found)


def test_a_day_of_the_month_said_alone_is_this_months_or_the_next():
    """ "cook for Declan's birthday on the 19th" (a `make run` chat, stop 50) named no day."""
    when = date(2026, 12, 3)
    assert [m.value for m in mentions("What could I cook for his birthday on the 19th?", when)] == ["2026-12-19"]
    assert [m.value for m in mentions("rent is due on the 1st", when)] == ["2027-01-01"]
    assert [m.value for m in mentions("we met on the 2nd", when)] == ["2026-12-02"]
    assert [m.value for m in mentions("I finished it on the 30th", when)] == ["2026-11-30"]
    assert [m.value for m in mentions("it was due on the 31st", date(2026, 3, 5))] == ["2026-01-31"]
    assert [m.value for m in mentions("on the 19th of December", when)] == ["2026-12-19"]  # the month's own
    assert mentions("she lives on the 5th floor", when) == []
    assert mentions("on the 3rd time of asking", when) == []
    # "to the 22nd" is a day a plan moved to, not the end of a stretch (a `make run` chat, stop 55)
    assert [m.value for m in mentions("they moved my appointment to the 2nd", when)] == ["2027-01-02"]
    assert [m.phrase for m in mentions("we're away from the 8th to the 12th", when)] == ["from the 8th"]


def test_a_month_typed_in_lowercase_beside_its_day_is_that_month():
    """A `make run` chat (stop 63): "exams start on the 11th of january" was dated "on the 11th
    (2026-12-11)", and the next login greeted "... the 11th of January, which is in 4 days"."""
    when = date(2026, 12, 7)
    said = "exams start on the 11th of january and I haven't started revising lol"
    assert [(m.phrase, m.value) for m in mentions(said, when)] == [("the 11th of january", "2027-01-11")]
    assert [m.value for m in mentions("my birthday is 3 march", when)] == ["2027-03-03"]
    assert [m.value for m in mentions("it's on march 5th", when)] == ["2027-03-05"]
    # a month's word before a bare number, in lowercase, is a verb
    assert mentions("i may 3 times go", when) == [] and mentions("we march 3 miles a day", when) == []
    assert [m.value for m in mentions("May 3 is fine", when)] == ["2027-05-03"]


def test_date_notes_list_each_phrase_once():
    assert date_notes("Yesterday was long, yesterday!", TUESDAY) == ["yesterday = 2025-03-03"]
    notes = date_notes("went on Saturday, last week", TUESDAY)
    assert notes == ["on saturday = 2025-03-01", "last week = week of 2025-02-24"]
    assert date_notes("no dates here", TUESDAY) == []


def test_the_generators_relative_dates_resolve_to_their_days():
    rng = random.Random(7)
    for n in range(400):
        day = date(2025, 1, 1) + timedelta(days=n % 60)
        for tense in ("past", "future"):
            when = relative_date(rng, day, tense)
            sentence = f"I {'will go' if tense == 'future' else 'went'} there {when.phrase}."
            assert [m.value for m in mentions(sentence, day)] == [when.day.isoformat()], sentence


def test_search_hits_show_the_day_of_each_relative_date():
    said = datetime(2025, 3, 4, 9, 0, tzinfo=timezone.utc)
    message = SearchHit(kind="message", id=1, text="We adopted a puppy yesterday!", created_at=said, role="user")
    document = SearchHit(
        kind="passage", id=2, text="Opened yesterday to the public.", created_at=said, citation="news.md#chunk-0"
    )
    note = SearchHit(kind="passage", id=3, text="User starts the new job tomorrow.", created_at=said)
    lines = format_hits([message, document, note], first=1, per_item=300)
    # beside the timestamp; the text stays as it was said (the reply check looks for it in the context)
    assert lines[0] == "1. [2025-03-04 09:00 UTC, yesterday = 2025-03-03] the user said: We adopted a puppy yesterday!"
    assert lines[1] == "2. [2025-03-04 09:00 UTC, news.md#chunk-0] Opened yesterday to the public."  # written before
    assert lines[2] == "3. [2025-03-04 09:00 UTC, tomorrow = 2025-03-05] User starts the new job tomorrow."
    short = format_hits([message.model_copy(update={"text": "x " * 40 + "yesterday"})], first=1, per_item=50)
    assert "=" not in short[0]  # a phrase cut off is not noted
    quoted = message.model_copy(update={"role": "function"})  # a result quoting other entries
    assert "=" not in format_hits([quoted], first=1, per_item=300)[0]


@pytest.mark.parametrize(
    "said, future",
    [
        ("I have an interview tomorrow.", True),  # only ahead, by its own words
        ("See you next Friday!", True),
        ("in two weeks we fly", True),
        ("We're moving on Saturday, finally!", True),  # the clause is in the progressive
        ("I'll see her on Saturday.", True),
        ("We saw a band on Saturday.", False),
        ("You won't believe it, two of my students set a lab bench on fire on Tuesday.", False),
        ("My brother starts his new job on Thursday.", True),  # no past form: ahead
        ("Ola's got a concert on Saturday, she's nervous.", True),  # "has got" (a `make run` chat, stop 48)
        ("I've got an exam on Friday.", True),
        ("We got back on Saturday.", False),
    ],
)
def test_said_as_future_reads_the_phrase_and_its_own_clause(said, future):
    from memgpt_local.memory.dates import said_as_future

    (mention,) = mentions(said, TUESDAY)
    assert said_as_future(said, mention) is future


def test_days_are_said_as_a_person_says_them():
    today = date(2026, 12, 3)
    # a day or month said once: shown "in April (April 2027)", a greeting said so (a `make run` chat, stop 55)
    assert spoken_days("Visit: Friday (2026-12-04)", today) == "Visit: Friday 4 December"
    assert spoken_days("Move: to Bath in April (2027-04)", today) == "Move: to Bath in April 2027"
    assert spoken_days("Race: half marathon (in March, 2027-03)", today) == "Race: half marathon (in March 2027)"
    assert spoken_days("Visit: Monday (2026-12-04)", today) == "Visit: Monday (Friday 4 December)"  # not its day
    assert spoken_days("Trip: week of 2027-01-04", today) == "Trip: week of Monday 4 January 2027"
    assert spoken_days("Brother: Omar (on Friday, 2026-12-04)", today) == "Brother: Omar (on Friday 4 December)"
    assert spoken_days("Dentist: monday 2026-12-07", today) == "Dentist: Monday 7 December"
    assert spoken_days("Party: Sunday, 2026-12-04", today) == "Party: Sunday, Friday 4 December"  # a wrong day stays
    assert spoken_days("Code: 2026-13-40", today) == "Code: 2026-13-40"  # no day: left alone
    # a month alone: a greeting said "your trip to Peru in 2027-09" (stop 42)
    assert spoken_days("Trip: Peru in September (2027-09)", today) == "Trip: Peru in September 2027"
    assert spoken_days("Code: 2026-13", today) == "Code: 2026-13"


@pytest.mark.parametrize(
    "said, dated",
    [
        # a `make run` chat (stop 52): the visit was saved undated and left out of greetings
        ("Elodie is coming to stay over Christmas", "over Christmas (2026-12-25)"),
        ("what should we do for New Year's Eve?", "for New Year's Eve (2026-12-31)"),
        ("I was sick over Christmas", "over Christmas (2025-12-25)"),  # said in the past
        ("last Christmas we were in Lyon", "last Christmas (2025-12-25)"),
        ("we went to my sister's at Easter", "at Easter (2026-04-05)"),
        ("see you after Easter", "after Easter (2027-03-28)"),
        ("we bought Christmas presents", None),  # a thing, not a day
        ("a Halloween costume", None),
    ],
)
def test_a_holiday_after_a_word_of_when_is_dated(said, dated):
    from memgpt_local.memory.dates import easter_sunday

    assert [easter_sunday(y).isoformat() for y in (2024, 2025, 2027)] == ["2024-03-31", "2025-04-20", "2027-03-28"]
    written = annotate(said, date(2026, 12, 6))
    assert (dated in written) if dated else written == said


@pytest.mark.parametrize(
    "said, dated",
    [
        # a `make run` chat (stop 60): the flights were saved as "... in April (2026-04)", the April gone by
        ("We finally booked flights to visit him in April, we're going for two weeks.", "in April (2027-04)"),
        ("I signed up for a 10k in March", "in March (2027-03)"),
        ("we arranged to meet on Friday", "on Friday (2026-12-11)"),
        # the arranging itself, on a day gone by
        ("We booked it in April and flew in May", "in April (2026-04)"),
        ("I went to Rome in April", "in April (2026-04)"),
    ],
)
def test_what_was_arranged_lies_ahead(said, dated):
    assert dated in annotate(said, date(2026, 12, 7))
