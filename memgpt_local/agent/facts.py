"""Fact notes: after a user's turn, what the user said about themself goes into the human block.

MemGPT's chat results rest on the model keeping its ``human`` block current. A 1.5B model
asked to do that between the question and the answer saved one fact of four ("Name: Dana",
never the beehives or the tea), invented others ("Age: 30"), re-saved the same line until the
chain cap and took two to four extra steps before the user got a reply. So the reply goes out
first, and then the same model answers one narrow question under a grammar: which facts about
the user does their last message state, as short ``Label: value`` lines.

It answers in a second context of its own (``SideContexts``): instructions, six exchanges with a
made-up user, the message, and the lines saved so far. Asked at the end of the conversation
instead, it copied its earlier notes from the ``memory update`` notices in view ("Name: Marek"
again for "I'm allergic to peanuts, and my sister Ola is getting married in June") and saved
nothing new; the conversation's KV cache also stays as the turn left it. Listed even there, the
saved lines were sometimes copied out again instead of the new facts ("Name: Marek", "Cat:
Pixel" for a message about an allergy and a sister): when a pass changes nothing, it is asked
once more without them. Each line is checked against the user's own words before it is
written:

- a value whose names and numbers the user did not say is dropped (an invention);
- a label the block already holds with another value replaces that line (a changed fact:
  "Home: Leeds" becomes "Home: York") when the user said it changed ("moved", "now", "no
  longer", ...) or the new value builds on the old one ("Home: Poznan, near the park"); else
  the saved line stays: the model also fits a day's events under a saved label, and "Rough
  shift, two car crashes back to back" once replaced "Work: paramedic in Utrecht" with "Work:
  two car crashes back to back". The same value, or a part of it ("Pet: Pixel" for "Pet: Pixel
  (grey cat)"), changes nothing;
- a label that says more than its topic is made plain ("Parrot's name: Kiwi" is "Parrot: Kiwi",
  "Mushroom risotto is: their favourite dinner" is "Favourite dinner: Mushroom risotto");
- a value said as the user's own sentence is written about them ("Speech: I'm giving a
  speech" is "Speech: giving a speech"): a login that read the first form greeted as if the
  assistant were the user;
- a line whose value is only a passing state ("Health: wiped out", "Mood: so tired") or only
  how good something was ("Favorite music: amazing") is dropped: how the user feels after one
  shift is no fact to greet them with in a month; so is a line that holds only a day another
  line of the pass also holds ("Stay: Saturday" beside "Guest: comes to stay on Saturday");
- a relative date gets its day written in ("Sister: Kasia, visiting tomorrow (2026-12-03)"),
  resolved as in the user's sentence: the block is read for months, and a `make run` chat
  saved "Sister: Kasia, visiting tomorrow", which is wrong from the next day on; a plan's
  day that the line left out is written onto it (``carry_days``), and a plan the pass left
  out altogether is asked about on its own (``plan_prompt``), and someone else's plan is
  labelled with their name when the line left it out ("Grace's hip surgery: on Monday", "Guest:
  Pestia, comes to stay on Saturday" for "Pestia, my brother, comes to stay on Saturday");
- the place the user grew up in, filed as their home ("Home: Wroclaw" for "We grew up in
  Wroclaw"), goes under "Hometown" (``childhood_home``);
- a line labelled with a relative the message never spoke of ("Son: once drove dad's car into a
  pond", where "he" was the brother of an earlier message) is dropped (``unheard_kin``);
- someone the user names with who they are ("my partner Sam", "our rabbit Biscuit") gets a
  line of their own when no line files them, and a fact told of "he" or "she" is filed under
  the person an earlier sentence names ("Sam's hobbies: board games and cooking"), not the
  user's (``fact_owners``);
- a plan (a line dated ahead) joins the saved line it will change instead of replacing it
  ("Work: teaches chemistry; new school in January (2027-01)"), a home line names the new
  place first ("Home: York (moved from Leeds)"), and a fact said again under another label
  changes nothing;
- when the block would overflow, its oldest lines move to archival memory, and the notice
  says so.

What was written is stored as one ``memory update`` event, so the model sees it from the
next step on, and is returned for the chat to show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING

from memgpt_local import events
from memgpt_local.agent.fact_owners import (
    RELATION_PATTERN,
    files_a_saved_person,
    individual,
    kept_relations,
    named_people,
    news_of_a_saved_one,
    owned_animals,
    people_not_animals,
    refiled,
    said_relations,
    someone_elses,
    the_users_own,
    told_of_in_a_clause,
    under_their_relation,
    unheard_kin,
    user_name,
    value_stems,
)
from memgpt_local.agent.work_change import WORK_MAX_TOKENS, changes_work, when_label, within, work_prompt
from memgpt_local.config import FactNoteSettings
from memgpt_local.memory.core import default_text
from memgpt_local.memory.dates import Mention, annotate, day_of, mentions, said_as_future
from memgpt_local.runtime.base import Backend, SideContexts
from memgpt_local.runtime.grammar import build_notes_grammar
from memgpt_local.schemas import ChatMessage
from memgpt_local.text import (
    PETS,
    RELATIONS,
    content_words,
    is_bare_request,
    names_within,
    normalize_space,
    sentences,
    speaks_of_its_writer,
    statements,
    stem,
    stems,
    words,
)

if TYPE_CHECKING:
    from memgpt_local.memory.protocol import Store

BLOCK = "human"
NOTES_MAX_TOKENS = 200

# words that show a message talks about its writer: a message without any is not read for facts
_NAMES_AND_NUMBERS = re.compile(r"\b(?:[A-Z][\w'-]*|\d[\d.,:/-]*)")

NOTES_N_CTX = 2048  # the side context the notes pass runs in
MESSAGE_MAX_CHARS = 2000  # a longer message is read for facts in its first 2,000 characters

NOTES_INSTRUCTIONS = (
    "You keep an assistant's notes about its user. You are given one new message the user wrote and "
    "the notes saved so far. List the facts the message states about the user that the notes do not "
    "hold yet: their name, home, work, family and friends, pets, likes and dislikes, health, hobbies, "
    'plans and dates. Write each as a short "Label: value" line in the user\'s own words. When the '
    "message changes a saved fact, write the new line with the saved label. Questions, thanks and "
    "small talk state no facts: then write an empty list."
)

# (notes saved so far, the user's message, the lines to write): a made-up user, never one of the
# evaluation's, showing a first introduction, a change of fact with new people said after only a
# name was saved, a question, an indirect wording, a relative's detail and an addition to a saved
# line, and traits said as adjectives ("I'm vegetarian" was saved as "Vegetarianism: yes", a value
# the user never said). With the question as the only example holding a short list, a message
# after just "Name: Ada" was saved ("My brother Felix is getting married in August!") was
# answered with an empty list; a relative's job became the user's ("Hobbies: teaches maths").
NOTES_EXAMPLES: tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...] = (
    ((), "Hey, Sam here! I fix bikes for a living, in Bristol.", ("Name: Sam", "Work: fixes bikes", "Home: Bristol")),
    (
        ("Name: Sam",),
        "We packed up and moved to Cardiff last weekend. My son Leo loves it, though he can't eat gluten.",
        ("Home: Cardiff (moved last weekend)", "Son: Leo", "Leo's health: can't eat gluten"),
    ),
    (
        ("Name: Sam", "Work: fixes bikes", "Home: Cardiff (moved last weekend)"),
        "Can you recommend a good film for tonight?",
        (),
    ),
    (
        ("Name: Sam", "Home: Cardiff (moved last weekend)", "Work: fixes bikes"),
        "Mornings are for swimming in the lake, keeps me sane. Dairy and I don't get along though.",
        ("Hobby: swimming in the lake in the mornings", "Health: dairy does not agree with me"),
    ),
    (
        ("Name: Sam", "Home: Cardiff (moved last weekend)", "Work: fixes bikes", "Son: Leo"),
        "Ugh, long day at the shop. Leo starts school on Monday, and my wife Jo, who teaches piano, got a puppy!",
        ("Son: Leo, starts school on Monday", "Wife: Jo, teaches piano", "Dog: a puppy"),
    ),
    (
        ("Name: Sam", "Home: Cardiff (moved last weekend)", "Work: fixes bikes", "Son: Leo", "Wife: Jo, teaches piano"),
        "Thanks! Oh, I'm left-handed, by the way, and a total night owl.",
        ("Handedness: left-handed", "Sleep: a night owl"),
    ),
)


PLAN_INSTRUCTIONS = (
    "You keep an assistant's notes about its user. The user's message speaks of something that happens on "
    'the day given. Write it as one short "Label: value" line in the user\'s own words, with the day in the '
    "value. If nothing is planned for that day, write an empty list."
)
# saved lines a pass may copy out before it is asked again without them (its items run out)
COPIED_BEFORE_ASKING_AGAIN = 2
PLANS_PER_MESSAGE = 2  # plans asked about on their own, at most, per message

# (the message, the day phrase, the line): a made-up user (the notes examples' Sam) and plans of
# several shapes. In the notes prompt itself, an example of plans lost other facts on the held
# set (bench_notes: 20/20 -> 18/20, a job change kept as "Quit: the trams"), so plans the notes
# pass leaves out are asked about on their own
PLAN_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    ("Got the dentist tomorrow though, ugh.", "tomorrow", "Dentist: tomorrow"),
    ("Jo and I are off to Lisbon next Friday! Can't wait.", "next Friday", "Trip: to Lisbon with Jo next Friday"),
    (
        "My mum turns sixty in two weeks, we're throwing her a party.",
        "in two weeks",
        "Mum's party: her sixtieth birthday in two weeks",
    ),
)


def plan_prompt(message: str, phrase: str) -> list[ChatMessage]:
    """The prompt that asks what ``message`` plans for the day ``phrase`` names."""

    def ask(said: str, when: str) -> ChatMessage:
        return ChatMessage(role="user", content=f"Message: {json.dumps(said, ensure_ascii=False)}\nDay: {when}")

    prompt = [ChatMessage(role="system", content=PLAN_INSTRUCTIONS)]
    for said, when, line in PLAN_EXAMPLES:
        prompt += [ask(said, when), ChatMessage(role="assistant", content=json.dumps({"facts": [line]}))]
    return [*prompt, ask(message[:MESSAGE_MAX_CHARS], phrase)]


def work_line(line: str) -> bool:
    return (label_of(line) or "") in _WORK_LABELS


def notes_prompt(saved: Sequence[str], message: str) -> list[ChatMessage]:
    """The notes pass's prompt: instructions, the examples as earlier exchanges, then ``message``
    with the lines ``saved`` so far. The notes come after the message: listed before it, the
    model copied them out as new facts."""

    def ask(lines: Sequence[str], said: str) -> ChatMessage:
        held = "\n".join(lines) if lines else "(nothing yet)"
        text = f"Message: {json.dumps(said, ensure_ascii=False)}\nAlready saved, do not repeat:\n{held}"
        return ChatMessage(role="user", content=text)

    prompt = [ChatMessage(role="system", content=NOTES_INSTRUCTIONS)]
    for lines, said, facts in NOTES_EXAMPLES:
        answer = json.dumps({"facts": list(facts)}, ensure_ascii=False)
        prompt += [ask(lines, said), ChatMessage(role="assistant", content=answer)]
    return [*prompt, ask(saved, message[:MESSAGE_MAX_CHARS])]


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


def states_something_personal(message: str) -> bool:
    """Whether ``message`` may state a fact about its writer (cheap; no model): a sentence that
    is not a question speaks of its writer (``speaks_of_its_writer``), or names someone or somewhere (a capitalised
    word after its first: "Hello there, Dana here. Nurse by trade, based in Leeds."). Questions
    state nothing: read for facts, "Hey, what's the name of my brother again?" became "Name:
    Brother" in place of the user's name."""
    stated = [s for s in sentences(statements(message)) if not is_bare_request(s)]
    return any(speaks_of_its_writer(s) or names_within(s) for s in stated)


