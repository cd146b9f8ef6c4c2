"""Nothing found: a question about the user that nothing in memory speaks of is answered "I
don't know": checked before the first step by a search of both memories for the question's
subject, and again after each search the model runs.

A search always returns something: the nearest messages by meaning, when no message holds the
query's words. A 1.5B model then answers from what it read. Asked "What car do I drive?"
(never said), it searched "car", read two of the user's old questions, searched "pet's name"
next and answered "Your pet's name is Stouwia, she's the boss of the house." (eval chat seed
14); asked "Which university did I study at?", it searched "university" twice, read five
messages none of which says "university", and sent "The university I studied at is
Stobathitonton." (the user's old home town, seed 14 wording 1); on seed 15 a search for "car"
was followed by "Do you want to continue with the conversation ...?". Each of those turns
took 20-90 s of searching for nothing. And asked "Which university did I go to?", the model
answered "You went to Vendnuobury University in Rainpretreenton." in its first step, without a
search (bench_honesty seed 33; eval chat seed 16 wording 1 the same way): so the policy
searches first, as the model would, and a question nothing speaks of is answered at once.

The turn's question must be one question about the user (``my``, ``I``) whose subject words
("car", ``search_uncovered.topic``) neither core memory nor the conversation in view holds
(before this turn's own results), nor any core line the question asks about by its label's
words (``core_at_question``) or that a search showed for its query. After a search none of
whose hits, the user's messages or saved passages, holds a subject word or names an animal or a
place the question asks about by its topic ("pet" finds "ferret", ``text.label_topics``), the
next step must reply, and its reply begins "I don't know" and is one sentence, with no comma,
no "but", and no "I" or "my" after its start. The assistant's own replies found do not count:
an invented answer found again is no evidence. A question of two parts, one asked at login,
one about the conversation ("What did we talk about?") and a date search are left alone, and
words of when ("last week") are no subject words.

A question about one of the user's people or animals that a core line names is checked for
the detail it asks ("How old is my brother?" under "Brother: Magoette": "old"), as long as
that detail is a word a line would say (not a kind of thing, "job", nor a verb, "visiting") or
an amount (a number that is no day or time answers it). What the search before the first
step finds is ``evidence``, which ``recall_at_question`` quotes.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memgpt_local import events
from memgpt_local.agent.fact_owners import leading_name
from memgpt_local.agent.policy.all_questions import asked_questions
from memgpt_local.agent.policy.answer_start import label_of
from memgpt_local.agent.policy.base import MemoryView, Policy, StepPlan
from memgpt_local.agent.policy.core_at_question import lines_asked_about
from memgpt_local.agent.policy.greet_by_name import human_lines, known_name
from memgpt_local.agent.policy.grounded_reply import asks_about_the_user, names_and_numbers
from memgpt_local.agent.policy.owner_guard import owned_by_another
from memgpt_local.agent.policy.search_uncovered import topic
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.memory.dates import MONTHS, WEEKDAYS
from memgpt_local.schemas import NewMessage, SearchHit
from memgpt_local.text import (
    BARE_LABEL_STEMS,
    FIRST_PERSON,
    LABEL_TOPICS,
    LOWER,
    PETS,
    RELATIONS,
    SENTENCE_OPENERS,
    TWO_WORD_KIN,
    UPPER,
    WHEN_WORDS,
    asks_about_the_user_at_all,
    kinds_named,
    label_topics,
    lines_about,
    named_as_known,
    names_the_relative,
    normalize_space,
    questions,
    said_otherwise,
    sentences,
    statements,
    stem,
    stems,
    their_lines,
    topic_words,
    words,
)

REASON = "memory holds nothing about the question"
# a statement only: told "ask the user to tell you if they like", the model went on "..., but I
# can ask you if you like her." (bench_honesty seed 42)
SEARCHED_NOTICE = "For you, not the user: your memory was searched for the user's question and holds nothing about it."
START = "I don't know"
# "I don't know your blood type." and no more: of the second sentences bench_honesty's denials wrote at
# stop 40, twice as many were noise as useful ("Do you like any?", "I'll need to search for it later.",
# "You can ask me about it later." against "Can you tell me?")
SENTENCES = 1
# "You haven't told me about Finn yet." and no more: let a second sentence of its own, the model
# went on "I know Finn is a dog breed." (a `make run` chat's question, replayed at stop 64)
UNHEARD_SENTENCES = 1
# nor may it go on after a comma: the clause after one was noise in every denial read at stops 40-41
# ("..., but I can look it up in my memory.", "..., but I can tell you that Prelvoa is your
# brother's name.", "..., but I can ask you if you like her."); nor say "I" or "my" after its start:
# they are the user's, copied from the question ("I don't know the university I went to.", "I
# don't know the school my sister went to.", bench_honesty seeds 46 and 43)
UNSAID = (",", "but", "I", "my", "My")
# what was said is not a word of what was said: "What did we talk about?" is answered by
# messages that never say "talk"
_CONVERSATION = frozenset(
    stem(w) for w in "talk talked discuss discussed chat chatted conversation speak spoke".split()
)


_A_WHILE_AGO = frozenset("while ago recently lately earlier before".split())
# the particle of "coming over", "popping round": no message says it of a visit
# and of "heading off", "going away" ("When is Cian heading off to Canada?" was denied beside "Brother:
# Cian, moving to Toronto in February (2027-02)": a `make run` chat, stop 60)
_PARTICLES = frozenset("over round around off away out".split())
# and the words that only place a when: "what do I do during the week?" was searched for "during",
# found nothing and denied beside "I ... drive a delivery van the rest of the week" (a `make run` chat, stop 64)
_WHEN_PLACING = frozenset("during throughout".split())
_NOT_SUBJECT = frozenset(stem(w) for w in WHEN_WORDS | SENTENCE_OPENERS | _A_WHILE_AGO | _PARTICLES | _WHEN_PLACING)


def _read_in(question: str) -> set[str]:
    """The stems ``text.topic_words`` reads into ``question``'s idioms that it does not say ("visit"
    for "coming over", "home" for "where ... from")."""
    return {stem(w) for w in words(topic_words(question))} - {stem(w) for w in words(question)}


_HOME_READ_IN = frozenset({stem("home"), stem("hometown")})


def subject_of(question: str, as_meant: bool = False) -> set[str]:
    """The stems a question about the user asks about, less the words of when ("last Tuesday":
    a date search finds messages that never say it), of greeting ("hello there, what ...") and
    "favourite" (bench_honesty seed 34: "Favourite food: gnocchi" in core memory kept "What's
    my favourite football team?" from being answered "I don't know");
    empty for one about the conversation. Its idioms are read both ways ("see live" is a gig,
    and a message says "live"), or with ``as_meant`` only as meant: "lives in Leeds" in view
    says nothing of a gig."""
    if asks_about_the_user_at_all(question):
        return set()
    said = topic(topic_words(question)) | (set() if as_meant else topic(question))
    # "where am I from?" is read as a home for core memory's lines; a message found says "from Glasgow"
    said -= _read_in(question) & _HOME_READ_IN
    subject = said - _NOT_SUBJECT - BARE_LABEL_STEMS
    return set() if subject & _CONVERSATION else subject


def in_view_before(
    turn: Turn, memory: MemoryView, roles: tuple[str, ...] = ("user", "system", "function")
) -> list[str]:
    """The ``human`` block's lines and the conversation in view from before the turn's question,
    of ``roles`` (the assistant's replies aside): this turn's own search results are judged as
    hits. The persona's lines say nothing of the user: "in my own words" kept "What kind of car
    do I own?" from an "I don't know", and the model answered "You own a baker's car."
    (bench_honesty seed 37). Of the user's messages, only what they state counts."""
    seen = [line for label, line in memory.core_lines() if label == "human"]
    first = turn.event_id
    earlier = [m for m in memory.in_context() if m.role in roles and (first is None or m.id < first)]
    # what the user asked says nothing: asked "Which school did my brother go to?" a turn before,
    # "Which school did Gorkkloick go to?" found "school" in view, and was answered with a made-up
    # school (bench_honesty seed 50, stop 43)
    return seen + [statements(m.content) if m.role == "user" else _not_the_assistants(m.content) for m in earlier]


def _not_the_assistants(text: str) -> str:
    """A notice or a function result less the assistant's own words in it: a held draft quoted
    ("Not sent: ... 'Your sister Meera works as a nurse ...'") and its replies a search found
    ("you said:"). Quoted back in view, a made-up job kept "What does Meera do for a living?" from
    an "I don't know", and it was made up again (a `make run` chat, stop 45)."""
    if "\nNot sent:" in text:
        return ""
    return "\n".join(line for line in text.splitlines() if " you said:" not in line)


def core_lines_found(step: StepRecord, memory: MemoryView) -> list[str]:
    """The core lines a search's first page showed for its query ("beehives" finds "Home:
    Leeds, three beehives on the roof", asked "how many hives do I have?")."""
    query = step.call.arguments.get("query") if step.call is not None else None
    return lines_about(query, memory.core_lines()) if isinstance(query, str) and query.strip() else []


def speaks_of(hit: SearchHit, subject: set[str], asked: set[str]) -> bool:
    """Whether ``hit`` (not the assistant's own) holds a ``subject`` stem, or a word people ask
    about with one of the ``asked`` words ("ferret" for "pet")."""
    if hit.role == "assistant":
        return False
    text = statements(hit.text) if hit.role == "user" else hit.text  # a question found says nothing
    kin = any(names_the_relative(text, word) for word in asked & TWO_WORD_KIN.keys())
    return bool(subject & _said_stems(text) or asked & label_topics(text) or kin)


SEARCHED_HITS = 5  # hits of each memory that the check before the first step reads


def subject_query(question: str, subject: set[str]) -> str:
    """The question's words whose stems are its subject ("car drive"), for a search."""
    said = words(question) + words(topic_words(question))
    # and the relatives a niece is said by ("sister brother"), for the search's text leg
    kin = [w for k in said if k in TWO_WORD_KIN for w in sorted(TWO_WORD_KIN[k][0]) if not w.endswith("s")]
    subject_words = [w for w in said if stem(w) in subject and len(w) > 2]
    # and the words a message says it in that ``speaks_of`` reads as it: "role wedding" found none of
    # "my little sister Anjali is getting married in June and I'm the maid of honour" by its words
    # (a `make run` chat, stop 62)
    otherwise = [other for w in subject_words for other in said_otherwise(w)]
    return " ".join(dict.fromkeys([*subject_words, *kin, *otherwise]))


# a question of how much is answered by a number, which never says "old": "Brother: Tom (34)"
_QUANTITY = re.compile(r"\bhow (?:old|many|much|long|tall|far|often)\b|\bwhat age\b", re.I)
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|hundred|dozen)\b",
    re.I,
)
_MONTH = "|".join(MONTHS)
# a day or a time is no amount: "Sister: Ana, visiting on 2025-05-10" says nothing of her age
_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}:\d{{2}}\b|\b(?:19|20)\d{{2}}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?(?: of)? (?:{_MONTH})\b|\b(?:{_MONTH}) \d{{1,2}}(?:st|nd|rd|th)?\b",
    re.I,
)


