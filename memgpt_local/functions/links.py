"""Linked memory: search results come back with the entries they point to.

A hit that mentions a rare identifier (a proper name, a code, an id: a token with a digit or
a capital letter that occurs in only a few entries) is linked to the other entries that
mention it, and those to theirs, up to ``depth`` hops. "What did my cousin say about the
trip, and where is that hotel?" finds the cousin's message naming Hotel Aurelia together
with the note holding Hotel Aurelia's address; a chain of references is followed the same way.
Rare identifiers are what make a link meaningful: a word shared by many entries links nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memgpt_local.schemas import SearchHit

IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]{3,}")


@dataclass(frozen=True)
class Link:
    via: str  # the shared identifier
    hit: SearchHit
    depth: int


def identifiers(text: str) -> list[str]:
    """Candidate identifiers in order of appearance: tokens with a digit or a capital letter."""
    found = []
    for token in IDENTIFIER.findall(text):
        token = token.strip("-_")
        if len(token) >= 4 and (any(c.isdigit() for c in token) or any(c.isupper() for c in token)):
            if token not in found:
                found.append(token)
    return found


class LinkExpander:
    """Follows rare identifiers from hits to the other entries that contain them."""

    def __init__(
        self, containing: Callable[[str, int], list[SearchHit]], *, depth: int = 3, max_df: int = 3, max_links: int = 6
    ):
        self.containing = containing
        self.depth = depth
        self.max_df = max_df
        self.max_links = max_links

    def expand(self, hits: Sequence[SearchHit]) -> dict[int, list[Link]]:
        """Links per hit id; an entry appears once across the whole page."""
        seen = {h.id for h in hits}
        result: dict[int, list[Link]] = {}
        for hit in hits:
            links: list[Link] = []
            used: set[str] = set()
            frontier = [hit]
            for depth in range(1, self.depth + 1):
                next_frontier = []
                for entry in frontier:
                    for ident in identifiers(entry.text):
                        if ident in used or len(links) >= self.max_links:
                            continue
                        used.add(ident)
                        holders = self.containing(ident, self.max_df + 1)
                        if len(holders) > self.max_df:
                            continue  # common: links nothing
                        for other in holders:
                            if other.id not in seen and len(links) < self.max_links:
                                seen.add(other.id)
                                links.append(Link(ident, other, depth))
                                next_frontier.append(other)
                frontier = next_frontier
                if not frontier:
                    break
            if links:
                result[hit.id] = links
        return result
