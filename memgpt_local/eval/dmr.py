"""Deep memory retrieval (the paper's Table 2): synthetic multi-session chats, from a seed.

Two friends talk: the user and the agent's persona. Each past session has about 12 timed
messages of small talk that reveal the user's persona facts (job, town, hobby, sibling). One
*episodic* fact (what the user named the ferret they adopted, the hotel of a trip) is said
only once, in the dialogue of one session; a *near-miss* distractor (the neighbour's ferret,
the hotel the sister stayed at) is said in another. All names are invented.

The sessions go into recall storage as past messages (out of the context window); in the
next session the user asks about the episodic fact. The standard split has 5 past sessions,
the long split 60 (tens of thousands of tokens: more than any context window here).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, TypeVar

from memgpt_local.eval.base import Case, Embed, FixedContext, Options
from memgpt_local.eval.fiction import Namer
from memgpt_local.schemas import NewMessage, human_time

if TYPE_CHECKING:
    from memgpt_local.memory import MemoryStore

NAME = "dmr"
VERSION = 1
MESSAGES_PER_SESSION = 12
STANDARD_SESSIONS = 5
LONG_SESSIONS = 60
START = datetime(2025, 3, 3, 18, 0, tzinfo=timezone.utc)

JOBS = (
    "nurse",
    "carpenter",
    "school teacher",
    "bus driver",
    "pharmacist",
    "baker",
    "architect",
    "librarian",
    "electrician",
    "accountant",
    "veterinarian",
    "florist",
)
HOBBIES = (
    "pottery",
    "rock climbing",
    "chess",
    "birdwatching",
    "bread baking",
    "kayaking",
    "knitting",
    "trail running",
    "watercolour painting",
    "the cello",
)
ANIMALS = ("ferret", "rabbit", "parrot", "tortoise", "kitten", "beagle puppy", "hamster")
WEATHER = ("rainy", "windy", "freezing", "sunny", "foggy", "humid")
SIBLINGS = ("sister", "brother", "cousin")


@dataclass(frozen=True)
class Line:
    speaker: str  # "user" or "agent"
    text: str
    at: datetime


@dataclass(frozen=True)
class Persona:
    first: str
    last: str
    job: str
    employer: str
    town: str
    hobby: str
    sibling: str
    sibling_name: str


@dataclass(frozen=True)
class Episode:
    """The fact asked about: the line that states it and the near-miss line."""

    fact: tuple[str, str]  # (user line, agent reply)
    distractor: tuple[str, str]
    question: str
    answer: str
    gold_text: str
    aliases: tuple[str, ...] = ()  # also accepted: a person's family name alone


@dataclass(frozen=True)
class Dialogue:
    user: Persona
    agent: Persona
    sessions: tuple[tuple[Line, ...], ...]
    episode: Episode
    fact_session: int
    distractor_session: int
    asked_at: datetime


# ---------------------------------------------------------------- episodic facts

T = TypeVar("T")


def _w(wording: int, *options: T) -> T:
    """The option of a wording: the same draws from the generator, other sentences."""
    return options[wording]


def _pet(rng: random.Random, namer: Namer, p: Persona, w: int) -> Episode:
    animal = rng.choice(ANIMALS)
    name, other = namer.name((2, 2)), namer.name((2, 2))
    return Episode(
        fact=_w(
            w,
            (
                f"Big news: we adopted a {animal} from the shelter on Saturday! We named her {name}.",
                f"{name} is a lovely name! I hope she settles in quickly.",
            ),
            (
                f"Guess who came home with us from the animal rescue this weekend? A little {animal}. "
                f"She answers to {name} already.",
                f"Welcome home, {name}! Is she eating well?",
            ),
        ),
        distractor=_w(
            w,
            (
                f"My neighbour has a {animal} too, called {other}. It keeps escaping into our garden.",
                f"Ha, {other} sounds like a handful.",
            ),
            (
                f"The people next door keep a {animal} as well. {other} climbed our fence again.",
                f"Sounds like {other} likes your place.",
            ),
        ),
        question=_w(
            w,
            f"What was the name we gave the {animal} we adopted from the shelter?",
            f"Remind me, what is our {animal} from the rescue called?",
        ),
        answer=name,
        gold_text=f"You named the {animal} {name}.",
    )


def _hotel(rng: random.Random, namer: Namer, p: Persona, w: int) -> Episode:
    city, hotel, other = namer.name(), namer.name(), namer.name()
    return Episode(
        fact=_w(
            w,
            (
                f"We just got back from our trip to {city}. We stayed at the {hotel} Hotel, right by the harbour.",
                f"The harbour in {city} must have been beautiful. Was the hotel good?",
            ),
            (
                f"Home again after five days in {city}! Our room at the {hotel} Hotel looked straight onto the sea.",
                f"A sea view in {city}, lucky you. Did you eat well?",
            ),
        ),
        distractor=_w(
            w,
            (
                f"My {p.sibling} {p.sibling_name} went to {city} last year and stayed at the {other} Hotel.",
                f"Did {p.sibling_name} like {city}?",
            ),
            (
                f"{p.sibling_name}, my {p.sibling}, says the {other} Hotel is the place to stay in {city}.",
                f"Has {p.sibling_name} been to {city} often?",
            ),
        ),
        question=_w(
            w,
            f"What was the name of the hotel we stayed at on our trip to {city}?",
            f"Which hotel did we book when we went to {city}? I can't think of the name.",
        ),
        answer=hotel,
        gold_text=f"You stayed at the {hotel} Hotel in {city}.",
    )


def _book(rng: random.Random, namer: Namer, p: Persona, w: int) -> Episode:
    author = " ".join(namer.person())
    title, other = f"The {namer.name()} Letters", f"Winter in {namer.name()}"
    return Episode(
        fact=_w(
            w,
            (
                f"I finally finished reading {title} by {author}. I could not put it down.",
                f"I have heard good things about {author}. What did you like about it?",
            ),
            (
                f"Stayed up until 2 am to get to the last page of {title}. {author} knows how to end a story.",
                "That good? I might borrow it from you sometime.",
            ),
        ),
        distractor=_w(
            w,
            (
                f"My book club picked {other}, also by {author}, but I have not started it yet.",
                "Let me know how it compares.",
            ),
            (
                f"Next on my pile is {other}, another one of {author}'s, for the book club.",
                "Tell me if it lives up to the other one.",
            ),
        ),
        question=_w(
            w,
            f"Which book by {author} did I say I had finished reading?",
            f"What was the {author} novel that kept me up all night?",
        ),
        answer=title,
        gold_text=f"You finished reading {title} by {author}.",
    )


def _dish(rng: random.Random, namer: Namer, p: Persona, w: int) -> Episode:
    place, dish, other = namer.name(), f"{namer.word()} stew", f"{namer.word()} tart"
    return Episode(
        fact=_w(
            w,
            (
                f"We had dinner at {place} on Friday. I ordered the {dish} and it was amazing.",
                f"That sounds delicious. Is {place} expensive?",
            ),
            (
                f"Friday night we finally tried {place}. The {dish} I had was the best thing I've eaten all year.",
                f"High praise! Did you leave room for dessert at {place}?",
            ),
        ),
        distractor=_w(
            w,
            (
                f"A colleague told me the {other} at {place} is their best dish.",
                "Maybe you should try it one day.",
            ),
            (
                f"Someone at work swears by the {other} at {place}.",
                "Worth a try next time.",
            ),
        ),
        question=_w(
            w,
            f"What dish did I order when we had dinner at {place}?",
            f"What did I eat at {place} that I liked so much?",
        ),
        answer=dish,
        gold_text=f"You ordered the {dish} at {place}.",
    )


def _manager(rng: random.Random, namer: Namer, p: Persona, w: int) -> Episode:
    new, old = " ".join(namer.person()), " ".join(namer.person())
    return Episode(
        fact=_w(
            w,
            (
                f"There were changes at {p.employer}: my new manager is {new}. So far she seems fair.",
                "A fair manager makes all the difference.",
            ),
            (
                f"I report to {new} now, she took over our team at {p.employer} this week.",
                "New boss, new habits. How is she so far?",
            ),
        ),
        distractor=_w(
            w,
            (
                f"My old manager, {old}, retired in the spring. We had a small party for him.",
                "That is a nice way to say goodbye.",
            ),
            (
                f"{old}, who ran our team for years, has gone off to retire by the sea.",
                "Good for him.",
            ),
        ),
        question=_w(
            w,
            f"What is the name of my new manager at {p.employer}?",
            f"Who is my boss at {p.employer} these days?",
        ),
        answer=new,
        gold_text=f"Your new manager is {new}.",
        aliases=(new.split()[-1],),
    )


def _gift(rng: random.Random, namer: Namer, p: Persona, w: int) -> Episode:
    artist, other = " ".join(namer.person()), " ".join(namer.person())
    return Episode(
        fact=_w(
            w,
            (
                f"For my mother's birthday I gave her a painting by {artist}. She cried a little.",
                "What a thoughtful gift. She must have loved it.",
            ),
            (
                f"Mum turned seventy and I surprised her with an original {artist} for the living room.",
                "Seventy! That is a gift she will keep forever.",
            ),
        ),
        distractor=_w(
            w,
            (
                f"Last year I almost bought her a print by {other}, but it sold out.",
                "Sometimes the second choice turns out better.",
            ),
            (
                f"I nearly went for a {other} print for her once, but someone beat me to it.",
                "Maybe next time.",
            ),
        ),
        question=_w(
            w,
            "Whose painting did I give my mother for her birthday?",
            "Which artist's work did Mum get from me when she turned seventy?",
        ),
        answer=artist,
        gold_text=f"You gave your mother a painting by {artist}.",
        aliases=(artist.split()[-1],),
    )


def _band(rng: random.Random, namer: Namer, p: Persona, w: int) -> Episode:
    band, other, venue = f"The {namer.name()}s", f"The {namer.name()}s", f"{namer.name()} Hall"
    return Episode(
        fact=_w(
            w,
            (
                f"Last night we saw {band} live at {venue}. Best concert of my life.",
                f"I am jealous! How was the sound at {venue}?",
            ),
            (
                f"My ears are still ringing from {band} at {venue} yesterday. They played for three hours!",
                f"Three hours at {venue}? They must love that crowd.",
            ),
        ),
        distractor=_w(
            w,
            (
                f"{other} are playing at {venue} next month. My {p.sibling} loves them.",
                f"Maybe you could go with your {p.sibling}.",
            ),
            (
                f"My {p.sibling} wants us to go to {other} at {venue} in a few weeks.",
                "Could be fun.",
            ),
        ),
        question=_w(
            w,
            f"Which band did we see live at {venue}?",
            f"Who was playing that night at {venue} when we went?",
        ),
        answer=band,
        gold_text=f"You saw {band} live at {venue}.",
    )


EPISODES: tuple[Callable[[random.Random, Namer, Persona, int], Episode], ...] = (
    _pet,
    _hotel,
    _book,
    _dish,
    _manager,
    _gift,
    _band,
)

# ---------------------------------------------------------------- small talk


def _small_talk(rng: random.Random, namer: Namer, u: Persona, a: Persona, k: int) -> list[tuple[str, str]]:
    """``k`` different small-talk exchanges."""
    weather = rng.choice(WEATHER)
    options = (
        (
            f"Work at {u.employer} was busy today. Being a {u.job} is never boring.",
            f"I can imagine. Did anything funny happen at {u.employer}?",
        ),
        (
            f"I spent the whole weekend on {u.hobby}. I think I am getting better at it.",
            f"That is great! How long have you been into {u.hobby} now?",
        ),
        (f"It has been {weather} in {u.town} all week.", f"Here too. I stayed in and spent the day on {a.hobby}."),
        (
            f"My {u.sibling} {u.sibling_name} called me last night, we talked for two hours.",
            f"How is {u.sibling_name} doing?",
        ),
        (f"I am thinking of taking a class about {rng.choice(HOBBIES)}.", "You should, it sounds like fun."),
        (
            f"Have you had time for {a.hobby} lately?",
            f"A little. Work as a {a.job} keeps me busy, but I try every weekend.",
        ),
        (
            f"There is a new bakery in {u.town} called {namer.name()}. The bread is good.",
            "I love a good bakery. What did you buy?",
        ),
        ("I am so tired, I did not sleep well.", "Try to get to bed early tonight."),
        (
            f"We are planning a picnic by the {namer.name()} river next month.",
            "Bring a blanket, it gets cold by the water.",
        ),
        (f"I watched a documentary about {namer.name()} island yesterday.", "Was it interesting?"),
    )
    return rng.sample(options, k)


def _greeting(rng: random.Random, u: Persona, a: Persona) -> tuple[str, str]:
    return rng.choice(
        (
            (f"Hi {a.first}! How are you?", f"Hi {u.first}! I am good, thanks. How was your week?"),
            (f"Hey {a.first}, long time no talk.", f"Hey {u.first}! Good to hear from you."),
            (f"Good evening {a.first}.", f"Evening {u.first}! What is new?"),
        )
    )


def _goodbye(rng: random.Random, u: Persona, a: Persona) -> tuple[str, str]:
    return rng.choice(
        (
            ("I have to go now, talk soon!", f"Bye {u.first}, take care!"),
            ("Time for dinner. Talk to you later.", "Enjoy your dinner!"),
            ("Okay, I am off to bed. Good night!", "Good night!"),
        )
    )


def _persona(rng: random.Random, namer: Namer) -> Persona:
    first, last = namer.person()
    return Persona(
        first=first,
        last=last,
        job=rng.choice(JOBS),
        employer=f"{namer.name()} {rng.choice(('Clinic', 'Works', 'Library', 'Studio', 'Depot'))}",
        town=namer.name(),
        hobby=rng.choice(HOBBIES),
        sibling=rng.choice(SIBLINGS),
        sibling_name=namer.name((2, 2)),
    )


def make_dialogue(seed: int, index: int, sessions: int = STANDARD_SESSIONS, wording: int = 0) -> Dialogue:
    """One user's past sessions; both wordings draw the same names, days and small talk."""
    rng = random.Random(f"{NAME}/v{VERSION}/{seed}/{sessions}/{index}")
    namer = Namer(rng)
    user, agent = _persona(rng, namer), _persona(rng, namer)
    episode = rng.choice(EPISODES)(rng, namer, user, wording)
    fact_session, distractor_session = rng.sample(range(sessions), 2)
    exchanges_per_session = MESSAGES_PER_SESSION // 2
    when = START + timedelta(days=rng.randint(0, 30))
    out: list[tuple[Line, ...]] = []
    for s in range(sessions):
        middle = _small_talk(rng, namer, user, agent, exchanges_per_session - 2)
        if s == fact_session:
            middle[rng.randrange(len(middle))] = episode.fact
        if s == distractor_session:
            middle[rng.randrange(len(middle))] = episode.distractor
        exchanges = [_greeting(rng, user, agent), *middle, _goodbye(rng, user, agent)]
        lines = []
        for user_text, agent_text in exchanges:
            for speaker, text in (("user", user_text), ("agent", agent_text)):
                lines.append(Line(speaker, text, when))
                when += timedelta(minutes=rng.randint(1, 4))
        out.append(tuple(lines))
        when += timedelta(days=rng.randint(3, 9), hours=rng.randint(-3, 3))
    return Dialogue(
        user=user,
        agent=agent,
        sessions=tuple(out),
        episode=episode,
        fact_session=fact_session,
        distractor_session=distractor_session,
        asked_at=when,
    )