def says_a_number(text: str) -> bool:
    """Whether ``text`` gives an amount: a number that is not part of a day or a time."""
    return bool(_NUMBER.search(_DATE.sub(" ", text)))


_AGE_ASKED = re.compile(r"\bhow old\b|\bwhat age\b|\bage\b", re.I)
# the user's age, told: "I'm 41", "I turned forty last spring", "I was born in 1985"
_OWN_AGE = re.compile(
    r"\b(?:i'm|i\s+am|i\s+turned|i\s+turn|i'll\s+be|i\s+will\s+be|i\s+was\s+born(?:\s+in)?)\s+"
    rf"(?:(?:nearly|almost|just|about|over|under|now)\s+)?(?:{_NUMBER.pattern})",
    re.I,
)
# a stay or a wait is no age: "Mum's stay: three weeks" answered "How old is my mum?" (a `make run` chat, stop 59)
_SPAN = re.compile(rf"(?:{_NUMBER.pattern})\w*\s+(?:hours?|days?|nights?|weeks?|months?)\b(?!\s+old)", re.I)


def amounts_of_the_kind(text: str, question: str) -> str:
    """``text`` less its spans of time when ``question`` asks an age."""
    return _SPAN.sub(" ", text) if _AGE_ASKED.search(question) else text


_QUANTITY_STEMS = frozenset(stem(w) for w in "old age many much long tall far often".split())
# words that ask for a kind of thing, answered by a value that never says them: "What's my
# brother's job?" by "Brother: Tom, a nurse", "Where does my sister live?" by "Sister: Ana, in
# Leeds", "What breed is my dog?" by "Pet: Rex, a golden retriever"
_KIND_WORDS = frozenset(
    stem(w)
    for w in " ".join([*LABEL_TOPICS, *LABEL_TOPICS.values()]).split()
    + "breed type sort brand make model colour color name surname called".split()
)
_NAMING = frozenset(stem(w) for w in "name surname called".split())
_SURNAME = frozenset({stem("surname")})
_FULL_NAME = re.compile(rf"\b[{UPPER}][{LOWER}]+\s+[{UPPER}][{LOWER}'-]+")
_WHO_WORDS = RELATIONS | PETS | {"pet", "a", "an", "the", "my", "our", "and"}


