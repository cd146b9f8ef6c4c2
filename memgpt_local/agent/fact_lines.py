"""What a line the notes pass wrote says, and whether it may be kept: its label, whether
the user said it (``grounded``, ``worth_saving``). Where a line files a place is
``fact_homes``; how its words are put before it is written is ``fact_wording``; how a cut-off
line is completed from the user's words is ``fact_completion``. Split from ``facts.py``, which runs
the pass."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgpt_local.agent.fact_homes import home_unsaid, place_of_a_visit
from memgpt_local.agent.fact_owners import (
    HOLIDAY_NAMES,
    individual,
    value_stems,
)
from memgpt_local.agent.fact_wording import (
    HOME_LABELS,
    PLAN_FILLER,
    THE_USER,
    WORK_LABELS,
    WORK_NAMES,
    bare_day,
    day_words,
    unglued,
)
from memgpt_local.memory.dates import said_in_the_past
from memgpt_local.text import (
    LOWER,
    PETS,
    RELATIONS,
    UPPER,
    WHEN_WORDS,
    content_words,
    is_bare_request,
    names_within,
    normalize_space,
    sentences,
    speaks_of_its_writer,
    statements,
    stem,
    stems,
    tells_the_past,
    words,
)

# the names and numbers of a line's value: each must be the user's own words (``grounded``)
_NAMES_AND_NUMBERS = re.compile(rf"\b(?:[{UPPER}][\w'-]*|\d[\d.,:/-]*)")


def states_something_personal(message: str) -> bool:
    """Whether ``message`` may state a fact about its writer (cheap; no model): a sentence that
    is not a question speaks of its writer (``speaks_of_its_writer``), or names someone or somewhere (a capitalised
    word after its first: "Hello there, Dana here. Nurse by trade, based in Leeds."). Questions
    state nothing: read for facts, "Hey, what's the name of my brother again?" became "Name:
    Brother" in place of the user's name."""
    stated = [s for s in sentences(statements(message)) if not is_bare_request(s)]
    return any(speaks_of_its_writer(s) or names_within(s) for s in stated)


_SAVED_NAME = re.compile(rf"\b[{UPPER}][{LOWER}]{{2,}}\b")


def names_someone_saved(saved: Sequence[str], message: str) -> bool:
    """Whether a statement of ``message`` names someone (or somewhere) a saved line's value
    names, at any place in it: "Bamse had to go to the vet yesterday, his hips are getting
    worse." says nothing of its writer and names nobody after its first word, and the dog's
    news was never read for facts (a `make run` chat, stop 60)."""
    names = {name for line in saved for name in _SAVED_NAME.findall(line.partition(":")[2])}
    stated = [s for s in sentences(statements(message)) if not is_bare_request(s)]
    return any(w.strip(",;:'\"()?!.").removesuffix("'s") in names for s in stated for w in s.split())


def label_of(line: str) -> str | None:
    """The normalised label of a ``Label: value`` line, else None."""
    label, sep, value = line.partition(":")
    if not sep or not value.strip() or not 0 < len(label.strip()) <= 40:
        return None
    return normalize_space(label).lower()


def grounded(line: str, said: str, asked: str = "") -> bool:
    """Whether the value of ``line`` comes from ``said``: every name and number it holds, and
    all but one in three of its other content words (compared by their first four letters),
    occur there, and it holds no letter outside ASCII that ``said`` lacks. A trait written as
    "Label: yes" ("Vegetarian: yes" for "I'm vegetarian") is grounded by its label's words."""
    label, _, value = line.partition(":")
    if any(not ch.isascii() and ch.isalpha() and ch not in said for ch in value):
        return False  # a letter the user never typed: a slip into another script ("Ahmed is more紧张")
    heard = {stem(w) for w in words(said)}
    events = set(words(label)) & _EVENT_LABELS
    # (or the assistant's question the message answers: "the 22nd" to "when is Orla's birthday?")
    if events and not {stem(w) for e in events for w in _SAID_AS.get(e, (e,))} & (heard | stems(asked)):
        # an event the user never spoke of: "what could I cook for Adaeze this Friday?" was saved as
        # "Adaeze's birthday: this Friday", the plan example's birthday (a `make run` chat, stop 51)
        return False
    if value.strip().lower().rstrip(".") in ("yes", "true"):
        said_label = [stem(w) for w in content_words(label) if len(w) > 2]
        return bool(said_label) and all(w in heard for w in said_label)
    for name in _NAMES_AND_NUMBERS.findall(value):
        for token in words(name):  # "I'm" is "i" and "m"; "14th" was said for "14"
            if len(token) == 1 or stem(token) in heard:
                continue
            if not (token.isdigit() and any(w.startswith(token) for w in heard)):
                return False
    said_words = set(words(said))
    if any(w in _NUMBER_WORDS and w not in said_words for w in words(value)):
        return False  # "Abena's sixtieth birthday" for "her birthday on the 3rd" (from the plan example)
    # "years old" after an age said bare: "Granddaughter: Mia, four years old" for "she's four"
    # (bench_notes loss-held, stop 54) is the user's age in the usual words
    aged = _AGED.search(value)
    plain = [stem(w) for w in content_words(_AGED.sub(r"\g<n>", value) if aged else value) if len(w) > 2]
    unheard = sum(w not in heard for w in plain)
    return unheard <= len(plain) // 3  # one word in three may be the model's ("a beagle called Rex")


