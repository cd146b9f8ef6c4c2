"""What a function call returns: its outcome, and search results as text a model reads.

Search results are numbered lines with real timestamps and who said what, paged with true
totals, bounded in length; an entry stored many times is shown once with its count. The
relative dates in what was said get their days beside its timestamp ("[2025-03-04 18:30 UTC,
yesterday = 2025-03-03] the user said: we got back yesterday"), resolved against when it was
said: months later a model cannot work them out. Beside the timestamp, not inside the text:
the reply check knows an entry was read by its words in the context, and the policies that
show hits again look for them at the end of a line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memgpt_local.functions.links import Link
from memgpt_local.memory.dates import date_notes
from memgpt_local.schemas import SearchHit, SearchPage
from memgpt_local.schemas import human_time as stamp
from memgpt_local.text import normalize_space


@dataclass(frozen=True)
class RankedHit:
    rank: int  # the hit's place in its search's whole result list, 1 = best
    hit: SearchHit


@dataclass
class FunctionOutcome:
    ok: bool
    text: str
    user_message: str | None = None  # set by send_message: what the user sees
    hits: list[RankedHit] = field(default_factory=list)  # what a search showed, with ranks
    searched: bool = False
    unchanged: bool = False  # a memory edit that found nothing to change
    past_end: bool = False  # a search asked for a page after its last one


def _shorten(text: str, limit: int) -> str:
    text = normalize_space(text)
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def _dates(hit: SearchHit, shown: str) -> str:
    """The days of the relative dates in ``shown`` (the hit's text as shown), to follow its
    timestamp: ", yesterday = 2025-03-03". Only for what was written when it was stored (a
    user's or the agent's message, a note): a loaded document's passage (it has a citation)
    was written before, at a time nobody knows, and a function's result quotes others."""
    if hit.role in ("user", "assistant") or (hit.kind == "passage" and hit.citation is None):
        return "".join(f", {note}" for note in date_notes(shown.removesuffix("…"), hit.created_at))
    return ""


def format_hits(
    hits: Sequence[SearchHit], *, first: int, per_item: int, links: dict[int, list[Link]] | None = None
) -> list[str]:
    """Numbered result lines with real timestamps (and the entries each one links to)."""
    lines = []
    for n, hit in enumerate(hits, start=first):
        # who said a past message, in words a model cannot mix up: "I" in a user's message is the user
        who = {"user": " the user said:", "assistant": " you said:"}.get(hit.role or "", "")
        cite = f", {hit.citation}" if hit.citation else ""
        again = f" ({hit.copies} times in all)" if hit.copies > 1 else ""
        text = _shorten(hit.text, per_item)
        lines.append(f"{n}. [{stamp(hit.created_at)}{cite}{_dates(hit, text)}]{who} {text}{again}")
        for link in (links or {}).get(hit.id, []):
            linked = _shorten(link.hit.text, per_item)
            lines.append(f"   linked via {link.via}: [{stamp(link.hit.created_at)}{_dates(link.hit, linked)}] {linked}")
    return lines


def format_page(page: SearchPage, *, max_chars: int, next_hint: str, links: dict[int, list[Link]] | None = None) -> str:
    """Paginated results with true totals and real timestamps, bounded to ``max_chars``."""
    header = page.describe()
    if page.total == 0:
        return f"No results ({header})."
    if not page.items:
        return f"No results on this page ({header}). Use a page below {page.pages}."
    n_lines = len(page.items) + sum(len(v) for v in (links or {}).values())
    per_item = max(80, (max_chars - 200) // max(1, n_lines))
    lines = [header + "."]
    lines += format_hits(page.items, first=page.page * page.page_size + 1, per_item=per_item, links=links)
    if page.page + 1 < page.pages:
        lines.append(f"More results: {next_hint} with page={page.page + 1}.")
    elif page.pages > 1:
        # "page 2/2" reads as if page=2 came next: a 1.5B model asked for it, a step of 10-40 s
        # that found nothing (eval dmr seed 8, stop 49)
        lines.append("That was the last page: every result of this search has been shown.")
    text = "\n".join(lines)
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def search_outcome(page: SearchPage, text: str) -> FunctionOutcome:
    """A search's result text, with its hits and their overall ranks kept for the turn."""
    first = page.page * page.page_size + 1
    ranked = [RankedHit(first + i, hit) for i, hit in enumerate(page.items)]
    return FunctionOutcome(True, text, hits=ranked, searched=True, past_end=page.total > 0 and not page.items)