_NAME_ASKED = re.compile(r"\b(?:name|called)\b", re.I)
# a name told of "her" or "him": "Her name is Abena." names no one else
_NAME_GIVEN = re.compile(r"\b(?:her|his|their)\s+name(?:'s|\s+is|\s+was)\b|\b(?:she|he)(?:'s|\s+is)\s+called\b", re.I)


def _gives_a_name(line: str) -> bool:
    """Whether a core ``line`` (quoted "[human] ...") names whom it is about: a label of a name
    ("Mum's name: Abena") or a line of theirs whose value opens with one ("Wife: Efua, a pharmacist")."""
    label, _, value = line.split("] ", 1)[-1].partition(":")
    labelled = set(words(label))
    # a line of the person, not of their things: "Mother's flight: Accra next Friday" names a place
    # (a `make run` chat, stop 59)
    of_them = bool(labelled) and labelled <= RELATIONS | PETS | {"pet"}
    return bool(labelled & {"name", "called"}) or (of_them and leading_name(value) is not None)


def lines_of(lines: list[str], owners: set[str]) -> list[str]:
    """The core ``lines`` (quoted "[human] ...") that name one of ``owners`` (stems) in their
    label or value, and the lines under the name one of those gives ("Zosia's hobby: ..." for
    "Daughter: Zosia", asked of "my daughter": a `make run` chat, stop 49)."""
    direct = [line for line in lines if stems(line.split("] ", 1)[-1]) & owners]
    quoted = [(ln[1:].partition("] ")[0], ln.partition("] ")[2]) for ln in lines if ln.startswith("[")]
    return [*direct, *their_lines(direct, quoted)]


def says_only_who(lines: list[str]) -> bool:
    """Whether the core ``lines`` say only who someone is: a name and what they are ("Pet:
    Laquaiette, a cat", "Brother: Tom"). Such a line answers no question of a kind: "What breed
    is Laquaiette?" was answered "Your pet Laquaiette is a cat." (bench_honesty seeds 52-54)."""
    return bool(lines) and all(_says_who(clause) for clause in _clauses(lines))


# the parts of a line's value: "Callum, lives in Aberdeen (coming to stay next weekend)"
_CLAUSE_BREAK = re.compile(r"[,;()]|\band\b|\s-\s")
# a clause that says where one lives answers where, and nothing of a kind: "lives in Aberdeen"
_PLACE = re.compile(r"^(?:lives?|living|based|moved|moving|from|in)\b", re.I)
# a clause that says when one comes: "coming to stay next weekend", "visiting on 2025-05-10"
_WHEN = re.compile(
    r"\b(?:visit\w*|com(?:e|es|ing)|stay\w*|arriv\w*|next|this|tomorrow|tonight|weekend|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)\b",
    re.I,
)
_HOME_STEMS = frozenset(stem(w) for w in LABEL_TOPICS["home"].split())


def _clauses(lines: list[str]) -> list[str]:
    values = [line.split("] ", 1)[-1].partition(":")[2] for line in lines]
    return [c.strip() for value in values for c in _CLAUSE_BREAK.split(value) if c.strip()]


def _says_who(clause: str) -> bool:
    return not any(w[0].islower() and w not in _WHO_WORDS for w in re.findall(rf"[{UPPER}{LOWER}']+", clause))


_WHOSE_LABEL = re.compile(rf"^(?P<owner>[{UPPER}][\w-]*)['’]s\s+(?P<what>\S.*)$")