def label_of(line: str) -> str | None:
    """The normalised label of a ``Label: value`` line, else None."""
    label, sep, value = line.partition(":")
    if not sep or not value.strip() or not 0 < len(label.strip()) <= 40:
        return None
    return normalize_space(label).lower()


def grounded(line: str, said: str) -> bool:
    """Whether the value of ``line`` comes from ``said``: every name and number it holds, and
    all but one in three of its other content words (compared by their first four letters),
    occur there, and it holds no letter outside ASCII that ``said`` lacks. A trait written as
    "Label: yes" ("Vegetarian: yes" for "I'm vegetarian") is grounded by its label's words."""
    label, _, value = line.partition(":")
    if any(not ch.isascii() and ch.isalpha() and ch not in said for ch in value):
        return False  # a letter the user never typed: a slip into another script ("Ahmed is more紧张")
    heard = {stem(w) for w in words(said)}
    if value.strip().lower().rstrip(".") in ("yes", "true"):
        said_label = [stem(w) for w in content_words(label) if len(w) > 2]
        return bool(said_label) and all(w in heard for w in said_label)
    for name in _NAMES_AND_NUMBERS.findall(value):
        for token in words(name):  # "I'm" is "i" and "m"; "14th" was said for "14"
            if len(token) == 1 or stem(token) in heard:
                continue
            if not (token.isdigit() and any(w.startswith(token) for w in heard)):
                return False
    plain = [stem(w) for w in content_words(value) if len(w) > 2]
    unheard = sum(w not in heard for w in plain)
    return unheard <= len(plain) // 3  # one word in three may be the model's ("a beagle called Rex")


