"""Greet by name: at a login, a greeting that leaves out the user's name, or says nothing that
core memory knows about them, is held back once, when core memory knows the name.

The login event quotes core memory and asks for a greeting by name and one thing known, and
still a 1.5B model often copies an earlier greeting instead: a returning user, "Name: Lena" in
core memory, was met with "Hello! How can I help you today? What is your name?", the words of
the first login. Told only to use the name ("Greet Lena by name"), the model wrote "Hello! How
can I help you with your goats?": the notice ends with the words to start from ("Hello Lena!";
a small model continues from the last thing it read). With the name fixed, a `make run` chat
still got "Hello, Tomasz! How can I help you today?" with his sister's visit saved the day
before: a greeting that names nothing known is held too, and the notice names one note to
mention, an upcoming dated one first (a plan, a visit: "2026-12-05 is in 2 days"), else the
newest undated one. A greeting that says again a run of the last login's greeting is held the
same way. The second draft goes out whatever it says.

Held for leaving out the name, a greeting's redraft was often the notice's "Hello Lena!" and
nothing more (2 of 3 held greetings, eval chat seed 9). So at a login with a known name the
grammar writes "Hello Lena!" (``Turn.reply_start``) and makes the model go on from it; no
formula is cut from such a greeting, whose own first sentence is its second. With no name in
core memory it writes "Hello! What's your name?" (``ASK_NAME``), what the login asks for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date
from difflib import SequenceMatcher

from memgpt_local.agent.fact_completion import PASTIME_LABELS
from memgpt_local.agent.fact_wording import as_note
from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.events import is_name_line, kind_of
from memgpt_local.memory.dates import first_iso_day, spoken_days
from memgpt_local.schemas import Message, NewMessage
from memgpt_local.text import (
    BARE_LABEL_STEMS,
    CLAUSE_WORDS,
    DEATH,
    LOWER,
    PETS,
    RELATIONS,
    STOPWORDS,
    UPPER,
    content_words,
    label_topics,
    sentences,
    stem,
    stems,
    words,
)

NEAR_DAYS = (
    30  # a plan within a month is news to greet with (a visit 19 days off, at Christmas, was passed over; stop 52)
)
# a login's greeting when core memory holds no name: told "You do not know their name: greet
# them and ask it", the 1.5B model thought "I should greet them and ask for their name" and
# wrote "Hello! How can I help you today?" (a new user's first `make run` login, stop 46)
ASK_NAME = "Hello! What's your name?"  # a dated note this close to today is the one to ask about


def known_name(memory: MemoryView) -> str | None:
    """The user's name as the human block holds it ("Name: Lena Maier" -> "Lena"), if any."""
    for line in human_lines(memory):
        value = line.partition(":")[2].strip()
        if is_name_line(line) and value:
            return value.split()[0].strip(",.;")
    return None


def human_lines(memory: MemoryView) -> list[str]:
    """The lines of the human block."""
    return [line for label, line in memory.core_lines() if label == "human"]


def user_facts(memory: MemoryView) -> list[str]:
    """The human block's lines other than the name's."""
    return [ln for ln in human_lines(memory) if ":" in ln and not is_name_line(ln)]


_BARE_LABEL_WORDS = BARE_LABEL_STEMS | {"name"}  # stems of label words that say nothing alone


def names_a_fact(greeting: str, facts: Sequence[str], name: str = "") -> bool:
    """Whether ``greeting`` says something of one of ``facts``: a word of its value or of its
    label, compared by their first four letters ("goats" for "Pets: two goats", "bakery" for
    "Work: bakery", "ferret" for "Ferret: Trossaian"; held for not naming "Trossaian", "I'm glad
    you mentioned your ferret's name" was redrafted as "Hello Quorouo! What is your hobby?").
    The user's ``name`` is no fact: with "Fosveel is allergic: penicillin" among the notes,
    "Hello Fosveel! How can I help you today?" went out at both logins of eval chat seed 13."""
    said = stems(greeting) - stems(name)
    return any(said & (stems(line) - _BARE_LABEL_WORDS) for line in facts)