def kinds_said(lines: list[str], owners: frozenset[str] | set[str] = frozenset()) -> frozenset[str]:
    """The words of a kind (``_KIND_WORDS``) that the core ``lines`` about one person or animal
    may answer in other words. A clause that says who they are, where they live, when they come
    or how old they are answers no other kind: "Brother: Callum, lives in Aberdeen (coming to
    stay next weekend)" says nothing of his work, and "What does Callum do for work?" was
    answered with a made-up job twice (a `make run` chat, stop 44); any other clause ("a nurse",
    "teaches maths") may answer any kind. A line labelled with what is theirs ("Leila's
    manchester trip: off") answers that, one of their relative's ("Leila's dad has: the flu") or
    one that names them only inside the user's own fact (a plan "driving over to Leila's
    parents") nothing of them: "What does Leila do for work?" under those and "Wife: Leila" was
    answered with the user's own job (a `make run` chat, stop 57). ``owners`` are the stems of
    the one asked of."""
    said = set[str]()
    for line in lines:
        label = label_of(line)
        whose = _WHOSE_LABEL.match(label)
        if whose is not None or (owners and not stems(label) & owners):
            what = whose["what"] if whose is not None else label
            if whose is not None and words(what) and words(what)[0] in RELATIONS:
                continue
            said |= stems(what) | {stem(w) for w in label_topics(what)}
            continue
        for clause in _clauses([line]):
            if _PLACE.match(clause):
                said |= _HOME_STEMS
            elif not (_says_who(clause) or _WHEN.search(clause) or _DATE.search(clause) or says_a_number(clause)):
                return _KIND_WORDS
    return frozenset(said)


# words said of any question, never the detail asked: "What's my brother called these days?"
# words of asking that say no detail: "What's Rui working on at the moment?" under "Husband: Rui
# (working on a film soundtrack)" was answered "I don't know" for want of "moment" (a `make run`
# chat, stop 48)
_FILLER = frozenset(
    stem(w) for w in "days nowadays now currently actually really exactly just again moment present into".split()
)
# the people and animals a detail is asked of: "How old is my brother?", "What breed is my dog?"
_OWNERS_WORDS = frozenset(RELATIONS | PETS | {"pet"})
_OWNERS = frozenset(stem(w) for w in _OWNERS_WORDS)


def _covered(lines: list[str]) -> set[str]:
    """The stems core ``lines`` (quoted "[human] ...") may answer a question with: their words,
    and the words people ask about their labels and their words with ("operation" for "hip
    replaced": "When is my dad's operation?" was denied under "Father: Dad, has hip replaced on the
    3rd of february", a `make run` chat, stop 63)."""
    said = " ".join(line.split("] ", 1)[-1] for line in lines)
    labels = {stem(w) for line in lines for w in label_topics(label_of(line))}
    return _said_stems(said) | stems(topic_words(said)) | labels | {stem(w) for w in label_topics(said)}


def _said_stems(text: str) -> set[str]:
    """The stems of ``text`` and of what it names a kind of ("diet" for "vegan")."""
    return stems(text) | {stem(w) for w in kinds_named(text)}


def owners_asked_of(question: str) -> set[str]:
    """The stems of the people or animals ``question`` asks about: its words of kin or pets and
    the names it says ("brother", "callum")."""
    return topic(topic_words(question)) & _OWNERS | names_said(question)


# a month or a day is when, not whom: "where are me and Dev going in April?" asked of "April" too, and
# was denied beside "Travel: going to Seville in April (2027-04) ..." (a `make run` chat, stop 62)
_WHEN_NAMES = frozenset(day.lower() for day in (*MONTHS, *WEEKDAYS))


def names_said(question: str) -> set[str]:
    """The stems of the names ``question`` says past a sentence's first word ("callum", "canada"),
    not those of months or days."""
    return {stem(w.lower()) for w in names_and_numbers(question) if not w.isdigit() and w.lower() not in _WHEN_NAMES}


_THIRD_PERSON = re.compile(r"\b(?:he|she|his|her|him|they|their|them)\b", re.I)


def said_of(text: str, owners: set[str]) -> bool:
    """Whether ``text`` may speak of one of ``owners`` (stems): it names them, or says "he",
    "she", "they" and names nobody else. "I work at the Royal Infirmary" says nothing of a
    brother's work, and "My partner Sam is a nurse, he works nights" nothing of a sister's (a
    `make run` chat, stop 45: "What does Meera do for work?" was answered with Sam's job)."""
    if stems(text) & owners:
        return True
    others = {stem(w) for w in words(text) if w.lower() in _OWNERS_WORDS} | {
        stem(w.lower()) for w in names_and_numbers(text) if not w.isdigit()
    }
    return bool(_THIRD_PERSON.search(text)) and not others