_GLUED = re.compile(r"[a-z][A-Z]|'s[A-Za-z]|[A-Za-z'-]{18,}")


# a label that is a clause: "Leeds is herhomecity: Leeds" (a `make run` chat, stop 45)
_CLAUSE_LABEL = re.compile(r"^\s*\S+(?:\s+\S+)?\s+(?:is|are|was|were)\s+\S", re.IGNORECASE)


# a label that says where someone is: "Lives in Lisbon: still in March", written for "My girlfriend
# Ana is still in Lisbon, she joins me in March" beside "Girlfriend: Ana, still in Lisbon" (a
# `make run` chat, stop 46); the user lived in Bristol
_PLACE_CLAUSE_LABEL = re.compile(
    r"^\s*(?:lives?|lived|living|works?|worked|working|stays?|stayed|staying|studies|studied|studying|based)"
    r"\s+(?:in|at|near|from)\s+[A-Z]",
    re.IGNORECASE,
)


_DANGLING = frozenset("the a an and or my their his her".split())  # no label ends with one


def glued_label(line: str) -> bool:
    """Whether ``line``'s label holds words run together, or is a clause: the notes grammar
    allows three label words, and a model that began a clause there ("Rafael is building Ines's
    red bike") went on without spaces, "Rafael is buildingInes'sred-bi: with a basket", and that
    was saved; so was "Leeds is herhomecity: Leeds", and "Lives in Lisbon: still in March"
    (``_PLACE_CLAUSE_LABEL``)."""
    label = line.partition(":")[0]
    if _PLACE_CLAUSE_LABEL.search(label) and label.split()[-1][:1].isupper():
        return True
    if len(label.split()) > 1 and label.split()[-1].lower() in _DANGLING:
        return True  # a clause cut off at its third word: "Starts at the: university veterinary hospital"
    return bool(_GLUED.search(label) or _CLAUSE_LABEL.search(label))


# words that offer the user something rather than ask about them
_SUGGESTING = re.compile(
    r"\b(?:maybe|perhaps|how about|what about|you could|you might|why not|try|suggest\w*|recommend\w*|consider|"
    r"something like|idea)\b",
    re.IGNORECASE,
)


# a short sentence that takes an option up: "stir-fry works.", "Risotto sounds good!"
_ACCEPTING = re.compile(
    r"^\W*(?:\S+\s+){0,2}?\S+\s+(?:works|would\s+work|will\s+do|it\s+is"
    r"|sounds\s+(?:good|great|nice|perfect|lovely|fine|delicious|fun))\W*(?:then|thanks)?\W*$",
    re.IGNORECASE,
)


def takes_up_suggestion(line: str, said: str, answering: str) -> bool:
    """Whether ``line`` only takes up what the assistant offered in ``answering``, the message
    the user answered: after "Maybe something like a stir-fry with some vegetables?", "stir-fry
    works." was saved as "Hobby: stir-fry" (a `make run` chat, stop 48). A value the user says of
    themself ("I love stir-fries") or that answers a question about them stays."""
    value = value_stems(line)
    holding = [s for s in sentences(said) if value & {stem(w) for w in content_words(s)}]
    if holding and all(_ACCEPTING.match(s) for s in holding):
        return True  # "stir-fry works." whatever was offered: a second chat's draft had not offered it
    offered = [s for s in sentences(answering) if _SUGGESTING.search(s)]
    if not value or not any(value <= stems(s) for s in offered):
        return False
    return not any(speaks_of_its_writer(s) for s in holding)


# what someone would have the user do: "my wife says I should take up running", "Mum wants me to ..."
_URGED = re.compile(
    r"\b(?:(?:says|said|thinks|reckons|keeps\s+saying)\s+(?:that\s+)?(?:i|we)\s+(?:should|ought\s+to|need\s+to)"
    r"|wants?\s+(?:me|us)\s+to|told\s+(?:me|us)\s+to|keeps\s+telling\s+(?:me|us)\s+to|suggest(?:s|ed)\s+(?:that\s+)?(?:i|we))\b"
    r"(?P<urged>[^,.;!?]*?)(?=\bbut\b|[,.;!?]|$)",
    re.IGNORECASE,
)


def only_urged(line: str, said: str) -> bool:
    """Whether ``line`` holds only what someone else would have the user do: "Hobby: running with
    Agnieszka" for "my wife Agnieszka says I should take up running with her ... I'm not
    convinced" (a `make run` chat, stop 49). Lines that file a person or an animal stay ("Wife:
    Agnieszka"), and so does a value the user says elsewhere of themself."""
    label = line.partition(":")[0]
    if individual(line) is not None or set(words(label)) & (RELATIONS | PETS | {"name"}):
        return False
    value = {stem(w) for w in content_words(line.partition(":")[2]) if not w[:1].isupper()} - {
        stem(w) for w in re.findall(r"\b[A-Z][a-z]+\b", said)
    }
    urged = [m["urged"] for m in _URGED.finditer(said)]
    if not value or not urged or not value <= {stem(w) for u in urged for w in words(u)}:
        return False
    rest = _URGED.sub(" ", said)
    return not value & {stem(w) for w in words(rest)}