_AGED = re.compile(
    rf"\b(?P<n>\d+|[{LOWER}]+teen|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]+years?[\s-]+old\b"
)


# numbers said as words, counted or in order: each must be the user's (a `make run` chat, stop 50)
_NUMBER_WORDS = frozenset(
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred second third fourth fifth "
    "sixth seventh eighth ninth tenth twelfth twentieth thirtieth fortieth fiftieth sixtieth seventieth "
    "eightieth ninetieth hundredth".split()
)
_GLUED = re.compile(rf"[{LOWER}][{UPPER}]|'s[{UPPER}{LOWER}]|[{UPPER}{LOWER}'-]{{18,}}")


# a label that is a clause: "Leeds is herhomecity: Leeds" (a `make run` chat, stop 45), "Ines has
# two: patients on the ward" (stop 58)
_CLAUSE_LABEL = re.compile(r"^\s*\S+(?:\s+\S+)?\s+(?:is|are|was|were|has|have|had)\s+\S", re.IGNORECASE)


# a label that says where someone is: "Lives in Lisbon: still in March", written for "My girlfriend
# Ana is still in Lisbon, she joins me in March" beside "Girlfriend: Ana, still in Lisbon" (a
# `make run` chat, stop 46); the user lived in Bristol
_PLACE_CLAUSE_LABEL = re.compile(
    r"^\s*(?:lives?|lived|living|works?|worked|working|stays?|stayed|staying|studies|studied|studying|based)"
    rf"\s+(?:in|at|near|from)\s+[{UPPER}]",
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
    if len(label.split()) > 1 and re.search(r"['’]s$", label.strip()):
        # nor at a word whose thing is its value: "Chewed through garden's: hose" for "our dog Koa chewed
        # through the garden hose this morning" (a `make run` chat, stop 64)
        return True
    return bool(_GLUED.search(label) or _CLAUSE_LABEL.search(label) or _told_as_a_label(label))


def _told_as_a_label(label: str) -> bool:
    """Whether ``label`` opens with a name and a verb of the past: "Sofie rode apony: by herself
    for the first time on Saturday" (a `make run` chat, stop 60) is a sentence cut at its colon."""
    said = label.split()
    return len(said) >= 3 and said[0][:1].isupper() and said_in_the_past(said[1])


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
        stem(w) for w in re.findall(rf"\b[{UPPER}][{LOWER}]+\b", said)
    }
    urged = [m["urged"] for m in _URGED.finditer(said)]
    if not value or not urged or not value <= {stem(w) for u in urged for w in words(u)}:
        return False
    rest = _URGED.sub(" ", said)
    return not value & {stem(w) for w in words(rest)}


# a value that asks the listener for something: "Contact: send help" for "Marking mock exams all weekend,
# send help" (a `make run` chat, stop 51), "Luck: wish me luck"
_TO_THE_LISTENER = re.compile(
    r"^(?:please\s+)?(?:send|wish|help|tell|give|remind|pray\s+for|show|bring|cross)\s+(?:me|us|help|your)\b",
    re.IGNORECASE,
)


# a value that is a need for ideas: "Elodie's only little: needs ideas for baking" for "I still need
# ideas for something easy to bake with Elodie" (a `make run` chat, stop 52)
_NEEDS_IDEAS = re.compile(
    r"^(?:still\s+)?(?:needs?|wants?|looking\s+for)\s+(?:some\s+|more\s+)?"
    r"(?:ideas?|advice|suggestions?|tips?|recommendations?|inspiration)\b",
    re.IGNORECASE,
)


