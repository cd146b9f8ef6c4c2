"""Searched already: a search that repeats one of this turn's, word for word, makes the next
step reply.

The results of the same query are the same, and they are already in view. Asked "What's my
girlfriend's job again?", a 1.5B model ran conversation_search("Sanne's job") three times,
each time reading "[human] Girlfriend: Sanne, a baker" first, before the search budget ended
the searching; every repeat cost a step of 10-20 s. After the first repeat, the next step may
only reply; so too after a page past a search's last.
"""

from __future__ import annotations

from typing import Any

from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.schemas import NewMessage
from memgpt_local.text import normalize_space


def _search_key(step: StepRecord) -> tuple[str, tuple[tuple[str, Any], ...]] | None:
    """(function, arguments with text normalised) of a search step, else None."""
    if step.call is None or not step.outcome.searched:
        return None
    args = {k: normalize_space(v).lower() if isinstance(v, str) else v for k, v in sorted(step.call.arguments.items())}
    return step.call.function, tuple((k, repr(v)) for k, v in args.items())


class SearchedAlready(Policy):
    name = "searched_already"

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        key = _search_key(step)
        if key is not None and any(_search_key(s) == key for s in turn.steps if s is not step):
            turn.require_reply("the same search again")
        elif step.outcome.past_end:
            # "Who is my boss at ... these days?" paged an exhausted search twice ("page 2/1") and
            # looped "I'll search for you again later." (dmr seed 12, reworded, stop 51)
            turn.require_reply("a page after the last")
        return []