def worth_saving(line: str, said: str) -> bool:
    """Whether a line the notes pass wrote goes into the block: grounded in ``said``, no passing
    state, a label of real words."""
    return (
        grounded(line, said) and not passing_state(line) and not glued_label(line) and not place_of_a_visit(line, said)
    )


# a value that starts as the user's own sentence: its subject is dropped, a few verbs change
_OWN_SUBJECT = (
    (re.compile(r"^(?:i'm|i am|im|we're|we are)\s+", re.I), ""),
    (re.compile(r"^(?:i've got|i have got|i've|i have)\s+", re.I), "has "),
    (re.compile(r"^(?:i don't|i do not)\s+", re.I), "does not "),
    (re.compile(r"^i'd\s+", re.I), "would "),
    (re.compile(r"^i'll\s+", re.I), "will "),
    (re.compile(r"^i\s+", re.I), ""),
)
# first-person words inside a value, said of the user instead
_OWN_WORDS = {"my": "their", "me": "them", "mine": "theirs", "myself": "themself"}
_OWN_WORD = re.compile(r"\b(?:my|me|mine|myself)\b", re.I)


def as_note(line: str) -> str:
    """``line`` with a value that speaks as the user turned into a note about them: "Speech:
    I'm giving a speech" is "Speech: giving a speech", "Health: dairy does not agree with me"
    is "Health: dairy does not agree with them". A `make run` login read "Speech: I'm giving a
    speech" from core memory and greeted "I'm a pharmacist in Leicester and I'm giving a
    speech.": the model took the user's words as its own."""
    label, sep, value = line.partition(":")
    if not sep:
        return line
    text = value.strip()
    for pattern, replacement in _OWN_SUBJECT:
        if pattern.match(text):
            text = pattern.sub(replacement, text, count=1)
            break
    text = _OWN_WORD.sub(lambda m: _OWN_WORDS[m[0].lower()], text)
    return f"{label}: {text}" if text else line


_NAME_OF = re.compile(r"^(?P<owner>.+?)'s\s+name$", re.IGNORECASE)
_ENDS_WITH_VERB = re.compile(r"^(?P<head>.+?)\s+(?:is|are|was|were)$", re.IGNORECASE)
_POSSESSIVE = re.compile(r"^(?:their|my|his|her|the user's)\s+(?=\w)", re.IGNORECASE)


# "New home: Quaiweenbury" beside "Home: Quaiweenbury" (eval chat seed 25, stop 47): where the user
# lives, or works, is one line, the newest value its value
_NOW_QUALIFIER = re.compile(r"^(?:new|current|present|latest)\s+(?P<topic>.+)$", re.IGNORECASE)
# "Allergy to pollen: yes" beside "Allergy: pollen" (eval chat seed 27, stop 47), and "What am I
# allergic to?" was answered "Your allergy to pollen is yes."
_TRAIT_OF = re.compile(r"^(?P<topic>[A-Za-z-]+)\s+(?:to|of)\s+(?P<what>.+)$", re.IGNORECASE)
_WORK_LABELS = frozenset(("work", "job", "workplace", "employer", "school", "office"))


def plain_label(line: str) -> str:
    """``line`` with a label that says more than its topic made plain: "Parrot's name: Kiwi" is
    "Parrot: Kiwi" (an eval chat block held "Parrot's name: Drarkmeette" beside the same fact as
    "Parrot: ..."), and a label the model began as a clause loses its verb, "Mushroom risotto
    is: their favourite dinner" is "Favourite dinner: Mushroom risotto" (what it is, by whose
    word) and "Tiago is: coming on Saturday" is "Tiago: coming on Saturday"; "New home: Leeds" is
    "Home: Leeds"."""
    label, sep, value = line.partition(":")
    label, value = label.strip(), value.strip()
    if not sep or not value:
        return line
    trait = _TRAIT_OF.match(label)
    if trait and value.lower().rstrip(".") in ("yes", "true"):
        return f"{trait['topic']}: {trait['what']}"
    now = _NOW_QUALIFIER.match(label)
    if now and now["topic"].lower() in _HOME_LABELS | _WORK_LABELS:
        return f"{now['topic'][0].upper()}{now['topic'][1:]}: {value}"
    named = _NAME_OF.match(label)
    if named and named["owner"].lower() not in ("my", "your", "their", "user", "the user"):
        return f"{named['owner']}: {value}"
    clause = _ENDS_WITH_VERB.match(label)
    if clause is None:
        return line
    topic = _POSSESSIVE.sub("", value)
    if topic != value and len(topic.split()) <= 3:  # "their favourite dinner": the value is the label
        return f"{topic[0].upper()}{topic[1:]}: {clause['head']}"
    return f"{clause['head']}: {value}"


# how someone feels today: a value made of these words only is no lasting fact
_PASSING = frozenset(
    "tired exhausted wiped knackered drained worn sleepy shattered beat stressed stressy frazzled bored "
    "grumpy cranky upset sad down happy glad excited thrilled nervous hungry cold sore busy fine good ok okay "
    "great awful rough out bit little totally completely really very so today tonight now right "
    "this morning afternoon evening amazing awesome brilliant wonderful fantastic lovely nice terrible "
    "horrible cool fun boring incredible epic".split()
)


# labels that file a feeling, not a fact: "Missing: Camille" for "My daughter Camille starts
# university in Montreal in September, I'm going to miss her so much." was said back as "she is
# missing Camille" (a `make run` chat, stop 42)
_FEELING_LABELS = frozenset(
    "missing miss misses feeling feelings feel mood moods emotion emotions worry worries worried stress "
    "stressed sadness sad happiness happy excitement excited nervousness nerves nervous anxiety anxious".split()
)


# a value that says only that something changed, not what holds now
_CHANGE_ONLY = frozenset(
    "left leaving quit quitting moved moving started starting start starts changed switched over done".split()
)


