"""Long, natural two-person chats from a seed, with questions about what was said in passing.

Two friends (the user and the assistant's persona) talk in 15-30 sessions over several
months, 10-30 timed messages a session. Most of it is small talk (greetings, weather, work,
TV, food, "haha"), with each other's names everywhere ("Hey Mira!", "Thanks Dorbeck").
Now and then one of them mentions a fact or an event once, in passing, inside a longer
message: a trip, a pet's name, a colleague's hobby, a book, what the kids do after school,
a concert; events often with a relative date ("yesterday", "last Sunday", "two weeks ago").
Other messages touch the same topics without the answer (the puppy is chewing everything).

Each fact has a question with its gold answer and evidence (indices into
``Conversation.turns``), in two wordings: 0 keeps close to what was said, 1 says it in other
words. A dated event also has a "when" question, whose answer (a day) needs the relative
date resolved against the message's timestamp. Every name is invented (``fiction.Namer``);
the templates are written here for this benchmark.

    conversation = make_conversation(seed=0)
    store.recall.append(agent_id, conversation.messages())
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Literal

from memgpt_local.eval.conversation_facts import (
    EMPLOYER_KINDS,
    FACT_KINDS,
    JOBS,
    SNACKS,
    FactKind,
    Person,
    Role,
    relative_date,
)
from memgpt_local.eval.fiction import Namer
from memgpt_local.schemas import NewMessage

NAME = "conversations"
VERSION = 1
START = datetime(2024, 9, 2, 9, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Turn:
    """One message: who said what, when, in which session."""

    index: int
    session: int
    role: Role
    text: str
    at: datetime

    def message(self) -> NewMessage:
        return NewMessage(role=self.role, content=self.text, created_at=self.at, in_context=False)


@dataclass(frozen=True)
class Question:
    id: str
    kind: Literal["fact", "when"]
    wordings: tuple[str, str]  # 0: close to what was said; 1: in other words
    answer: str  # a "when" answer is a day, YYYY-MM-DD
    evidence: tuple[int, ...]  # indices into Conversation.turns
    about: Role  # whose fact it is
    aliases: tuple[str, ...] = ()  # other accepted forms of the answer

    def text(self, wording: int = 0) -> str:
        return self.wordings[wording]


@dataclass(frozen=True)
class Conversation:
    seed: int
    index: int
    user: Person
    assistant: Person
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]

    def messages(self) -> list[NewMessage]:
        """The turns as messages for ``store.recall.append``, oldest first."""
        return [t.message() for t in self.turns]

    @property
    def sessions(self) -> int:
        return self.turns[-1].session + 1 if self.turns else 0


# small talk draws from its own words, so that no answer is ever said outside its evidence
WEATHER = ("so rainy", "freezing", "really windy", "lovely and sunny", "grey and drizzly", "weirdly warm")
CHORES = ("laundry", "cleaning the kitchen", "grocery shopping", "sorting the garage", "paperwork")
MOODS = ("a bit tired", "pretty good", "good, busy as always", "okay, could be better", "great actually")


# ---------------------------------------------------------------- small talk


def _small_talk(rng: random.Random, x: Person, y: Person) -> list[str]:
    """One small-talk exchange that ``x`` starts with ``y``: two to four messages."""
    kid = rng.choice(x.kids) if x.kids else None
    options: list[list[str]] = [
        [f"It's been {rng.choice(WEATHER)} here all week.", f"Same here {x.first}! I just want to stay in bed haha."],
        [
            f"Work at {x.employer} is crazy this week, {rng.choice(x.coworkers)} is off sick.",
            "Ugh, that's rough. Hang in there!",
            "Thanks, I'm trying haha.",
        ],
        ["haha", "lol"],
        [f"Haha {y.first} you're the best", "I know 😄"],
        [f"How are you doing, {y.first}?", f"I'm {rng.choice(MOODS)}, thanks for asking {x.first}. You?", "Same!"],
        [
            f"What are you up to this weekend {y.first}?",
            f"Not much, probably {rng.choice(CHORES)}. Thrilling, I know haha.",
            "Sounds relaxing actually.",
        ],
        [f"I'm having {rng.choice(SNACKS)} for lunch again.", "Living the dream haha."],
        [
            f"{x.partner} says hi by the way!",
            f"Aww, say hi to {x.partner} from me!",
        ],
        [
            f"Did you watch anything good last night, {y.first}?",
            "Just some cooking show, nothing special. I fell asleep halfway through.",
            "Haha classic.",
        ],
        ["I'm so tired today, I didn't sleep well at all.", "Oh no! Coffee time?", "Already on my third one haha."],
        [
            f"The traffic in {x.town} this morning was unbelievable.",
            f"Haha {x.town} traffic is the worst. Did you get to work on time?",
            "Barely!",
        ],
        [f"Thanks {y.first}, that really means a lot.", f"Anytime {x.first}!"],
        [f"Miss chatting with you {y.first}!", "Me too! We should talk more often."],
        [
            f"Are you still at {y.employer}, {y.first}?",
            f"Yep, still there! Being a {y.job} has its ups and downs haha.",
        ],
        [
            f"I'm trying to eat healthier but {x.partner} keeps buying cake haha.",
            "Haha that's the worst. Or the best?",
            "Both honestly.",
        ],
        [f"Can you believe it's already {rng.choice(('Monday', 'Wednesday', 'Friday'))} again?", "Where does time go!"],
        [
            f"I finally did all the {rng.choice(CHORES)} I'd been putting off.",
            f"Look at you being productive {x.first}!",
        ],
        ["Omg I just saw the funniest video of a goat", "Send it!!", "Haha sent."],
        [f"How's {y.partner} doing?", f"Good! Busy with work, but good. Thanks {x.first}."],
    ]
    if kid:
        options.append(
            [f"{kid} lost another tooth haha.", f"Aww! Did the tooth fairy come, {x.first}?", "She did, two coins."]
        )
        options.append([f"The kids are driving me crazy today {y.first} haha.", "Haha hang in there!"])
    if y.kids:
        options.append([f"How are {' and '.join(y.kids)} doing?", f"Good, thanks {x.first}! Loud as ever haha."])
    return rng.choice(options)


def _chatter(rng: random.Random, x: Person, y: Person) -> list[list[str]]:
    """Longer exchanges on the topics the facts are about (pets, music, books, food, kids,
    work, travel...) that answer no question: what makes a search for a fact hard. Each is
    said once by each friend (people do not tell the same story twice)."""
    kid = rng.choice(x.kids) if x.kids else x.partner
    options: list[list[str]] = [
        [
            "I've always wanted a dog but our place is way too small. "
            f"Animals make everything better, don't they {y.first}?",
            "Totally. I stop to pet every dog I see on the street haha.",
        ],
        [
            "Music has been keeping me sane lately, I listen to something on every commute.",
            f"Same! Live music especially, nothing beats a good show. We should go to one together {x.first}.",
        ],
        [
            "I keep buying books and never reading them haha. My nightstand is a tower of good intentions.",
            f"Haha {x.first} that's me too. I read two pages and fall asleep.",
        ],
        [
            f"{x.partner} cooked dinner tonight, some pasta thing. So nice not to have to think about food for once.",
            "That's the dream. I had cereal for dinner, no shame.",
        ],
        [
            f"The school run this morning was chaos, {kid} forgot their lunch again and we had to go back.",
            f"Oh no haha. Mornings with kids are a sport of their own, {x.first}.",
        ],
        [
            f"Had a long meeting at {x.employer} about the new schedule, honestly it could have been an email.",
            "Haha they always could. Did anything actually change?",
            "Nope. Same as always.",
        ],
        [
            f"I really need a holiday {y.first}, somewhere warm with a beach and no emails.",
            "Yes please. Take me with you haha.",
        ],
        [
            "My houseplants are looking so sad, I think I'm overwatering them. Or underwatering. Who knows haha.",
            "Plants are a mystery to me too honestly.",
        ],
        [
            "I keep saying I'll get back into exercise, maybe next week haha. My body is not happy with me.",
            f"Haha same, {x.first}. Walking to the fridge counts, right?",
        ],
        [
            "There's nothing good on TV lately, we just rewatch the same old comedies every night.",
            "Honestly the old ones are the best. Comfort shows!",
        ],
        [
            "My mum called again asking when we're visiting. I love her, but wow, every single week.",
            f"Haha mums. Mine is the same, {x.first}.",
        ],
        [
            "Our neighbourhood is organising a clean-up day next month, I might join. It'd be nice to meet people.",
            f"That sounds lovely {x.first}, you should go.",
        ],
        [
            "I've been thinking about learning something new, maybe a language or something creative. "
            "I feel a bit stuck.",
            f"You totally should {x.first}! It's never too late.",
        ],
        [
            "Wedding season is so expensive haha, we have three invitations this year.",
            "Oof. At least there's cake!",
        ],
        [
            f"Work has been so stressful, being a {x.job} is a lot some weeks. I just want a quiet weekend.",
            f"You deserve one {x.first}. Do nothing at all, that's an order haha.",
        ],
        [
            "We're thinking of redoing the kitchen, but every quote we get is ridiculous.",
            "Renovations are the worst. Good luck!",
        ],
        [
            f"I saw the cutest cat in the window of the pet shop in {x.town} today, I almost went in.",
            f"Haha {x.first}, you'd have come out with three of them.",
        ],
        [
            f"{x.partner} and I tried a new recipe on the weekend, it was a disaster haha. "
            "We ordered takeaway in the end.",
            "Haha that's the best way to end a cooking experiment.",
        ],
        [
            "I went for a long walk by the river this morning, it really cleared my head.",
            f"Walks are the best medicine, {x.first}.",
        ],
        [
            "Any good podcasts? My commute is so boring these days.",
            "I'll send you a few! I'm into true crime at the moment haha.",
        ],
    ]
    return options


def _greeting(rng: random.Random, x: Person, y: Person) -> list[str]:
    return rng.choice(
        (
            [f"Hey {y.first}!", f"Hi {x.first}! How are you?"],
            [f"Hi {y.first}, how's it going?", f"Hey {x.first}! Good, you?", "Pretty good thanks!"],
            [f"Morning {y.first}!", f"Morning {x.first} :)"],
            [f"Hey {y.first}, long time no chat!", f"{x.first}! I know, it's been ages. How have you been?"],
            [f"Good evening {y.first}!", f"Evening {x.first}! What's new?"],
            [
                f"Hey {y.first}! Good to hear from you! I've been swamped lately. What's up with you? Anything new?",
                f"Hi {x.first}! Not much, same old really. It's so good to chat though!",
            ],
        )
    )


def _goodbye(rng: random.Random, x: Person, y: Person) -> list[str]:
    return rng.choice(
        (
            [f"Gotta run, talk soon {y.first}!", f"Bye {x.first}!"],
            ["Okay, off to make dinner. Talk later!", f"Enjoy {x.first}!"],
            [f"Night {y.first}!", "Night night!"],
            ["I have to go, but this was fun.", f"Always! Take care {x.first}."],
        )
    )


OPENERS = (
    "Oh, and ",
    "Anyway, ",
    "Ugh, what a week. ",
    "Not much new here. Well, actually ",
    "Haha yes. ",
    "So ",
    "Oh I forgot to tell you, ",
    "",
)
CLOSERS = (
    "",
    " Anyway, how are you?",
    " Anyway, enough about me haha.",
    " How's your week going, {y}?",
    " Life is never boring haha.",
    " What have you been up to, {y}?",
)


FILLERS = (
    "Sorry for the slow reply, it's been one of those weeks.",
    "I've been meaning to message you all week but things have been hectic.",
    "Honestly I don't know where the days go lately.",
    "Just got home and finally sat down with a cup of tea.",
    "I'm on my lunch break so I have a few minutes.",
    "Things have been pretty quiet around here, which is nice for a change.",
    "My phone has been acting up, so sorry if my messages come through late.",
    "It's so good to have a moment to chat.",
)
ECHOES = ("Haha I totally get that.", "Oh I hear you, it's been the same here.", "Honestly same.", "Ha, I feel that.")


def _mention(rng: random.Random, sentence: str, y: Person) -> str:
    """A fact said in passing: mostly inside a longer message, sometimes on its own."""
    if rng.random() < 0.25:
        return sentence
    opener = rng.choice(OPENERS)
    first = sentence.split(" ", 1)[0]
    if opener and not opener.endswith(". ") and first.split("'")[0] in ("We", "My", "Guess", "The"):
        sentence = first.lower() + sentence[len(first) :]
    return (opener + sentence + rng.choice(CLOSERS).format(y=y.first)).strip()


def _padded(rng: random.Random, texts: list[str]) -> list[str]:
    """Small talk as people type it: now and then a line of filler around what they say."""
    texts = list(texts)
    if rng.random() < 0.35:
        filler = rng.choice(FILLERS)
        texts[0] = f"{filler} {texts[0]}" if rng.random() < 0.5 else f"{texts[0]} {filler}"
    if len(texts) > 1 and len(texts[1]) > 20 and rng.random() < 0.25:
        texts[1] = f"{rng.choice(ECHOES)} {texts[1]}"
    return texts


# ---------------------------------------------------------------- people and sessions


def _person(rng: random.Random, namer: Namer, role: Role) -> Person:
    first, last = namer.person()
    kids = tuple(namer.name((2, 2)) for _ in range(rng.choice((0, 1, 2, 2))))
    return Person(
        role=role,
        first=first,
        last=last,
        town=namer.name(),
        job=rng.choice(JOBS),
        employer=f"{namer.name()} {rng.choice(EMPLOYER_KINDS)}",
        partner=namer.name((2, 2)),
        kids=kids,
        coworkers=(namer.name((2, 2)), namer.name((2, 2))),
    )


@dataclass
class _Builder:
    rng: random.Random
    namer: Namer
    people: dict[Role, Person]
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    follow_ups: list[tuple[Role, tuple[str, str]]] = field(default_factory=list)
    new_follow_ups: list[tuple[Role, tuple[str, str]]] = field(default_factory=list)
    answers: set[str] = field(default_factory=set)
    told: set[tuple[Role, int]] = field(default_factory=set)  # (friend, chatter) said already
    at: datetime = START
    session: int = 0

    def say(self, role: Role, text: str) -> int:
        self.turns.append(Turn(len(self.turns), self.session, role, text, self.at))
        self.at += timedelta(minutes=self.rng.randint(1, 6), seconds=self.rng.randint(0, 59))
        return len(self.turns) - 1

    def exchange(self, starter: Role, texts: list[str]) -> None:
        """``texts`` said in turns, ``starter`` first."""
        for i, text in enumerate(texts):
            self.say(starter if i % 2 == 0 else _other(starter), text)

    def fact(self, kind: FactKind, owner: Role) -> None:
        x, y = self.people[owner], self.people[_other(owner)]
        when = None
        if kind.tense and self.rng.random() < 0.75:
            when = relative_date(self.rng, self.at.date(), kind.tense)
        fact = kind.make(self.rng, self.namer, x, when)
        for _ in range(20):  # both friends may mention the same kind of thing: never the same answer
            if fact.answer.lower() not in self.answers:
                break
            fact = kind.make(self.rng, self.namer, x, when)
        self.answers.add(fact.answer.lower())
        other = _other(owner)
        evidence = (self.say(owner, _mention(self.rng, fact.sentence, y)),)
        if fact.reaction:
            self.say(other, fact.reaction)
        number = len(self.questions)
        self.questions.append(
            Question(f"q{number:02d}", "fact", fact.wordings, fact.answer, evidence, owner, fact.aliases)
        )
        if when and fact.when_wordings:
            day = when.day
            aliases = (f"{day.day} {day:%B %Y}", f"{day:%B} {day.day}, {day.year}")
            self.questions.append(
                Question(f"q{number + 1:02d}", "when", fact.when_wordings, day.isoformat(), evidence, owner, aliases)
            )
        if fact.follow_up:
            self.new_follow_ups.append((other, fact.follow_up))

    def run_session(self, facts: list[tuple[FactKind, Role]], size: int) -> None:
        """A session of about ``size`` messages: a greeting, small talk with the facts (and
        maybe a follow-up on an earlier one) at random places in between, a goodbye."""
        start = len(self.turns)
        starter: Role = self.rng.choice(("user", "assistant"))
        self.exchange(starter, _greeting(self.rng, self.people[starter], self.people[_other(starter)]))
        events: list[tuple[FactKind, Role] | None] = [*facts]
        if self.follow_ups and self.rng.random() < 0.6:
            events.append(None)  # a follow-up on something said in an earlier session
        self.rng.shuffle(events)
        while True:
            room = size - 2 - (len(self.turns) - start)  # the goodbye takes two
            if room <= 0 and not events:
                break
            if events and (room <= 2 * len(events) or self.rng.random() < 2.4 * len(events) / room):
                event = events.pop()
                if event is None:
                    asker, (question, reply) = self.follow_ups.pop(self.rng.randrange(len(self.follow_ups)))
                    self.exchange(asker, [question, reply])
                else:
                    self.fact(*event)
            else:
                who: Role = self.rng.choice(("user", "assistant"))
                x, y = self.people[who], self.people[_other(who)]
                stories = _chatter(self.rng, x, y)
                fresh = [i for i in range(len(stories)) if (who, i) not in self.told]
                if fresh and self.rng.random() < 0.4:
                    story = self.rng.choice(fresh)
                    self.told.add((who, story))
                    texts = stories[story]
                else:
                    texts = _small_talk(self.rng, x, y)
                self.exchange(who, _padded(self.rng, texts))
        closer: Role = self.rng.choice(("user", "assistant"))
        self.exchange(closer, _goodbye(self.rng, self.people[closer], self.people[_other(closer)]))
        self.follow_ups += self.new_follow_ups  # asked about in a later session
        self.new_follow_ups = []


def _other(role: Role) -> Role:
    return "assistant" if role == "user" else "user"


def make_conversation(seed: int, index: int = 0) -> Conversation:
    """The conversation of ``seed`` (and ``index``, for several per seed): the same every time."""
    rng = random.Random(f"{NAME}/v{VERSION}/{seed}/{index}")
    namer = Namer(rng)
    user, friend = _person(rng, namer, "user"), _person(rng, namer, "assistant")
    people: dict[Role, Person] = {"user": user, "assistant": friend}
    sessions = rng.randint(15, 30)
    roles: tuple[Role, Role] = ("user", "assistant")
    pool = [(k, r) for k in FACT_KINDS for r in roles if not k.needs_kids or people[r].kids]
    rng.shuffle(pool)
    pool = pool[: rng.randint(sessions * 2 // 3, sessions)]
    plan: list[list[tuple[FactKind, Role]]] = [[] for _ in range(sessions)]
    for item in pool:
        plan[rng.randrange(sessions)].append(item)
    builder = _Builder(rng, namer, people, at=START + timedelta(days=rng.randint(0, 60), hours=rng.randint(0, 11)))
    for s in range(sessions):
        builder.session = s
        builder.run_session(plan[s], rng.randint(10, 28))
        day = builder.at.date() + timedelta(days=rng.randint(2, 10))
        builder.at = datetime(day.year, day.month, day.day, rng.randint(7, 21), rng.randint(0, 59), tzinfo=timezone.utc)
    return Conversation(seed, index, user, friend, tuple(builder.turns), tuple(builder.questions))