def asks_the_listener(line: str) -> bool:
    """Whether ``line``'s value, or its label (as in "Send help: yes"), is a request to whoever
    reads the message ("send help", "needs ideas for baking")."""
    label, _, value = line.partition(":")
    return any(p.match(part.strip()) for p in (_TO_THE_LISTENER, _NEEDS_IDEAS) for part in (value, label))


def worth_saving(line: str, said: str, asked: str = "") -> bool:
    """Whether a line the notes pass wrote goes into the block: grounded in ``said``, no passing
    state, a label of real words that says what the value is of. Words the model ran together
    are read as the user wrote them first: "Trip to theAzores: next week" was dropped as a label
    of no real words (stop 51)."""
    line = unglued(line, said)
    return (
        grounded(line, said, asked)
        and not passing_state(line)
        and not glued_label(line)
        and not place_of_a_visit(line, said)
        and not home_unsaid(line, f"{said} {asked}")
        and not only_a_date(line)
        and not a_guess(line)
        and not hearsay(line, said)
        and not only_who(line)
        and not a_name_for_work(line, said)
        and not asks_the_listener(line)
        and not someone_elses_relative(line)
        and not unsaid_relative(line, said)
        and not says_only_its_label(line)
        and not days_news(line, said)
        and not an_age_without_years(line)
        and not event_as_work(line)
        and not a_name_as_their_thing(line, said)
        and not said_only_as_never(line, said)
        and not only_filler(line)
    )


_AGE_SAID = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|hundred|\w*teen\w*|\w+ties|months?|weeks?|years?|days?|newborn|toddler|baby|infant|half)\b",
    re.IGNORECASE,
)


def an_age_without_years(line: str) -> bool:
    """Whether ``line`` is an age that says no age: "Daughter's age: just started school" was
    saved for "Mia just started school" (a `make run` chat, stop 55)."""
    label, sep, value = line.partition(":")
    label_words = words(label)
    return bool(sep and label_words and label_words[-1] in ("age", "ages") and not _AGE_SAID.search(value))


def message_under_another_topic(line: str, message: str) -> bool:
    """Whether ``line``'s value is a sentence of ``message`` as it stands (four words or more)
    that tells what happened, under a label none of whose words the message says: asked "Do you
    have any favorite meals?", "Saw a brilliant octopus documentary yesterday." was saved
    "Favorite meal: Saw a brilliant octopus documentary yesterday" (eval chat seed 34, stop 54;
    stop 53's code the same). "Lamb tagine with apricots." answers it. So does a value that is
    the subject of what happened: told "I don't know what Ewa's favourite food is.", "Kuba's team
    won two games but lost the semi-final." was saved "Ewa's favourite food: Kuba's team" (a
    `make run` chat, stop 56)."""
    label, _, value = line.partition(":")
    if {stem(w) for w in content_words(label) if len(w) > 1} & {stem(w) for w in content_words(message)}:
        return False
    said = [normalize_space(s).rstrip(".!?").lower() for s in sentences(message)]
    told = normalize_space(value).rstrip(".!?").lower()
    first = words(value)[:1]
    if told in said and len(words(value)) >= 4 and first and tells_the_past(first[0]):
        return True
    # the value opens a sentence and a verb of the past follows it: the sentence's subject
    return bool(told) and any(
        s.startswith(told + " ") and tells_the_past(words(s[len(told) :])[0]) for s in said if words(s[len(told) :])
    )


# words that compare something with what the label names, and say nothing of it
_COMPARED = frozenset(
    stem(w)
    for w in "closer nearer further farther near far easier harder better worse bigger smaller more less than".split()
)


def says_only_its_label(line: str) -> bool:
    """Whether ``line``'s value says nothing its label does not: "Phone survived barely: barely"
    (a `make run` chat, stop 53)."""
    label, _, value = line.partition(":")
    said = {stem(w) for w in content_words(value)}
    named = {stem(w) for w in content_words(label)}
    if said & named and not said - named - _COMPARED:
        return True  # "Race: closer to the race" for "it'll be closer to the race" (a `make run` chat, stop 55)
    return bool(said) and said <= named and len(words(label)) > 1