def passing_state(line: str) -> bool:
    """Whether ``line``'s value says only how the user feels or fares now ("wiped out"), or only
    how good something was: "Favorite music: amazing" for "Went to a gig by the Perkvoans on
    the weekend, they were amazing." (eval chat seed 14), later answered as "Your favorite
    music is amazing"; or its label files a feeling ("Missing: Camille")."""
    label, _, value_text = line.partition(":")
    value = content_words(value_text)
    labelled = content_words(label.rpartition("'s ")[2])  # "Maya's nervousness: about it" (a `make run` chat)
    if value and all(w in _CHANGE_ONLY for w in value):
        return True  # "Practice: left" for "I left the practice, I start at the hospital on Monday"
    return (bool(value) and all(w in _PASSING for w in value)) or (
        bool(labelled) and all(w in _FEELING_LABELS for w in labelled)
    )


# labels for where the user lives now, and what says a place is only where they come from
_HOME_LABELS = frozenset(("home", "lives", "lives in", "location", "city", "town", "residence", "address"))
_GREW_UP = re.compile(r"\b(?:grew up|grow up|growing up|was born|were born|raised|childhood)\b", re.IGNORECASE)
_LIVES_NOW = re.compile(r"\b(?:live|lives|living|moved|move|now|based|home)\b", re.IGNORECASE)
GREW_UP_LABEL = "Hometown"


def childhood_home(line: str, said: str) -> str:
    """``line`` under "Hometown" when the model filed the place the user grew up in as their
    home: "We grew up in Wroclaw" was saved as "Home: Wroclaw" in a `make run` chat, beside
    "Work: paramedic in Bristol", and where the user lives would be answered with it. Only when
    ``said`` says "grew up" (or "born", "raised") and nothing of living there now."""
    label, sep, value = line.partition(":")
    if normalize_space(label).lower() not in _HOME_LABELS or not _GREW_UP.search(said) or _LIVES_NOW.search(said):
        return line
    return f"{GREW_UP_LABEL}{sep}{value}"


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
    if normalize_space(label).lower() not in _HOME_LABELS:
        return False
    places = {w.lower() for w in re.findall(r"\b[A-Z][\w'-]+", value)}
    holding = [s for s in sentences(said) if places & set(words(s))]
    return bool(holding) and all(_ONCE.search(s) and not _LIVES_NOW.search(s) for s in holding)


_PLACE = r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*"
_MOVED = (  # a home line that names the old place first
    re.compile(rf"^\s*(?P<old>{_PLACE})\s*[(,;-]\s*(?:just\s+|recently\s+)?moved\s+to\s+(?P<new>{_PLACE})\s*\)?\s*$"),
    re.compile(rf"^\s*(?:just\s+)?moved\s+from\s+(?P<old>{_PLACE})\s+to\s+(?P<new>{_PLACE})\s*$", re.IGNORECASE),
)


def moved_home(line: str) -> str:
    """A home ``line`` that names where the user moved from first, with where they live now
    first: eval chat seed 24 saved "Home: Thaistuelton (moved to Thouxshaisbury)" for a move to
    Thouxshaisbury, and where the user lives was answered with the old town."""
    label, sep, value = line.partition(":")
    if normalize_space(label).lower() not in _HOME_LABELS:
        return line
    for pattern in _MOVED:
        match = pattern.match(value)
        if match and match["old"] != match["new"]:
            return f"{label}{sep} {match['new']} (moved from {match['old']})"
    return line


_DAY_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight weekend next this on".split()
)


def without_bare_days(lines: Sequence[str]) -> list[str]:
    """``lines`` without a line whose value is only a day that another of them also holds: for
    "Pestia, my brother, comes to stay on Saturday." the pass wrote "Stay: Saturday" beside
    "Guest: comes to stay on Saturday" (eval chat seed 14). A day alone is kept when no other
    line holds it ("Birthday: 5 May")."""

    def day_only(line: str) -> bool:
        value = re.sub(r"\(\d{4}-\d\d-\d\d\)|\d{4}-\d\d-\d\d", " ", line.partition(":")[2])
        said = words(value)
        return bool(said) and all(w in _DAY_WORDS for w in said)

    out = []
    for line in lines:
        days = set(words(line.partition(":")[2])) - {"on", "next", "this"}
        if day_only(line) and any(o is not line and days <= set(words(o)) for o in lines):
            continue
        out.append(line)
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
    "language languages".split()
)


def holds_many(line: str) -> bool:
    """Whether ``line``'s label gathers several values ("Hobby", "Likes")."""
    return (label_of(line) or "") in _MANY_VALUES


def with_value_of(old: str, new: str) -> str:
    """The saved line ``old`` with the value of ``new`` added: "Hobby: running; pottery"."""
    return f"{old.rstrip()}; {new.partition(':')[2].strip()}"


# where a clause ends: a plan's day belongs to the words of its own clause ("my partner Tom and I
# are adopting a greyhound next Saturday": the greyhound, not Tom)
_CLAUSE_BREAK = re.compile(r"[.!?;,\n]|\s(?:and|but|so|because)\s", re.IGNORECASE)


def _clause_bounds(text: str, mention: Mention) -> tuple[int, int]:
    left = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, mention.start)), default=0)
    right = next((m.start() for m in _CLAUSE_BREAK.finditer(text, mention.end)), len(text))
    return left, right


def _clause_of(text: str, mention: Mention) -> str:
    """The words of ``mention``'s clause, the phrase itself left out."""
    left, right = _clause_bounds(text, mention)
    return text[left : mention.start] + " " + text[mention.end : right]


def clause_with(text: str, mention: Mention) -> str:
    """The clause of ``text`` that says ``mention``, the phrase included."""
    left, right = _clause_bounds(text, mention)
    return text[left:right].strip()


def plans_in(said: str, when: datetime) -> list[Mention]:
    """The days of ``said`` that lie after ``when`` and are said as the future: plans, not
    events (``said_as_future``)."""
    today = day_of(when).isoformat()

    def ahead(mention: Mention) -> bool:
        value = re.search(r"\d{4}(?:-\d{2}(?:-\d{2})?)?", mention.value)
        return value is not None and value[0] > today[: len(value[0])]

    return [m for m in mentions(said, when) if ahead(m) and said_as_future(said, m)]


def undated_plans(lines: Sequence[str], said: str, when: datetime) -> list[Mention]:
    """The plans of ``said`` in a sentence about its writer that no line of ``lines`` holds:
    plans the notes left out ("I've got a job interview tomorrow" was answered with no line
    at all)."""
    found = [
        mention
        for mention in plans_in(said, when)
        if speaks_of_its_writer(next((s for s in sentences(said) if mention.phrase in s), ""))
        and not any(mention.value in ln for ln in lines)
    ]
    return list({m.value: m for m in found}.values())


