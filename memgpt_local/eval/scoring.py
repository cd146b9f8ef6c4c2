"""Answer scoring: normalized containment and ROUGE-L (longest common subsequence of words).

``normalize`` lowercases, folds Unicode (NFKC), turns every run of characters that are not
letters or digits into one space and drops the articles "a", "an" and "the", the way SQuAD's
evaluation does. A gold answer is *contained* in a reply when its normalized words appear as
a contiguous run of the reply's normalized words, so "Tansy" is in "It was Tansy!" but "Tan"
is not, and a UUID matches whatever punctuation surrounds it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memgpt_local.text import LOWER

ARTICLES = frozenset({"a", "an", "the"})
_NON_WORD = re.compile(rf"[^0-9{LOWER}]+")


def normalize(text: str) -> str:
    """Lowercase words separated by single spaces, punctuation and articles removed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = unicodedata.normalize("NFKD", folded)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    words = _NON_WORD.sub(" ", folded).split()
    return " ".join(w for w in words if w not in ARTICLES)


def tokens(text: str) -> list[str]:
    return normalize(text).split()


def contains(reply: str, gold: str) -> bool:
    """Whether the normalized words of ``gold`` occur contiguously in ``reply``."""
    needle = normalize(gold)
    if not needle:
        return False
    return f" {needle} " in f" {normalize(reply)} "


def contains_any(reply: str, answers: Iterable[str]) -> bool:
    return any(contains(reply, a) for a in answers)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, in O(len(a) * len(b)) time, O(len(b)) memory."""
    if not a or not b:
        return 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


@dataclass(frozen=True)
class Rouge:
    recall: float
    precision: float

    @property
    def f1(self) -> float:
        total = self.recall + self.precision
        return 0.0 if total == 0 else 2 * self.recall * self.precision / total


def rouge_l(reply: str, gold: str) -> Rouge:
    """ROUGE-L of ``reply`` against ``gold``: recall = LCS / gold words, precision = LCS / reply words."""
    r, g = tokens(reply), tokens(gold)
    common = lcs_length(r, g)
    return Rouge(recall=common / len(g) if g else 0.0, precision=common / len(r) if r else 0.0)