# what happened to a thing earlier today: "Phone: knocked into the bath" for "Mango knocked my phone
# into the bath this morning" (a `make run` chat, stop 53) is the day's news, in recall memory
_EARLIER_TODAY = re.compile(
    r"\b(?:this\s+(?:morning|afternoon|evening)|last\s+night|earlier(?:\s+today)?|today|tonight|just\s+now)\b",
    re.IGNORECASE,
)
_PAST_VERB = re.compile(
    r"^(?:got\s+|was\s+|were\s+)?(?:\w+ed|broke|broken|fell|fallen|lost|spilt|spilled|knocked|dropped|ate|eaten|"
    r"had|made|took|taken|went|came|ran|burnt|burned|forgot|left|found|bit|stole|stolen|tore|torn)\b",
    re.IGNORECASE,
)


_NAME_THEN = re.compile(rf"^[{UPPER}][{LOWER}]+,?\s+(?P<rest>.+)$")  # a name, then what they did
_GOT_ONE = re.compile(
    r"(?:adopted|got|bought|rescued|named|born|joined|arrived|moved)\b", re.IGNORECASE
)  # new to the user


# what a day at work brought, written as the work: "Work: gets accepted for a paper" replaced "Work:
# PhD in marine biology in Kiel" for "Big news, my first paper got accepted today!" (a `make run` chat,
# stop 60); starting, joining or moving is a job (``work_change`` asks about those)
_EVENT_AS_WORK = re.compile(
    r"^(?:(?:gets?|got|was|were|is|been|has\s+been)\s+(?!(?:start|join|mov|switch|hir|promot)\w*\b)\w+ed\b"
    r"|(?!(?:started|joined|moved|switched|became|began|took|retired|quit|left|based|trained|qualified|employed"
    r"|self-employed|unemployed|stationed|posted|located|contracted|registered|certified|licensed)\b)"
    r"(?:\w+ed|had|made|went|came|lost)\b)",
    re.IGNORECASE,
)


def event_as_work(line: str) -> bool:
    """Whether ``line`` is a work line whose value tells what happened, not the work: "Work: gets
    accepted for a paper", "Work: had three emergency surgeries"."""
    label, _, value = line.partition(":")
    return normalize_space(label).lower() in WORK_LABELS and bool(_EVENT_AS_WORK.match(value.strip()))


# a label of someone's thing that is a place or a name the message says: "Mum's kiel: never seen in
# winter" for "My mum is coming over from Munich for Christmas, she's never seen Kiel in winter." (a
# `make run` chat, stop 60); a holiday is a thing of theirs ("Mum's Christmas: in Kiel")
_THINGS_LABEL = re.compile(rf"^\s*[{UPPER}][\w-]*['’]s\s+(?P<thing>[\w-]+)\s*$")


def a_name_as_their_thing(line: str, said: str) -> bool:
    """Whether ``line``'s label files under someone a place or name the message capitalises past a
    sentence's start, as if it were a thing of theirs ("Mum's kiel")."""
    label = _THINGS_LABEL.match(line.partition(":")[0])
    if label is None:
        return False
    thing = label["thing"].lower()
    if thing in WHEN_WORDS or thing in HOLIDAY_NAMES:
        return False
    named = {m.group(1).lower() for m in re.finditer(rf"(?<![.!?]\s)(?<!^)\b([{UPPER}][\w-]+)", said)}
    return thing in named


# words that say how something is said, not what: "Fear: to be honest" for "I'm terrified to be
# honest" (a `make run` chat, stop 61)
_FILLER_VALUES = frozenset(
    (
        "to be honest",
        "honestly",
        "tbh",
        "to be fair",
        "i guess",
        "i think",
        "really",
        "actually",
        "of course",
        "lol",
        "haha",
        "basically",
        "literally",
        "you know",
        "i mean",
        "anyway",
        "though",
        "as well",
        "too",
        # a word that only ties the value to what was said around it: "Knee injury: since" for "first
        # one since my knee injury", "Frequency of seeing: barely" (a `make run` chat, stop 62)
        "since",
        "ago",
        "again",
        "still",
        "already",
        "so far",
        "then",
        "barely",
        # how something was learnt, said of a fact the message tells: "Last year's discovery: found out
        # the hard way" beside "Allergy: penicillin" (a `make run` chat, stop 63)
        "found out the hard way",
        "learned the hard way",
        "learnt the hard way",
        "the hard way",
    )
)
# a stretch of time and how it went: "Health: rough few weeks" for "my gran passed last month so it's
# been a rough few weeks tbh" (a `make run` chat, stop 63), and "what am I allergic to?" was answered
# "Your health is rough, and you have an allergy to penicillin."
_PASSING_MOOD = re.compile(
    r"(?:an?\s+)?(?:(?:really|very|pretty|bit\s+of\s+a|quite\s+a)\s+)?(?:rough|tough|hard|long|busy|bad|difficult|crazy"
    r"|hectic|stressful|awful|horrible|terrible|mad|weird|quiet|slow|lovely|great|good|nice)\s+"
    r"(?:(?:few|couple\s+of|couple)\s+)?(?:day|days|week|weeks|weekend|month|months|year|time|night|shift|term)"
)


