"""Ideas given: once a turn, a reply to a request for ideas or advice that gives none (only
offers help, asks back, or wishes well) is held back, and the model is told to suggest.

Asked "good. any ideas for a small present for Rui? he's into vinyl records and cooking", the
assistant answered "Sure, I can help you with that. What kind of present do you have in mind?
Maybe something that's related to vinyl records or cooking? Let me know if you need anything
specific." (a `make run` chat, stop 51): the user had said what Rui likes, and got their own
words back as a question. Earlier chats met the same ("What would you like to cook?" for "what
could I cook for Tiago's birthday? He's vegetarian."). A reply gives an idea when one of its
sentences, a statement or a "How about ...?", holds two words of its own: not the user's, and
not the words of offering help.

A request the user says was misread ("haha no, a hen do is a bachelorette party! not chickens"
after the model had suggested hens) is asked again before the first step: a notice quotes it,
and the reply begins "Sorry, my mistake!" (``corrected_request``).
"""

from __future__ import annotations

import re

from memgpt_local import events
from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.schemas import NewMessage
from memgpt_local.text import asks_for_help, content_words, denies, is_question, sentences, stem, stems

# words of offering, asking back and wishing well: they carry no idea
_OFFERING = frozenset(
    stem(w)
    for w in (
        "sure course certainly absolutely happy glad help helping love great question idea ideas suggestion "
        "suggestions suggest recommend recommendation options option know let need needs anything something "
        "specific else mind kind sort type related maybe perhaps think hope helpful enjoy enjoys fun nice "
        "good lovely wonderful perfect best thing things like would could tell details info information "
        "more prefer preferences interested interests looking want wants about "
        # the closing offer: "If you have any other questions, feel free to ask." (a `make run` chat, stop 59)
        "feel free ask other questions question hesitate "
        # and the filler round the user's own topic: "You could try playing chess with her. It's a fun way to
        # spend time together and learn new things." for a chess thing to do with a granddaughter (stop 59)
        "try fun way spend time together learn new"
    ).split()
)
# a question that suggests: "How about a record cleaning kit?"
_SUGGESTS = re.compile(
    r"^\W*(?:how about|what about|why not|maybe|perhaps|you could|have you (?:tried|considered))\b", re.I
)
IDEA_WORDS = 2  # words of its own a sentence needs to carry an idea
IDEAS_START = "Here are a few ideas:"  # the redraft's forced first words
MISREAD_START = "Sorry, my mistake!"  # the first words of the answer to a request misread
MISREAD = "the user says their request was misread"


# a statement of the assistant's own or a greeting carries no idea, nor does an apology: "I'm always looking for new
# recipes." (a `make run` reply that asked back, stop 51), "Hi Mateus! I'm glad you're in Lyon."
_OWN_OR_GREETING = re.compile(
    r"^\W*(?:i|i'm|i've|i'll|i'd|hi|hello|hey|welcome|sorry|unfortunately|thanks|thank)\b", re.IGNORECASE
)


# a denial of ideas is no honest "I don't know": asked for ideas for baking with a granddaughter,
# the reply was "I'm sorry, I don't have any specific ideas for baking with Elodie. What kind of
# cake or dessert would you like to make?" (a `make run` chat, stop 52). "I don't know what you
# packed" stays a denial.
_NO_IDEAS = re.compile(r"\b(?:ideas?|suggestions?|recommendations?|tips?|advice)\b", re.IGNORECASE)


# a sentence that asks for ideas without a question mark
_WANTS_IDEAS = re.compile(
    r"\b(?:need|want|looking for|could use|would love|'d love|after|stuck for)\s+"
    r"(?:some\s+|a few\s+|any\s+|more\s+|new\s+|good\s+)*"
    r"(?:ideas?|advice|suggestions?|tips?|recommendations?|inspiration)\b",
    re.IGNORECASE,
)


def gives_ideas(reply: str, asked: str) -> bool:
    """Whether ``reply`` suggests something in answer to ``asked``: a sentence that states
    (not of the assistant itself, nor a greeting) or asks "How about ...?", with
    ``IDEA_WORDS`` words neither ``asked`` nor an offer of help says."""
    theirs = stems(asked)
    for sentence in sentences(reply):
        if not (_SUGGESTS.match(sentence) if is_question(sentence) else not _OWN_OR_GREETING.match(sentence)):
            continue
        own = {stem(w) for w in content_words(sentence) if len(w) > 2} - theirs - _OFFERING
        if len(own) >= IDEA_WORDS:
            return True
    return False


