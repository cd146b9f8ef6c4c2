"""Perspective guard: once a turn, an answer that speaks as the user is held back, and the model
is told to answer with "you".

Asked about the user, a 1.5B model often takes the question's words in its own mouth: "What am
I allergic to?" got "I'm allergic to penicillin.", "What car do I drive?" got "I drive a Toyota
Camry.", "Which band did I see live?" got "Yes, I saw Tragreettes live". The answer names the
right thing and still reads as the assistant talking about itself; "What do I do for a
living?" got "I'm a nurse, which means I work in a hospital". Held: a sentence of the draft
that begins with "I" and repeats a content word of the user's question about themself or of a
fact the human block holds about them ("Work: nurse"), or two of what the user just said about
themself (a retelling: "I teach chemistry in Ghent." for "I'm Marta. I teach chemistry in
Ghent."), unless it says the assistant does not know ("I don't remember your allergy"), or the
question asks for the assistant's own view ("Do you think I should learn to swim?": "I think
so"). A reply to news that asks nothing is held the same way for a word of a saved fact: "I
love teaching maths!" answered a maths teacher's "Honestly the best part is when a kid finally
gets fractions." The redraft may not begin a sentence with "I" or "My" (``Hold.banned_openers``):
told to say "you", one still went "I'm looking forward to baking a lemon cake tomorrow."

Held too: a sentence that copies one of the user's first-person phrases ("my dad's car", "Adam
and I") from their message, wherever it stands: "Where did Adam and I grow up?" got "Adam and I
grew up in Wroclaw." in a `make run` chat. Nor may the redraft say "my" anywhere
(``Hold.banned_words``; "I" too after "Adam and I"): held for speaking as the user, the redraft
of "What happened with my dad's car?" went "... resulted in my dad's car being driven into a
pond."

At a login there is no question, and the greeting is written from the notes core memory holds
about the user: a `make run` greeting read "Work: pharmacist in Leicester" and "Speech: I'm
giving a speech" and said "Hello, Priya! ... I'm a pharmacist in Leicester and I'm giving a
speech." There, a sentence that begins with "I" and says a word of one of those notes is held.

Nor may a reply speak of the user by name as of someone else: "Guskleel is a baker based in
Vurdrosreanton. What else would you like to know about him?" answered small talk in an eval
chat session, and "Guskleel is ..." then came into reply after reply, answers included
("Guskleel's parrot is called Brallhaette."). A sentence with the user's saved name followed
by "'s" or by a word, not said to them ("Hello Guskleel, ..."), is held the same way, in a
reply to a message that asks nothing and in a greeting: held in answers, "Brallhaette is
Guskleel's parrot." was rewritten "I don't know what your parrot is called" (seed 6); so is
one that calls a relation the user named its own ("Quarksian is a sister of mine." for
"Quarksian, my sister, comes to stay on Saturday.").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target
from memgpt_local.agent.policy.greet_by_name import known_name, user_facts
from memgpt_local.agent.policy.repeat_guard import parrots
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.schemas import SearchHit
from memgpt_local.text import (
    FIRST_PERSON,
    LOWER,
    RELATIONS,
    SENTENCE_OPENERS,
    UPPER,
    asks_about_the_user_at_all,
    asks_something,
    content_words,
    denies,
    introduced_name,
    is_question,
    names_within,
    normalize_space,
    questions,
    sentence_spans,
    sentences,
    speaks_of_its_writer,
    words,
)

# a question that asks the assistant's own view or help ("Do you think I should ...?"): "I think" answers it
# not "do you remember", which asks what the assistant knows of the user: "Good. And where am I from, do
# you remember?" got "I am from Cork." (a `make run` chat, stop 61)
_ASKS_THE_ASSISTANT = re.compile(
    r"\b(?:do|did|can|could|would|will|should|are|have)\s+you\b"
    r"(?!\s+(?:still\s+)?(?:remember|recall|remind|know\s+(?:where|what|when|who|how|which|my|if|whether)))",
    re.IGNORECASE,
)
# the assistant speaking of its own doing, not the user's life: "I found nothing about keys."
_ASSISTANT_ACTS = re.compile(
    # "I only know about ...": a `make run` chat (stop 60) held "I only know about the daughter Sofie ..."
    r"^(?:(?:yes|no|well|oh|sure),?\s+)?(?:i|i've|i have)\s+(?:(?:only|just|also|already|still|do)\s+)?"
    r"(?:found|searched|looked|checked|remember|recall"
    r"|know|see|can|could|will|would|think|believe|noted|saved|understand|hope)\b"
    r"|^(?:i'm|i am)\s+(?:sorry|glad|happy|not sure|here)\b"
    # thanks for what was told: "Thanks for telling me that Leo's visit got moved to Sunday ..." (the
    # start unasked_denial asks for) was held as the user's words said as the assistant's (a `make
    # run` chat, stop 54)
    r"|^(?:thanks|thank\s+you)\b",
    re.IGNORECASE,
)
# what no sentence of the redraft may begin with: told to say "you", a redraft still went "I'm looking
# forward to baking a lemon cake tomorrow." (a `make run` chat, stop 37)
SPEAKING_AS_I = ("I", "My")
SPEAKING_AS_WE = ("We", "Our")
_SPEAKS_AS_WE = re.compile(r"^\W*(?:(?:yes|no|well|oh|sure|so),?\s+)?(?:we|we're|we've|we'll|our)\b", re.IGNORECASE)
# "we" that takes in the assistant: "what did we talk about?"
_OUR_TALK = re.compile(r"\b(?:talk\w*|discuss\w*|chat\w*|spoke|speak\w*|said|say|mention\w*|conversation)\b", re.I)
_USERS_WE = re.compile(r"\b(?:we|we're|we've|our|us)\b", re.IGNORECASE)
_TO_THE_USER = re.compile(r"\b(?:you|you're|your|yours)\b", re.IGNORECASE)
# "My business is running a small bakery in Porto." answered "what's my business?" in a `make run` chat
_SPEAKS_AS_I = re.compile(r"^(?:(?:yes|no|well|oh|sure),?\s+)?(?:i|i'm|i am|i've|i have|i was|my)\b", re.IGNORECASE)


# news told without "I" in the past tense: "Went to a gig by the Drorbroels on the weekend" came back as
# "I went to a gig by the Drorbroels on the weekend and they were amazing!" (eval chat seed 6). Kept
# here, not in ``text.speaks_of_its_writer``: there it would send such small talk to the fact notes
_PAST_WITHOUT_SUBJECT = re.compile(
    r"^(?:(?:just|finally|also|so|well|oh)\s+)?(?:went|saw|had|took|made|spent|tried|met|bought|watched|visited|"
    r"baked|cooked|ran|walked|played|heard|found|lost|won|moved|left|came|finished|started|booked|caught|did)\b",
    re.IGNORECASE,
)


# the user's chore said as the assistant's: "I'm sorry to hear that. I'll need to find another way to heat
# the house." answered "Ugh, the boiler broke again and the engineer can't come until Friday." (bench_replies,
# stop 56, before and after that stop's changes); what the assistant itself must do is to know, ask or look
_TAKES_ON_A_CHORE = re.compile(
    r"^(?:(?:so|well|oh|ok|okay),?\s+)?"
    r"(?:i'll\s+(?:need|have)\s+to|i\s+will\s+(?:need|have)\s+to|i\s+(?:need|have)\s+to|i\s+must"
    r"|i(?:'ve|\s+have)\s+got\s+to|i(?:'m|\s+am)\s+going\s+to\s+(?:need|have)\s+to"
    # "Sherpraiick is coming to stay on Saturday. I'll make sure to have everything ready for her." (eval
    # chat seed 38, stop 56's code)
    r"|i(?:'ll|\s+will)\s+make\s+sure\s+(?:to|that|i))\s+"
    r"(?!(?:know|ask|check|look|search|remember|keep|note|say|tell|admit|agree|think|wait|see|hear|find\s+out)\b)",
    re.IGNORECASE,
)


def takes_on_a_chore(sentence: str) -> bool:
    """Whether ``sentence`` says, as the assistant's, something the user must do about their
    life ("I'll need to find another way to heat the house.")."""
    return bool(_TAKES_ON_A_CHORE.match(sentence.strip()))


def _of_the_writer(sentence: str) -> bool:
    return speaks_of_its_writer(sentence) or bool(_PAST_WITHOUT_SUBJECT.match(sentence.strip()))


_CLIPPED_AM = re.compile(r"\b([Ii])['’]m\b")


def _unclipped(text: str) -> str:
    """``text`` with "I'm" said as "I am": "Do you remember where I'm from?" is asked of "I am from Cork."."""
    return _CLIPPED_AM.sub(r"\1 am", text)


def speaks_as_user(draft: str, question: str, known: Iterable[str] = ()) -> str | None:
    """The sentence of ``draft`` that answers the user's question about themself in the first
    person (with its words, or with words of ``known``: the user's saved facts), or that
    retells what the user said of themself as its own (two words or more of their statements:
    "I teach chemistry at a secondary school in Ghent." for "Hi! I'm Marta. I teach chemistry
    at a secondary school in Ghent"), else None."""
    if not _ASKS_THE_ASSISTANT.search(question):
        for sentence in sentences(draft):
            if takes_on_a_chore(sentence):
                return sentence
    asked = [
        s
        for s in sentences(question)
        if is_question(s) and FIRST_PERSON.search(s) and not _ASKS_THE_ASSISTANT.search(s)
    ]
    # "Architect by trade, based in Binaanton." tells of its writer by naming a place: it came back
    # as "I'm an architect based in Binaanton." (eval chat seed 12)
    told = [s for s in sentences(question) if not is_question(s) and (_of_the_writer(s) or names_within(s))]
    # the user's saved facts count for a question about them and for news that asks nothing: "I love
    # teaching maths!" answered "Honestly the best part is when a kid finally gets fractions." from a
    # maths teacher (a `make run` chat, stop 37); to "any cake ideas?" the assistant may like cake
    # and for a question about the user at all: "What do you know about me so far?" got "I remember
    # that you're a teacher in Valencia. I have a partner Ana, ..." (a `make run` chat, stop 58)
    about_them = asks_about_the_user_at_all(question)
    facts = set(known) if asked or about_them or not asks_something(question) else set()
    # the user's "we" (they and their people), said back as the assistant's: "Where are we moving
    # and when?" got "We're moving to Bath in April." (a `make run` chat, stop 55); "Where are we going
    # in April?" got "... I only know that we're going to visit your brother Cian in April." and "We
    # have a old dog called Bamse" "I'm glad we have a dog named Bamse." (stop 60)
    ours = {w for s in sentences(question) if users_we(s) for w in content_words(s)}
    if not asked and not told and not facts and not ours:
        return None
    asked_words = {w for s in asked for w in content_words(_unclipped(s))} | facts
    told_words = {w for s in told for w in content_words(s)}
    for sentence in sentences(draft):
        own = _in_first_person(_unclipped(sentence))  # "I'm a helper, and you are a nurse.": the words before "you"
        if own and (asked_words & own or len(told_words & own) >= 2) or echoes(sentence, told):
            return sentence
        if ours and users_we(sentence) and ours & set(content_words(sentence)) and not _QUOTES_THEM.search(sentence):
            return sentence
    return None


# the user's words quoted as theirs: "You told me: Last night we saw The Shoulundvoels live ..."
_QUOTES_THEM = re.compile(r"\byou\s+(?:told\s+me|said|mentioned|wrote)\b", re.IGNORECASE)


def users_we(sentence: str) -> bool:
    """Whether ``sentence`` says "we", "our" or "us" of anything but the talk itself ("what did we
    talk about?" takes in the assistant)."""
    return bool(_USERS_WE.search(sentence)) and not _OUR_TALK.search(sentence)


def echoes(sentence: str, told: Iterable[str]) -> bool:
    """Whether ``sentence`` says again, in the user's own first person, most of one of the
    user's sentences ``told``: "My sister Quarksian is visiting this weekend." and "Big news:
    I've moved from ... to ...!" came back word for word as replies, where ``_in_first_person``
    looks only at sentences that start with "I". Two thirds of the told sentence's content
    words (two at least), a first-person word or no subject ("Went to a gig ..."), and no "you"
    or "your". A sentence in which the
    assistant speaks of its own feeling or doing is its own, not an echo: "I'm sorry to hear
    that Brallhaette is chewing everything again." answered "My parrot Brallhaette has been
    chewing everything again." (eval chat seed 6, held, and the redraft asked the parrot "You
    have been chewing everything again, Brallhaette?")."""
    if not _of_the_writer(sentence) or _TO_THE_USER.search(sentence) or _ASSISTANT_ACTS.match(sentence.strip()):
        return False
    own = set(content_words(sentence))
    for said in told:
        words = set(content_words(said))
        shared = len(words & own)
        if shared >= 2 and 3 * shared >= 2 * len(words):
            return True
    return False


# the user's words for their own people and things ("my dad's car", "Adam and I"), which an answer copies
# as they stand: "Where did Adam and I grow up?" got "Adam and I grew up in Wroclaw." and "What happened
# with my dad's car?" got "... resulted in my dad's car being driven into a pond." (a `make run` chat)
_MY_PHRASE = re.compile(r"\bmy\s+[\w']+", re.IGNORECASE)
_AND_I = re.compile(r"\b(?!you\b)[\w']+\s+and\s+I\b|\bI\s+and\s+(?!you\b)[\w']+", re.IGNORECASE)
# what a redraft may not say anywhere after such a copy (``Hold.banned_words``)
UNSAID_AFTER_MY: tuple[str, ...] = ("my", "My")
UNSAID_AFTER_AND_I = ("I", "my", "My")
UNSAID_AFTER_WE = ("we", "We", "our", "Our")


def copies_first_person(draft: str, message: str) -> tuple[str, tuple[str, ...]] | None:
    """The sentence of ``draft`` that copies one of the user's first-person phrases from their
    ``message`` ("my dad's car", "Adam and I") and the words its redraft may not say, else None.
    Said by the assistant, "my" and "I" are its own: the phrase now reads as its dad's car."""
    said = normalize_space(message).lower()
    phrases = [(m.group(0).lower(), UNSAID_AFTER_MY) for m in _MY_PHRASE.finditer(said)]
    phrases += [(m.group(0).lower(), UNSAID_AFTER_AND_I) for m in _AND_I.finditer(said)]
    for sentence in sentences(draft):
        lowered = normalize_space(sentence).lower()
        for phrase, unsaid in phrases:
            if re.search(rf"(?<![\w']){re.escape(phrase)}(?![\w'])", lowered):
                return sentence, unsaid
    return None


_TO_YOU = re.compile(r"\b(?:you|your|you're|yours)\b", re.IGNORECASE)
# a reply that quotes the user from here on: "You told me: ...", "you said that ..."
_QUOTING = re.compile(r"\byou\s+(?:told\s+me|said|mentioned|wrote)\b", re.IGNORECASE)


def found_hits(turn: Turn) -> list[SearchHit]:
    """What the turn's searches found, and the policies' searches before its first step."""
    return [*turn.hits(), *(hit for hits in turn.searched_before.values() for hit in hits)]


def _in_first_person(sentence: str) -> set[str] | None:
    """The content words ``sentence`` says of its writer before it turns to "you", when it
    speaks as "I" of something other than the assistant's own doing; else None."""
    said = sentence.strip()
    if not _SPEAKS_AS_I.match(said) or _ASSISTANT_ACTS.match(said) or denies(said):
        return None
    return set(content_words(_TO_THE_USER.split(said, maxsplit=1)[0]))


_I_AFTER_FEELING = re.compile(
    r"\b(?:glad|happy|sorry|pleased|excited)\s+(?:that\s+)?(?:I|I've|I'm|I\s+have|I\s+am)\s+"
    r"(?!(?:could|can|will|would|was\s+able|helped|remember|know|got\s+to)\b)(?P<rest>[^.!?]+)",
    re.IGNORECASE,
)


def greets_as_user(greeting: str, notes: Iterable[str]) -> str | None:
    """The sentence of ``greeting`` that says in the first person a word of one of ``notes``
    (the values of the user's saved facts: "I'm a pharmacist in Leicester." for "Work:
    pharmacist in Leicester"), else None."""
    known = {w for note in notes for w in content_words(note)}
    for sentence in sentences(greeting):
        own = _in_first_person(sentence)
        # or in a clause after the assistant's own feeling: "I'm glad I found a nice flat in Bath!"
        # greeted a user whose note said so (a `make run` chat, stop 55)
        inner = _I_AFTER_FEELING.search(sentence)
        if own and own & known or inner and set(content_words(inner["rest"])) & known:
            return sentence
    return None


# before a name followed by a word: it is said to the user ("Hello Lena and welcome back") or it is
# the answer ("Your name is Lena and ..."); before "Lena's": the assistant says whose it is
_SAID_TO_BEFORE = re.compile(
    r"\b(?:hello|hi|hey|dear|thanks|thank you|welcome|welcome back|morning|evening|night|bye|goodbye|"
    r"congratulations|congrats|sorry|is|am|i'm|called|named|as)\s*$",
    re.IGNORECASE,
)
_OWNED_BY_ASSISTANT_BEFORE = re.compile(r"\b(?:i'm|i am)\s*$", re.IGNORECASE)  # "I'm Lena's assistant"


def speaks_of_user_by_name(draft: str, name: str | None) -> str | None:
    """The sentence of ``draft`` that speaks of the user, by their name, as of someone else:
    the name followed by "'s" or by a word ("Guskleel is a baker based in Vurdrosreanton.",
    "Brallhaette is Guskleel's parrot.") and not said to them ("Hello Guskleel, ..."), else
    None. An eval chat session said "Guskleel is ..." in every reply once one had."""
    if not name:
        return None
    pattern = re.compile(rf"\b{re.escape(name)}\b(?P<after>'s\b|\s+\w)?", re.IGNORECASE)
    for sentence in sentences(draft):
        for match in pattern.finditer(sentence):
            before = sentence[: match.start()]
            after = match.group("after")
            if after == "'s" and not _OWNED_BY_ASSISTANT_BEFORE.search(before):
                return sentence
            if after and after != "'s" and not _SAID_TO_BEFORE.search(before):
                return sentence
    return None


_RELATION = "(?:" + "|".join(sorted(RELATIONS, key=len, reverse=True)) + ")"
_CLAIMED_RELATION = re.compile(
    rf"\bmy\s+(?:\w+\s+)?(?P<mine>{_RELATION})\b|\b(?P<of>{_RELATION})\s+of\s+mine\b", re.IGNORECASE
)


def claims_users_relation(draft: str, told: Iterable[str]) -> str | None:
    """The sentence of ``draft`` in which the assistant calls someone of the user's its own: a
    relation the user named ("my sister", in ``told``) said as "my sister" or "a sister of mine"
    ("Quarksian is a sister of mine." for "Quarksian, my sister, comes to stay on Saturday.",
    eval chat seed 7), else None."""
    theirs = {w for text in told for w in words(text) if w in RELATIONS}
    for sentence in sentences(draft):
        for match in _CLAIMED_RELATION.finditer(sentence):
            if (match.group("mine") or match.group("of")).lower() in theirs:
                return sentence
    return None


SHORT_KEPT_WORDS = 8  # a comment kept before a held sentence this short is no reply alone


def answer_before(draft: str, sentence: str, question: str) -> str:
    """The sentences of ``draft`` before its ``sentence`` that speaks as the user, when they
    answer the question (they say one of its content words or a name) or, when the message asks
    nothing, comment on it without sending it back; in five words or more, none speaking as the
    user. Held for "I saw them at Weshoardbury, where I work as a baker.",
    the redraft of an answer whose first sentence was right ("The Tillshaos played live last
    Saturday, ...") asked the question back: "What was the band I went to see play live last
    Saturday?" (bench_honesty seed 50, stop 43). The redraft is those sentences, as they were."""
    spans = sentence_spans(draft)
    at = next((start for start, said in spans if said == sentence), None)
    if not at:
        return ""
    before = [said for start, said in spans if start < at]
    kept = draft[:at].strip()
    own = [(_SPEAKS_AS_I.match(said) or _of_the_writer(said)) and not _ASSISTANT_ACTS.match(said) for said in before]
    if len(words(kept)) < 5 or any(own):
        return ""
    if not questions(question):
        # news: the comment before a sentence that retells it as the user's is a reply of its own, unless
        # it sends the news back. "I'm glad the half marathon got moved to May. That's good news! More
        # time to train, I suppose." was held, and the redraft copied the user's whole message (a
        # `make run` chat, stop 55)
        return "" if parrots(kept, question) else kept
    asked = set(content_words(questions(question)))
    return kept if asked & set(content_words(kept)) or any(names_within(said) for said in before) else ""


# a reply that opens by calling someone by name: "Pepper, you knocked a mug off the counter ..."
# (said to them: "you" follows in its sentence; "York, lovely!" only names a place)
_CALLED = re.compile(
    rf"^\W*(?:(?:hi|hello|hey|oh|aw|ah)\s+)?(?P<name>[{UPPER}][{LOWER}]+)\s*[,!][^.!?]*?\byou(?:r|'re|'ve|'ll)?\b"
)


def speaks_to(draft: str, message: str, user: str | None) -> str | None:
    """The name of someone the user spoke of that ``draft`` opens by speaking to, else None. Told
    "Pepper knocked a mug off the counter this morning", a `make run` chat (stop 50) answered
    "Pepper, you knocked a mug off the counter this morning."; asked about a gift for "my mum
    Abena", it began "Abena, you could get her ...": the cat and the mother were spoken to, the
    user spoken of. The user's own name, or one they give in the message, may be said to them."""
    called = _CALLED.match(draft)
    if called is None:
        return None
    name = called["name"]
    own = {n.lower() for n in (user, introduced_name(message)) if n}
    if name.lower() in own or name.lower() in SENTENCE_OPENERS or not re.search(rf"\b{name}\b", message):
        return None
    return name


class PerspectiveGuard(Policy):
    name = "perspective_guard"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name]:
            return None
        if turn.kind == "login":
            return self._review_greeting(draft, memory)
        if not turn.question:
            return None
        if (other := speaks_to(draft.message, turn.question, known_name(memory))) is not None:
            return Hold(
                self.name,
                f"Not sent: your reply speaks to {other}, but you are talking with the user, who told you about "
                f'{other}. Reply to the user ("you" is the user), and name {other} only when you speak of '
                f"them. Write your reply to {reply_target(turn)}.",
                f"it spoke to {other}, not to the user",
                hide_draft=True,
                # the redraft of a `make run` chat began "Pepper, you're right." again
                banned_openers=(other,),
            )
        facts = [line.partition(":")[2] for line in user_facts(memory)]  # the name is the identity guard's
        sentence = speaks_as_user(
            draft.message, turn.question, {w for f in facts for w in content_words(f)}
        ) or claims_users_relation(draft.message, [turn.question, *facts])
        unsaid: tuple[str, ...] = UNSAID_AFTER_MY
        if sentence is not None and users_we(sentence) and not _SPEAKS_AS_WE.match(sentence):
            unsaid = (*UNSAID_AFTER_MY, *UNSAID_AFTER_WE)  # "I'm glad we ...": "we" anywhere
        if sentence is None:
            # or from the user's messages the turn found: "what did Bramble get up to?" got "Your dog
            # Bramble ate one of my socks yesterday, had to take her to the vet." (a `make run` chat, stop 62)
            # in a sentence said to the user, which then reads as the assistant's socks; a quote of them
            # keeps their words ("You told me: ... Best concert of my life."), and a copy of a message
            # that is not the answer is the copy guard's
            found = [hit.text for hit in found_hits(turn) if hit.role == "user"]
            unquoted = _QUOTING.split(draft.message, maxsplit=1)[0]
            to_them = " ".join(sentence for sentence in sentences(unquoted) if _TO_YOU.search(sentence))
            copied = copies_first_person(draft.message, turn.question) or next(
                (c for text in found if (c := copies_first_person(to_them, text))), None
            )
            if copied is not None:
                sentence, unsaid = copied
        # an answer is only held for "I", but for one about the user at all: "What do you know about me
        # so far?" got "I know that Ingrid teaches maths ..., that she has a sister ..." (a `make run`
        # chat, stop 60)
        if sentence is None and (not asks_something(turn.question) or asks_about_the_user_at_all(turn.question)):
            hold = self._review_third_person(draft, memory, f"Write your reply to {reply_target(turn)}.", turn.question)
            name = known_name(memory)
            if hold is not None and name and not turn.reply_start and asks_about_the_user_at_all(turn.question):
                # told to say "you", the redraft went "You know that Ingrid is a maths teacher, ..." (a
                # `make run` chat, stop 60): it begins by saying who they are, to them
                turn.reply_start = f"You're {name}"
            return hold
        if sentence is None:
            return None
        kept = answer_before(draft.message, sentence, turn.question)
        if kept and kept.startswith(turn.reply_start):
            # to news, a short comment kept goes on by one sentence of the model's own (no "I" may
            # open it): "That's a great idea!" alone answered "my granddaughter Lia turns five next
            # Saturday and I'm baking her a chocolate cake" (a `make run` chat, stop 64)
            more = 1 if not questions(turn.question) and len(words(kept)) < SHORT_KEPT_WORDS else 0
            turn.reply_start, turn.reply_sentences = kept, len(sentences(kept)) + more
        return Hold(
            self.name,
            f"Not sent: {sentence!r} speaks as if you were the user. The user spoke about themself: reply to "
            f'them with "you" (for example "You ..."). Write your reply to {reply_target(turn)}.',
            "it answered as if it were the user",
            hide_draft=True,
            keeps_words=True,
            # "We're going hiking" (the user's words) came back in the redraft too (a `make run` chat, stop 51)
            banned_openers=SPEAKING_AS_I + (SPEAKING_AS_WE if _SPEAKS_AS_WE.match(sentence) else ()),
            banned_words=unsaid,
        )

    def _review_third_person(
        self, draft: Draft, memory: MemoryView, target: str | None, message: str = ""
    ) -> Hold | None:
        # the name the first message gives is not saved until after the reply: "Hi! I'm
        # Gaimbraard. ..." got "I remember Gaimbraard lives in Mulaiaton" (eval chat seed 17)
        name = known_name(memory) or introduced_name(message)
        sentence = speaks_of_user_by_name(draft.message, name)
        if sentence is None:
            return None
        target = target or f"Start with: Hello {name}! You"
        return Hold(
            self.name,
            f"Not sent: {sentence!r} speaks of the user as {name!r}, as if they were someone else. You are "
            f'talking to {name}: say "you" and "your" ("You are ...", "Your ..."). {target}',
            "it spoke of the user by name, as of someone else",
            hide_draft=True,
            keeps_words=True,
        )

    def _review_greeting(self, draft: Draft, memory: MemoryView) -> Hold | None:
        sentence = greets_as_user(draft.message, [line.partition(":")[2] for line in user_facts(memory)])
        if sentence is None:
            return self._review_third_person(draft, memory, None)
        name = known_name(memory)
        start = f" Start with: Hello {name}! You" if name else ""  # "You": a 1.5B model went on "I keep ..."
        return Hold(
            self.name,
            f"Not sent: {sentence!r} speaks as if you were the user. Those are the user's facts, not yours: "
            f'greet them and say it to them with "you" and "your".{start}',
            "the greeting spoke as if it were the user",
            hide_draft=True,
            keeps_words=True,
            banned_openers=SPEAKING_AS_I,
        )