# a value that only points at something said elsewhere: "Not looking forward: to it" for "I've a knee
# operation booked for the 14th of January, not looking forward to it" (a `make run` chat, stop 63)
_ONLY_POINTING = re.compile(r"(?:(?:to|for|about|of|with|on|at|from|by)\s+)?(?:it|that|this|them|those|these)")
# a value that only qualifies what another clause says, its "even" first: "Sleep: even in winter" for
# "I swim in the sea every morning, even in winter" (a `make run` chat, stop 64); "also plays guitar"
# and "still at the bakery" say something
_ONLY_QUALIFYING = re.compile(r"even\s+(?:in|on|at|when|if|though|after|before|with|without)\b.*")


def only_filler(line: str) -> bool:
    """Whether ``line``'s value says nothing but how something was said ("to be honest"), only
    points at something ("to it"), says only how a stretch of time went ("rough few weeks"), or
    only qualifies what another clause says ("even in winter")."""
    value = normalize_space(line.partition(":")[2]).strip(" .,!?;").lower()
    return value in _FILLER_VALUES or bool(
        _ONLY_POINTING.fullmatch(value) or _PASSING_MOOD.fullmatch(value) or _ONLY_QUALIFYING.fullmatch(value)
    )


# "she's never been to scotland", "he hasn't seen Kiel": what follows did not happen
_NEVER_BEFORE = re.compile(
    r"\b(?:never|(?:has|have|had|is|was)n['’]?t|(?:has|have|had)\s+not)\s+(?:[\w'’]+\s+){0,3}$", re.IGNORECASE
)
_NEGATION = re.compile(r"\b(?:never|not|no|n['’]t)\b", re.IGNORECASE)
_SHORT_VALUE = 3  # words: a place or a name, not a sentence


def said_only_as_never(line: str, said: str) -> bool:
    """Whether ``line``'s short value is a thing ``said`` tells only as never so: "Mum's country:
    Scotland" for "my mum is flying over from kumasi for my graduation in july, she's never been
    to scotland" (a `make run` chat, stop 61). A value that keeps the "never" says it."""
    value = line.partition(":")[2].strip()
    told = content_words(value)
    if not told or len(words(value)) > _SHORT_VALUE or _NEGATION.search(value):
        return False
    found = [m for w in told for m in re.finditer(rf"\b{re.escape(w)}\b", said, re.IGNORECASE)]
    return bool(found) and all(_NEVER_BEFORE.search(said[: m.start()]) for m in found)


def tells_an_event(line: str) -> bool:
    """Whether ``line``'s value opens with a verb of the past: what happened ("knocked a plant off
    the shelf"), not what holds."""
    return _opens_in_the_past(line.partition(":")[2])


def _opens_in_the_past(value: str) -> bool:
    return bool(_PAST_VERB.match(value.strip()))


def _tells_what_happened(value: str) -> bool:
    """Whether ``value`` opens with a verb of the past ("knocked into the bath"), or has one
    after a subject of up to three words that is not the user: "Health: two kids threw up in
    class" was saved for "Today was rough though, two kids threw up in class." (a `make run`
    chat, stop 58), and greeted at the next login."""
    if _opens_in_the_past(value):
        return True
    tokens = value.split()
    for n in (1, 2, 3):
        if len(tokens) <= n or {t.lower().strip(",;") for t in tokens[:n]} & THE_USER:
            return False
        if said_in_the_past(tokens[n]):
            return True
    return False


def days_news(line: str, said: str) -> bool:
    """Whether ``line`` tells only what happened to a thing earlier today: a value that opens
    with a verb of the past, from a sentence said of this morning, last night or today, under a
    label of no person, pet, home, work or life event, or under a person's or pet's after their
    name ("Dog: Pepper chewed through headphones last night"). "Dog: adopted this morning" files
    a pet and stays, as does "Dog: Nova, rescued today"; recall memory keeps the rest."""
    label, _, value = line.partition(":")
    labelled = set(words(label))
    named = _NAME_THEN.match(value.strip())
    if named and labelled & (RELATIONS | PETS) and not _GOT_ONE.match(named["rest"]):
        value = named["rest"]  # "Dog: Pepper chewed through headphones last night" (bench_notes nurse-held)
    elif labelled & (RELATIONS | PETS | _EVENT_LABELS | WORK_LABELS | HOME_LABELS):
        return False
    if not _tells_what_happened(value):
        return False
    stems_of_value = {stem(w) for w in content_words(value)}
    return any(
        _EARLIER_TODAY.search(sentence) and stems_of_value & {stem(w) for w in content_words(sentence)}
        for sentence in sentences(said)
    )


