"""Tone guard: once a turn, a reply that opens in cheer ("That's great!") to a message that
says something hard ("I'm exhausted") is held back, and the model is told what the user said.

qwen2.5-coder-1.5b opens most replies with "That's great! I'm glad ...". To "Work was so busy
today, I'm exhausted." it wrote "That's great! I'm glad your work was busy today." (eval chat
seed 25, stop 47), and to "Work is intense this term, I've got Year 11 mocks coming up."
"That's great! I'm glad to hear you're doing well." (a `make run` chat, stop 47). A friend who
answers "exhausted" with "That's great!" did not listen. Only the reply's opening is judged:
"That sounds exhausting. I'm glad you're home now." is kind. A hard word said as not so ("not
tired at all") counts for nothing. The other way round too: a reply that opens "I'm sorry to
hear ..." to good news ("Big news: I start at the university hospital on Monday") is held. The
second draft goes out whatever it says.
"""

from __future__ import annotations

import re

from memgpt_local.agent.fact_owners import RELATION_PATTERN
from memgpt_local.agent.policy.base import Draft, MemoryView, Policy
from memgpt_local.agent.policy.greet_by_name import human_lines
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.text import DEATH, DIED, LOWER, UPPER, is_question, normalize_space, sentences, statements

# words of a hard day, a worry or a loss
_HARD = re.compile(
    r"\b(?:exhausted|exhausting|tired|knackered|worn\s+out|drained|shattered|burn(?:ed|t)\s+out|stress(?:ed|ful)?"
    r"|intense|overwhelm(?:ed|ing)|swamped|anxious|nervous|worried|scared|afraid|sad|upset|lonely|miserable"
    r"|frustrat(?:ed|ing)|sick|ill|unwell|hurt|injured|sore|awful|terrible|horrible|rough|hard\s+day|long\s+day"
    rf"|bad\s+day|cried|crying|{DIED}|funeral|broke\s+up|dumped|fired|laid\s+off|struggling"
    # "I'm allergic to shellfish, found that out the hard way" got "That's great to hear!" (stop 49)
    r"|allergic|allergy|allergies|the\s+hard\s+way|accident|emergency"
    # "My granddaughter is teaching me to knit, which is going badly." got "That's a great story ...
    # I'm glad you're enjoying knitting." (a `make run` chat, stop 50)
    r"|badly|disaster|hopeless|desperate|miss|misses|missing"
    # "the Manchester trip is off, Leila's dad has the flu" got "That's great! I'm glad the Manchester
    # trip is off." (a `make run` chat, stop 57)
    r"|flu|covid|fever|cough\w*|cancel(?:l?ed)?|called\s+off|(?:is|was|'s)\s+off(?!\s+to\b)|postponed"
    r"|fell\s+through"
    # "Pimienta has been limping a bit since yesterday, I'm taking her to the vet on Thursday." got
    # "... That's good news!" (a `make run` chat, stop 58)
    r"|limp\w*|threw\s+up|throwing\s+up|vomit\w*|stomach\s+bug"
    # "amara finished her night shifts today, she's absolutely wrecked" got "That's great to hear!", and
    # "final year so everything is a bit chaotic" "That sounds exciting!" (a `make run` chat, stop 61)
    r"|wrecked|zonked|dead\s+on\s+(?:my|her|his|their|our)\s+feet|chaotic|hectic|frantic)\b",
    re.IGNORECASE,
)
# an operation ahead, hard unless told as over and well: "I've got my knee replaced on the 14th of
# January, so the allotment will have to wait" got "That's a good news! I'm glad your knee is
# better." (a `make run` chat, stop 61); "The surgery went well!" is good news
_PROCEDURE = re.compile(
    # not "in hospital": "He'll come down to look after Bruce while I'm in hospital." got "I'm sorry to
    # hear about your son Callum." (the replay of that chat)
    r"\b(?:surgery|operation|biopsy|chemo\w*"
    r"|(?:knee|hip|shoulder|joint|valve|cataracts?)\s+(?:replaced|replacement|surgery|op))\b",
    re.IGNORECASE,
)
_WENT_WELL = re.compile(
    r"\b(?:went\s+(?:really\s+|so\s+|very\s+)?well|success\w*|all\s+clear|fine\s+now|better\s+now|home\s+(?:now|already)"
    r"|recovering\s+well|over\s+and\s+done|good\s+news|great\s+news)\b",
    re.IGNORECASE,
)
_NOT_SO = re.compile(r"\b(?:not|never|no\s+longer|n't)\s+(?:\w+\s+)?$", re.IGNORECASE)
# a reply's first sentence that cheers: "That's great!", "How exciting!", "I'm so glad ..."
_CHEER = re.compile(
    r"^\W*(?:(?:that's|that\s+is|this\s+is|how|what)\s+(?:a\s+)?(?:so\s+|really\s+)?(?:great|wonderful|awesome|fantastic"
    r"|amazing|exciting|lovely|cool|brilliant|good\s+news|great\s+news)\b|(?:great|wonderful|awesome|fantastic"
    r"|amazing|yay|congratulations)\b|i'?m\s+(?:so\s+|really\s+)?glad\b|i\s+am\s+(?:so\s+)?glad\b"
    # "Tired. I think a stomach bug is going around the school." got "That's a good sign." (a `make
    # run` chat, stop 58)
    r"|(?:that's|that\s+is|it's|this\s+is)\s+(?:a\s+)?(?:so\s+|really\s+|very\s+)?(?:good|nice|fun|positive)"
    r"(?:\s+(?:sign|thing|news|to\s+hear))?\b|(?:that\s+|it\s+)?sounds\s+(?:so\s+|really\s+)?(?:great|good|fun"
    r"|lovely|amazing|exciting|wonderful|nice)\b|(?:good|glad|nice)\s+to\s+hear\b)",
    re.IGNORECASE,
)