# "haha no, a hen do is a bachelorette party! not chickens": a "no" that says what was meant
_NO_THAT = re.compile(r"^\W*(?:(?:ha)+h?|lol|lmao|oh|ah|um+|erm+|hmm+)?[\s,!.]*(?:no+|nope|nah)\s*[,!.]", re.I)
_WHAT_WAS_MEANT = re.compile(r"\b(?:not|meant?|is an?|are|means)\b", re.I)
_I_MEANT = re.compile(r"\bI\s+(?:meant|mean|was\s+(?:asking|talking)\s+about)\b|\bnot\s+what\s+I\s+meant\b", re.I)


def corrects(message: str) -> bool:
    """Whether ``message`` tells the assistant it misread them: "haha no, a hen do is a
    bachelorette party! not chickens", "I meant the film, not the book"."""
    return bool(_I_MEANT.search(message) or (_NO_THAT.match(message) and _WHAT_WAS_MEANT.search(message)))


def asks_for_ideas(message: str) -> str:
    """The sentences of ``message`` that ask for ideas or advice, "" when none does: every one that
    ends with "?" ("I want to bake something with her, any ideas?" speaks of its writer and so is
    no question to ``questions``: a `make run` chat, stop 52) and a need for ideas stated ("I still
    need ideas for something to bake with her though" got "I'm glad to hear that!", the same chat)."""
    asked = " ".join(s for s in sentences(message) if s.endswith("?") or _WANTS_IDEAS.search(s))
    return asked if asked and asks_for_help(asked) else ""


def corrected_request(turn: Turn, memory: MemoryView) -> str:
    """The user's request for ideas before the turn's message when that message tells the
    assistant it misread it, else "". Asked "any ideas for a hen do that isn't too expensive?",
    the model suggested quiet hens kept in a cage; told "haha no, a hen do is a bachelorette
    party! not chickens", it answered "That's a great idea! I'm glad that you found something
    that works for you." (a `make run` chat, stop 62)."""
    if not turn.question or not corrects(turn.question):
        return ""
    # before the first step the turn's own message is not stored yet (``event_id`` None)
    earlier = [
        m.content for m in memory.in_context() if m.role == "user" and (turn.event_id is None or m.id < turn.event_id)
    ]
    return asks_for_ideas(earlier[-1]) if earlier else ""


class IdeasGiven(Policy):
    name = "ideas_given"

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        """A request for ideas the user says was misread is asked again: the reply gives them."""
        request = corrected_request(turn, memory)
        if not request:
            return []
        # not "Here are a few ideas:" too: the misread reply began so, and a reply ends before words an
        # earlier one said (``agent.reply_formula_words``), so the forced start was cut to its apology
        turn.reply_start = MISREAD_START
        turn.require_reply(MISREAD)
        return [
            events.system_event(
                "request misread",
                f'For you, not the user: the user says you misread their request ("{request}"). Answer it '
                "again now, as they meant it: give two or three concrete ideas in this reply.",
                when=turn.clock(),
            )
        ]

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not turn.question:
            return None
        asked = asks_for_ideas(turn.question) or corrected_request(turn, memory)
        if not asked:
            return None
        written = draft.written_after(turn.reply_start)
        # nor is what memory holds of them: "It's great that your sister is getting married in June." for
        # "any ideas for a hen do ...?" beside "Sister: Anjali, getting married in June" (a `make run` chat,
        # stop 62)
        known = " ".join(line for label, line in memory.core_lines() if label == "human")
        if (denies(written) and not _NO_IDEAS.search(written)) or gives_ideas(
            written, f"{turn.question} {asked} {known}"
        ):
            return None
        # told to suggest, the redraft asked back again in the same words; made to start with the
        # ideas, the model goes on with them (a `make run` chat, stop 51)
        turn.reply_start = IDEAS_START
        return Hold(
            self.name,
            "Not sent: the user asked for ideas, and your reply gives none. Suggest two or three "
            "concrete ones yourself, fitting what you know about them and what they said, and do "
            f"not ask them back. Write your reply to {reply_target(turn)}",
            "it gave no ideas, asked for ideas",
            hide_draft=True,
        )
