"""The paper's baselines: the same model answering from one fixed prompt, no memory functions.

- ``fixed-context``: the task's memory (pairs, past messages, retrieved documents) written
  into the prompt, truncated to what fits the model's window with room for the answer:
  the first items for pairs and documents (best-ranked first), the newest for messages.
- ``summary-only`` (dmr): the past sessions folded into one summary by the product's own
  recursive summarizer, written by the same model; the prompt holds only that summary.

The answer is free text under a text grammar; it is scored like the agent's reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memgpt_local.agent.summarizer import Summarizer
from memgpt_local.eval.base import Case, FixedContext
from memgpt_local.events import render_user
from memgpt_local.runtime.base import Backend
from memgpt_local.runtime.grammar import build_text_grammar
from memgpt_local.schemas import ChatMessage, Completion, Message, NewMessage, utcnow

ANSWER_MAX_CHARS = 300
ANSWER_MAX_TOKENS = 160


@dataclass
class BaselineAnswer:
    text: str
    kept: int  # items left in the prompt
    total: int  # items before truncation
    gold_kept: bool | None  # whether an item holding the answer survived (None: not tracked)
    completion: Completion
    prompt_tokens: int


def build_messages(
    ctx: FixedContext, kept: Sequence[str], question: str, asked_at: datetime | None
) -> list[ChatMessage]:
    system = ctx.instructions
    if kept:
        system = f"{system}\n\n{ctx.heading}\n" + "\n".join(kept)
    return [
        ChatMessage(role="system", content=system),
        ChatMessage(role="user", content=render_user(question, asked_at or utcnow())),
    ]


def _slice(ctx: FixedContext, k: int) -> tuple[int, ...]:
    n = len(ctx.items)
    return tuple(range(k)) if ctx.keep == "first" else tuple(range(n - k, n))


def fit_count(backend: Backend, ctx: FixedContext, question: str, asked_at: datetime | None, reserve: int) -> int:
    """The most items whose prompt leaves ``reserve`` tokens of the window free (binary search)."""

    def fits(k: int) -> bool:
        kept = [ctx.items[i] for i in _slice(ctx, k)]
        return backend.count_tokens(build_messages(ctx, kept, question, asked_at)) + reserve <= backend.n_ctx

    lo, hi = 0, len(ctx.items)
    if not fits(0):
        return -1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def answer_fixed(backend: Backend, ctx: FixedContext, case: Case) -> BaselineAnswer:
    """Truncate ``ctx`` to the window and let the model answer ``case.question``."""
    k = fit_count(backend, ctx, case.question, case.asked_at, ANSWER_MAX_TOKENS)
    if k < 0:
        from memgpt_local.errors import ContextOverflowError

        tokens = backend.count_tokens(build_messages(ctx, [], case.question, case.asked_at))
        raise ContextOverflowError(tokens, backend.n_ctx, ANSWER_MAX_TOKENS)
    indices = _slice(ctx, k)
    messages = build_messages(ctx, [ctx.items[i] for i in indices], case.question, case.asked_at)
    completion = backend.complete(messages, grammar=build_text_grammar(ANSWER_MAX_CHARS), max_tokens=ANSWER_MAX_TOKENS)
    gold_kept = bool(ctx.gold & set(indices)) if ctx.gold else None
    return BaselineAnswer(
        text=completion.text.strip(),
        kept=k,
        total=len(ctx.items),
        gold_kept=gold_kept,
        completion=completion,
        prompt_tokens=completion.prompt_tokens,
    )


def summarize_history(backend: Backend, messages: Sequence[NewMessage]) -> str:
    """One summary of ``messages`` by the product's recursive summarizer (chunked to the window)."""
    stored = [
        Message(id=i, agent_id=0, seq=i, role=m.role, content=m.content, created_at=m.created_at)
        for i, m in enumerate(messages, start=1)
    ]
    return Summarizer(backend).summarize("", stored)


def summary_context(ctx: FixedContext, summary: str) -> FixedContext:
    """``ctx``'s instructions with the summary in place of the history."""
    return FixedContext(
        instructions=f"{ctx.instructions}\n\nSummary of your past conversations with them:\n"
        f"{summary.strip() or '(empty)'}"
    )
