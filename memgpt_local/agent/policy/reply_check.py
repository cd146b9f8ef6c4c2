"""Reply check: before an answer goes out, look up the rare names it introduces.

A small model answers with the first fact it finds. When that fact names something memory
knows more about ("your cousin is staying at Hotel Aurelia", and a note holds Hotel
Aurelia's address; an id whose own entry points further), the answer is often incomplete
or one step short. The check takes the identifiers in a draft reply that the user did not
write (names, codes, ids: see ``functions/links.identifiers``), finds the memory entries
that mention them and that the model has not read (nothing of them is in its context),
and, if there are any, holds the draft back and shows those entries, so the next step can
answer again with them in view. An entry the model has read never triggers a check, so
the check ends by itself once the model has seen what memory holds about its answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, SearchKind
from memgpt_local.agent.policy.hits import Embed, unit
from memgpt_local.agent.turn import Hold, Turn
from memgpt_local.config import ReplyCheckSettings
from memgpt_local.functions.links import identifiers
from memgpt_local.functions.results import format_hits
from memgpt_local.schemas import SearchHit
from memgpt_local.text import SENTENCE_OPENERS, WHEN_WORDS, normalize_space

Containing = Callable[[str, int], list[SearchHit]]

MAX_IDENTIFIERS = 6  # identifiers of one draft that are looked up
MAX_ENTRIES = 4  # unread entries shown at most
SOURCES: tuple[SearchKind, ...] = ("passage", "message")


@dataclass(frozen=True)
class UnreadEntries:
    """The unread entries about a draft's identifiers (empty: the draft can go out)."""

    identifiers: tuple[str, ...]
    entries: tuple[SearchHit, ...]

    def notice(self, per_item: int = 300) -> str:
        names = ", ".join(repr(i) for i in self.identifiers)
        lines = format_hits(self.entries, first=1, per_item=per_item)
        # the instruction comes first and the entries last: a small model copies the last
        # thing it read, and an instruction at the end was sent back to the user word for word
        return (
            f"Not sent yet: your reply mentions {names}, and memory holds entries about "
            f"{'them' if len(self.identifiers) > 1 else 'it'} that you had not read. Use them to write "
            "your reply to the user again (corrected or completed if they change it):\n" + "\n".join(lines)
        )


def unread_entries(
    draft: str, *, asked: str, context_text: str, sources: Sequence[Containing], max_df: int, known: str = ""
) -> UnreadEntries:
    """What memory holds about the draft's own identifiers that the context does not show.

    ``asked`` is the user's message: identifiers it contains are what the model searched
    for, not what its answer adds. ``known`` is core memory: an identifier it holds is a fact
    the agent keeps, and the messages that first said it add nothing to an answer from it
    ("You live in Shullthouardbury now." held back for the user's message about the move, and
    the model's second answer made the town up: "a charming town in the north of England").
    An identifier held by more than ``max_df`` entries is common and links nothing (the same
    rule as linked memory).
    """
    seen_text = normalize_space(context_text)
    # a weekday or a month links nothing: "Henri's operation is on Thursday, 10 December" was held
    # for "December" (core memory dates it "2026-12-10"), and the redraft said "10 January", a
    # month from the entries shown (a `make run` chat, stop 52)
    new_ids = [
        i
        for i in identifiers(draft)
        if i not in asked and i not in known and i.lower() not in SENTENCE_OPENERS and i.lower() not in WHEN_WORDS
    ][:MAX_IDENTIFIERS]
    found: list[SearchHit] = []
    used: list[str] = []
    keys: set[tuple[str, int]] = set()
    for ident in new_ids:
        for containing in sources:
            holders = containing(ident, max_df + 1)
            if len(holders) > max_df:
                continue
            for hit in holders:
                if normalize_space(hit.text)[:80] in seen_text:
                    continue
                if ident not in used:
                    used.append(ident)
                key = (hit.kind, hit.id)
                if key not in keys:
                    keys.add(key)
                    found.append(hit)
    return UnreadEntries(tuple(used), tuple(found[:MAX_ENTRIES]))


def relevant_to_question(
    entries: Sequence[SearchHit], *, asked: str, grounds: Sequence[str], embed: Embed, window: float
) -> list[SearchHit]:
    """The entries about as relevant to the user's question as what the answer was based on.

    ``grounds`` are the texts the model read this turn (its search hits) or, when it read
    nothing, its draft. An entry much less similar to the question than the best of them
    is detail about the answer, not part of it ("who founded the lighthouse?" answered
    with a name: the founder's biography is not shown, and a small model shown it would
    answer with the biography); a chained reference reads like its source and passes.
    """
    if not entries or not asked.strip():
        return list(entries)
    texts = [asked, *grounds, *(e.text for e in entries)]
    vectors = unit(embed(texts))
    sims = vectors[1:] @ vectors[0]
    reference = float(sims[: len(grounds)].max()) if grounds else 0.0
    entry_sims = sims[len(grounds) :]
    return [e for e, sim in zip(entries, entry_sims) if float(sim) >= reference - window]


class ReplyCheck(Policy):
    name = "reply_check"

    def __init__(self, settings: ReplyCheckSettings):
        self.settings = settings

    def review(self, turn: Turn, draft: Draft, memory: MemoryView) -> Hold | None:
        if turn.question is None:
            return None  # a greeting or a heartbeat's message answers no question: nothing to complete
        if draft.plan.last or turn.holds[self.name] >= self.settings.rounds:
            return None
        asked = turn.question or ""

        def source(kind: SearchKind) -> Containing:
            return lambda text, limit: memory.containing(kind, text, limit)

        # the words a policy began the reply with are no claim of the model's: "On Monday 5 May, you
        # told me" (``recall_at_question``) was held for "Monday", and the redraft copied the hit
        # shown, an older reply (bench_honesty seed 54, stop 44)
        written = draft.written_after(turn.reply_start)
        check = unread_entries(
            written,
            asked=asked,
            context_text="\n".join(m.content for m in draft.prompt),
            sources=[source(kind) for kind in SOURCES],
            max_df=self.settings.max_df,
            known="\n".join(line for _, line in memory.core_lines()),
        )
        if check.entries and self.settings.window < 1.0:
            grounds = [ranked.hit.text for _, ranked in turn.search_hits()] or [draft.message]
            kept = relevant_to_question(
                check.entries, asked=asked, grounds=grounds, embed=memory.embed, window=self.settings.window
            )
            check = UnreadEntries(tuple(i for i in check.identifiers if any(i in e.text for e in kept)), tuple(kept))
        if not check.entries:
            return None
        names = ", ".join(check.identifiers)
        return Hold(self.name, check.notice(), f"memory has unread entries about {names}")
