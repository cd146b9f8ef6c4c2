"""Repeat guard: a message already sent in this turn is not sent again, nor one that only
parrots a function's result back ("Message sent."), nor (once a turn each) one that repeats a
reply of an earlier turn or the user's own message.

Small models loop on the reply function. When the user already has an answer the turn ends
there; when they have none yet, the next step must answer for real. Across turns, a 1.5B
model answered six different messages of one session with the same "That's great to know!
How can I assist you today?": such a draft is held back, leaves the context, and the model is
shown the user's message to answer instead (its second draft goes out).

The same model also sent the user's words back as its reply ("By the way, I'm allergic to
penicillin, and my favourite dinner is aubergine curry." for that very message), and once one
such copy stood in its context it copied every later message too, questions included, for the
rest of the session. A draft that holds most of the user's message word for word, or eight
words in order of an earlier one of theirs, is held back the same way, so it never becomes an
example to follow (a question asked back is the echo guard's to hold, with the turn's search
hits).

Nor does a reply go out that is built on an earlier one: a sentence nearly the same as one of
an earlier reply's (until stop 25: one opening with the same five words, which held good
replies built on a formula, and the redrafts were worse). Once the model had answered a bad shift with "I'm
sorry, but I don't know much about Sanne's work. Can you tell me more about her?", it
answered "Any tips for falling asleep after a night shift?" with "I'm sorry, but I don't know
much about falling asleep after a night shift. Can you tell me more about it?"; other sessions
ended every reply with "Do you have any plans for the weekend?". The notice quotes the
sentence, and the sampler's ban keeps the second draft from the held one's words.

A login's greeting may say again what an earlier reply said: held back ("Hello, Tomasz! I know
that you are Tomasz, a chemistry teacher ..." after "I know that you are Tomasz, ..."), the
model's second greeting was "Hello! How can I help you today?", without the name. Nor is
the answer to a question held for repeating an earlier one: the same question, or a like one,
has the same answer ("Your sister's name is Tothstiis." after "Your mother's name is
Tothstiis."), and the second draft, kept from the first one's words, misspelt the name. Only
an answer that names something is let through: "Sure, I can help with that! What are you
looking for?" answered "What's my parrot's name?" after it had answered two statements.
Nor is an answer that says it does not know: held for saying "I'm sorry, but I don't know what
you're asking about." again, the second draft, kept from its words, invented "You drive a car
called Kurkgre." (the cat's name; eval chat seed 9) for a car never mentioned.

Nor is a draft that copies a hold's notice sent: the later_promise notice went out as the reply
in dmr seed 19 (stop 55), though the sampler refused its runs token by token.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target, users_message
from memgpt_local.agent.policy.echo_guard import restates_question
from memgpt_local.agent.policy.ideas_given import corrected_request
from memgpt_local.agent.policy.nothing_found import ASKS_WHAT_WAS_TOLD
from memgpt_local.agent.turn import Hold, Turn, notice_words
from memgpt_local.events import kind_of
from memgpt_local.functions.links import identifiers
from memgpt_local.text import (
    FIRST_PERSON,
    SENTENCE_OPENERS,
    asks_for_help,
    asks_something,
    content_words,
    denies,
    longest_common_run,
    near_duplicate,
    normalize_space,
    questions,
    repeats_sentence,
    sentence_spans,
    sentences,
    statements,
    stem,
    words,
)

EARLIER = "repeat_guard:earlier turn"
PARROT = "repeat_guard:users words"


class RepeatGuard(Policy):
    name = "repeat_guard"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        message = normalize_space(draft.message)
        if not message:
            return None
        answered = bool(turn.messages)
        if any(normalize_space(sent) == message for sent in turn.messages):
            return Hold(
                self.name,
                "Not sent: you already sent this exact message in this turn.",
                "the same message was already sent in this turn.",
                end_turn=answered,
            )
        if any(normalize_space(step.outcome.text) == message for step in turn.steps):
            return Hold(
                self.name,
                "Not sent: that is a function's result, not a message for the user.",
                "that is a function's result, not a message for the user.",
                end_turn=answered,
            )
        if copies_a_notice(message, turn):
            return Hold(
                self.name,
                f"Not sent: that is the text of a notice to you, not a reply. Write your reply to {reply_target(turn)}",
                "it copied a notice meant for the assistant",
                hide_draft=True,
            )
        greeting = turn.kind == "login"  # "Hello, Tomasz! I know that you ..." held, the retry lost the name
        if (
            not answered
            and not draft.plan.last
            and not greeting
            and EARLIER not in turn.marks
            and (repeated := _said_before(message, turn, memory)) is not None
            and not answers_again(turn.question, message, repeated)
        ):
            turn.marks.add(EARLIER)
            what = "this same message" if repeated == message else f"the same words ({repeated!r})"
            return Hold(
                self.name,
                f"Not sent: you sent the user {what} in an earlier turn. Write a new reply, in other words, "
                f"to {reply_target(turn)}",
                "it repeated an earlier reply",
                hide_draft=True,
            )
        asked_back = turn.question is not None and restates_question(message, turn.question)  # the echo guard's
        if turn.question and PARROT not in turn.marks and not asked_back and parrots(message, turn.question):
            turn.marks.add(PARROT)
            kept = before_the_copy(message, turn.question)
            if kept and kept.startswith(turn.reply_start):
                turn.reply_start, turn.reply_sentences = kept, len(sentences(kept))
            return Hold(
                self.name,
                f"Not sent: your reply repeats the user's own words. Reply to {users_message(turn)} in your own "
                "words: a comment, an answer or a question about it.",
                "it repeated the user's message",
                hide_draft=True,
            )
        earlier = None if PARROT in turn.marks or asked_back else copied_user_message(message, turn, memory)
        if earlier is not None:
            turn.marks.add(PARROT)
            return Hold(
                self.name,
                "Not sent: your reply copies what the user wrote in an earlier message, word for word, as if you "
                f"had said it. Reply to {reply_target(turn)}",
                "it copied the user's earlier message",
                hide_draft=True,
            )
        return None


# "Your mum is coming over from Munich for Christmas." for "My mum is coming over from Munich for
# Christmas, ..." is the user's news said back to them, no copy (a `make run` chat, stop 60)
_I = frozenset(("i", "we", "my", "our"))
_YOU = frozenset(("you", "your"))


def copied_user_message(message: str, turn: Turn, memory: MemoryView, *, min_words: int = 8) -> str | None:
    """The user message of an earlier turn (in the main context) that ``message`` copies: a run
    of at least ``min_words`` of its words, in order. Asked "when is Declan's birthday?" and told
    the date, a `make run` chat (stop 50) sent "I know Declan's birthday is the 19th of December,
    and I told you yesterday! I can't eat shellfish, found that out the hard way in Kinsale years
    ago. What would be a nice thing to cook for Declan's birthday on the 19th?", the user's
    message of the day before, as its own words. Eight words in order are no shared phrase. Words
    a core-memory line holds are a saved fact said back, no copy."""
    written = words(message)
    # asked what they told, the answer is their words: "Your tomatoes did terribly this year,
    # blight got them all." was held for "What did I tell you about my tomatoes?" (stop 54)
    if len(written) < min_words or (turn.question and ASKS_WHAT_WAS_TOLD.search(turn.question)):
        return None
    known = [words(line.partition(":")[2]) for _, line in memory.core_lines()]
    # the request the turn answers again: "Here are some ideas for a hen do that isn't too expensive:"
    # after "any ideas for a hen do that isn't too expensive?" was misread (a `make run` chat, stop 62)
    answered = corrected_request(turn, memory)
    for m in memory.in_context():
        if turn.event_id is not None and m.id >= turn.event_id:
            break
        if m.role != "user" or (answered and answered in m.content):
            continue
        heard = words(m.content)
        run = SequenceMatcher(None, written, heard, autojunk=False).find_longest_match(0, len(written), 0, len(heard))
        copied = written[run.a : run.a + run.size]
        # the words of a saved fact, said back: "I know that you're a nurse in Bristol, mostly night
        # shifts on a cardiac ward" was held as a copy, and the greeting redrafted worse (stop 53)
        # nor is the user's "I" said back as "you": "I remember that you grew up in Osaka, came to
        # England in 1982 for a teaching job." for "I grew up in Osaka, came to England in 1982 for a
        # teaching job." (a `make run` chat, stop 54)
        retold = bool(_YOU & set(written[max(run.a - 2, 0) : run.a]) and _I & set(heard[max(run.b - 2, 0) : run.b]))
        # nor, asked something, is a run that speaks as nobody a copy: it is what was told, the answer
        # ("Your cat Mimi is 14 years old and the vet says her kidneys are failing." to "what's wrong
        # with Mimi?" was held, and the redraft went out as "14 years-old ... having trouble", stop 64)
        # (asked for advice, the user's words are no answer: "Any tips for tomatoes?")
        asking = bool(turn.question and asks_something(turn.question) and not asks_for_help(turn.question))
        answering = asking and not FIRST_PERSON.search(" ".join(copied))
        if (
            run.size >= min_words
            and not retold
            and not answering
            and not any(longest_common_run(copied, k) >= min_words - 2 for k in known)
        ):
            return m.content
    return None


_DENYING = frozenset(stem(w) for w in "don know sorry sure remember afraid idea".split())  # "don" of "don't"


def answers_again(question: str | None, message: str, repeated: str) -> bool:
    """Whether ``message``, which says ``repeated`` again from an earlier reply, may: it
    answers a question with a name or a number, or denies knowing what this question asks
    (the repeated words share a content word with it). A denial of an earlier question is no
    answer: after "I'm sorry, but I don't know the name of Tomasz's bakery.", "It's called
    Rewena & Rye. And when is my conference again?" got the same sentence, with the conference
    quoted beside the question (a `make run` chat, stop 43)."""
    if not question or not asks_something(question):
        return False
    if denies(message):
        # a bare denial names nothing of the earlier question: "I don't know that." to "How old am I?"
        # was held, and the redraft sent an earlier answer about the dog (a `make run` chat, stop 60)
        said = {stem(w) for w in content_words(repeated) if len(w) > 1} - _DENYING
        return not said or bool(said & {stem(w) for w in content_words(questions(question))})
    return names_something(message)


def parrots(draft: str, said: str, *, share: float = 0.6, min_words: int = 4) -> bool:
    """Whether ``draft`` sends the user's message back: a run of at least ``min_words`` words
    of ``said``, in order, that is ``share`` of the draft itself ("Good news, my sister Ola set
    the wedding date: June 14th" for a message that went on about peanuts), or of the message
    when the draft adds little else (at most twice the message's length), not a name or a
    phrase quoted. A long reply that takes up a short message's words is a comment on it: "I'm
    glad to hear that you moved to Bath last month ... What's your favorite thing about Bath?"
    was held for "Actually I moved to Bath last month.", and the draft written instead was "I
    moved to Bath last month." Only the message's statements count: "The capital of France is
    Paris" answers "What's the capital of France?"."""
    heard, written = words(statements(said)), words(draft)  # an answer may reuse its question's words
    run = longest_common_run(written, heard)
    if run < min_words or agrees(written, heard):
        return False
    return run >= share * len(written) or (run >= share * len(heard) and len(written) <= 2 * len(heard))


# how a person sums up their own news: "so that's a lot of planning on top of work"
_INTERJECTIONS = frozenset("wow oh ooh yes yeah well gosh".split())
_SUMMING_UP = (("that", "s"), ("it", "s"), ("what", "a"), ("such", "a"))


def _contracted(said: list[str]) -> list[str]:
    """``said`` with "that is" and "it is" as "that's" and "it's" are split: "that", "s"."""
    out: list[str] = []
    for word in said:
        out.append("s" if word == "is" and out and out[-1] in ("that", "it") else word)
    return out


def agrees(written: list[str], heard: list[str]) -> bool:
    """Whether ``written``, one short sentence, is the user's own summing-up of their news said
    back ("That's a lot of planning!" to "... I'm the maid of honour, so that's a lot of
    planning on top of work"): agreeing, as a friend does. Held as a copy, its three redrafts
    were a refusal, "I don't know what you're asking about" and a bland "Thanks for telling me
    about your plans!" (a `make run` chat, stop 62)."""
    while written and written[0] in _INTERJECTIONS:  # "Wow, that's a lot of planning!"
        written = written[1:]
    written, heard = _contracted(written), _contracted(heard)  # "That is a lot" agrees with "that's a lot"
    if len(written) > 10 or tuple(written[:2]) not in _SUMMING_UP:
        return False
    match = SequenceMatcher(None, written, heard, autojunk=False).find_longest_match(0, len(written), 0, len(heard))
    # after their news, not the whole of what they said: "It's a long day at work and I'm tired." said back
    return match.a == 0 and match.b > 0 and tuple(heard[match.b : match.b + 2]) in _SUMMING_UP


NOTICE_RUN = 8  # words in a row of a hold's notice that make a draft a copy of it


def copies_a_notice(message: str, turn: Turn) -> bool:
    """Whether ``message`` says ``NOTICE_RUN`` words in a row of a notice a hold gave this turn,
    in the notice's own words (``notice_words``): refused token by token, a redraft still went
    "... promises to do it later, but your.reply ends this turn and you cannot come_back to it.
    Do it now: ..." (dmr seed 19, stop 55)."""
    said = words(message)
    parts = [part for step in turn.steps if step.hold is not None for part in notice_words(step.hold.notice)]
    return any(longest_common_run(said, words(part)) >= NOTICE_RUN for part in parts)


def before_the_copy(draft: str, said: str) -> str:
    """The sentences of ``draft`` before those that send the user's message ``said`` back, when
    they are a reply of their own (five words or more, with no run of four of the user's words):
    "I'm sorry to hear that. I hope you can make time for Leo on Sunday. Yuki has a shift on
    Saturday after all." was held, and of the three redrafts that followed the last went out as
    "... It's good to know that you have a shift on Saturday after all." (a `make run` chat, stop
    54). The redraft is those sentences, as they were; empty when there are none."""
    heard = words(statements(said))
    for start, _ in reversed(sentence_spans(draft)[1:]):  # the most kept first
        kept, rest = draft[:start].strip(), draft[start:]
        if parrots(rest, said) and len(words(kept)) >= 5 and longest_common_run(words(kept), heard) < 4:
            return kept
    return ""


def names_something(message: str) -> bool:
    """Whether ``message`` holds a name or a number (not a word capitalised to open a sentence)."""
    return any(i.lower() not in SENTENCE_OPENERS for i in identifiers(message))


def earlier_replies(turn: Turn, memory: MemoryView) -> list[tuple[str, bool]]:
    """The replies the main context shows from turns before ``turn``, oldest first, each with
    whether it greeted a login (a login's turn runs until the next user message)."""
    replies: list[tuple[str, bool]] = []
    greeting = False
    for m in memory.in_context():
        if turn.event_id is not None and m.id >= turn.event_id:
            break  # this turn's own steps (the draft itself among them)
        if m.role == "user":
            greeting = False
        elif m.role == "system" and kind_of(m.content, "system") == "login":
            greeting = True
        said = (m.function_args or {}).get("message") if m.role == "assistant" else None
        if isinstance(said, str):
            replies.append((said, greeting))
    return replies


def _said_before(message: str, turn: Turn, memory: MemoryView) -> str | None:
    """What a reply the main context shows from an earlier turn already said: the whole
    message (nearly the same), or a sentence of it nearly the same as one of that reply's;
    None when it says something new. Held for a sentence that only opened with the same five
    words, "That's interesting! Can you tell me more about the bookshelf and Joris's work?"
    (after "... more about the students and the lab bench?") was rewritten as the user's own
    message, and then in their voice; a login greeting's sentences are not compared at all:
    its "How can I help you today?" formula opens many a later reply."""
    replies = earlier_replies(turn, memory)
    if any(near_duplicate(said, message) for said, _ in replies):
        return message
    return repeats_sentence(message, [said for said, greeting in replies if not greeting])