# "What's your favourite documentary?": a question for the value of a line, and nothing else; and
# "Do you have any pets?", asked right after "I live with ... our rabbit Biscuit" (a `make run`
# chat, stop 47)
_ASKS_FOR = re.compile(
    r"^(?:so,?\s+|and\s+)?(?:(?:what|which|where|who)(?:'s|’s|\s+is|\s+are|\s+was|\s+were)\s+your"
    r"|do\s+you\s+have\s+(?:any|a|an))\s+(?P<what>[^?]+?)\s*\?$",
    re.IGNORECASE,
)
_QUALIFIERS = frozenset("new current".split())  # "favourite" is a word of what: "Favourite meal: gnocchi"
_FOR_MORE = frozenset("other more else another".split())  # "Do you have any other pets?" asks for more


def asks_for(sentence: str, line: str) -> bool:
    """Whether ``sentence`` asks the user for what the core ``line`` says, all its words of
    what being the line's: "What's your favorite documentary?" under "Favorite documentary:
    about octopuses" (a returning user's greeting at both logins of eval chat seed 15), "What's
    your name?" under "Name: Lena", "Do you have any pets?" under "Rabbit: Biscuit". "What's
    your new home like?" and "Do you have any other pets?" ask for more."""
    match = _ASKS_FOR.match(sentence.strip())
    if match is None:
        return False
    if _FOR_MORE & set(words(match["what"])):
        return False
    asked = {stem(w) for w in content_words(match["what"]) if len(w) > 2 and w not in _QUALIFIERS}
    # a line is asked for by its topic's words too: "pets" under "Rabbit: Biscuit"
    return bool(asked) and asked <= stems(line) | stems(" ".join(label_topics(line.partition(":")[0])))


def without_known_questions(message: str, lines: Sequence[str]) -> str:
    """``message`` less its sentences that ask for what one of ``lines`` says (``asks_for``)."""
    return " ".join(s for s in sentences(message) if not any(asks_for(s, line) for line in lines))


GREETINGS_VARIED = 1  # the last greetings whose notes a login's opener leaves for others


def greetings_of(messages: Iterable[Message]) -> list[str]:
    """The greetings among ``messages`` (oldest first): what each login's turn drafted, its
    held drafts with the one sent, as one text."""
    found: list[str] = []
    after_login = False
    for m in messages:
        if m.role == "user":
            after_login = False
        elif m.role == "system" and kind_of(m.content, "system") == "login":
            after_login = True
            found.append("")
        said = (m.function_args or {}).get("message") if m.role == "assistant" else None
        if after_login and isinstance(said, str):
            found[-1] = f"{found[-1]} {said}".strip()
    return [g for g in found if g]


# words in a row a greeting may share with the last one: "Hello Priya! I'm glad we met. I know
# you're planning to run on Sunday, and I'm here to help you with that." greeted a login after
# one that said the same (a `make run` chat, stop 55), its login asking about another note
GREETING_RUN_AGAIN = 6


def repeats_greeting(greeting: str, earlier: str, facts: Sequence[str]) -> bool:
    """Whether ``greeting`` says a run of ``GREETING_RUN_AGAIN`` words of the ``earlier`` one
    that names a word of one of ``facts`` (the same note, said the same way; "I hope you're
    doing well" is a formula)."""
    said, before = words(greeting), words(earlier)
    match = SequenceMatcher(None, said, before, autojunk=False).find_longest_match(0, len(said), 0, len(before))
    known = {stem(w) for fact in facts for w in content_words(fact.partition(":")[2])}
    run = said[match.a : match.a + match.size]
    return match.size >= GREETING_RUN_AGAIN and bool(known & {stem(w) for w in run if w not in STOPWORDS})


def _how_far(day: date, today: date) -> str:
    """How far ``day`` lies from ``today``, in words ("today", "tomorrow", "in 13 days")."""
    gap = (day - today).days
    return "today" if gap == 0 else "tomorrow" if gap == 1 else f"in {gap} days"