# words of good news, and a reply's first sentence that mourns: to "Big news though: I left the
# practice, I start at the university veterinary hospital on Monday." the model wrote "I'm sorry
# to hear that you're leaving the practice. It's a sad news for you and your family." (a `make
# run` chat, stop 48)
_GOOD = re.compile(
    r"\b(?:big\s+news|good\s+news|great\s+news|guess\s+what|excited|exciting|thrilled|can'?t\s+wait"
    r"|cannot\s+wait|finally|promot(?:ed|ion)|got\s+the\s+job|new\s+job|engaged|celebrat\w*|yay|woo+)\b",
    re.IGNORECASE,
)
_SORROW = re.compile(
    r"^\W*(?:i'?m\s+(?:so\s+|really\s+|very\s+)?sorry|i\s+am\s+(?:so\s+|really\s+)?sorry|oh\s+no"
    r"|(?:that's|that\s+is|it's)\s+(?:so\s+|really\s+)?(?:sad|awful|terrible|too\s+bad|a\s+shame|unfortunate)"
    r"|how\s+sad|what\s+a\s+shame)\b",
    re.IGNORECASE,
)


SORRY_START = "I'm sorry to hear"


def said_words(kind: re.Pattern[str], message: str) -> list[str]:
    """The words of ``message``'s statements that ``kind`` matches (hard, or good news), unless
    said as not so ("not tired at all")."""
    said = statements(message)
    return [m[0] for m in kind.finditer(said) if not _NOT_SO.search(said[: m.start()])]


def opens_with(kind: re.Pattern[str], reply: str) -> bool:
    """Whether ``reply``'s first sentence opens the way ``kind`` matches (in cheer, in sorrow)."""
    first = sentences(reply)
    return bool(first) and bool(kind.match(first[0].replace("\u2019", "'")))


_BARE_CHEER_WORDS = 4  # "That's good news!", "How exciting!": a sentence that only cheers


def cheers(reply: str) -> bool:
    """Whether ``reply`` opens in cheer, or says a sentence that only cheers anywhere: "I see.
    Pimienta has been limping a bit since yesterday, and you're taking her to the vet on
    Thursday. That's good news!" (a `make run` chat, stop 58). "I'm glad you're home now." after
    a kind first sentence says more than cheer."""
    told = [s.replace("\u2019", "'") for s in sentences(reply)]
    return opens_with(_CHEER, reply) or any(_CHEER.match(s) and len(s.split()) <= _BARE_CHEER_WORDS for s in told[1:])


