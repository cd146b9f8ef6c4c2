"""Text normalisation shared by search and the agent's reply checks: stop words, word
tokens and whitespace.

Words are lowercase ``\\w+`` runs (letters, digits and underscores, any script); content
words are the words that are not ``STOPWORDS``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from difflib import SequenceMatcher

STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have i in is it its me my of on "
    "or our so that the their them they this to was we were what when where which who why with "
    "you your".split()
)

# capitalised because they open a sentence, never names ("Hello, Dana!")
SENTENCE_OPENERS = frozenset(
    "hello hi hey thanks thank sure great sorry welcome okay good well yes absolutely certainly dear glad "
    "nice wonderful congratulations wow here there this that these those your you what anyway anyhow btw".split()
)

_WORD = re.compile(r"\w+")


def _letter_ranges(of_case: str) -> str:
    """The letters past ASCII in the Latin, Greek and Cyrillic blocks whose ``of_case`` ("upper"
    or "lower") method is true, as the ranges of a regex character class."""
    letters = [c for c in range(0xC0, 0x500) if chr(c).isalpha() and getattr(chr(c), f"is{of_case}")()]
    runs: list[list[int]] = []
    for c in letters:
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in runs)


# the capital and small letters of a regex character class, in any of those scripts: the patterns
# that find names say [{UPPER}][{LOWER}]+, never [A-Z][a-z]+, so "my brother José" and "I'm Tomás"
# are names too ("Tomás" was read "Tom", and a greeting "Hello Tomás!" held back for it; a `make
# run` chat, stop 58)
UPPER = "A-Z" + _letter_ranges("upper")
LOWER = "a-z" + _letter_ranges("lower")


# the verbs that make a label a clause, not a name of a thing: "Fosveel is allergic", "Ines has two"
CLAUSE_WORDS = frozenset("is are was were has have had will does do can".split())


def words(text: str) -> list[str]:
    """The lowercase words of ``text``, in order."""
    return _WORD.findall(text.lower())


def longest_common_run(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of the longest run of items that ``a`` and ``b`` share, in order."""
    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


def content_words(text: str) -> list[str]:
    """The words of ``text`` that are not stop words, in order."""
    return [w for w in words(text) if w not in STOPWORDS]


_NOT_PLURALS = frozenset("news this thus plus less bus gas yes has was his its".split())


# a verb's three letters before "-ing" that lost an "e": "mov", "liv", "bak", "hik" (not "fix", "eat", "sit")
_DROPPED_E = re.compile(r"[^aeiou][aeiou][bcdfgklmnprstvz]")


def stem(word: str) -> str:
    """Words compared by their first four letters: "keeps"/"keep", "stayed"/"stay". A word of
    three letters keeps its forms: "flying" and "running" are "fly" and "run", "dogs" is "dog".
    Cut at four, "flying" was "flyi", and "when are we flying out again?" was denied under
    "Trip: moved to fly on the 20th" (a `make run` chat, stop 51)."""
    lower = word.lower()
    base = lower[:-3] if lower.endswith("ing") else lower
    if len(base) == 4 and base != lower and base[-1] == base[-2] and base[-1] not in "aeiouls":
        base = base[:-1]  # "running", "jogging": the doubled letter
    elif _DROPPED_E.fullmatch(base) and base != lower:
        return (
            f"{base}e"  # "moving" is "move": "Where are we moving?" found no "Move: ..." (a `make run` chat, stop 55)
        )
    if len(base) == 3 and base != lower and set(base) & set("aeiouy"):  # "spring" is no "spr"
        return base
    if len(lower) == 4 and lower.endswith("s") and not lower.endswith(("ss", "us", "is")) and lower not in _NOT_PLURALS:
        return lower[:3]
    return lower[:4]


def stems(text: str) -> set[str]:
    """The stems of ``text``'s content words of three letters or more."""
    return {stem(w) for w in content_words(text) if len(w) > 2}


# the words of asking and remembering, and pronouns, said of any topic: they say nothing of
# what a question is about ("Do you remember where she stayed?" is about "stayed")
ASKING_WORDS = frozenset(
    "again ago already anything something ask asked called call can could would will should please ever forget "
    "forgot happen happened idea know knew kind mention mentioned name named names once remember remind recall "
    "said say says sorry still tell telling thing things think thought told way whats memory terrible bad "
    "go goes going went gone see saw seen get got make made take took come came like any also about there here "
    "who whom whose how he she they him her them his hers its their theirs".split()
)

# words of when, not what: "Are you free next Sunday?" tells nobody's news
WHEN_WORDS = frozenset(
    "next last this coming tomorrow today tonight yesterday week weekend month year morning afternoon evening night "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december".split()
)

# words for the people in a user's life: a note labelled with one is about them, not the user
# the words said before a relation: "my big brother", "my wee sister"
KIN_ADJECTIVE = r"(?:little|big|baby|kid|younger|older|elder|youngest|oldest|eldest|twin|wee)"
RELATIONS = frozenset(
    "sister brother sibling mother mum mom mama father dad papa parent parents daughter son child children kid kids "
    "baby wife husband partner spouse fiance fiancee boyfriend girlfriend friend friends bestie grandmother grandma "
    "gran granny nan grandfather grandpa grandad granddaughter grandson grandchild grandchildren grandkids "
    "grandparents godson goddaughter godmother godfather stepsister stepbrother "
    "aunt auntie uncle cousin niece nephew colleague coworker boss "
    "neighbour neighbor flatmate roommate housemate twin stepson stepdaughter stepmother stepfather "
    "visitor guest".split()
)

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_OPENER = re.compile(r"^(?:(?:hey|hi|hello|so|oh|ok|okay|well|and|but|um|also|btw|by the way)\b[,!]?\s*)+", re.I)
_SPEAKS_OF_SELF = re.compile(r"^(?:i|i'm|im|i've|i'd|i'll|my|we|we're|we've|our)\b", re.I)


FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b", re.I)

# a sentence that leaves out its subject speaks of its writer: "Got tickets to see Radiohead next
# June", "Flying to Oslo on Friday", "Off to the dentist tomorrow" (a `make run` chat's plan was
# missed for want of an "I"); a noun in -ing that opens a sentence ("Wedding's on Saturday",
# "Swimming is fun", "Morning all") is no such verb
_ING_NOUNS = (
    "wedding|morning|evening|nothing|something|everything|anything|building|spring|king|ring|thing|pudding|"
    "during|ceiling|string|meeting|feeling|painting|clothing|ping|raining|snowing|pouring|freezing|boiling"
)
_NO_SUBJECT = re.compile(
    rf"^(?:{_OPENER.pattern[1:]})?(?:got|off|booked|can't wait|(?!(?:{_ING_NOUNS})\b)[{LOWER}]+ing)\b"
    r"(?!\s+(?:is|are|was|were)\b|'s\b)",
    re.I,
)


def speaks_of_its_writer(sentence: str) -> bool:
    """Whether ``sentence`` speaks in the first person, or leaves out its subject as people do of
    themselves ("Got tickets for Friday", "Flying to Oslo tomorrow")."""
    return bool(FIRST_PERSON.search(sentence) or _NO_SUBJECT.match(sentence.strip()))