def with_day(line: str, mention: Mention) -> str:
    """``line`` with the day of ``mention`` written in where it names it, else after it."""
    label, _, value = line.partition(":")
    if mention.value in line:
        return line
    bare = re.search(rf"\b{re.escape(mention.phrase.split()[-1])}\b(?!\s*\()", value, re.IGNORECASE)
    if bare:  # "Coming to stay: Sunday for a week": the day goes after the word said
        at = len(label) + 1 + bare.end()
        return f"{line[:at]} ({mention.value}){line[at:]}"
    return f"{line} ({mention.phrase[0].lower()}{mention.phrase[1:]}, {mention.value})"


def carry_days(lines: Sequence[str], said: str, when: datetime) -> list[str]:
    """``lines`` with the day of each plan in ``said`` written onto the one line taken from its
    clause, when that line lost it. A `make run` chat saved "Adopted dog: greyhound" for "my
    partner Tom and I are adopting a greyhound next Saturday": wrong until that Saturday, and
    the login could not mention it. Only days after ``when``, said as the future, count (a past
    event's day is no plan), and only when exactly one line shares a word with the clause (else
    the day may belong to any of them)."""
    out = list(lines)
    for mention in plans_in(said, when):
        if any(mention.value in ln for ln in out):
            continue
        clause = stems(_clause_of(said, mention))
        touching = [i for i, line in enumerate(out) if stems(line.partition(":")[2]) & clause]
        if len(touching) != 1:
            continue
        line = out[touching[0]]
        plan = plan_said(clause_with(said, mention), mention)
        if plan and not stems(line.partition(":")[2]) & stems(plan):  # the line names them, not the plan
            mark = ";" if re.search(r"[,;]", line.partition(":")[2]) else ","  # "Brother: Faxvais, visiting ..."
            out[touching[0]] = f"{line}{mark} {plan} ({mention.value})"
        else:
            out[touching[0]] = with_day(line, mention)
    return out


def plan_said(clause: str, mention: Mention) -> str | None:
    """What someone else's plan in ``clause`` is, said without them: "coming to stay next
    weekend" of "My brother Callum is coming to stay next weekend"; None when the clause names
    nobody at its start or says nothing but the day."""
    m = _PLAN_SUBJECT.search(clause)
    if m is None or clause[: m.start()].strip() or not m["relation"]:
        return None
    plan = clause[m.end() :].strip()
    return plan if plan and plan.lower() != mention.phrase.lower() else None


# whose plan a clause tells: "my mum Grace is having hip surgery" (Grace), "my sister is visiting"
# (sister); the user's own ("I'm flying") names nobody
_PLAN_SUBJECT = re.compile(  # the relation in any case, a name with its capital
    rf"\b(?i:my\s+(?P<relation>{RELATION_PATTERN}))(?:\s+(?P<named>[A-Z][a-z]+))?(?i:'s|\s+(?:is|are|was|has|will|'s))\b"
    r"|\b(?P<name>[A-Z][a-z]+)(?:'s|\s+(?:is|was|has|will))\s+(?:\w+ing|got|off|back|coming|going|due)\b"
    # a thing of someone's: "Sam's birthday is next Saturday" was saved as "Birthday: next Saturday"
    # and the next login asked the user "What's your birthday?" (a `make run` chat, stop 47)
    r"|\b(?P<owner>[A-Z][a-z]+)'s\s+[a-z]+(?:\s+[a-z]+)?\s+(?:is|are|was|will)\b"
)
# a name said with its relation between commas, just before the plan's clause: "Pestia, my brother,
# comes to stay on Saturday" (eval chat seed 14 saved "Guest: comes to stay on Saturday")
_APPOSITIVE = re.compile(rf"\b(?P<name>[A-Z][a-z]+),\s+(?i:my\s+(?:{RELATION_PATTERN})),\s*$")
_PERSON_LABEL = re.compile(rf"\b{RELATION_PATTERN}s?\b", re.IGNORECASE)


def plan_owner(clause: str) -> str | None:
    """Who a plan's clause is about when it is not the user: "Grace" for "My mum Grace is
    having hip surgery on Monday", "sister" for "my sister is visiting tomorrow"."""
    m = _PLAN_SUBJECT.search(clause)
    if m is None:
        return None
    if m["relation"]:
        return m["named"] or m["relation"].lower()
    name = m["name"] or m["owner"]
    return None if name.lower() in ("it", "that", "this", "there", "today", "tomorrow", "tonight") else name


def keep_owners(lines: Sequence[str], said: str, when: datetime) -> list[str]:
    """``lines`` with each plan of someone else's labelled with their name, when the line left
    them out. A `make run` chat saved "Hip surgery: on Monday (2026-12-07)" for "My mum Grace is
    having hip surgery on Monday", and the next login greeted "I see you're having hip surgery on
    Monday"; "Grace's hip surgery: on Monday (2026-12-07)" says whose it is."""
    out = list(lines)
    for mention in plans_in(said, when):
        before = said[: _clause_bounds(said, mention)[0]]
        named = _APPOSITIVE.search(before)
        owner = plan_owner(clause_with(said, mention)) or (named["name"] if named else None)
        if owner is None:
            continue
        for i, line in enumerate(out):
            label, _, value = line.partition(":")
            if mention.value not in line or owner.lower() in words(line):
                continue
            owner = f"{owner[0].upper()}{owner[1:]}"
            if _PERSON_LABEL.search(label):  # "Visitor: Rui, flying in", not "Rui's visitor"
                out[i] = f"{label}: {owner},{value}"
            else:
                out[i] = f"{owner}'s {label.strip()[0].lower()}{label.strip()[1:]}:{value}"
    return out