def detail_left(question: str, lines: list[str]) -> set[str]:
    """The stems of what ``question`` asks about one of the user's people or things that the
    core ``lines`` it asks about do not say: "How old is my brother?" under "Brother: Tom,
    visiting next week" leaves "old"; "Which school did my brother go to?" leaves "school".
    Only for a question about one of the user's people or animals that a line speaks of; words
    of a kind ("job", "breed") and verbs ("visiting", "coming": "comes to stay" says when) are
    never left, as a line may answer them in other words, unless the lines about the one asked
    of say only who they are (``says_only_who``: "Pet: Laquaiette, a cat" says no breed, and
    the user's own "Work: baker" no brother's job); a question of how much is answered by a
    number in a line."""
    asked = topic(topic_words(question)) - _NOT_SUBJECT
    said = " ".join(line.split("] ", 1)[-1] for line in lines)
    covered = _covered(lines)
    if not asked & covered & _OWNERS:  # no line about the person or animal asked of
        return set()
    verbs = {stem(w) for w in words(topic_words(question)) if w.endswith(("ing", "ed"))} - _KIND_WORDS  # not "breed"
    kinds = _KIND_WORDS
    theirs = lines_of(lines, owners_asked_of(question))
    if theirs:  # the user's own "Work: ..." says nothing of their brother's job
        kinds, covered = _NAMING | kinds_said(theirs, owners_asked_of(question)), _covered(theirs)
        if not any(_FULL_NAME.search(line.split("] ", 1)[-1].partition(":")[2]) for line in theirs):
            # a first name is no surname: "What's Sam's surname?" under "Partner: Sam" was answered
            # "Sam's surname is Sam." (a `make run` chat, stop 55)
            kinds -= _SURNAME
    left = asked - covered - BARE_LABEL_STEMS - kinds - _FILLER - verbs
    if theirs and _NAME_ASKED.search(question) and not any(_gives_a_name(line) for line in theirs):
        # "Mum: flying in from Accra next Friday" gives no name: "What's my mum's name?" was
        # answered "Your mum's name is Efua.", the wife's (a `make run` chat, stop 59)
        left |= _NAMING & {stem("name")}
    if theirs and _asks_when(question) and any(_DATED.search(line) for line in theirs):
        # the day is what is asked, and a line of theirs gives one; where they go it may say in its
        # own words: "When is Cian heading off to Canada?" under "Brother: Cian, moving to Toronto in
        # February (2027-02)" was denied (a `make run` chat, stop 60)
        left -= names_said(question)
        # nor is the word an idiom is read as ("coming over" as "visit"): "when is my mum coming over
        # again?" under "Mum: flying over from Kumasi for graduation in July (2027-07)" was denied (a
        # `make run` chat, stop 61)
        left -= _read_in(question)
        # and the verb after "does my brother": "So when does my brother leave for Canada?" asks that day
        # (where or what they "work", "live" or "teach" is what a line must say)
        asked_from = _ASKED_FROM.search(question)
        if asked_from and (does := _DOES.match(asked_from[0])):
            left -= {stem(does["verb"])}
    # an amount in a line of theirs, not of anyone's: "How old is Declan?" under "Partner: Declan,
    # builds boats" was answered "Your partner Declan is a vet nurse in Galway" beside "Cat: Pickle,
    # about nine years old" (a `make run` chat, stop 60)
    amounts = " ".join(line.split("] ", 1)[-1] for line in theirs) if theirs else said
    if _QUANTITY.search(question) and says_a_number(amounts_of_the_kind(amounts, question)):
        left -= _QUANTITY_STEMS
    return left


_WHEN_ASKED = re.compile(r"^\W*(?:(?:so|and|hey|remind me|tell me),?\s+)*when\b", re.IGNORECASE)


def _asks_when(question: str) -> bool:
    """Whether a question sentence of ``question`` asks when ("Hi! When is Cian off again?")."""
    return any(_WHEN_ASKED.match(s) for s in sentences(questions(question)))


# a day as a saved line keeps it: "(2027-02)", "(2026-12-05)"
_DATED = re.compile(r"\b\d{4}-\d{2}\b")


def _amount_of(text: str, asked: set[str]) -> bool:
    """Whether ``text`` gives a number (not a day or a time) nearer to a word of ``asked`` (the
    person or animal asked of) than to any other's: "My sister Ola lives in Gdansk and my dog
    Burek is nine." gives the dog's age, not the sister's (`make run`: "Your sister Ola is nine
    years old.")."""
    tokens = words(_DATE.sub(" ", text))
    owners = [(i, stem(w) in asked) for i, w in enumerate(tokens) if stem(w) in asked or stem(w) in _OWNERS]
    numbers = [i for i, w in enumerate(tokens) if _NUMBER.fullmatch(w) or any(ch.isdigit() for ch in w)]
    return bool(owners) and any(min(owners, key=lambda owner: abs(owner[0] - i))[1] for i in numbers)


def holds_detail(text: str, left: set[str], question: str, amounts: bool = True) -> bool:
    """Whether ``text`` says a ``left`` stem or, asked how much and with ``amounts``, a number
    beside a word of the question ("My brother turned 34"). Only what people said gives an
    amount: a search result's "showing 1-1 of 1" beside "Brother: Quexfe" was taken for an age
    (bench_honesty seed 41)."""
    # "coming to stay" is a visit, "getting married" a wedding (a `make run` chat, stop 62)
    if left & (stems(text) | stems(topic_words(text)) | {stem(w) for w in label_topics(text)}):
        return True
    asked = subject_of(question) - left
    return amounts and bool(_QUANTITY.search(question)) and _amount_of(amounts_of_the_kind(text, question), asked)


def asked_words(question: str) -> set[str]:
    """The question's words and those of its topic ("gig" for "see ... live")."""
    return set(words(question)) | set(words(topic_words(question)))


_IN_VIEW = ("user", "system", "function")


def asked_of(turn: Turn, memory: MemoryView) -> str:
    """The turn's question, its people and animals named by name said as the user's
    (``text.named_as_known``: "How old is Rosa?" under "Sister's baby: Rosa")."""
    return named_as_known(turn.question or "", human_lines(memory))


def one_question_about_the_user(turn: Turn, question: str) -> bool:
    """Whether the turn, not a login, asks one question (``question``, as ``asked_of`` reads
    it), about the user."""
    return turn.kind != "login" and len(asked_questions(question)) == 1 and asks_about_the_user(question)