_GLAD = re.compile(r"\b(?:glad|great|happy|good\s+news|exciting|excited|wonderful|awesome|fantastic)\b", re.I)
_THAT = re.compile(r"\b(?:that|to\s+hear|about|of)\s+(?P<what>[^.!?]+)", re.IGNORECASE)


def glad_of_the_hard(greeting: str) -> str:
    """What a sentence of ``greeting`` is glad of that is hard ("Pimienta is limping and you're
    taking her to the vet on Thursday"), else "": a login under "Pet's condition: limping" greeted
    "Hello Tomás! I'm glad that Pimienta is limping and you're taking her to the vet on Thursday."
    (a `make run` chat, stop 58)."""
    for sentence in sentences(greeting):
        glad = _GLAD.search(sentence)
        hard = [m for m in _HARD.finditer(sentence) if not _NOT_SO.search(sentence[: m.start()])]
        if glad and hard:
            what = _THAT.search(sentence, glad.end())
            return (what["what"] if what else hard[0][0]).strip()
    return ""


# someone of the user's away: "your partner is gone", "Dev has left", "the kids are away"
_GONE = re.compile(
    rf"\b(?P<who>(?:your|the)\s+(?:{RELATION_PATTERN})s?|(?-i:[{UPPER}][{LOWER}]+))\s+(?:is|are|has|have|'s|was)\s+"
    r"(?:already\s+|finally\s+)?(?:gone|left|away)\b",
    re.IGNORECASE,
)


_GONE_WORDS = ("gone", "away")


def glad_they_are_gone(reply: str) -> str:
    """The one ``reply`` is glad is gone ("your partner"), else "": told "my partner Dev has already
    left for work so the flat is quiet", the reply went "I'm glad you're home and that your partner
    is gone." (a `make run` chat, stop 62)."""
    for sentence in sentences(reply.replace("\u2019", "'")):
        glad = _GLAD.search(sentence)
        gone = _GONE.search(sentence, glad.end()) if glad else None
        if gone is not None and not _NOT_SO.search(sentence[: gone.start()]):
            return normalize_space(gone["who"])
    return ""


def mourned(message: str, lines: list[str]) -> list[str]:
    """The core ``lines`` that tell of the death of someone ``message`` names by name: "Some
    evenings I still set out two teacups out of habit, for Michiko." under "Wife: Michiko, passed
    away two years ago this winter" got "That's great! I'm glad Biscuit is still doing well." (a
    `make run` chat, stop 54): the message says no hard word, the memory does."""
    named = set(re.findall(rf"\b[{UPPER}][{LOWER}]+\b", statements(message)))
    out = []
    for line in lines:
        value = line.partition(":")[2]
        who = re.match(rf"\s*([{UPPER}][{LOWER}]+)\b", value)
        if who and who[1] in named and DEATH.search(value):
            out.append(line)
    return out


# news of a change for the worse, and a reply's words for the better: to "Bamse had to go to the vet
# yesterday, his hips are getting worse." a `make run` chat (stop 60) replied "That's a sad story!
# I'm glad Bamse is getting better.", and its next greeting said so again
_WORSE = re.compile(
    r"\b(?:worse|worsening|deteriorat\w*|going\s+downhill|not\s+improving|not\s+getting\s+better)\b", re.I
)
_BETTER = re.compile(
    r"\b(?:getting\s+better|doing\s+better|feeling\s+better|improv\w*|recover\w*|on\s+the\s+mend|better\s+now)\b",
    re.IGNORECASE,
)


def turned_around(message: str, reply: str) -> tuple[str, str] | None:
    """(the user's words, the reply's) where ``message`` tells a change for the worse and
    ``reply`` says it is for the better, else None. A reply that wishes it ("I hope he feels
    better soon") or asks it is kind, not wrong."""
    worse = _WORSE.search(statements(message))
    if worse is None or _BETTER.search(statements(message)):
        return None
    better = _says_mending(reply)
    return (worse[0], better) if better else None


def _says_mending(text: str) -> str | None:
    """The words of ``text`` that say something is getting better, said as so: not wished ("I hope
    he feels better soon") nor asked."""
    for sentence in sentences(text):
        better = _BETTER.search(sentence)
        if better and not is_question(sentence) and not _WISH.search(sentence[: better.start()]):
            return better[0]
    return None


