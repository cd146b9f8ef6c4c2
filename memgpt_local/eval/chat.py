"""The conversation evaluation's scripts: fictional users who talk to the agent across sessions.

Each script is one invented person (every name made of syllables, so no model knows them)
with eight facts about themself. Over three sessions days apart they state the facts between
small talk, change one (a move to another town), mention one event in passing, and later
ask about the facts, the change, the event, and two things they never said. Every line
exists in two wordings (``wording`` 0 and 1: other sentence shapes, other question words), so
a result that holds for one phrasing only shows up as a gap between the two.

The scripts are plain data; ``eval/chat_run.py`` plays them through the agent and scores them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Literal

from memgpt_local.eval.fiction import Namer

NAME = "chat"
START = datetime(2025, 5, 5, 18, 0, tzinfo=timezone.utc)
SESSION_DAYS = (0, 4, 11)

TurnKind = Literal["fact", "change", "smalltalk", "question", "absent"]

JOBS = ("nurse", "carpenter", "librarian", "pharmacist", "baker", "electrician", "florist", "architect")
ANIMALS = ("dog", "cat", "rabbit", "parrot", "tortoise", "ferret")
ALLERGIES = ("peanuts", "penicillin", "shellfish", "cat hair", "pollen", "sesame")
FOODS = ("mushroom risotto", "lamb tagine", "pad thai", "fish pie", "aubergine curry", "gnocchi")
HOBBIES = ("pottery", "bouldering", "chess", "birdwatching", "kayaking", "knitting", "the cello")
SIBLINGS = ("sister", "brother")
ABSENT = (
    ("What's my mother's name?", "Do you know what my mum is called?"),
    ("What car do I drive?", "Which car have I got?"),
    ("What's my blood type?", "Do you remember my blood group?"),
    ("Where did I go to university?", "Which university did I study at?"),
)
SMALLTALK = (
    ("The weather has been awful all week, hasn't it?", "Honestly, this rain just won't stop."),
    ("I watched a great documentary about octopuses last night.", "Saw a brilliant octopus documentary yesterday."),
    ("Work was so busy today, I'm exhausted.", "What a long day. Completely worn out."),
    ("Do you think it's worth learning a second language as an adult?", "Is it too late to learn a new language?"),
    ("Haha, thanks. That made me smile.", "Ha, cheers, that's nice of you."),
    ("Any tips for sleeping better?", "I keep waking up at 4am, any advice?"),
)


@dataclass(frozen=True)
class Fact:
    """A fact about the user: ``keys`` are the words that show it is in the human block."""

    label: str
    keys: tuple[str, ...]


@dataclass(frozen=True)
class UserTurn:
    text: str
    kind: TurnKind
    states: tuple[Fact, ...] = ()  # facts this message states (a change: the new value)
    replaces: Fact | None = None  # a change: the old value, which should leave the block
    answers: tuple[str, ...] = ()  # a question: accepted answers (any one is correct)
    wrong: tuple[str, ...] = ()  # a question: answers that are out of date (the old value)


@dataclass(frozen=True)
class Session:
    at: datetime
    turns: tuple[UserTurn, ...]


@dataclass(frozen=True)
class Profile:
    first: str
    town: str
    new_town: str
    job: str
    animal: str
    pet: str
    allergy: str
    food: str
    hobby: str
    sibling: str
    sibling_name: str
    band: str

    def known_words(self) -> tuple[str, ...]:
        """Words any of which shows a greeting used something known about the user (the band and
        the allergy since stop 36: "Hello Mourpiette! I know you love music, especially
        Kimreels." had not counted)."""
        return (
            self.town,
            self.new_town,
            self.job,
            self.pet,
            self.animal,
            self.food,
            self.hobby,
            self.sibling_name,
            self.band,
            self.allergy,
        )


@dataclass(frozen=True)
class ChatScript:
    seed: int
    index: int
    wording: int
    user: Profile
    sessions: tuple[Session, ...] = field(default=())

    @property
    def key(self) -> str:
        return f"{NAME}|{self.seed}|{self.wording}|{self.index}"


def _profile(rng: random.Random, namer: Namer) -> Profile:
    return Profile(
        first=namer.name((2, 2)),
        town=namer.name((2, 3)) + "ton",
        new_town=namer.name((2, 2)) + "bury",
        job=rng.choice(JOBS),
        animal=rng.choice(ANIMALS),
        pet=namer.name((2, 2)),
        allergy=rng.choice(ALLERGIES),
        food=rng.choice(FOODS),
        hobby=rng.choice(HOBBIES),
        sibling=rng.choice(SIBLINGS),
        sibling_name=namer.name((2, 2)),
        band=f"{namer.name((2, 2))}s",
    )


def _w(wording: int, *options: str) -> str:
    return options[wording % len(options)]


def _sessions(p: Profile, rng: random.Random, wording: int) -> tuple[Session, ...]:
    w = wording
    name, town, job = Fact("name", (p.first,)), Fact("home", (p.town,)), Fact("job", (p.job.split()[-1],))
    pet, allergy = Fact("pet", (p.pet,)), Fact("allergy", (p.allergy.split()[0],))
    food, hobby = Fact("food", (p.food.split()[-1],)), Fact("hobby", (p.hobby.split()[-1],))
    sibling, moved = Fact("sibling", (p.sibling_name,)), Fact("home", (p.new_town,))
    talk = [pair[w % 2] for pair in rng.sample(SMALLTALK, len(SMALLTALK))]
    absent = [pair[w % 2] for pair in rng.sample(ABSENT, 2)]
    first = (
        UserTurn(
            _w(
                w,
                f"Hi! I'm {p.first}. I live in {p.town} and I work as a {p.job}.",
                f"Hello there, {p.first} here. {p.job.capitalize()} by trade, based in {p.town}.",
            ),
            "fact",
            (name, town, job),
        ),
        UserTurn(talk[0], "smalltalk"),
        UserTurn(
            _w(
                w,
                f"I have a {p.animal} called {p.pet}, she's the boss of the house.",
                f"My {p.animal} {p.pet} has been chewing everything again.",
            ),
            "fact",
            (pet,),
        ),
        UserTurn(
            _w(
                w,
                f"By the way, I'm allergic to {p.allergy}, and my favourite dinner is {p.food}.",
                f"Note that {p.allergy} makes me ill (allergy), but {p.food} is my absolute favourite meal.",
            ),
            "fact",
            (allergy, food),
        ),
        UserTurn(
            _w(
                w,
                f"Last Saturday I saw the {p.band} play live, what a night!",
                f"Went to a gig by the {p.band} on the weekend, they were amazing.",
            ),
            "smalltalk",
        ),
        UserTurn(talk[1], "smalltalk"),
    )
    second = (
        UserTurn(
            _w(
                w,
                f"My {p.sibling} {p.sibling_name} is visiting this weekend.",
                f"{p.sibling_name}, my {p.sibling}, comes to stay on Saturday.",
            ),
            "fact",
            (sibling,),
        ),
        UserTurn(
            _w(
                w,
                f"Big news: I've moved from {p.town} to {p.new_town}!",
                f"We finally left {p.town}. I live in {p.new_town} now.",
            ),
            "change",
            (moved,),
            replaces=town,
        ),
        UserTurn(
            _w(w, f"I've taken up {p.hobby} in the evenings.", f"My new evening hobby is {p.hobby}."),
            "fact",
            (hobby,),
        ),
        UserTurn(talk[2], "smalltalk"),
        UserTurn(
            _w(w, "What's my pet's name again?", f"Remind me, what is my {p.animal} called?"),
            "question",
            answers=(p.pet,),
        ),
    )
    third = (
        UserTurn(talk[3], "smalltalk"),
        UserTurn(
            _w(w, "Where do I live these days?", "Which town am I living in now?"),
            "question",
            answers=(p.new_town,),
            wrong=(p.town,),
        ),
        UserTurn(
            _w(w, "What am I allergic to?", "Is there anything I can't eat or take?"),
            "question",
            answers=(p.allergy.split()[0],),
        ),
        UserTurn(absent[0], "absent"),
        UserTurn(
            _w(w, "Which band did I see live a while ago?", "Who was that gig I went to?"),
            "question",
            answers=(p.band, p.band.removesuffix("s")),  # "the Tragreettes", "a Tragreette gig"
        ),
        UserTurn(
            _w(w, f"What's my {p.sibling}'s name?", f"Do you remember what my {p.sibling} is called?"),
            "question",
            answers=(p.sibling_name,),
        ),
        UserTurn(absent[1], "absent"),
        UserTurn(_w(w, "What do I do for a living?", "What's my job?"), "question", answers=(p.job.split()[-1],)),
    )
    return tuple(
        Session(START + timedelta(days=day, hours=i), turns)
        for i, (day, turns) in enumerate(zip(SESSION_DAYS, (first, second, third)))
    )


def scripts(seed: int, n: int, wording: int = 0) -> list[ChatScript]:
    """``n`` users for ``seed``; the same seed gives the same people in either wording."""
    out = []
    for index in range(n):
        rng = random.Random(f"{NAME}:{seed}:{index}")
        namer = Namer(rng)
        profile = _profile(rng, namer)
        out.append(ChatScript(seed, index, wording, profile, _sessions(profile, rng, wording)))
    return out