ASKS_WHAT_WAS_TOLD = re.compile(
    r"\bwhat\s+(?:did|have|had)\s+I\s+(?:tell|told|say|said|mention|mentioned)\b"
    r"|\bI\s+(?:told|mentioned|said\s+to)\s+you\s+about\b",
    re.IGNORECASE,
)


_FAMILY_ASKED = re.compile(r"\b(?:family|families|relatives|relations|folks)\b", re.IGNORECASE)


def unseen_subject(turn: Turn, memory: MemoryView, seen: tuple[str, ...] = _IN_VIEW) -> set[str]:
    """The subject of the turn's one question about the user when no core line is asked about
    and nothing in view of the ``seen`` roles holds it (empty otherwise)."""
    question = asked_of(turn, memory)
    if not one_question_about_the_user(turn, question):
        return set()
    subject = subject_of(question)
    if not subject:
        return set()
    # asked of the user themself, a line of someone else's says nothing of them: "Ravi and Maya's
    # university: Leeds" kept "Where did I go to university?" from an "I don't know" (a `make run`
    # chat, stop 55)
    # and the lines of the user's people are what "my family" asks about (a `make run` chat, stop 60:
    # "What do you know about my family?" got "I don't know anything about your family.")
    others = set() if owners_asked_of(question) or _FAMILY_ASKED.search(question) else lines_of_others(memory)
    lines = [line for line in lines_asked_about(question, memory) if line.removeprefix("[human] ") not in others]
    # what the user told, asked as such, is in past conversations unless a core line holds all of
    # its subject: "What did I tell you about that rough night at work?" was answered "Your work
    # schedule is mostly night shifts on a cardiac ward." from "Shifts: ..." (a `make run` chat, stop 53);
    # and it is in view only when a text says all of it
    told = bool(ASKS_WHAT_WAS_TOLD.search(question))
    if lines and not (told and not any(subject <= _said_stems(line) for line in lines)):
        return set()
    # "What was the band I went to see play live?" was met with no search under "Sister:
    # Quodaiick, lives in Leeds", and answered "The Beatles" (bench_honesty seed 57, stop 45)
    meant = subject_of(question, as_meant=True)
    # the user's own age is told by a number said of "I", or a line of an age: "We have a old dog
    # called Bamse" held "old", and "How old am I?" was answered "You're 12 years old." from the
    # dog's "nearly twelve" (a `make run` chat, stop 60)
    own_age = bool(_AGE_ASKED.search(question)) and not owners_asked_of(question)
    if own_age:
        meant = (meant - {stem("old")}) | {stem("age")}

    def says_it(text: str) -> bool:
        if own_age and _OWN_AGE.search(text):
            return True
        return meant <= _said_stems(text) if told else bool(meant & _said_stems(text))

    # the lines of others go wherever they are quoted: a search's "Core memory lines that match:"
    # (bench_honesty --others, stop 56)
    texts = (without_lines(text, others) for text in in_view_before(turn, memory, seen))
    if any(says_it(text) or names_the_relative(text, question) for text in texts):
        return set()
    return subject


def without_lines(text: str, lines: set[str]) -> str:
    """``text`` less its lines that are one of ``lines``, as is, quoted "[human] ..." or as a
    memory update tells it ("saved: Bamse's age: nearly twelve": a `make run` chat, stop 60)."""
    if not lines:
        return text
    # by its label too: a notice says its days in words ("Bamse's age: twelve in January 2027" for
    # "... (2027-01)"), and "How old am I?" was taken as answered by it (a `make run` chat, stop 60)
    labels = {line.partition(":")[0].strip().lower() for line in lines if "'" in line.partition(":")[0]}

    def theirs(quoted: str) -> bool:
        said = _SAVED_AS.sub("", quoted).strip()
        return said in lines or (":" in said and said.partition(":")[0].strip().lower() in labels)

    return "\n".join(ln for ln in text.splitlines() if not theirs(ln))


# how a line is quoted: in a search's core lines, or in a memory update ("changed: old -> new" by its new)
_SAVED_AS = re.compile(r"^\s*(?:\[human\]\s*|(?:saved|added):\s*|changed:\s*.*?\s->\s)")


def lines_of_others(memory: MemoryView) -> set[str]:
    """The ``human`` block's lines about someone other than the user (``owner_guard``)."""
    user = known_name(memory)
    return {line for line in human_lines(memory) if owned_by_another(line, user) is not None}


def evidence(turn: Turn, memory: MemoryView, seen: tuple[str, ...] = _IN_VIEW) -> list[SearchHit] | None:
    """What a search of both memories, before the first step, finds on the turn's one question
    about the user that nothing in view answers: the user's messages and passages that hold its
    subject (``speaks_of``) or, when core lines speak of the person or animal asked of, the
    detail they leave out (``detail_left``: "How old is my brother?" under "Brother: Magoette").
    None when the question is not such a one: in view (in messages of the ``seen`` roles), or
    about something else."""
    question = asked_of(turn, memory)
    subject, left, owners = unseen_subject(turn, memory, seen), set[str](), set[str]()
    if not subject:
        if not one_question_about_the_user(turn, question):
            return None
        # all of them: the more the user told of someone, the more lines match ("What does Leila do
        # for a living?" matched five, none was read, and the user's own job was the answer: a `make
        # run` chat, stop 57)
        left = detail_left(question, lines_asked_about(question, memory, most=None))
        owners = owners_asked_of(question)
        if not left:
            return None
        # a name only as the user said it: a login notice's "You do not know their name" names no one
        named = left <= _NAMING
        if any(  # "I work at the infirmary" says nothing of a brother's work; a notice's lines are read apart
            holds_detail(line, left, question, amounts)
            for amounts, roles in ((False, ("user",) if named else seen), (True, ("user",)))
            for text in in_view_before(turn, memory, roles)
            for line in text.splitlines()
            if said_of(line, owners) or (named and _NAME_GIVEN.search(line))
        ):
            return None
        subject = subject_of(question)
    asked = asked_words(question)

    def holds(hit: SearchHit) -> bool:
        if left:
            said = statements(hit.text) if hit.role == "user" else hit.text
            of_them = said_of(said, owners) or (left <= _NAMING and bool(_NAME_GIVEN.search(said)))
            return hit.role != "assistant" and of_them and holds_detail(said, left, question)
        return speaks_of(hit, subject, asked)

    query = subject_query(question, subject)
    if query not in turn.searched_before:  # once a turn: recall_at_question reads the same search
        turn.searched_before[query] = [
            *memory.search("message", query, SEARCHED_HITS),
            *memory.search("passage", query, SEARCHED_HITS),
        ]
    return [hit for hit in turn.searched_before[query] if holds(hit)]


