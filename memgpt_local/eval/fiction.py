"""Invented names and UUID-like strings from a seeded random generator.

Every name in the synthetic datasets is made of syllables here, so a model cannot answer a
question from what it learned in training: "Velmora", "Quistane", "Dorbeck". ``Namer`` never
returns the same name twice, so two entities of one dataset never collide by chance.
"""

from __future__ import annotations

import random
import uuid

_ONSETS = (
    "b",
    "br",
    "d",
    "dr",
    "f",
    "g",
    "gr",
    "h",
    "k",
    "kl",
    "l",
    "m",
    "n",
    "p",
    "pr",
    "qu",
    "r",
    "s",
    "st",
    "t",
    "tr",
    "v",
    "w",
    "z",
    "th",
    "sh",
)
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "o", "ai", "ou")
_CODAS = ("", "", "", "n", "r", "l", "s", "m", "th", "x", "nd", "rk", "ll")
_ENDINGS = ("", "a", "o", "is", "an", "el", "en", "ick", "ora", "ette", "ard", "ton")


def fake_uuid(rng: random.Random) -> str:
    """A version-4-shaped UUID drawn from ``rng`` (never ``uuid4()``: runs must repeat)."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


class Namer:
    """Pronounceable invented words, unique per instance."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = set()

    def word(self, syllables: tuple[int, int] = (2, 3)) -> str:
        for _ in range(1000):
            count = self.rng.randint(*syllables)
            parts = [
                self.rng.choice(_ONSETS) + self.rng.choice(_VOWELS) + self.rng.choice(_CODAS) for _ in range(count - 1)
            ]
            parts.append(self.rng.choice(_ONSETS) + self.rng.choice(_VOWELS) + self.rng.choice(_ENDINGS))
            word = "".join(parts)
            if 4 <= len(word) <= 12 and word not in self.used:
                self.used.add(word)
                return word
        raise RuntimeError("the name space is exhausted")  # 1000 collisions in a row: a bug

    def name(self, syllables: tuple[int, int] = (2, 3)) -> str:
        return self.word(syllables).capitalize()

    def person(self) -> tuple[str, str]:
        """(first name, family name)."""
        return self.name((2, 2)), self.name((2, 3))