def persona_text(d: Dialogue) -> str:
    a = d.agent
    return (
        f"My name is {a.first} {a.last}. I am a {a.job} from {a.town} and I love {a.hobby}. "
        f"I chat regularly with my friend {d.user.first}; we have talked many times before."
    )


def human_text(d: Dialogue) -> str:
    return f"Name: {d.user.first} {d.user.last}. A friend I chat with."


def transcript_line(line: Line, d: Dialogue) -> str:
    who = d.user.first if line.speaker == "user" else f"{d.agent.first} (me)"
    return f"[{human_time(line.at)}] {who}: {line.text}"


class DMRTask:
    name = NAME
    point_name = "sessions"
    baselines = ("fixed-context", "summary-only")
    baseline_store = False

    def __init__(self) -> None:
        self._dialogues: dict[tuple[int, int, int, int], Dialogue] = {}

    def default_points(self, long: bool) -> tuple[int, ...]:
        return (LONG_SESSIONS,) if long else (STANDARD_SESSIONS,)

    def dialogue(self, seed: int, index: int, sessions: int, wording: int = 0) -> Dialogue:
        key = (seed, index, sessions, wording)
        if key not in self._dialogues:
            self._dialogues[key] = make_dialogue(seed, index, sessions, wording)
        return self._dialogues[key]

    def cases(self, options: Options) -> list[Case]:
        points = options.points if options.points is not None else self.default_points(options.long)
        if any(p < 2 for p in points):
            raise ValueError("dmr needs at least 2 past sessions (one for the fact, one for the distractor)")
        out = []
        for index in range(options.n):
            for sessions in points:
                d = self.dialogue(options.seed, index, sessions, options.wording)
                e = d.episode
                out.append(
                    Case(
                        task=NAME,
                        split=options.split,
                        point=sessions,
                        index=index,
                        seed=options.seed,
                        question=_w(
                            options.wording, "Hi {}, quick question. {}", "Hey {}, help me out here. {}"
                        ).format(d.agent.first, e.question),
                        answers=(e.answer, *e.aliases),
                        gold_text=e.gold_text,
                        asked_at=d.asked_at,
                        persona=persona_text(d),
                        human=human_text(d),
                        payload={
                            "wording": options.wording,
                            "sessions": sessions,
                            "fact_session": d.fact_session + 1,
                            "distractor_session": d.distractor_session + 1,
                        },
                    )
                )
        return out

    def _dialogue_of(self, case: Case) -> Dialogue:
        return self.dialogue(case.seed, case.index, case.payload["sessions"], case.payload["wording"])

    def past_messages(self, case: Case) -> list[NewMessage]:
        """The past sessions as recall messages, out of the context window."""
        d = self._dialogue_of(case)
        return [
            NewMessage(
                role="user" if line.speaker == "user" else "assistant",
                content=line.text,
                created_at=line.at,
                in_context=False,
            )
            for session in d.sessions
            for line in session
        ]

    def build_memory(self, store: MemoryStore, agent_id: int, case: Case, embed: Embed) -> None:
        store.recall.append(agent_id, self.past_messages(case))

    def fixed_context(self, case: Case, store: MemoryStore | None = None, agent_id: int | None = None) -> FixedContext:
        d = self._dialogue_of(case)
        lines = [line for session in d.sessions for line in session]
        gold = frozenset(i for i, line in enumerate(lines) if line.text == d.episode.fact[0])
        return FixedContext(
            instructions=(
                f"{persona_text(d)}\nYou are {d.agent.first}, chatting with {d.user.first}. "
                "Reply to their message in one or two sentences."
            ),
            items=tuple(transcript_line(line, d) for line in lines),
            keep="last",
            gold=gold,
            heading="Your past conversations with them, oldest first:",
        )