_YOURS = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself"}
_ASKED_FROM = re.compile(r"\b(?:how\s+old|what|who|where|when|which)\b.*$", re.IGNORECASE | re.DOTALL)
_HOW_OLD = re.compile(r"^(?:how\s+old|what\s+age)\s+(?:am\s+I|(?:is|are)\s+(?P<who>.+))(?:\s+now)?$", re.IGNORECASE)
_WHAT_IS = re.compile(r"^(?i:what|who)(?:'s|\s+is|\s+are|\s+was)\s+(?P<what>(?:my|the|[A-Z][\w-]*'s)\s.+)$")
_WHERE_IS = re.compile(r"^(?P<wh>where|when)(?:'s|\s+is|\s+(?P<are>are))\s+(?P<what>.+)$", re.IGNORECASE)
_DOES = re.compile(
    r"^(?P<wh>where|what|when|who|how)\s+(?:(?P<do>do|did)\s+I|(?P<does>does|did)\s+(?P<who>(?:my\s+)?[\w']+(?:\s+(?-i:[A-Z])[\w'-]+)?))"
    r"\s+(?P<verb>[a-z]+)(?P<rest>.*)$",
    re.IGNORECASE,
)
# the past of the verbs people ask about their own past with: "Where did I go to university?"
_PAST_OF = {
    "go": "went",
    "grow": "grew",
    "meet": "met",
    "buy": "bought",
    "see": "saw",
    "get": "got",
    "take": "took",
    "have": "had",
    "do": "did",
    "say": "said",
    "tell": "told",
    "eat": "ate",
    "give": "gave",
    "make": "made",
    "leave": "left",
    "find": "found",
    "come": "came",
    "begin": "began",
    "run": "ran",
    "drive": "drove",
    "fly": "flew",
    "teach": "taught",
    "study": "studied",
    "live": "lived",
    "move": "moved",
    "stay": "stayed",
}


# words in -ing that are things, not a doing: "When is Marte's wedding?"
_ING_NOUNS = frozenset(
    "wedding meeting evening morning building painting ceiling ring thing spring pudding ending sibling "
    "christening outing gathering reading hearing booking opening housewarming screening recording".split()
)


def _yours(text: str) -> str:
    """``text`` said to the user: "my mum's name" is "your mum's name"."""
    return re.sub(r"\b(?:I|me|my|mine|myself)\b", lambda m: _YOURS[m[0].lower()], text)


def _past(verb: str) -> str | None:
    """The past of ``verb``, or None where its spelling is not sure ("stop": "stopped")."""
    if verb in _PAST_OF:
        return _PAST_OF[verb]
    if verb.endswith("e"):
        return f"{verb}d"
    if re.search(r"[^aeiou]y$", verb):
        return f"{verb[:-1]}ied"
    if re.search(r"(?:[aeiou]y|[wx]|[^aeiou][^aeiou]|[aeiou][aeiou][^aeiou])$", verb):
        return f"{verb}ed"
    return None


def _third_person(verb: str) -> str:
    """``verb`` after "he" or "she": "lives", "teaches", "goes", "studies"."""
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return f"{verb}es"
    return f"{verb[:-1]}ies" if re.search(r"[^aeiou]y$", verb) else f"{verb}s"


def not_known(question: str) -> str:
    """What a denial of ``question`` (one question about the user) says is not known, said to
    them: "How old am I?" is "how old you are", "What's my mum's name?" "your mum's name",
    "Where does my sister live?" "where your sister lives"; "" where the question is not of
    those plain shapes. The denial "I don't know" alone was written on with an earlier reply: "How
    old am I?" got "I don't know what's wrong with Bamse." (a `make run` chat, stop 60)."""
    asked = questions(question)
    found = _ASKED_FROM.search(sentences(asked)[-1]) if asked else None
    if found is None:
        return ""
    said = normalize_space(found[0]).rstrip("?!. ")
    if said.lower().startswith(("how old", "what age")):
        old = _HOW_OLD.match(said)
        return "" if old is None else "how old you are" if old["who"] is None else f"how old {_yours(old['who'])} is"
    if (asked_what := _WHAT_IS.match(said)) is not None:
        thing = asked_what["what"]
        called = re.match(r"^(?P<who>.+?)\s+(?P<word>called|named)$", thing)
        if called:
            return f"what {_yours(called['who'])} is {called['word']}"
        if re.search(r"\b(?:doing|like|up\s+to|about)$", thing):
            return ""
        return f"who {_yours(thing)} is" if said[:3].lower() == "who" else _yours(thing)
    if (where := _WHERE_IS.match(said)) is not None:
        # the verb where it stands: "When is Cian heading off to Canada?" is "when Cian is heading off
        # to Canada", not "when Cian heading off to Canada is" (a `make run` chat, stop 60)
        # and as many as it asks of: "where are me and Dev going" is "where you and Dev are going", not
        # "... is going" (a `make run` chat, stop 62)
        verb = "are" if where["are"] else "is"
        told = where["what"].split(" ")
        at = next((i for i, w in enumerate(told) if i and w.endswith("ing") and w.lower() not in _ING_NOUNS), None)
        if at is not None:
            before, after = " ".join(told[:at]), " ".join(told[at:])
            return f"{where['wh'].lower()} {_yours(before)} {verb} {_yours(after)}"
        return f"{where['wh'].lower()} {_yours(where['what'])} {verb}"
    if (does := _DOES.match(said)) is not None:
        who = "you" if does["do"] else _yours(does["who"])
        verb = does["verb"].lower()
        if re.search(r"\byou\b", does["rest"], re.IGNORECASE):
            return ""  # "What did I tell you about ...?": whose "you" would be unclear
        if (does["do"] or does["does"]).lower() == "did":
            past = _past(verb)
            if past is None:
                return ""  # a past not known here: "I don't know" alone
            verb = past
        elif not does["do"]:
            verb = _third_person(verb)
        return f"{does['wh'].lower()} {who} {verb}{_yours(does['rest'])}"
    return ""


