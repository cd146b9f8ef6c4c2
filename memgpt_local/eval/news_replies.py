"""How the assistant answers news: what the user tells of their day or life, asking nothing.

A person who tells a friend "Kuba's team lost the semi-final but he scored a goal!" expects a
word about Kuba's goal, not "That's interesting! How can I help you with that?" (`make run`
chats, stops 54-56). These scores read one reply to one such message, by its words alone:

- ``words``: its length;
- ``offers_help``: it offers help nobody asked for ("How can I assist you?");
- ``bare``: six words or fewer ("I'm sorry to hear that.");
- ``specific``: it names something the message told (a word of four letters or more, past the
  stop words and the words every reply says);
- ``echoes``: it copies six words or more of the message in a row (parroting is not a comment);
- ``asks``: it asks the user something back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memgpt_local.text import content_words, longest_common_run, sentences, stem, words

_OFFERS_HELP = re.compile(
    r"\bhow (?:can|may|could) i (?:help|assist|be (?:of|helpful))"
    r"|\bis there anything (?:else )?(?:i can|i could|you(?:'d| would) like|you need)"
    r"|\blet me know if (?:you need|there's anything)|\bif you need (?:any )?(?:help|assistance|anything)",
    re.IGNORECASE,
)
BARE_WORDS = 6
ECHO_WORDS = 6
# words a reply says whatever it was told: they name nothing of the message
_ANY_REPLY = frozenset(
    stem(w)
    for w in "that this great good nice sorry hear sounds really well glad happy hope feel feeling time "
    "today thing things something".split()
)


@dataclass(frozen=True)
class NewsReply:
    words: int
    offers_help: bool
    bare: bool
    specific: bool
    echoes: bool
    asks: bool


def score_news_reply(message: str, reply: str) -> NewsReply:
    """The scores of ``reply`` to ``message`` (the user's news)."""
    said = words(reply)
    told = {stem(w) for w in content_words(message) if len(w) > 3} - _ANY_REPLY
    named = {stem(w) for w in content_words(reply) if len(w) > 3}
    return NewsReply(
        words=len(said),
        offers_help=bool(_OFFERS_HELP.search(reply)),
        bare=len(said) <= BARE_WORDS,
        specific=bool(told & named),
        echoes=longest_common_run(words(message), said) >= ECHO_WORDS,
        asks=any(s.rstrip().endswith("?") for s in sentences(reply)),
    )


@dataclass(frozen=True)
class NewsSummary:
    n: int
    mean_words: float
    offers_help: int
    bare: int
    specific: int
    echoes: int
    asks: int


def summarize(scores: Iterable[NewsReply]) -> NewsSummary:
    """Counts over ``scores`` (one per news turn)."""
    got = list(scores)
    return NewsSummary(
        n=len(got),
        mean_words=sum(s.words for s in got) / max(1, len(got)),
        offers_help=sum(s.offers_help for s in got),
        bare=sum(s.bare for s in got),
        specific=sum(s.specific for s in got),
        echoes=sum(s.echoes for s in got),
        asks=sum(s.asks for s in got),
    )
