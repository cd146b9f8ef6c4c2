"""The facts of ``conversations``: what a friend mentions once, in passing, and the questions.

Each kind of fact writes the sentence that says it, the other friend's reaction (which never
repeats the answer), an optional later follow-up on the topic (without the answer), and its
questions in two wordings. Both wordings name the friend and share a word or two with what
was said, different ones: 0 keeps closer to the sentence's own words, 1 says more in other
words ("What hobby did Tam's kids take up?" / "Remind me what Tam's children started doing
after school"). An event can carry a relative date ("yesterday", "last Sunday", "two weeks
ago", "next Friday"); then it also has a "when" question whose answer is that day.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from memgpt_local.eval.fiction import Namer

Role = Literal["user", "assistant"]
Tense = Literal["past", "future"]
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True)
class Person:
    role: Role
    first: str
    last: str
    town: str
    job: str
    employer: str
    partner: str
    kids: tuple[str, ...]  # first names; empty for someone without children
    coworkers: tuple[str, ...]


@dataclass(frozen=True)
class When:
    """A relative date as said ("last Sunday") and the day it means."""

    phrase: str
    day: date


@dataclass(frozen=True)
class Fact:
    """One thing mentioned once: the sentence that says it, the other's reaction, questions."""

    sentence: str
    wordings: tuple[str, str]
    answer: str
    reaction: str = ""  # the other friend's reply; may touch the topic, never the answer
    when_wordings: tuple[str, str] | None = None  # asked when the sentence carries a relative date
    follow_up: tuple[str, str] | None = None  # a later exchange on the topic, without the answer
    aliases: tuple[str, ...] = ()


FactMaker = Callable[[random.Random, Namer, Person, When | None], Fact]


@dataclass(frozen=True)
class FactKind:
    name: str
    make: FactMaker
    tense: Tense | None = None  # an event that can carry a relative date
    needs_kids: bool = False


# ---------------------------------------------------------------- vocabulary

JOBS = ("nurse", "teacher", "graphic designer", "mechanic", "accountant", "chef", "physiotherapist", "engineer")
EMPLOYER_KINDS = ("Clinic", "Studio", "Works", "Labs", "Group", "Bakery", "Garage")
ANIMALS = ("puppy", "kitten", "rabbit", "parrot", "tortoise", "ferret")
COWORKER_HOBBIES = ("beekeeping", "fencing", "salsa dancing", "woodturning", "falconry", "archery", "ice sculpting")
KID_ACTIVITIES = ("gymnastics", "robotics club", "junior choir", "judo", "chess club", "swimming squad")
CLASSES = ("pottery", "Italian", "life drawing", "welding", "sign language", "ballroom dancing")
DISHES = ("lamb tagine", "mushroom risotto", "duck ramen", "crab linguine", "aubergine curry", "pork belly bao")
INSTRUMENTS = ("cello", "banjo", "trumpet", "harmonica", "ukulele", "accordion")
SPORTS = ("squash", "volleyball", "badminton", "five-a-side football", "ultimate frisbee")
PLANTS = ("tomatoes", "sunflowers", "lavender", "strawberries", "runner beans", "chillies")
GIFTS = ("a record player", "a telescope", "a pasta machine", "a hammock", "an espresso machine", "a kayak")
CAR_COLOURS = ("red", "dark green", "silver", "white", "navy blue")
RELATIVES = ("sister", "brother", "cousin", "aunt", "uncle")
POSITIONS = ("team lead", "senior designer", "head of operations", "deputy manager", "project lead")
POTLUCK = ("lemon drizzle cake", "spinach pie", "chilli con carne", "apple crumble", "potato salad")
SHOW_TOPICS = ("a family of lighthouse keepers", "a detective on a cruise ship", "rival bakers", "astronauts")
SNACKS = ("toast", "leftover pizza", "a bowl of cereal", "soup", "noodles", "a sandwich")


def _pick(rng: random.Random, options: tuple[str, ...]) -> str:
    return rng.choice(options)


def _on(when: When | None) -> str:
    return f" {when.phrase}" if when else ""


# ---------------------------------------------------------------- the facts