# what people ask of one of their own, a person or an animal, by name: "what breed is Finn?"
_OF_SOMEONE = re.compile(
    r"\b(?:breed|age|old|birthday|born|lives?|living|job|work|works|school|name|called|favou?rite|allergic|allergy"
    r"|health|ill|sick|vet|married|husband|wife|partner|kids|children)\b",
    re.IGNORECASE,
)


def someone_unheard(turn: Turn, memory: MemoryView) -> str | None:
    """The name the turn's one question asks what people ask of one of their own by ("what
    breed is Finn?", "how old is Maja?"; not the user, nothing first-person) when nothing the
    user said holds it: not core memory, not their messages in view or in recall. Asked of a
    dog the user never mentioned, "what breed is Finn?" was answered "Finn is a dog breed." (a
    `make run` chat, stop 63). A question about a thing ("What is Python?") asks none of it."""
    asked = questions(turn.question or "")
    if turn.kind == "login" or len(asked_questions(asked)) != 1 or FIRST_PERSON.search(asked):
        return None
    if not _OF_SOMEONE.search(asked):
        return None
    names = [w for w in names_and_numbers(asked) if not w.isdigit() and w.lower() not in _WHEN_NAMES]
    known = " ".join([*human_lines(memory), *in_view_before(turn, memory, ("user",))])
    for name in names:
        if re.search(rf"\b{re.escape(name)}\b", known, re.IGNORECASE):
            continue
        if not any(hit.role == "user" for hit in memory.containing("message", name, 5)):
            return name
    return None


def denied(turn: Turn) -> bool:
    """Whether the turn's reply was set to deny (``NothingFound``)."""
    return turn.reply_reason == REASON and turn.reply_start.startswith(START)


class NothingFound(Policy):
    name = "nothing_found"

    def plan(self, turn: Turn, plan: StepPlan) -> StepPlan:
        """A forced denial writes no thought: its words were the thought's, copied, and the
        thought named the user in the third person ("I don't know Siosaia's mother's name.",
        a `make run` chat, stop 42); its start and length are settled anyway."""
        if denied(turn):
            return replace(plan, thought_max_chars=0)
        return plan

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        """Before the first step: the subject searched in both memories, as the model would.
        Asked "Which university did I go to?", never said, the model answered "You went to
        Vendnuobury University in Rainpretreenton." in its first step, without a search
        (bench_honesty seed 33, eval chat seed 16). Asked "How old is my brother?" under
        "Brother: Magoette", the reply begun "Your brother" went on "Magoette is visiting this
        weekend." (bench_honesty seed 34), and "Which school did my brother go to?" the same
        (`make run`): a detail that no line says is searched the same way. A question about
        someone by a name the user never said (``someone_unheard``) is told so: "You haven't
        told me about Finn yet.", and no more."""
        unheard = someone_unheard(turn, memory)
        if unheard is not None:
            turn.require_reply(REASON)
            turn.reply_start, turn.reply_sentences = f"You haven't told me about {unheard} yet.", UNHEARD_SENTENCES
            return []
        if evidence(turn, memory) != []:
            return []
        self._deny(turn, memory)
        # told nothing, the model went on "..., but I can look it up in my memory." (bench_honesty
        # seed 37): it did not know its memory had just been searched
        return [events.system_event("memory search", SEARCHED_NOTICE, when=turn.clock())]

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if not step.outcome.searched or turn.reply_start:
            return []
        if step.call is not None and step.call.function == "conversation_search_date":
            return []
        subject = unseen_subject(turn, memory)
        if not subject or any(core_lines_found(s, memory) for s in turn.steps if s.outcome.searched):
            return []
        if not any(speaks_of(hit, subject, asked_words(asked_of(turn, memory))) for hit in turn.hits()):
            self._deny(turn, memory)
        return []

    @staticmethod
    def _deny(turn: Turn, memory: MemoryView) -> None:
        turn.require_reply(REASON)
        # nor the user's name: "I don't know Siosaia's mother's name." (a `make run` chat, stop 42)
        name = known_name(memory)
        clause = not_known(asked_of(turn, memory))
        turn.reply_start, turn.reply_sentences = (f"{START} {clause}" if clause else START), SENTENCES
        turn.reply_unsaid = (*UNSAID, name) if name else UNSAID
