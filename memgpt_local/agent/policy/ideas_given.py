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
"""

from __future__ import annotations

import re

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target
from memgpt_local.agent.turn import Hold, Turn
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


class IdeasGiven(Policy):
    name = "ideas_given"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not turn.question:
            return None
        # every sentence that ends with "?": "I want to bake something with her, any ideas?" speaks
        # of its writer and so is no question to ``questions`` (a `make run` chat, stop 52)
        # and a need for ideas stated: "I still need ideas for something to bake with her though"
        # got "I'm glad to hear that!" (a `make run` chat, stop 52)
        asked = " ".join(s for s in sentences(turn.question) if s.endswith("?") or _WANTS_IDEAS.search(s))
        if not asked or not asks_for_help(asked):
            return None
        written = draft.written_after(turn.reply_start)
        if (denies(written) and not _NO_IDEAS.search(written)) or gives_ideas(written, turn.question):
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