def names_within(sentence: str) -> bool:
    """Whether ``sentence`` holds a capitalised word after its first (a name: "Hello there, Dana
    here"), the pronoun "I" aside."""
    return any(w[:1].isupper() and w.strip(",;:'\"()?!.").isalpha() and w.lower() != "i" for w in sentence.split()[1:])


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split at ``.``, ``!``, ``?`` and line breaks), stripped."""
    return [s.strip() for s in _SENTENCE.findall(text.replace("\u2019", "'")) if s.strip()]


def is_question(sentence: str) -> bool:
    """Whether ``sentence`` asks rather than states: it ends with "?" and, after an opener
    ("Hey, ..."), does not begin by speaking of its writer ("I'm Dana, could you help me?"
    states a name)."""
    if not sentence.rstrip().endswith("?"):
        return False
    return not _SPEAKS_OF_SELF.match(_OPENER.sub("", sentence.strip()))


_ASKING_START = re.compile(
    r"^\W*(?:what|what's|whats|where|where's|who|who's|whom|whose|when|which|why|how|is|are|am|was|were|"
    r"do|does|did|can|could|would|will|should|shall|have|has|had|may|might|tell me|remind me|show me|"
    r"list|find|look up|search|summari[sz]e|recap)\b",
    re.I,
)


# "What a long day." and "How lovely!" open with a question word and ask nothing: the model's
# old "I'm sorry, but I don't know ..." went out to "What a long day. Completely worn out." (eval
# chat seed 6), unheld since the message seemed to ask
_EXCLAMATION = re.compile(
    r"^\W*(?:what\s+an?\b|how\s+(?!(?:do|does|did|can|could|would|will|should|is|are|was|were|am|have|has|had|"
    r"many|much|long|often|old|far|to|about)\b)\w+\W*(?:$|[,!]))",
    re.I,
)


def asks_something(text: str) -> bool:
    """Whether any sentence of ``text`` ends with "?" or opens with a question word or a
    request to find something ("Remind me what we said"); one that ends with "!" or exclaims
    ("What a long day.", "How lovely, ...") does not."""
    return any(
        s.endswith("?") or (_ASKING_START.match(s) and not s.endswith("!") and not _EXCLAMATION.match(s))
        for s in sentences(text)
    )


# a question that asks for help, not for what memory holds: "I keep waking up at 4am, any
# advice?" is answered with things nobody said; "What can I do to make Tui less anxious when
# there's a storm?" was searched for and denied, and "What could I get her as a going-away present?"
# was answered "I don't know what you're asking about." (`make run` chats, stop 42)
_ASKS_FOR_HELP = re.compile(
    r"\b(?:advice|tips?|ideas?|recommend\w*|suggest\w*|should i|shall i|how (?:can|do|could|would|should) i"
    r"|(?:what|which|where) (?:can|could|should|shall|might) (?:i|we)|(?:what's|what is) the best way|any way to"
    # "can you remind me what I should pack for our trip to the Azores next week?" (a `make run` chat, stop 51)
    r"|(?:what|which|where) (?:i|we) (?:should|could|might|ought to)"
    # asked for an opinion: "What do you think I should plant in spring once I'm back on my feet?" was
    # answered "I don't know what you're asking about." (a `make run` chat, stop 61)
    r"|(?:think|reckon) (?:that )?(?:i|we) (?:should|could|ought to)|what would you do"
    # "is there any food i should avoid?" (lactose intolerant): the advice was held as unseen ("avoid dairy
    # products") and the redraft said "Your lactose intolerance is a bit of a challenge!" (stop 61)
    r"|\bany(?:thing|\s+\w+)?\s+(?:that\s+)?(?:i|we)\s+(?:should|ought\s+to)"
    r"|how to"
    # "What would be a nice thing to cook for Declan's birthday on the 19th?" was answered "I don't
    # know what you're asking about Declan's birthday." (a `make run` chat, stop 50)
    r"|(?:what|which)(?:'s|\s+is|\s+(?:would|might|could)\s+be)\s+(?:a|an|some|the)\s+"
    r"(?:good|nice|great|fun|easy|quick|lovely|special|thoughtful|best))\b",
    re.I,
)


# a request for something made up, listed or known in general, not remembered: "Could you list
# eight famous funk bassists for me, numbered?" was held as a claim about the user and redrafted
# "Your funk bass lines are a numbered list of ten."; read for facts, "Give me a numbered list of
# ten funk bass lines I should learn." became "Funk bass lines: a numbered list of ten" (a `make
# run` chat, stop 46)
_REQUEST = re.compile(
    r"^\W*(?:(?:please|ok|okay|so|now|and|also|then|fair|haha|right)\W+)*(?:(?:can|could|would|will) you\s+)?"
    r"(?:please\s+)?(?:give|list|name|write|explain|describe|teach|show me|recommend|suggest"
    r"|tell me (?:a|an|some|about)\b)\b",
    re.I,
)
# asked without a question mark: "any ideas for a chess thing i could do with her this sunday" saved
# "Chess game: with her this Sunday" (a `make run` chat, stop 59); one clause only ("any tips for my
# knee, I'm having surgery in March" states the surgery)
_ANY_IDEAS = re.compile(
    r"^\W*(?:(?:so|and|also|ok(?:ay)?|hey)\W+)*any\s+(?:good\s+|more\s+)?"
    r"(?:ideas?|tips?|suggestions?|advice|recommendations?)\b[^,;:]*$",
    re.I,
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|mine|we|our|us)\b", re.I)


def asks_for_help(question: str) -> bool:
    """Whether ``question`` asks for advice or ideas (or for content, ``_REQUEST``, in a sentence
    that says nothing of the user but "me": "Can you list the places I said I'd visit?" asks
    memory) rather than for what memory holds."""
    return bool(_ASKS_FOR_HELP.search(question)) or any(
        _REQUEST.search(s) and not _FIRST_PERSON.search(s) for s in sentences(question)
    )


def is_bare_request(sentence: str) -> bool:
    """Whether ``sentence`` asks for something to be made or listed and names nobody: "Give me a
    numbered list of ten funk bass lines I should learn." states nothing, yet read for facts it
    became "Funk bass lines: a numbered list of ten", which the next logins greeted with (a `make
    run` chat, stop 46). "Give me ideas for Meera's birthday on Friday" names someone: kept."""
    return bool(_REQUEST.search(sentence) or _ANY_IDEAS.search(sentence)) and not names_within(sentence)


# a sentence of leaving now: "Anyway, I need to sleep before my shift. Bye!" was saved as "Shift:
# before sleep" (a `make run` chat, stop 53)
_LEAVING_NOW = re.compile(
    # "I" may go unsaid: "anyway gotta go, my flatmate Rhys is making pasta" (a `make run` chat, stop 63)
    r"^\W*(?:(?:anyway|ok(?:ay)?|well|right|alright|sorry|oh)\W+)*(?:I(?:'ve|\s+have)?\s+)?(?:really\s+)?"
    r"(?:need|have|got|gotta|must|should|better)\s+(?:to\s+)?(?:go|sleep|head\s+off|get\s+going|get\s+some\s+(?:sleep|rest)"
    r"|get\s+ready|rest|crash|dash|leave|log\s+off|sign\s+off|be\s+off)\b(?!\s+(?:to|for|more|less|better|earlier|properly)\b)",
    re.IGNORECASE,
)


# a sign-off: "nice. ok gotta get back to chapter 3, speak later" answered "What's your graduation
# plan?" and was saved "Graduation plan: to get back to chapter 3, speak later" (a `make run` chat,
# stop 61), and the next login greeted with it
_SIGNING_OFF = re.compile(
    r"\b(?:speak|talk|chat)\s+(?:to\s+you\s+)?(?:later|soon|tomorrow)\W*$|\bcatch\s+you\s+later\b|\bttyl\b"
    r"|^\W*(?:bye|cheerio|goodnight|good\s+night|night|see\s+you|see\s+ya|later)\b(?:\s+for\s+now)?\W*$",
    re.IGNORECASE,
)


def _leaving(clause: str) -> bool:
    return bool(_LEAVING_NOW.search(clause) or _SIGNING_OFF.search(clause))


def is_leaving_now(sentence: str) -> bool:
    """Whether ``sentence`` says its writer must leave or sleep now ("Anyway, I need to sleep
    before my shift.", "ok gotta get back to chapter 3, speak later"), in any of its clauses
    ("right, early start at the bakery, night!"): of the moment, no fact. "I have to go to Leeds
    on Friday" goes somewhere."""
    return _leaving(sentence) or any(_leaving(clause) for clause in _COMMA.split(sentence))


_COMMA = re.compile(r"\s*[,;]\s+")


def not_leaving(sentence: str) -> str:
    """``sentence`` less its clauses that say its writer is leaving now (``is_leaving_now``), ""
    when it ends so: what comes before a sign-off is why ("ok gotta get back to chapter 3, speak
    later" was saved as a graduation plan, a `make run` chat, stop 61); what comes after a first
    "gotta go" is news ("anyway gotta go, my flatmate Rhys is making pasta" still says who the
    flatmate is, a `make run` chat, stop 63)."""
    clauses = _COMMA.split(sentence)
    leaving = [_leaving(clause) for clause in clauses]
    if leaving[-1] or (_leaving(sentence) and not any(leaving)):
        return ""
    return ", ".join(clause for clause, gone in zip(clauses, leaving) if not gone).strip()


# a verb of the past: what happened, not a plan or what someone says (the quotes of recall and the
# copies of search results a question of what happened is answered from)
_PAST = (
    r"was|were|had|did|went|saw|got|made|took|ate|met|bought|brought|came|left|lost|won|gave|kept|"
    r"spent|stayed|found|heard|felt|thought|slept|sat|ran|flew|drove|wrote|read\s+it|\w{3,}ed"
)
_A_PAST_VERB = re.compile(rf"\b(?:{_PAST})\b", re.IGNORECASE)


# words in -ed that say what holds, not what happened: "What is my dog called?"
_NOT_OF_THE_PAST = re.compile(r"\b(?:called|named|based|interested|married|retired|allergic|related)\b", re.I)


def asks_the_past(question: str) -> bool:
    """Whether ``question`` asks about something that happened ("did we book", "kept me up")."""
    return bool(_A_PAST_VERB.search(_NOT_OF_THE_PAST.sub(" ", question)))


# what is known of the user at all: "What do you know about me so far?" has no subject; its "far" was
# one, nothing held it, and the reply to a user with seven core lines was "I don't know anything about
# you yet." (a `make run` chat, stop 57)
ABOUT_THE_USER_AT_ALL = re.compile(
    r"\b(?:know|remember|recall|learn(?:ed|t)?|gathered|found\s+out|told\s+you|tell\s+me)\b[^?.!]*?"
    r"\babout\s+(?:me|myself)\b(?:\s+(?:so\s+far|yet|already|now|by\s+now))?\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def asks_about_the_user_at_all(question: str) -> bool:
    """Whether a sentence of ``question`` asks what is known of the user at all ("What do you
    know about me so far?"): no subject of its own, all the user's facts answer it."""
    return any(ABOUT_THE_USER_AT_ALL.search(asked) for asked in sentences(question))


def tells_the_past(text: str) -> bool:
    """Whether ``text`` tells something that happened (a verb of the past), not a plan or what
    someone says ("Next on my pile is ...", "my cousin says ... is the place to stay")."""
    return bool(_A_PAST_VERB.search(text))


def statements(text: str) -> str:
    """``text`` without its questions ("Hey, what's my brother's name again?" states nothing)."""
    return " ".join(s for s in sentences(text) if not is_question(s))


def questions(text: str) -> str:
    """The questions of ``text``, joined ("" when it asks none): what a message that also chats
    ("Chocolate is a safe bet, she loves it. What's my dog called?") wants to know."""
    return " ".join(s for s in sentences(text) if is_question(s))


def normalize_space(text: str) -> str:
    """``text`` with every run of whitespace made one space, and none at either end."""
    return " ".join(text.split())


def near_duplicate(a: str, b: str, ratio: float = 0.9) -> bool:
    """Whether two messages are the same text or nearly (case and spacing aside); short ones
    (under 20 characters: "ack 1", "ack 10") only when equal."""
    x, y = normalize_space(a).lower(), normalize_space(b).lower()
    if x == y:
        return True
    return min(len(x), len(y)) >= 20 and SequenceMatcher(None, x, y).ratio() >= ratio


def sentence_openings(text: str, n: int = 5, with_denials: bool = True) -> set[tuple[str, ...]]:
    """The first ``n`` words of each sentence of ``text`` that has at least four (without the
    sentences that say they do not know, unless ``with_denials``)."""
    return {tuple(words(s)[:n]) for s in sentences(text) if len(words(s)) >= 4 and (with_denials or not denies(s))}


def sentence_spans(text: str) -> list[tuple[int, str]]:
    """Each sentence of ``text`` that has a word, with the offset where it starts (as
    ``sentences`` splits them)."""
    spans = []
    for match in _SENTENCE.finditer(text.replace("\u2019", "'")):
        sentence = match.group().lstrip()
        if words(sentence):
            spans.append((match.end() - len(sentence), sentence))
    return spans


_PARTIAL_WORD = re.compile(r"\w+$")


def without_partial_word(text: str) -> str:
    """``text`` without the word it may still be writing: a stream's last word can go on
    ("you" may become "young"), so a formula is matched on whole words only."""
    return _PARTIAL_WORD.sub("", text)


def formula_start(message: str, openings: Collection[tuple[str, ...]]) -> int | None:
    """Where the first sentence of ``message`` after its first one starts that opens with the
    words of one of ``openings`` (the openings of an earlier reply's sentences, each of
    ``agent.reply_formula_words`` words; offers of help, of their own lengths), else None. Such a
    sentence is a formula the model copies from reply to reply: "Guskleell is a baker in the
    area. What else would you like to know about him?" closed every reply of a session, to a
    move, small talk and questions alike. The first sentence is the reply's own answer and is
    never counted."""
    lengths = sorted({len(o) for o in openings if o})
    if not lengths:
        return None
    for start, sentence in sentence_spans(message)[1:]:
        said = tuple(words(sentence))
        if any(said[:n] in openings for n in lengths if len(said) >= n):
            return start
    return None


def shares_sentence_opening(message: str, earlier: Sequence[str]) -> str | None:
    """The first sentence of ``message`` that opens with the same five words as a sentence of
    one of ``earlier`` (case and punctuation aside), else None: a reply built on an earlier one
    ("Is there anything I can help you with regarding your parrot?" after "... about Bath?").
    A sentence saying it does not know is not counted: an honest "I'm sorry, but I don't
    remember ..." opens like every other one."""
    said: set[tuple[str, ...]] = set()
    for text in earlier:
        said |= sentence_openings(text)
    for sentence in sentences(message):
        if len(words(sentence)) >= 4 and tuple(words(sentence)[:5]) in said and not denies(sentence):
            return sentence
    return None


def repeats_sentence(message: str, earlier: Sequence[str]) -> str | None:
    """The first sentence of ``message`` (four words or more) that is, nearly, a sentence of one
    of ``earlier`` ("Do you have any plans for the weekend?" at the end of every reply), else
    None. Unlike ``shares_sentence_opening`` a formula's new ending counts as new: "Can you tell
    me more about the bookshelf?" after "Can you tell me more about the lab bench?". A short
    sentence (under six words) counts only when what is repeated makes up half the message: "What
    are the symptoms?" closing a question about an allergy, after one about a door sensor, is
    no repeated reply. A sentence saying it does not know is not counted."""
    said = [s for text in earlier for s in sentences(text) if len(words(s)) >= 4]
    own = sentences(message)
    repeated = [s for s in own if len(words(s)) >= 4 and not denies(s) and any(near_duplicate(s, e) for e in said)]
    mostly_repeated = 2 * sum(len(words(s)) for s in repeated) >= sum(len(words(s)) for s in own)
    return next((s for s in repeated if len(words(s)) >= 6 or mostly_repeated), None)


DENIAL = re.compile(
    r"\b(?:(?:do|did|does)\s*n[o']t\s+(?:know|have|find|remember|recall)"
    r"|(?:couldn't|could\s+not|can't|cannot|can\s+not)\s+(?:find|recall|remember|say|tell)"
    r"|(?:have|has)\s*n[o']t\s+(?:told|mentioned|said|shared)"
    r"|(?:have|has)\s+no\s+(?:information|record|memory|idea)|no\s+(?:information|record|idea)"
    r"|not\s+sure|unable\s+to\s+(?:find|recall)|do\s+not\s+know|don't\s+know|not\s+(?:aware|mentioned))\b",
    re.IGNORECASE,
)


def denies(reply: str) -> bool:
    """Whether a reply says it does not know or found nothing."""
    return bool(DENIAL.search(reply.replace("’", "'")))


# the words people ask about a saved line with when they do not say its label: "Which town am
# I living in now?" for "Home: Stulbreenbury", "What do I do for a living?" for "Work: ..."
# (no bare question word: "where" quoted the home line beside "Where did I go to university?",
# never said, and the model answered "You went to university in Shassoettebury." (eval chat seed 13))
# animals people keep: a line labelled with one is asked about as a pet ("What's my pet's name again?"
# found nothing under "Ferret: Stouwia", and the reply was "Stouwia's name is Stouwia.", eval chat seed 14)
PETS = frozenset(
    "cat dog pet puppy kitten parrot rabbit bunny hamster gerbil guinea pig horse pony fish goldfish bird budgie "
    "tortoise turtle snake lizard goat chicken hen ferret mouse rat chinchilla gecko iguana cow sheep duck donkey "
    "alpaca canary cockatiel".split()
)
# a dog or cat saved by its breed is asked about as a dog or a cat: "what's my dog called again?"
# beside "Collie: Bran" was answered "I don't know what you're asking about your dog." (a `make
# run` chat, stop 50)
BREEDS = {
    "dog": frozenset(
        "collie labrador retriever spaniel terrier poodle beagle dachshund greyhound whippet lurcher pug husky "
        "bulldog corgi schnauzer chihuahua sheepdog mastiff rottweiler doberman dalmatian springer cockapoo "
        "labradoodle westie staffie alsatian".split()
    ),
    "cat": frozenset("siamese persian tabby ragdoll bengal sphynx burmese".split()),
}
PETS = PETS | BREEDS["dog"] | BREEDS["cat"]
_ANIMAL_WORDS = " ".join(sorted(PETS | {"pets", "animal", "animals"}))
# a journey is asked about by any of its names: "When is our trip?" under "Destination: Marrakech in
# April" got no notice and was denied (a `make run` chat, stop 44)
_TRIP_WORDS = "trip trips travel travelling traveling holiday holidays vacation vacations journey flight"
# a diet is asked about by what it is a kind of: "What did I tell you about my wife's diet?" under
# "Wife: Ola, vegan" was denied, no line saying "diet" (a `make run` chat, stop 53)
DIETS = frozenset(
    "vegan vegans vegetarian vegetarians veggie pescatarian pescetarian keto paleo halal kosher teetotal".split()
)
_DIET_WORDS = "diet diets eat eats eating food foods meat"
_FAMILY_WORDS = "family families relatives relations"
_NOT_FAMILY = frozenset(
    "friend friends bestie colleague coworker boss neighbour neighbor flatmate roommate housemate visitor guest".split()
)
# the names one relative goes by: "When is my dad's operation?" was denied under "Father: Dad, has hip
# replaced on the 3rd of february" (a `make run` chat, stop 63), "dad" asking nothing of "Father"
_SAME_KIN = (
    "father dad papa daddy da",
    "mother mum mom mama mummy mommy ma",
    "grandmother grandma gran granny nan nana",
    "grandfather grandpa grandad granddad gramps",
)
_KIN_NAMES = {name: group for group in _SAME_KIN for name in group.split()}
_YOUNG = frozenset(
    "daughter son child children kid kids baby granddaughter grandson grandchild grandchildren grandkids".split()
)
_FOOD_AVOIDED = "allergic allergy allergies intolerant intolerance eat food foods avoid take"
_OPERATION_WORDS = "operation operations op surgery surgeries procedure hospital"
_WEDDING_WORDS = "wedding weddings married marry marriage bride groom"
LABEL_TOPICS = {
    **{label: _TRIP_WORDS for label in ("trip", "travel", "destination", "holiday", "vacation", "journey", "flight")},
    **{animal: "pet pets animal animals" for animal in PETS},
    **{breed: f"{kind} {kind}s pet pets animal animals" for kind, breeds in BREEDS.items() for breed in breeds},
    **{kind: f"pet pets animal animals {' '.join(sorted(breeds))}" for kind, breeds in BREEDS.items()},
    # and a line labelled "Pet" is asked about by the animal: "Remind me, what is my cat called?"
    # under "Pet: Gollse" was met with "What do you remember about it?" (eval chat seed 15)
    "pet": _ANIMAL_WORDS,
    "pets": _ANIMAL_WORDS,
    "home": "live living lives town city village house flat based moved move",
    # an operation is asked about by any of its names: "When is my dad's operation?" was denied under
    # "Father: Dad, has hip replaced on the 3rd of february (2027-02-03)" (a `make run` chat, stop 63)
    **{
        word: "operation operations op surgery procedure replaced replacement"
        for word in ("operation", "operations", "op", "surgery", "procedure", "replaced", "replacement")
    },
    # where the user grew up (``fact_homes.childhood_home``), not where they live
    "hometown": "grow grew grown growing raised born childhood",
    **{
        label: "job jobs work working profession career trade"
        for label in ("work", "occupation", "profession", "job", "career", "employment")
    },
    # "is there any food i should avoid?" under "Lactose intolerance: yes" was searched, found nothing
    # and denied (a `make run` chat, stop 61)
    **{label: _FOOD_AVOIDED for label in ("allergy", "allergies", "intolerance", "intolerances", "intolerant")},
    "health": f"{_FOOD_AVOIDED} ill sick wrong matter",
    # "What's wrong with Bamse?" under "Bamse's condition: hip pain" was denied for "wrong" (a
    # `make run` chat, stop 60)
    **{
        label: "ill sick wrong matter health vet doctor"
        for label in ("condition", "illness", "injury", "diagnosis", "treatment", "symptoms", "symptom")
    },
    # "What do you know about my family?" was answered "I don't know anything about your family." beside
    # "Husband: Jorge", "Daughter: Carla" and "Carla's children: ..." (a `make run` chat, stop 60)
    **{relation: f"{_FAMILY_WORDS} {_KIN_NAMES.get(relation, '')}".strip() for relation in RELATIONS - _NOT_FAMILY},
    **{young: f"{_FAMILY_WORDS} kids children grandkids grandchildren little ones" for young in _YOUNG},
    "hobby": "hobby hobbies free spare evenings weekends",
    # "Do you remember when my operation is?" under "Knee replacement scheduled: January 14th" was
    # denied: only "Health: ... after the operation" was shown (a `make run` chat, stop 61)
    **{label: _OPERATION_WORDS for label in ("surgery", "operation", "op", "procedure", "replacement", "transplant")},
    # "do you remember what my role is at the wedding?" was denied beside "my little sister Anjali is
    # getting married in June and I'm the maid of honour" (a `make run` chat, stop 62)
    **{
        label: _WEDDING_WORDS
        for label in (
            *_WEDDING_WORDS.split(),
            *"marrying engaged engagement fiance fiancee fiancé fiancée bridesmaid bridesmaids honour honor".split(),
        )
    },
    "band": "gig gigs concert concerts music",
    "music": "gig gigs concert concerts band",
}
_FOR_A_LIVING = re.compile(r"\bfor a living\b", re.I)
# "Which band did I see live a while ago?" asks about a gig, not a home: it was met with "Home: ..."
# alone (eval chat seed 12), and the model said it did not know without searching
_SEEN_LIVE = re.compile(r"\b((?:see|saw|seen|seeing|watch\w*|play\w*|hear|heard)(?:\s+\w+){0,3}\s+)live\b", re.I)
_OWN_NAME = re.compile(r"\b(?:my name|who am i|what am i called|call me)\b", re.I)
# "When is Sundgroa coming over?" asks about a visit: its "over" was taken for the detail asked,
# no message said it, and the visit "this weekend" was denied (bench_honesty seed 50, stop 43)
# so is "coming to stay": "Brother: Callum, ..." and "My brother Callum is coming to stay next
# weekend" in view, "When is Callum coming over?" was denied (a `make run` chat, stop 44)
# a flight's end is an arrival: "When did my mum arrive?" was denied beside "Mum landed safely!" and
# "Mum: flying in from Accra next Friday" (a `make run` chat, stop 59)
_ARRIVING = re.compile(r"\b(?:land(?:s|ed|ing)?|fl(?:y|ies|ying|ew) in|g(?:et|ets|ot|etting) in)\b", re.I)
_COMING_OVER = re.compile(
    r"\b(?:com(?:e|es|ing)|pop(?:s|ping)?|drop(?:s|ping)?) (?:over|round|around|by)\b|\bcom(?:e|es|ing) to stay\b", re.I
)


# the words a death is told with: "passed away", "died", and "passed" alone as people say it ("my
# wife Bríd passed two years ago", a `make run` chat, stop 63, was saved "Wife: Bríd"), not "passed
# his driving test"
DIED = (
    r"(?:passed\s+away|passed\s+on|died|passed(?=\s*(?:[.,;!?]|$)|\s+(?:a\s+(?:few|couple)\b|an?\s+(?:year|month|week)"
    r"|(?:one|two|three|four|five|six|seven|eight|nine|ten|\d+|several|some|many|last|this|in|recently|earlier|back"
    r"|just|suddenly|peacefully|ago)\b)))"
)
# words that tell of a death: a line that says one is a loss, never a cheerful note
DEATH = re.compile(rf"\b(?:{DIED}|lost)\b", re.IGNORECASE)


def label_topics(label: str) -> set[str]:
    """The words people ask about a line labelled ``label`` with (``LABEL_TOPICS``)."""
    return {w for word in words(label) for w in LABEL_TOPICS.get(word, "").split()}


def said_otherwise(word: str) -> list[str]:
    """The other labels ``LABEL_TOPICS`` asks about with the same words as ``word``: "married",
    "bride", "maid of honour"'s "honour" for "wedding", "job" and "career" for "work"."""
    topics = LABEL_TOPICS.get(word)
    return [label for label, said in LABEL_TOPICS.items() if topics is not None and said == topics and label != word]


def stems_said_otherwise(text: str) -> set[str]:
    """The stems of ``text``'s content words and of the words people say the same thing with
    (``said_otherwise``): "wedding" is also "married"."""
    said = content_words(text)
    return {stem(w) for w in said} | {stem(other) for w in said for other in said_otherwise(w)}


def kinds_named(text: str) -> set[str]:
    """The words people ask about what ``text`` names as one kind of a thing with: "vegan" is a
    diet, asked about as "diet" or by what one eats."""
    return {w for word in words(text) if word in DIETS for w in _DIET_WORDS.split()}


# "where did I say I was from?" asks where home is: no line says "from" (a `make run` chat, stop 61:
# "Home: Glasgow" saved, the reply "I know you said you were born in Aberdeen, but ...")
_FROM_WHERE = re.compile(r"\bwhere\b[^.!?]*?\bfrom\b", re.IGNORECASE)


def topic_words(question: str) -> str:
    """``question`` with its idioms said as the topic they ask about: "for a living" is work,
    "see ... live" a gig (not a home), "coming over" a visit, "where ... from" a home."""
    question = _FROM_WHERE.sub(lambda m: f"{m[0]} home hometown", question)
    question = _COMING_OVER.sub("coming to visit", question)
    question = _ARRIVING.sub(r"\g<0> arrive", question)
    return _SEEN_LIVE.sub(r"\1gig", _FOR_A_LIVING.sub("for work", question))


# "favourite" says nothing alone: "What's my favourite football team?" was begun "Your favourite
# food" under "Favourite food: pad thai" (bench_honesty seed 33)
BARE_LABEL_STEMS = frozenset({"favo"})
_REMEMBERING = frozenset(
    stem(w) for w in "remember remind recall know knew tell told said say mention mentioned forget forgot".split()
)


_SIBLINGS = frozenset("sister sisters brother brothers sibling siblings".split())
_PARENTS = frozenset("mum mom mother dad father parent parents".split())
_CHILDREN = frozenset("child children kid kids baby babies".split())
# a relative said as two: "What's my niece called?" is answered by "Sister's baby: Rosa" (a `make
# run` chat denied it), a nephew by a brother's son, an aunt by a parent's sister
TWO_WORD_KIN: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "niece": (_SIBLINGS, _CHILDREN | {"daughter", "girl"}),
    "nieces": (_SIBLINGS, _CHILDREN | {"daughters", "girls"}),
    "nephew": (_SIBLINGS, _CHILDREN | {"son", "boy"}),
    "nephews": (_SIBLINGS, _CHILDREN | {"sons", "boys"}),
    "aunt": (_PARENTS, frozenset({"sister"})),
    "auntie": (_PARENTS, frozenset({"sister"})),
    "uncle": (_PARENTS, frozenset({"brother"})),
    "grandchild": (_CHILDREN | {"son", "daughter"}, _CHILDREN | {"son", "daughter", "girl", "boy"}),
    "granddaughter": (_CHILDREN | {"son", "daughter"}, _CHILDREN | {"daughter", "girl"}),
    "grandson": (_CHILDREN | {"son", "daughter"}, _CHILDREN | {"son", "boy"}),
}


def names_the_relative(text: str, question: str) -> bool:
    """Whether ``text`` speaks of a relative the question names in one word in the two it takes
    to say them otherwise ("niece": a sister's or brother's baby, daughter or child)."""
    said = words(text)
    for word in set(words(question)) & TWO_WORD_KIN.keys():
        relatives, children = TWO_WORD_KIN[word]
        # two words, not one in both kinds: "Son: Callum" says no grandson (a `make run` chat, stop 61)
        related = [i for i, w in enumerate(said) if w in relatives]
        young = [i for i, w in enumerate(said) if w in children]
        if any(i != j for i in related for j in young):
            return True
    return False


def lines_about(question: str, lines: Sequence[tuple[str, str]], *, theirs: bool = True) -> list[str]:
    """The core-memory ``(label, line)`` pairs a question asks about, as ``[label] line``: they
    share a word with it (compared by their first four letters: "allergic" finds "Allergy:
    shellfish"), or the question uses a word people ask about its label with. "Name" alone
    matches only a question about the user's own name: "What's my mother's name?" is not
    answered by "Name: Dana", nor "favourite" alone "Favourite food: ...". The words of
    remembering say nothing of the topic: "Do you remember my blood group?" found the persona's
    "I remember what matters ..." (eval chat seed 15), shown first among a search's results as
    a line that matched. A niece is asked about by her parent and child words
    (``names_the_relative``: "Sister's baby: Rosa"). With ``theirs``, the lines under the name of
    someone a found line files follow (``their_lines``)."""
    question = topic_words(question)
    asked = stems(question) - _REMEMBERING - BARE_LABEL_STEMS
    if not _OWN_NAME.search(question):
        asked.discard("name")
    heard = set(words(question))
    found = []
    # whose a line under a name's "'s" is, by the relation a line files them under: "Callum's son: Rory"
    # beside "Son: Callum" is a son's son, a grandson (a `make run` chat, stop 61)
    filed = {
        m["name"]: m["relation"]
        for _, line in lines
        if (m := _FILED_AS_RELATION.match(line)) and m["relation"].lower() in RELATIONS
    }
    for label, line in lines:
        # a breed in the value says the kind too: "Home: Leeds (shared flat with Pepper, a very vocal
        # Siamese)" was denied to "what's my cat called again?" (a `make run` chat, stop 50)
        about = label_topics(line.partition(":")[0]) | {
            kind for kind, breeds in BREEDS.items() if breeds & set(words(line.partition(":")[2]))
        }
        owner = _NAMES_OWN.match(line)
        whose = f"{filed[owner[1]]} " if owner and owner[1] in filed else ""
        if _shares_a_word(asked, heard, line) or heard & about or names_the_relative(whose + line, question):
            found.append(f"[{label}] {line}")
    return found + their_lines(found, lines) if theirs else found


CAPITALISED = re.compile(rf"\b[{UPPER}][{LOWER}]+\b")
_FILED_AS_RELATION = re.compile(rf"^\s*(?P<relation>\w+)\s*:\s*(?P<name>[{UPPER}][{LOWER}]+)\b")  # "Son: Callum"
_NAMES_OWN = re.compile(rf"^\s*([{UPPER}][{LOWER}]+)['’]s\b")  # a label under a name's "'s": "Callum's son"
NAME_PREFIX = 5  # letters a word must share with a name for the two to be one


def _shares_a_word(asked: set[str], heard: set[str], line: str) -> bool:
    """Whether the question's stems ``asked`` (its words ``heard``) hold a word of ``line``. A
    name is its word, not its first four letters: "hmm, something simple, she's only little.
    maybe biscuits?" quoted "Pet: Biscotte" to the model, which answered "Biscotte is a small
    dog. ..." (a `make run` chat, stop 52); a word that shares ``NAME_PREFIX`` letters with it
    ("Teaching" for "Work: Teacher") still does."""
    shared = asked & stems(line)
    label, _, value = line.partition(":")
    # a name's "'s" in the label is a name too: "called" is no word of "Callum's son" (stop 61)
    owner = _NAMES_OWN.match(label)
    names = {w.lower() for w in CAPITALISED.findall(value)} | ({owner[1].lower()} if owner else set())
    plain = stems(label[owner.end() :] if owner else label) | stems(CAPITALISED.sub(" ", value))
    by_name = shared - plain
    if shared != by_name:
        return True
    return any(
        name == word or (len(name) >= NAME_PREFIX and word[:NAME_PREFIX] == name[:NAME_PREFIX])
        for name in names
        for word in heard
        if stem(word) in by_name
    )


_FILED_NAME = re.compile(rf"^\[\w+\]\s*[^:']+:\s*([{UPPER}][{LOWER}]+)\b")


def their_lines(found: Sequence[str], lines: Sequence[tuple[str, str]]) -> list[str]:
    """The lines about someone a ``found`` line files by name ("Daughter: Zosia"), under their
    name ("Zosia's hobby: obsessed with dinosaurs"): asked "what's my daughter into these days?"
    the assistant saw only "Daughter: Zosia" and said it knew nothing of her interests (a `make
    run` chat, stop 49)."""
    names = {m[1].lower() for m in map(_FILED_NAME.match, found) if m}
    return [
        f"[{label}] {line}"
        for label, line in lines
        if line.partition("'s ")[0].strip().lower() in names and f"[{label}] {line}" not in found
    ]


# "Hi! I'm Pasoard.", "My name is Lena", "Folpreette here", "this is Tomasz"
_INTRODUCES = re.compile(
    rf"\b(?i:i'm|i am|my name is|my name's|name's|call me|this is)\s+(?P<a>[{UPPER}][{LOWER}]+)"
    rf"|\b(?P<b>[{UPPER}][{LOWER}]+)\s+here\b",
)
_GREETINGS = frozenset("hi hello hey".split())


def introduced_name(message: str) -> str | None:
    """The name ``message``'s writer gives themself ("Hi! I'm Pasoard." -> "Pasoard"), if any."""
    for match in _INTRODUCES.finditer(message):
        name = match["a"] or match["b"]
        if name.lower() not in _GREETINGS:
            return name
    return None


# a line whose value is a name, maybe with more after a comma or bracket: "Partner: Tomasz",
# "Pet: Rex, a cat"; not "Allergy: Tomasz is allergic to shellfish"
_NAME_VALUE = re.compile(rf"^\s*([{UPPER}][{LOWER}]+)\s*(?:$|[,(;]|-\s)")


def named_as_known(question: str, lines: Sequence[str]) -> str:
    """``question`` with each person or animal a core line names by its label said as the
    user's ("What's the name of Tomasz's bakery?" under "Partner: Tomasz" reads "What's the name
    of my partner Tomasz's bakery?"). Asked by name, a question about the user's people spoke
    of no "my", so no check of questions about the user saw it, and a `make run` chat answered
    it from nothing ("Tomasz's bakery is called 'The Baker's Delight'.", stop 43). The user's
    own name and a name the question already gives with its label are left as they are."""
    done: set[str] = set()
    for line in lines:
        label, colon, value = line.partition(":")
        found = _NAME_VALUE.match(value)
        said = words(label)
        if not colon or found is None or not 0 < len(said) <= 3 or said == ["name"]:
            continue
        name = found[1]
        if set(said) <= set(words(question)) or name in done:
            continue
        done.add(name)
        question = re.sub(rf"\b{name}\b", f"my {label.strip().lower()} {name}", question)
    return question