# "Father: Elodie's dad" for "it's Julien, he's Elodie's dad": of Elodie's father, not the user's;
# "Julien's Elodie's dad: Julien" files nobody (a `make run` chat, stop 52)
_THEIR_RELATIVE = re.compile(rf"^\s*[{UPPER}][\w-]*['’]s\s+(?P<relation>\w+)\s*$")


def someone_elses_relative(line: str) -> bool:
    """Whether ``line`` files someone as a relative of someone else's under a label of the user's
    ("Father: Elodie's dad"), or has a label of two owners."""
    label, _, value = line.partition(":")
    relative = _THEIR_RELATIVE.match(value)
    labelled = set(words(label))
    return len(re.findall(r"['’]s\b", label)) > 1 or bool(
        relative and relative["relation"].lower() in RELATIONS and labelled and labelled <= RELATIONS
    )


_NAMED_RELATIVE = re.compile(rf"\b(?P<name>[{UPPER}][{LOWER}]+)['’]s\s+(?P<relation>[{LOWER}]+)\b")


def unsaid_relative(line: str, said: str) -> bool:
    """Whether ``line``'s value names someone's relative ("Magda's sister") that ``said`` never
    tells of: "Ola's sister Magda turns 40 on the 20th, we're throwing her a party" was written
    "Party: throwing a party for Magda's sister" (a `make run` chat, stop 53). "his sister" or
    "her sister" may be anyone's."""
    for m in _NAMED_RELATIVE.finditer(line.partition(":")[2]):
        relation = m["relation"]
        if relation not in RELATIONS:
            continue
        between = r"\s+(?:\w+\s+){0,2}?"
        told = rf"\b(?:{re.escape(m['name'])}['’]s|his|her|their){between}{relation}\b"
        if not re.search(told, said, re.IGNORECASE):
            return True
    return False


# a value that only guesses: "Orla might say otherwise" was written "Wife: Orla, might say otherwise"
# (a `make run` chat, stop 50), and "we might move to Spain" was saved as a home (stop 49)
_GUESS = re.compile(
    rf"^(?:[{UPPER}][{LOWER}]+\s*,\s*)?(?:might|may|could|would|maybe|perhaps|possibly|probably)\b", re.I
)


_TOGETHER = frozenset("and & both together with".split())


_WORK_WORDS = re.compile(
    r"\b(?:work\w*|job|jobs|employ\w*|office|shifts?|company|firm|boss|colleagues?|career|hired|teach\w*)\b", re.I
)


def a_name_for_work(line: str, said: str) -> bool:
    """Whether ``line`` is a work line whose value is only a name, from a message that says
    nothing of work: "Work: Porto" for "... we moved Porto to February, flights were cheaper."
    replaced "Work: teaches year 4 at a primary school in Valencia" (a `make run` chat, stop 58)."""
    label, _, value = line.partition(":")
    named = value.split()
    return (
        label.strip().lower() in WORK_LABELS | WORK_NAMES
        and 0 < len(named) <= 3
        and all(w[:1].isupper() for w in named)
        and not _WORK_WORDS.search(said)
    )


def only_who(line: str) -> bool:
    """Whether ``line``'s value only names who, the user among them: "Family: Ana and I" was
    saved for "Ana and I are going to Porto in January" (a `make run` chat, stop 58)."""
    tokens = re.findall(r"[\w'&]+", line.partition(":")[2])
    mine = [t for t in tokens if t.lower() in THE_USER]
    others = [t for t in tokens if t.lower() not in THE_USER and t.lower() not in _TOGETHER]
    return bool(mine) and all(t[:1].isupper() for t in others)


def a_guess(line: str) -> bool:
    """Whether ``line``'s value (after a name it files) opens with a guess ("might", "maybe")."""
    return bool(_GUESS.match(line.partition(":")[2].strip()))