_UNITS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
_AGE = (
    rf"(?:\d{{1,3}}|(?:{'|'.join(_TENS.split())})(?:-(?:{'|'.join(_UNITS.split()[:9])}))?|{'|'.join(_UNITS.split())})"
)
# an age, not a part of a date ("2026-12-03")
_AGE_IN_VALUE = re.compile(rf"(?<![\w-]){_AGE}(?![\w-])", re.IGNORECASE)
_OWNER = rf"(?P<name>[A-Z][a-z]+)|(?i:my\s+(?P<relation>{RELATION_PATTERN}|{'|'.join(sorted(PETS))}))"
_TURNED = re.compile(
    rf"(?:{_OWNER})\s+(?:(?:has\s+)?just\s+)?(?:turned|is\s+now|is\s+(?=\S+\s+now\b))\s*(?P<age>{_AGE})\b",
)


def new_ages(saved: Sequence[str], said: str) -> list[str]:
    """Saved lines that hold someone's age, with the age the user says they have now: "Karim
    turned eight last week" makes "Son: Karim, seven" "Son: Karim, eight". The notes pass wrote
    "Karim's birthday: last week" and left the age, and the next login greeted with "your son
    Karim is seven" (a `make run` chat, stop 44). A birthday to come ("turns eight on Sunday")
    changes nothing yet."""
    out = []
    for match in _TURNED.finditer(said):
        age = match["age"]
        for line in saved:
            label, _, value = line.partition(":")
            named = match["name"] and re.search(rf"\b{match['name']}\b", value)
            related = match["relation"] and match["relation"].lower() in words(label)
            old = _AGE_IN_VALUE.search(value)
            if (named or related) and old and old[0].lower() != age.lower():
                out.append(f"{label}:{value[: old.start()]}{age}{value[old.end() :]}")
                break
    return out


def parse_notes(text: str) -> list[str]:
    """The lines of a notes completion (``{"facts": [...]}``); [] for anything else."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return []
    items = data.get("facts") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    return [normalize_space(item) for item in items if isinstance(item, str) and label_of(item)]


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


_ISO_PART = re.compile(r"\b\d{4}(?:-\d{2}(?:-\d{2})?)?\b")


def dated_ahead(line: str, today: date) -> bool:
    """Whether ``line`` holds a day (or month, or year) after ``today``: a plan."""
    now = today.isoformat()
    return any(found > now[: len(found)] for found in _ISO_PART.findall(line.partition(":")[2]))


# words that say a fact ended: a plan beside it replaces it ("I left the practice, I start at the hospital on Monday")
_ENDED = re.compile(
    r"\b(?:quit|left|resign\w*|handed\s+in\s+my\s+notice|retired|finished|no\s+longer|sold)\b", re.IGNORECASE
)


def _singular(word: str) -> str:
    """``word`` without a plural ending: "buses" is "bus", "shops" is "shop"; "bus" stays."""
    if len(word) > 4 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith(("ss", "us", "is")) else word


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


def merge(value: str, lines: Sequence[str], limit: int, said: str, today: date | None = None) -> tuple[str, Notes]:
    """``value`` (a block's text) with ``lines`` (read from the user's words ``said``) written
    in: a line whose label the block holds replaces it when ``replaces`` allows, one it already
    holds changes nothing, the rest are appended; oldest lines leave when the result would
    exceed ``limit``. A plan (a line dated after ``today``) joins an undated saved line rather
    than replacing it: it has not happened yet. "I start at a new school in January" made
    "Work: teaches chemistry at a secondary school in Norwich" into "Work: new school in
    January (2027-01)" (a `make run` chat, stop 47), and the job was gone."""
    notes = Notes()
    current = block_lines(value)
    for line in lines:
        label = label_of(line)
        same = next((i for i, old in enumerate(current) if label_of(old) == label), None)
        if any(normalize_space(old).lower() == line.lower() for old in current):
            continue
        one = individual(line)
        if same is not None and one is not None and individual(current[same]) not in (None, one):
            # "Dog: Tinto" does not make "Dog: Rex" go: a second one, or the line that files it
            same = next((i for i, old in enumerate(current) if label_of(old) == label and individual(old) == one), None)
        if same is not None and one is not None and individual(current[same]) == one:
            if value_stems(line) <= value_stems(current[same]):
                continue
            aged = all(_AGE_IN_VALUE.search(ln.partition(":")[2]) for ln in (current[same], line))
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
        if same is not None and value_stems(line) <= value_stems(current[same]):
            continue  # a part of the saved line, said again
        if same is None and any(said_twice(line, old) for old in current):
            continue
        if same is None:
            current.append(line)
            notes.added.append(line)
        else:
            # a line this pass wrote is not replaced by its next: "Wife: Sara, got a new job at the
            # council" then "Wife: starts Monday", for "... she starts Monday"
            fresh = current[same] in notes.added or current[same] in (new for _, new in notes.replaced)
            if fresh:  # unless it says all that one did and more
                changes = value_stems(current[same]) <= value_stems(line)
            else:
                changes = replaces(current[same], line, said)
            # a plan joins the line it will change; "I've taken up pottery" joins "Hobby: running"
            # (eval chat seed 22)
            if _plan_beside(current[same], line, today, said) or (not changes and (holds_many(line) or fresh)):
                gathered = with_value_of(current[same], line)
                if current[same] in notes.added:  # said as one new line
                    notes.added[notes.added.index(current[same])] = gathered
                else:
                    notes.replaced.append((current[same], gathered))
                current[same] = gathered
            elif changes:
                if current[same] in notes.added:
                    notes.added[notes.added.index(current[same])] = line
                else:
                    notes.replaced.append((current[same], line))
                current[same] = line
            else:
                notes.kept.append((current[same], line))
    kept_new = set(notes.added) | {new for _, new in notes.replaced}
    while len("\n".join(current)) > limit and any(ln not in kept_new for ln in current):
        oldest = next(ln for ln in current if ln not in kept_new)
        current.remove(oldest)
        notes.moved.append(oldest)
    return "\n".join(current), notes