def opener(facts: Sequence[str], today: date, greeted: Sequence[str] = ()) -> str | None:
    """The note to mention at a login: a dated one from today to ``NEAR_DAYS`` ahead (the
    nearest), else the newest undated note. A past date is
    left out: shown "Sister: Kasia, visiting tomorrow (2026-12-03)" two days later, with "it
    is over now" beside it, the 1.5B model still greeted "your sister Kasia is visiting
    tomorrow". A note an earlier greeting (``greeted``) named is left for the others, unless
    its day is today or tomorrow: a `make run` chat (stop 53) greeted a user back after three
    minutes with her mum's flight in 13 days again, word for word, while her partner's new job,
    told since, went unmentioned. A line that tells of a death is never the note: "Wife:
    Michiko, passed away two years ago" is no news to greet someone with (stop 54)."""
    facts = [line for line in facts if not DEATH.search(line.partition(":")[2])]
    fresh = [
        line
        for line in facts
        if not any(names_a_fact(g, [line]) for g in greeted)
        or (day := first_iso_day(line)) is not None
        and 0 <= (day - today).days <= 1
    ]
    facts = fresh or facts
    dated = [((d - today).days, -i, line) for i, line in enumerate(facts) if (d := first_iso_day(line)) is not None]
    near = [item for item in dated if 0 <= item[0] <= NEAR_DAYS]
    if near:
        return min(near)[2]
    undated = [line for line in facts if first_iso_day(line) is None]
    if not undated:
        return None
    # a note that only names someone gives a greeting nothing to ask: "Brother: Luis" was greeted
    # "I just wanted remind you that your brother Luis is a brother." (a `make run` chat, stop 58)
    # nor does one that only says an age: "Rory's age: four" was greeted "Hello Hamish! I know that Rory
    # is four years old." with a grandchild due in March and a knee operation ahead (a `make run` chat, stop 61)
    return ([line for line in undated if not _says_only(line)] or undated)[-1]


def mentioned(line: str, today: date) -> str:
    """The ``opener`` note as a login's notice gives it: said to the user (``said_to_them``),
    with how far ahead its day or month is. Given the note as written, "Sister: Ola, getting
    married in August (2027-08)" with "(August 2027 is in 8 months: it has not happened yet)",
    a greeting copied both, and held for the copy its redraft copied them again: "Hello Marta!
    I'm glad to hear about your sister's wedding. Sister: Ola, getting Married in August 2027 is
    in 8 months: it has not happened yet." (a `make run` chat, stop 63). A note said as to the
    user reads well copied."""
    day = first_iso_day(line)
    ahead = _how_far(day, today) if day is not None and day >= today else _month_ahead(line, today)
    return said_to_them(line) + (f", {ahead}" if ahead and ahead not in words(line) else "")


_NAMED_FIRST = re.compile(rf"^(?P<name>[{UPPER}][{LOWER}'-]+(?:\s+[{UPPER}][{LOWER}'-]+)?)\s*(?:[,;]\s*(?P<rest>.*))?$")
# a value that goes on from its label as a sentence: "Dad: has his hip replaced in February"
_GOES_ON = re.compile(r"^(?:has|have|had|is|was|will|gets|got|lives|works|moved|starts|turns|loves|likes)\b")


# the doings a label ("Keeps: three beehives") or a value ("teaches piano") says, said to the user
# as "you ...": "teaches" -> "teach"
_DOING_VERBS = {
    **{
        f"{verb}s": verb
        for verb in (
            "keep grow play run write own like love enjoy speak make read knit sing paint bake cook drive"
        ).split()
    },
    **{f"{verb}es": verb for verb in "teach coach watch".split()},
    "works": "work",
    "studies": "study",
    "volunteers": "volunteer",
    "collects": "collect",
    "lives": "live",
}
_ING_THINGS = frozenset("wedding meeting evening morning building painting ceiling thing spring pudding".split())