def _pet(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    animal, name = _pick(rng, ANIMALS), namer.name((2, 2))
    return Fact(
        sentence=f"We finally adopted a {animal} from the shelter{_on(when)}! We named her {name}, she's tiny.",
        wordings=(f"What did {x.first} name the {animal}?", f"What's the pet {x.first} got from the shelter called?"),
        answer=name,
        reaction=f"A {animal}!! That's so exciting {x.first}, send pictures!",
        when_wordings=(f"When did {x.first} adopt the {animal}?", f"What day did {x.first} bring the new pet home?"),
        follow_up=(f"How's the {animal} settling in, {x.first}?", "Chewing everything in sight haha, but so cute."),
    )


def _trip(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    city = namer.name()
    if when:
        sentence = f"We got back from {city} {when.phrase}, my cousin's wedding was there and it was gorgeous."
    else:
        sentence = f"We went to {city} for my cousin's wedding, it was gorgeous."
    return Fact(
        sentence=sentence,
        wordings=(f"Which city did {x.first} visit for a wedding?", f"Where was {x.first}'s cousin getting married?"),
        answer=city,
        reaction="Aww, weddings are the best. Did you dance?",
        when_wordings=(
            f"When did {x.first} get back from the wedding trip?",
            f"On what date did {x.first} come home after the cousin's big day?",
        ),
        follow_up=("Have you recovered from the wedding yet?", "Barely haha. Still have cake in the freezer."),
    )


def _coworker_hobby(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    hobby, who = _pick(rng, COWORKER_HOBBIES), rng.choice(x.coworkers)
    return Fact(
        sentence=f"My coworker {who} has gotten really into {hobby}, she showed everyone videos at lunch.",
        wordings=(
            f"What hobby is {x.first}'s coworker {who} into?",
            f"What does {who} from {x.first}'s work do for fun?",
        ),
        answer=hobby,
        reaction=f"Haha, {who} sounds like a character.",
    )


def _book(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    title = f"The {namer.name()} {_pick(rng, ('Letters', 'Orchard', 'Winter', 'Machine', 'Tide'))}"
    author = " ".join(namer.person())
    return Fact(
        sentence=f"I just finished {title} by {author}, could not put it down.",
        wordings=(
            f"What book did {x.first} finish recently?",
            f"Which novel did {x.first} say they could not put down?",
        ),
        answer=title,
        reaction="Ooh I need something new to read, is it sad?",
        follow_up=("Read anything good lately?", "Not really, I keep falling asleep after two pages haha."),
        aliases=(title.removeprefix("The "),),
    )


def _kids_activity(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    activity = _pick(rng, KID_ACTIVITIES)
    return Fact(
        sentence=f"The kids started {activity} after school, {x.kids[0]} is obsessed.",
        wordings=(
            f"What hobby did {x.first}'s kids take up?",
            f"Remind me what {x.first}'s children started doing after school",
        ),
        answer=activity,
        reaction=f"Good for them! Keeping kids busy is half the battle, {x.first}.",
        follow_up=("How are the kids doing?", "Growing too fast. They have so much homework after school now."),
    )


def _concert(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    band, venue = f"The {namer.name()}s", f"{namer.name()} Hall"
    return Fact(
        sentence=f"We saw {band} at {venue}{_on(when)}, honestly one of the best shows I've been to.",
        wordings=(f"Which band did {x.first} see at {venue}?", f"Who played the best show {x.first} has been to?"),
        answer=band,
        reaction="So jealous! I haven't been to a concert in ages.",
        when_wordings=(
            f"When did {x.first} go to the concert at {venue}?",
            f"On which date was the show {x.first} loved so much?",
        ),
        aliases=(band.removeprefix("The "),),
    )


def _dish(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    place, dish = namer.name(), _pick(rng, DISHES)
    return Fact(
        sentence=f"We tried that new place {place}{_on(when)}, I had the {dish} and it was unreal.",
        wordings=(f"What did {x.first} order at {place}?", f"What did {x.first} have when they tried the new place?"),
        answer=dish,
        reaction=f"Now I'm hungry haha. Is {place} expensive?",
        when_wordings=(f"When did {x.first} eat at {place}?", f"What day did {x.first} try the new restaurant?"),
        follow_up=("What did you have for dinner?", f"Just {_pick(rng, SNACKS)}, nothing exciting."),
    )


def _class(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    subject = _pick(rng, CLASSES)
    if when:
        sentence = f"I signed up for a {subject} class at the community centre, the first lesson is {when.phrase}."
    else:
        sentence = f"I signed up for a {subject} class at the community centre."
    return Fact(
        sentence=sentence,
        wordings=(f"What class did {x.first} sign up for?", f"What is {x.first} learning at the community centre?"),
        answer=subject,
        reaction="That's brave, I'd be so nervous on the first day.",
        when_wordings=(
            f"When is {x.first}'s first lesson?",
            f"What date does {x.first}'s new course at the community centre start?",
        ),
    )


def _car(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    brand, colour = namer.name(), _pick(rng, CAR_COLOURS)
    return Fact(
        sentence=f"The old car finally died so we bought a used {colour} {brand}, it smells like new.",
        wordings=(f"What car did {x.first} buy?", f"What make of vehicle did {x.first} get after the old one died?"),
        answer=brand,
        reaction="RIP old car haha. Road trip soon?",
    )


def _visit(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    relative, name, town = _pick(rng, RELATIVES), namer.name((2, 2)), namer.name()
    later = when.phrase if when else "soon"
    return Fact(
        sentence=f"My {relative} {name} is coming to stay from {town} {later}, I need to tidy the spare room.",
        wordings=(f"Who is coming to stay with {x.first}?", f"Which of {x.first}'s relatives is visiting from {town}?"),
        answer=name,
        reaction="Family visits are lovely but exhausting haha.",
        when_wordings=(
            f"When is {x.first}'s {relative} coming to stay?",
            f"For what day does {x.first} need the spare room tidy?",
        ),
    )


def _injury(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    sport = _pick(rng, SPORTS)
    return Fact(
        sentence=f"I twisted my ankle playing {sport}{_on(when)}, so I'm hobbling around the house.",
        wordings=(f"How did {x.first} twist their ankle?", f"What sport was {x.first} playing when they got hurt?"),
        answer=sport,
        reaction=f"Ouch!! Put some ice on it {x.first}.",
        when_wordings=(f"When did {x.first} twist their ankle?", f"What day did {x.first} get injured playing sport?"),
        follow_up=("How's the ankle?", "Much better, thanks for asking."),
    )


def _garden(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    plant = _pick(rng, PLANTS)
    return Fact(
        sentence=f"I spent the whole afternoon in the garden and planted {plant} along the back fence.",
        wordings=(f"What did {x.first} plant in the garden?", f"What is growing along {x.first}'s back fence?"),
        answer=plant,
        reaction="You and your garden haha. I kill every plant I touch.",
        follow_up=("How's the garden coming along?", "Slowly! The slugs are winning."),
    )


def _show(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    show, topic = f"{namer.name()} {_pick(rng, ('Point', 'Street', 'House', 'Bay'))}", _pick(rng, SHOW_TOPICS)
    return Fact(
        sentence=f"We've been binge watching {show}, it's about {topic} and I'm hooked.",
        wordings=(f"Which show has {x.first} been watching?", f"What series is {x.first} hooked on?"),
        answer=show,
        reaction="Adding it to my list! No spoilers please.",
    )


def _promotion(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    position = _pick(rng, POSITIONS)
    return Fact(
        sentence=f"Guess what, I got promoted to {position} at {x.employer}{_on(when)}! Still can't believe it.",
        wordings=(f"What was {x.first} promoted to?", f"What is {x.first}'s new role at {x.employer}?"),
        answer=position,
        reaction=f"{x.first}!!! Congratulations, you deserve it!",
        when_wordings=(
            f"When did {x.first} get promoted?",
            f"What day did {x.first} get the good news at {x.employer}?",
        ),
    )


def _gift(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    gift = _pick(rng, GIFTS)
    return Fact(
        sentence=f"For {x.partner}'s birthday I got {gift}, I hid it in the garage for weeks.",
        wordings=(
            f"What did {x.first} get {x.partner} for their birthday?",
            f"What present did {x.first} hide in the garage?",
        ),
        answer=gift.split(" ", 1)[1],
        reaction=f"Oh {x.partner} is going to love that.",
    )


def _potluck(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    dish = _pick(rng, POTLUCK)
    return Fact(
        sentence=f"I made my grandma's {dish} for the street potluck{_on(when)}, there was none left.",
        wordings=(
            f"What did {x.first} make for the potluck?",
            f"Which of grandma's recipes did {x.first} cook for the neighbours?",
        ),
        answer=dish,
        reaction="Grandma recipes always win haha.",
        when_wordings=(
            f"When was the potluck {x.first} cooked for?",
            f"What day did {x.first} bring grandma's dish to the street party?",
        ),
    )


def _instrument(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    instrument = _pick(rng, INSTRUMENTS)
    return Fact(
        sentence=f"I picked up the {instrument} again after ten years, the neighbours must love me.",
        wordings=(
            f"Which instrument did {x.first} pick up again?",
            f"What has {x.first} started playing after ten years?",
        ),
        answer=instrument,
        reaction="Haha I'm sure they do. Play me something sometime!",
    )


def _partner_job(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    company = f"{namer.name()} {_pick(rng, EMPLOYER_KINDS)}"
    return Fact(
        sentence=f"{x.partner} started the new job at {company}{_on(when)}, so our mornings are chaos now.",
        wordings=(
            f"Where did {x.first}'s partner {x.partner} start the new job?",
            f"Which company does {x.partner} work for now?",
        ),
        answer=company,
        reaction=f"Tell {x.partner} good luck from me!",
        when_wordings=(
            f"When did {x.partner} start the new job?",
            f"On what day did {x.partner} begin working at the new company?",
        ),
    )


def _race(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    minutes = rng.randint(1, 2) * 60 + rng.randint(5, 55)
    time = f"{minutes // 60}:{minutes % 60:02d}"
    return Fact(
        sentence=f"I ran the {x.town} half marathon{_on(when)} and finished in {time}, my legs are dead.",
        wordings=(f"What was {x.first}'s time in the half marathon?", f"How fast did {x.first} finish the race?"),
        answer=time,
        reaction="Whoa, I can't even run for the bus haha. Well done!",
        when_wordings=(f"When did {x.first} run the half marathon?", f"What day did {x.first} race in {x.town}?"),
    )


def _volunteer(rng: random.Random, namer: Namer, x: Person, when: When | None) -> Fact:
    place = f"{namer.name()} {_pick(rng, ('Food Bank', 'Animal Rescue', 'Community Library'))}"
    return Fact(
        sentence=f"I've started volunteering at {place} on Saturdays, it's really rewarding.",
        wordings=(f"Where does {x.first} volunteer?", f"Where does {x.first} spend Saturday mornings helping out?"),
        answer=place,
        reaction="That's so lovely of you.",
    )


FACT_KINDS = (
    FactKind("pet", _pet, "past"),
    FactKind("trip", _trip, "past"),
    FactKind("coworker_hobby", _coworker_hobby),
    FactKind("book", _book),
    FactKind("kids_activity", _kids_activity, needs_kids=True),
    FactKind("concert", _concert, "past"),
    FactKind("dish", _dish, "past"),
    FactKind("class", _class, "future"),
    FactKind("car", _car),
    FactKind("visit", _visit, "future"),
    FactKind("injury", _injury, "past"),
    FactKind("garden", _garden),
    FactKind("show", _show),
    FactKind("promotion", _promotion, "past"),
    FactKind("gift", _gift),
    FactKind("potluck", _potluck, "past"),
    FactKind("instrument", _instrument),
    FactKind("partner_job", _partner_job, "past"),
    FactKind("race", _race, "past"),
    FactKind("volunteer", _volunteer),
)


# ---------------------------------------------------------------- relative dates


def relative_date(rng: random.Random, day: date, tense: Tense) -> When:
    """A relative date phrase said on ``day`` about a past or future day, and that day.

    "last Sunday" and "on Sunday" are 2-7 days back, "this coming Friday" 1-6 days ahead,
    "next Friday" 1-7 (the first Friday after the day)."""
    if tense == "future":
        kind = rng.choice(("tomorrow", "this", "next", "in"))
        if kind == "tomorrow":
            return When("tomorrow", day + timedelta(days=1))
        if kind == "in":
            n = rng.choice((2, 3, 10, 14))
            words = {2: "in two days", 3: "in three days", 10: "in ten days", 14: "in two weeks"}
            return When(words[n], day + timedelta(days=n))
        target = day + timedelta(days=rng.randint(1, 6) if kind == "this" else rng.randint(1, 7))
        return When(f"{'this coming' if kind == 'this' else 'next'} {WEEKDAYS[target.weekday()]}", target)
    kind = rng.choice(("yesterday", "yesterday", "last", "on", "ago", "ago", "before"))
    if kind == "yesterday":
        return When("yesterday", day - timedelta(days=1))
    if kind == "before":
        return When("the day before yesterday", day - timedelta(days=2))
    if kind == "ago":
        n = rng.choice((3, 4, 7, 14, 21))
        words = {3: "three days ago", 4: "four days ago", 7: "a week ago", 14: "two weeks ago", 21: "three weeks ago"}
        return When(words[n], day - timedelta(days=n))
    target = day - timedelta(days=rng.randint(2, 7))
    return When(f"{'last' if kind == 'last' else 'on'} {WEEKDAYS[target.weekday()]}", target)