class FactNoter:
    """Writes the facts of a user's message into the human block; see the module docstring."""

    def __init__(self, store: Store, backend: Backend, agent_id: int, settings: FactNoteSettings):
        self.store = store
        self.backend = backend
        self.agent_id = agent_id
        self.settings = settings
        self.grammar = build_notes_grammar("facts", max_items=settings.max_facts)
        self.plan_grammar = build_notes_grammar("facts", max_items=1, value_max_chars=80)
        self.work_grammar = build_notes_grammar("facts", max_items=1, value_max_chars=120)

    def side_backend(self) -> Backend:
        """Where the notes pass runs: a second context on the same model when the backend can
        open one, so the conversation's KV cache stays as the turn left it and the notes
        prompt's instructions and examples stay cached across turns."""
        if isinstance(self.backend, SideContexts):
            return self.backend.side_context(NOTES_N_CTX)
        return self.backend

    def note(self, message: str, when: datetime | None = None, answering: str = "") -> Notes:
        """Read ``message`` (the user's) for facts and write the grounded ones; stores a
        ``memory update`` event (at ``when``, default the clock) when anything changed.
        ``answering`` is the assistant's message the user answered, if any."""
        if not states_something_personal(message):
            return Notes()
        # its questions state nothing, nor do its bare requests ("Give me a list of ...")
        said = " ".join(s for s in sentences(statements(message)) if not is_bare_request(s))
        block = self.store.core.get(self.agent_id, BLOCK)
        side = self.side_backend()
        saved = block_lines(block.value)
        prompt = notes_prompt(saved, said)
        while side.count_tokens(prompt) + NOTES_MAX_TOKENS > side.n_ctx and saved:
            saved = saved[1:]  # a very full block: the newest lines are listed
            prompt = notes_prompt(saved, said)
        if side.count_tokens(prompt) + NOTES_MAX_TOKENS > side.n_ctx:
            return Notes()
        found = parse_notes(side.complete(prompt, grammar=self.grammar, max_tokens=NOTES_MAX_TOKENS).text)
        lines = [line for line in found if worth_saving(line, said)]
        saved_lower = {old.lower() for old in saved}
        copied = [line for line in found if line.lower() in saved_lower]
        if found and saved and not merge(block.value, lines, block.limit, said)[1].changed:
            # only the saved lines, written out again: asked once more without them in view
            found = parse_notes(
                side.complete(notes_prompt([], said), grammar=self.grammar, max_tokens=NOTES_MAX_TOKENS).text
            )
            lines = [line for line in found if worth_saving(line, said)]
        elif len(copied) >= COPIED_BEFORE_ASKING_AGAIN:
            # its items spent on saved lines: "I've taken up bouldering on Tuesdays. Also my sister
            # Meera is coming to stay ..." got three saved lines and the sister, never the hobby (a
            # `make run` chat, stop 45); asked again without them, only new labels are taken
            labels = {label_of(line) for line in [*saved, *lines]}
            more = parse_notes(
                side.complete(notes_prompt([], said), grammar=self.grammar, max_tokens=NOTES_MAX_TOKENS).text
            )
            found += [line for line in more if label_of(line) not in labels]
            lines += [line for line in more if label_of(line) not in labels and worth_saving(line, said)]
        lines = [
            line for line in lines if not takes_up_suggestion(line, said, answering) and not only_urged(line, said)
        ]
        lines = people_not_animals(owned_animals(lines, said), saved, said)
        dropped = [line for line in found if line not in lines]
        day = when or datetime.now(timezone.utc)
        dated = carry_days([annotate(as_note(plain_label(line)), day, context=said) for line in lines], said, day)
        for mention in undated_plans(dated, said, day)[:PLANS_PER_MESSAGE]:
            # the plan's own clause: given the whole message "...and my daughter Layla has her first
            # ballet recital tomorrow evening. I'm more nervous than she is!", the model wrote
            # the message out again as one line, in the third person
            asked = parse_notes(
                side.complete(
                    plan_prompt(clause_with(said, mention), mention.phrase), grammar=self.plan_grammar, max_tokens=40
                ).text
            )
            planned = [ln for ln in asked if worth_saving(ln, said)]
            dated += [with_day(annotate(as_note(plain_label(ln)), day, context=said), mention) for ln in planned]
            dropped += [ln for ln in asked if ln not in planned]
        if saved and changes_work(said):
            # a job change the notes pass wrote as "Practice: left" and "University veterinary
            # hospital: Porto on Monday" (a `make run` chat, stop 48), the old job kept; its own
            # work line, where it wrote one, lost the job ("Work: Porto veterinary hospital")
            jobs = [line for line in saved if work_line(line)]
            asked = parse_notes(
                side.complete(
                    work_prompt(jobs, said[:MESSAGE_MAX_CHARS]), grammar=self.work_grammar, max_tokens=WORK_MAX_TOKENS
                ).text
            )
            kept_job = " ".join([said, *(line.partition(":")[2] for line in jobs)])  # the job it may keep
            now = [
                annotate(as_note(ln), day, context=said) for ln in asked if work_line(ln) and worth_saving(ln, kept_job)
            ]
            scraps = [
                ln for ln in dated if now and (work_line(ln) or when_label(ln) or any(within(ln, w) for w in now))
            ]
            dropped += scraps
            dated = [ln for ln in dated if ln not in scraps] + now
        written = without_bare_days(said_relations(keep_owners(dated, said, day), said))
        unheard = [line for line in written if unheard_kin(line, said, saved)]
        dropped += unheard
        written = [moved_home(childhood_home(line, said)) for line in written if line not in unheard]
        written = kept_relations(written, saved, said)
        misfiled = [
            line
            for line in written
            if files_a_saved_person(line, [*saved, *written]) or news_of_a_saved_one(line, saved, said)
        ]
        dropped += misfiled
        written = under_their_relation([line for line in written if line not in misfiled], saved)
        filed = [refiled(line, [*saved, *written], said) for line in written]
        dropped += [line for line, kept in zip(written, filed) if kept is None]
        written = [line for line in filed if line is not None]
        user = user_name(saved, said)
        written = [the_users_own(line, said) for line in someone_elses(written, said, user)]
        written = told_of_in_a_clause(written, said, user)
        written = named_people(written, saved, said)
        written += [line for line in new_ages(saved, said) if label_of(line) not in map(label_of, written)]
        value, notes = merge(block.value, written, block.limit, said, day_of(day))
        notes.dropped = dropped
        if not notes.changed:
            return notes
        with self.store.transaction():
            self.store.core.set_value(self.agent_id, BLOCK, value)
            for line in notes.moved:
                self.store.archival.insert(self.agent_id, f"Moved from core memory ({BLOCK}): {line}")
            self.store.recall.append(self.agent_id, [events.memory_update(BLOCK, notes.lines(), when)])
        return notes