# what the user only thinks or heard: "I think a stomach bug is going around the school."
_HEARSAY = re.compile(
    r"^(?:\w+[,.!]?\s+)??(?:i\s+(?:think|guess|reckon|suppose|heard|hear|bet)|apparently|seems\s+like|rumou?r\s+(?:has\s+it|is))"
    r"\s+(?:that\s+)?(?P<claim>.+)$",
    re.IGNORECASE,
)


def hearsay(line: str, said: str) -> bool:
    """Whether ``line`` holds only what the user thinks or heard of something not theirs: "I
    think a stomach bug is going around the school." was saved "Stomach bug: going around the
    school", and the next login greeted "I know you have a stomach bug going around the school."
    (a `make run` chat, stop 58). What the user thinks of themselves, their people or a named
    one ("I think my sister is moving", "I heard Ana got the job") is theirs to keep."""
    told = {stem(w) for w in content_words(line.partition(":")[2])}
    for sentence in sentences(said):
        hedged = _HEARSAY.match(sentence.strip())
        if hedged is None:
            continue
        claim = hedged["claim"]
        first = claim.split()[0].strip(",;")
        if first.lower() in THE_USER or first[:1].isupper():
            continue
        if told and told <= {stem(w) for w in content_words(claim)}:
            return True
    return False


# labels that say only that the value is a day: "Date: 19th of December" was saved for "it's the
# 19th of December, I told you yesterday!" (an answer about a husband's birthday; a `make run`
# chat, stop 50), and no later question could find whose day it was; "Season: winter" for "I've
# started doing sea swimming ... every Sunday morning, even in winter." (a `make run` chat, stop 60)
_DATE_WORDS = frozenset("date dates day days when time season seasons month".split())


def only_a_date(line: str) -> bool:
    """Whether ``line``'s label says nothing but that its value is a day ("Date", "Day", "Season")."""
    label = words(line.partition(":")[0])
    return bool(label) and all(w in _DATE_WORDS for w in label)


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
_ONLY_WHEN = frozenset("today tonight now right morning afternoon evening".split())
_FEELING_LABELS = frozenset(
    "missing miss misses feeling feelings feel mood moods emotion emotions worry worries worried stress "
    "stressed sadness sad happiness happy excitement excited nervousness nerves nervous anxiety anxious "
    # how the mind fares today: "Brain: mush after nights" (a `make run` chat, stop 53)
    "brain head mind energy".split()
)


# a value that is a feeling about something: the feeling passes, the something is told in its own line
_FEELS_ABOUT = re.compile(
    r"^\s*(?:(?:a\s+)?(?:bit|little|very|really|so|quite|pretty|rather)\s+)*"
    r"(?:nervous|worried|anxious|stressed|scared|excited|thrilled|upset|sad|happy|glad|frightened|terrified)"
    r"\s+(?:about|for|of|over)\b",
    re.IGNORECASE,
)


# labels of events that stay facts, whenever they happened
_EVENT_LABELS = frozenset(
    "death died funeral birth born birthday wedding married marriage anniversary surgery operation accident "
    "diagnosis graduation engagement".split()
)


# the words an event is told by: "Death: this morning" for "Pwdin died this morning"
_EVENT_WORDS = (
    "death died dies passed funeral",
    "wedding married marry marrying marriage",
    "birth born baby",
    "birthday bday turns turning",
    "surgery operation",
    "engagement engaged",
    "graduation graduate graduates graduating",
    "anniversary",
    "accident crash",
    "diagnosis diagnosed",
)
_SAID_AS = {word: group.split() for group in _EVENT_WORDS for word in group.split()}


# a value that says only that something changed, not what holds now
_CHANGE_ONLY = frozenset(
    "left leaving quit quitting moved moving started starting start starts changed switched over done "
    "pushed back forward brought postponed delayed rescheduled".split()  # "Flight: pushed back" (stop 51)
)