# a line of an ailment: "Bamse's health: hip pain, on painkillers"
_AILING = re.compile(
    r"\b(?:pain\w*|ache\w*|ill|illness|sick|injur\w*|surgery|operation|worse|limp\w*|sore|broken|fracture\w*"
    r"|infection|condition|arthritis|cancer)\b",
    re.IGNORECASE,
)


def mended_unsaid(greeting: str, lines: list[str]) -> tuple[str, str] | None:
    """(the greeting's words, the line) where ``greeting`` says an ailment a core line notes is
    mending ("getting better") and no line says so: a login under "Bamse's health: hip pain, on
    painkillers" greeted "... Bamse ... is getting better from hip pain with painkillers." (a `make
    run` chat, stop 60), after the user had said his hips were getting worse."""
    if any(_BETTER.search(line) for line in lines):
        return None
    ailing = [line for line in lines if _AILING.search(line.partition(":")[2] or line)]
    if not ailing:
        return None
    better = _says_mending(greeting)
    return (better, ailing[0]) if better else None


_WISH = re.compile(r"\b(?:hope|wish|fingers\s+crossed|soon|if|when|may)\b", re.IGNORECASE)


class ToneGuard(Policy):
    name = "tone_guard"

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if draft.plan.last or turn.holds[self.name]:
            return None
        if turn.kind == "login" and (glad := glad_of_the_hard(draft.message)):
            return Hold(
                self.name,
                f"Not sent: your greeting is glad that {glad}, which is hard for the user. Greet them again "
                "and ask kindly how it is going.",
                "it was glad of something hard",
                hide_draft=True,
            )
        if turn.kind == "login" and (mended := mended_unsaid(draft.message, human_lines(memory))):
            return Hold(
                self.name,
                f"Not sent: your greeting says {mended[0]!r}, but your memory says only {mended[1]!r}. Greet them "
                "again and ask kindly how it is going.",
                "it said something hard was mending, which nothing says",
                hide_draft=True,
            )
        if not turn.question:
            return None
        hard = said_words(_HARD, turn.question)
        if not _WENT_WELL.search(statements(turn.question)):
            hard += said_words(_PROCEDURE, turn.question)
        if opens_with(_SORROW, draft.message) and not hard and (good := said_words(_GOOD, turn.question)):
            said = ", ".join(f'"{w.lower()}"' for w in dict.fromkeys(good))
            return Hold(
                self.name,
                f"Not sent: the user said {said}: this is good news to them, and a reply that opens in "
                "sorrow reads as if you did not listen. Reply again with a short, warm comment on their news.",
                "it mourned good news",
                hide_draft=True,
            )
        if (turned := turned_around(turn.question, draft.message)) is not None:
            return Hold(
                self.name,
                f"Not sent: your reply says {turned[1]!r}, but the user said {turned[0]!r}. Reply again with a "
                "short, kind comment on what they told you.",
                "it said the user's news the other way round",
                hide_draft=True,
            )
        if gone := glad_they_are_gone(draft.message):
            return Hold(
                self.name,
                f"Not sent: your reply sounds glad that {gone} is gone, which reads as unkind to the user. Reply "
                "again with a short, kind comment on what they told you.",
                "it sounded glad that someone of theirs was gone",
                hide_draft=True,
                # the redraft, which goes out, said it again: "It's great that your partner is gone." (the
                # replay of that chat)
                banned_words=_GONE_WORDS,
            )
        lost = mourned(turn.question, human_lines(memory))
        if not (hard or lost) or not cheers(draft.message):
            return None
        said = ", ".join(f'"{w.lower()}"' for w in dict.fromkeys(hard))
        if not hard:
            said = f"something of one they lost ({lost[0]!r}, from your memory)"
        # told it "reads as if you did not listen", the redraft went "I'm sorry, I didn't hear you say
        # that. ... Let's talk about something else." (a `make run` chat, stop 57): the notice says what
        # fits, and the reply begins so
        if not turn.reply_start:
            turn.reply_start = SORRY_START
        return Hold(
            self.name,
            f"Not sent: the user said {said}, which is hard for them; a reply that cheers does not fit. "
            "Reply again with a short, kind comment on what they told you.",
            "it cheered at something hard",
            hide_draft=True,
        )
