"""Language guard: once a turn, a reply in another language than the English the user wrote in
is held back, and the model is told to answer in English.

A `make run` user (stop 60) began "Olá! I'm Beatriz, a retired architect living in Lisbon with my
husband Jorge." The 1.5B model answered "Olá! Como posso ajudar você hoje?", then "Claro!", and
from then on it wrote Portuguese to every English message, retelling the user's own words as its
own ("Claro! Eu estou preocupado com a operação do joelho no dia 14 de janeiro."): each such reply
in the conversation was the example the next one followed. A user who writes English is answered
in English; a greeting word of another language is no request for it.

A message is English when its words are mostly the words English is made of (``STOPWORDS``: "I",
"a", "with", "my" ...), at least ``MIN_FUNCTION_WORDS`` of them; a reply of ``MIN_REPLY_WORDS``
or more is not when hardly any of its words are. A message that asks for another language
("How do you say thank you in Portuguese?", "Translate this into Spanish") is left alone, as is
one written in another language: this guard only keeps English to English.
"""

from __future__ import annotations

import re

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, reply_target
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import STOPWORDS, words

MIN_FUNCTION_WORDS = 2  # English words a message says to count as English
MESSAGE_SHARE = 0.2  # "Olá! I'm Beatriz, a retired architect living in Lisbon with my husband Jorge.": 5 of 14
MIN_REPLY_WORDS = 4  # uncapitalised words: "Claro!" or "Obrigado, Beatriz!" are too short to tell
REPLY_SHARE = 0.1  # "Olá! Como posso ajudar você hoje?": none of 6
# a message that asks for words of another language: the reply may be in it
_ASKS_ANOTHER_LANGUAGE = re.compile(
    r"\b(?:translat\w*|in\s+(?:another|other)\s+languages?|how\s+(?:do|would|can)\s+(?:you|i)\s+say"
    r"|(?:in|into|to)\s+(?:portuguese|spanish|french|german|italian|dutch|polish|russian|chinese|mandarin|cantonese"
    r"|japanese|korean|arabic|hindi|urdu|bengali|turkish|greek|swedish|norwegian|danish|finnish|czech|hungarian"
    r"|romanian|ukrainian|hebrew|irish|welsh|gaelic|catalan|basque|latin|esperanto|vietnamese|thai|indonesian"
    r"|malay|swahili|tagalog|persian|farsi))\b",
    re.IGNORECASE,
)


# function words English shares with the languages a reply drifts into: "a", "do", "no" are Portuguese
# too ("Eu estou preocupado com a operação do joelho no dia 14 de janeiro."), "in", "die" German
_SHARED = frozenset("a an as am do no me in on so se he we die war man also".split())
_ENGLISH = STOPWORDS - _SHARED


def english_share(text: str) -> tuple[int, float]:
    """How many of ``text``'s words are English function words, and their share of its words."""
    said = words(text)
    english = sum(w in _ENGLISH for w in said)
    return english, english / len(said) if said else 0.0


def written_in_english(message: str) -> bool:
    """Whether ``message`` is English: enough of its words are English function words."""
    english, share = english_share(message)
    return english >= MIN_FUNCTION_WORDS and share >= MESSAGE_SHARE


# function words of the languages a reply drifted into (Portuguese, Spanish, French, Italian, German),
# none an English word: "Wow, amazing news, big congratulations!" has no English function word either
_FOREIGN = frozenset(
    "eu você voce com não nao para uma um está esta estou que da em os por mais muito como ele ela isso meu minha "
    "seu sua também tambem mas claro obrigado obrigada olá ola hoje posso ajudar bom boa são sao "
    "el la los las y es estoy con una por muy pero yo tú tu usted qué cómo estás está gracias hola mi nosotros "
    "le les et je vous nous avec pour une dans qui pas très tres est suis bonjour merci oui mais "
    "il lo è sono io per non che molto anche ciao grazie "
    "der das und ist ich du sie wir mit für nicht ein eine auch sehr danke hallo".split()
)
MIN_FOREIGN_WORDS = 2


def not_english(reply: str) -> bool:
    """Whether ``reply`` is long enough to tell, hardly any of its words are English and some are
    another language's function words; names (capitalised words past "I") are of no language:
    "Chopin, Liszt, Debussy, Satie." tells nothing."""
    tokens = re.findall(r"[\w'’-]+", reply)
    said = [w.lower() for w in tokens if w == "I" or not w[:1].isupper()]
    english = sum(w in _ENGLISH for w in said)
    foreign = sum(w.lower() in _FOREIGN for w in tokens)
    return len(said) >= MIN_REPLY_WORDS and english < REPLY_SHARE * len(said) and foreign >= MIN_FOREIGN_WORDS


class LanguageGuard(Policy):
    name = "language_guard"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name] or not turn.question:
            return None
        if not written_in_english(turn.question) or _ASKS_ANOTHER_LANGUAGE.search(turn.question):
            return None
        if not not_english(draft.message):
            return None
        return Hold(
            self.name,
            "Not sent: your reply is not in English, but the user wrote to you in English. Reply in English, "
            f"in your own words. Write your reply to {reply_target(turn)}",
            "it answered in another language than the user's",
            hide_draft=True,
        )