# a meal's label: what one meal was is the day's news, what the user always eats is a fact
MEALS = frozenset("breakfast brunch lunch dinner supper snack meal".split())  # "Tea: lapsang" is a taste
_HABIT = frozenset("every usually always often daily most never".split())
# a time of the day with no day to it: "Admissions: two at 4am" for "we had two admissions at 4am"
_CLOCK = re.compile(r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|\b\d{1,2}:\d\d\b", re.IGNORECASE)
_ANY_DAY = re.compile(r"\d{4}-\d\d")


def passing_state(line: str) -> bool:
    """Whether ``line``'s value says only how the user feels or fares now ("wiped out"), or only
    how good something was: "Favorite music: amazing" for "Went to a gig by the Perkvoans on
    the weekend, they were amazing." (eval chat seed 14), later answered as "Your favorite
    music is amazing"; or its label files a feeling ("Missing: Camille"); or it is the day's
    news: one meal ("Breakfast: pastel de nata") or something at a time of day with no day to
    it ("Admissions: two at 4am"), both saved from "just got off a 12 hour shift ... we had two
    admissions at 4am ... Rui made me pastel de nata for breakfast" (a `make run` chat, stop 51)."""
    label, _, value_text = line.partition(":")
    value = content_words(value_text)
    labelled = content_words(label.rpartition("'s ")[2])  # "Maya's nervousness: about it" (a `make run` chat)
    if value and all(w in _CHANGE_ONLY for w in value):
        return True  # "Practice: left" for "I left the practice, I start at the hospital on Monday"
    if value and all(w in _PASSING for w in value) and set(value) - _ONLY_WHEN:
        return True  # "Birthday: today was rough" (a `make run` chat, stop 58), not "Death: this morning"
    if set(words(label)) & _EVENT_LABELS:
        return False  # when it happened: "Death: this morning" for "Pwdin died this morning" (stop 50)
    if not _ANY_DAY.search(value_text) and not set(words(value_text)) & _HABIT:
        if set(words(label)) <= MEALS or _CLOCK.search(value_text):
            return True
    if _FEELS_ABOUT.match(value_text):
        return True  # "Health: nervous about Henri's operation" (a `make run` chat, stop 52)
    return (bool(value) and all(w in _PASSING for w in value)) or (
        bool(labelled) and all(w in _FEELING_LABELS for w in labelled)
    )


# labels that say only when something begins
_START_LABELS = frozenset("start starts starting begins begin beginning from".split())


def owner_of(line: str) -> str:
    """The name a line's label files it under ("Sam" of "Sam's starts: ..."); "" for none."""
    owner = re.match(r"\s*([\w-]+)['’]s\b", label_of(line) or "")
    return owner[1] if owner else ""


def without_bare_days(lines: Sequence[str]) -> list[str]:
    """``lines`` without a line whose value is only a day that another of them also holds: for
    "Pestia, my brother, comes to stay on Saturday." the pass wrote "Stay: Saturday" beside
    "Guest: comes to stay on Saturday" (eval chat seed 14). A day alone is kept when no other
    line holds it ("Birthday: 5 May"). A label the other line does not say joins it: "our trip
    to the Azores next week? we're going hiking" was written "Trip: to the Azores next week" and
    "Hiking: planned for next week", and when the trip moved the hiking stayed in the old week
    (a `make run` chat, stop 51): it is "Trip: to the Azores next week (...); hiking"."""

    out = list(lines)
    for line in lines:
        days = day_words(line) - {"on", "next", "this"} - PLAN_FILLER
        if not days or not bare_day(line):
            continue
        label = set(words(label_of(line) or "")) - _DATE_WORDS  # "Trip date" says "Trip"
        holders = [o for o in out if o is not line and days <= day_words(o)]
        # "Accra trip postponed: 18th" beside "Flight: out on the 18th" (bench_notes moved-held): the move is said
        if holders and label & _CHANGE_ONLY or any(label <= set(words(o)) for o in holders):
            out.remove(line)
            continue
        holder = next((o for o in holders if not bare_day(o)), None)
        if holder is None:
            others = [o for o in out if o is not line and not bare_day(o)]
            if label - {"s"} - set(words(owner_of(line))) <= _START_LABELS and len(others) == 1:
                # when the one other fact begins: "Starts: January" beside "Job: head chef at a
                # restaurant in Clifton" (a `make run` chat, stop 53) is "Job: ..., from January"
                begins = re.sub(r"^(?:on|in|at)\s+", "", line.partition(":")[2].strip(), flags=re.IGNORECASE)
                out[out.index(others[0])] = f"{others[0]}, from {begins}"
                out.remove(line)
            continue
        held_by = (label_of(holder) or "").lower()
        owner = owner_of(line)
        if owner and owner.lower() in words(holder):  # "Mum's arrival: 19th" beside "Mum: flying in on the 19th"
            out.remove(line)
            continue
        if held_by in RELATIONS | PETS or "'s" in held_by or individual(holder) is not None:
            continue  # "Dentist: tomorrow" is the user's, not "Sister: Ana, visiting tomorrow"'s
        out[out.index(holder)] = f"{holder}; {' '.join(words(label_of(line) or ''))}"
        out.remove(line)
    return out