def said_to_them(line: str) -> str:
    """A core ``line`` as said to the user: "Sister: Ola, getting married in August" is "your
    sister Ola is getting married in August", "Dog: Finn, a border collie" "your dog Finn, a
    border collie", "Dad: has his hip replaced" "your dad has his hip replaced", "Keeps: three
    beehives" "you keep three beehives", "Hobby: teaches piano" "you teach piano", "Work: bookshop"
    "your work - bookshop" (a colon would make it the note as written again), "Lia's birthday: next
    Saturday" "Lia's birthday - next Saturday"; a line whose label is a clause ("Fosveel is allergic")
    is quoted as it is."""
    label, colon, value = (part.strip() for part in line.partition(":"))
    said = words(label)
    owner = label.split("'s", 1)[0].strip().lower() if "'s" in label else None
    if not colon or not value or not said or len(said) > 4 or CLAUSE_WORDS & set(said):
        return f'"{line}"'
    if owner is not None and owner not in RELATIONS | PETS:
        return f"{label} - {value}"  # someone's by name: "Lia's birthday - next Saturday"
    if len(said) == 1 and said[0] in _DOING_VERBS:
        return f"you {_DOING_VERBS[said[0]]} {value}"
    yours = "your " + label[0].lower() + label[1:]
    kin = said[-1] in RELATIONS | PETS or said[-1].endswith("s") and said[-1][:-1] in RELATIONS | PETS
    if owner is None and kin:
        named = _NAMED_FIRST.match(value)
        if named is not None and named["name"].lower() in RELATIONS:
            value = named["rest"] or ""  # "Father: Dad, has hip replaced": "Dad" is no name
            named = None
        if named is not None:
            rest = named["rest"] or ""
            if not rest:
                return f"{yours} {named['name']}"
            joined = " is " if re.match(r"^\w+ing\b", rest) and not rest.lower().startswith("being") else ", "
            joined = " " if _GOES_ON.match(rest) else joined
            return f"{yours} {named['name']}{joined}{rest}"
        if re.match(r"^\w+ing\b", value):
            return f"{yours} is {value}"
        if _GOES_ON.match(value):
            return f"{yours} {value}"
        return f"{yours}, {value}" if value else yours
    # a value that is the user's doing is said as theirs: "Hobby: teaches piano in Gdansk" is "you teach
    # piano in Gdansk" ("How is your hobby - teaches piano in Gdansk?" greeted Marta, stop 64), "Hobby:
    # swimming in the sea" "your hobby is swimming in the sea"
    first, _, rest = value.partition(" ")
    if first.lower() in _DOING_VERBS and rest:
        return f"you {_DOING_VERBS[first.lower()]} {rest}"
    # (a pastime only: "your trip is flying ..." is no English)
    if label.lower() in PASTIME_LABELS and re.fullmatch(r"[a-z]+ing", first) and first not in _ING_THINGS and rest:
        return f"{yours} is {value}"
    return f"{yours} - {value}"


_ONLY_A_NAME = re.compile(rf"^\s*[{UPPER}][{LOWER}'-]+\s*$")
_AGE_LABEL = re.compile(r"(?:^|\s|['’]s\s+)age\s*$", re.IGNORECASE)


def _says_only(line: str) -> bool:
    """Whether ``line`` says no more than a name, or an age under an age's label."""
    label, _, value = line.partition(":")
    return bool(_ONLY_A_NAME.match(value) or (_AGE_LABEL.search(label) and len(words(value)) <= 3))


_ISO_MONTH = re.compile(r"\b(\d{4})-(\d{2})\b(?!-\d)")


def _month_ahead(line: str, today: date) -> str | None:
    """How far ahead the month a ``line`` names is ("9 months from now"), when it lies
    after ``today``'s: greeted with "Granddaughter: Saoirse; starts medicine in September
    (2027-09)", the model said she "started university ... in September 2027" (a `make run` chat,
    stop 50)."""
    match = _ISO_MONTH.search(line.partition(":")[2])
    if match is None:
        return None
    year, month = int(match[1]), int(match[2])
    gap = (year - today.year) * 12 + month - today.month
    if not 1 <= month <= 12 or gap <= 0:
        return None
    return f"{gap} month{'s' if gap != 1 else ''} from now"


def lines_recited(greeting: str, facts: Sequence[str], name: str = "") -> int:
    """How many of ``facts`` ``greeting`` tells, each by a word of its value that is no name: "I
    know your partner Declan builds boats, your cat Pickle is about nine years old, and your cat's
    eye is one." tells three ("builds boats", "nine years old", "one")."""
    said = stems(greeting) - stems(name)
    told = 0
    for line in facts:
        value = line.partition(":")[2]
        own = stems(" ".join(w for w in re.findall(r"[\w'-]+", value) if not w[:1].isupper()))
        told += bool(said & own)
    return told


# a note of how someone is, asked after by its label: "How is Pickle's health"
_HOW_THEY_ARE = re.compile(
    rf"^[{UPPER}][{LOWER}'-]+'s\s+(?:health|condition|injury|recovery|treatment|hip|hips|leg|back|knee|ear|eye)$"
)
# a greeting that tells this many notes recites core memory: "Hello Oona! I know your partner Declan
# builds boats, your cat Pickle is about nine years old, and your cat's eye is one. I also know that
# Pickle's health is torn ear." (a `make run` chat, stop 60), where a friend asks after one thing
RECITED = 3


# "Hello Kenji!", a word of welcome, one thing remembered: a redrafted greeting listed eleven
# notes, a wife's death among them, over a minute of decoding (a `make run` chat, stop 54)
GREETING_SENTENCES = 3


def _asking_after(turn: Turn, memory: MemoryView) -> str:
    """The words a greeting goes on with to ask after the login's note when it is about one of the
    user's people or animals (" How is your sister"), else "". Told to mention "your sister Ola is
    getting married in August 2027", greetings told the user their own news back ("Hello Marta!
    I'm here for you. Your sister Ola is getting married in August 2027.", stop 64), where a friend
    asks after her; told "Ask after this one", the model asked "Did you know that ...?"."""
    earlier = [m for m in memory.in_context() if turn.event_id is None or m.id < turn.event_id]
    note = opener(
        [as_note(line) for line in user_facts(memory)], turn.clock().date(), greetings_of(earlier)[-GREETINGS_VARIED:]
    )
    whose = (note or "").partition(":")[0].strip().lower()
    return f" How is your {whose}" if whose in RELATIONS | PETS else ""


class GreetByName(Policy):
    name = "greet_by_name"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        if turn.kind == "login":
            name = known_name(memory)
            turn.reply_start = f"Hello {name}!" if name is not None else ASK_NAME
            if name is not None:
                turn.reply_sentences = GREETING_SENTENCES
                turn.reply_start += _asking_after(turn, memory)
        return []

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if turn.kind != "login" or turn.holds[self.name] or draft.plan.last:
            return None
        name = known_name(memory)
        if name is None:
            return None
        facts = user_facts(memory)
        has_name = name.lower() in draft.message.lower()
        told = without_known_questions(draft.message, facts)
        has_fact = not facts or names_a_fact(told, facts, name)
        earlier = [m for m in memory.in_context() if turn.event_id is None or m.id < turn.event_id]
        greeted = greetings_of(earlier)[-GREETINGS_VARIED:]
        # the forced start is the grammar's, said at every login about the same one ("How is your mum")
        own = draft.written_after(turn.reply_start)
        again = any(repeats_greeting(own, g, facts) for g in greeted)
        recites = lines_recited(draft.message, facts, name) >= RECITED
        if has_name and has_fact and not again and not recites:
            return None
        asked_known = told != " ".join(sentences(draft.message))
        nothing = "only asked what you know already" if asked_known else "said nothing you know about them"
        missing = (
            "said again what you said at the last login"
            if again
            else "listed what you know about them instead of asking after one thing"
            if recites and has_name and has_fact
            else f"left out the user's name and {nothing}"
            if not has_name and not has_fact
            else "left out the user's name"
            if not has_name
            else nothing
        )
        today = turn.clock().date()
        # the note the login asked for, not one the last greeting said (held for "I need to save some
        # details for later" at a memory warning, a greeting was pointed at the note it had said
        # the login before: a `make run` chat, stop 53)
        note = opener([as_note(line) for line in facts], today, greeted)
        about = spoken_days(mentioned(note, today), today) if note else None
        ask = f" Ask about one thing from core memory, for example {about}." if about else ""
        if about and asked_known:
            ask = f" Do not ask what core memory says; say what you remember, for example {about}."
        # a note about one of theirs is asked about in the words it starts with: held for the last
        # login's "I know that your wife Efua is a pharmacist and your son Kofi ...", the redraft
        # said it again, the note about his mother's visit quoted above it (a `make run` chat, stop 59)
        label = (note or "").partition(":")[0].strip()
        whose = label.lower()
        start = f"Hello {name}!"
        if whose in RELATIONS | PETS:
            start = turn.reply_start = f"Hello {name}! How is your {whose}"
        elif _HOW_THEY_ARE.match(label):
            # "Pickle's health: torn ear": held for reciting every note, a greeting asks after it
            start = turn.reply_start = f"Hello {name}! How is {label}"
        return Hold(
            self.name,
            f"Not sent: your greeting {missing}. Write it again.{ask} Start with: {start}",
            f"the greeting {missing}",
            hide_draft=True,
            # held for saying nothing known, the redraft was the last login's greeting word for word
            # ("Hello Hamid! I know you works as a driver in Sheffield. What else do you know about
            # you?", a `make run` chat, stop 57)
            uncopied=tuple(greeted),
        )
