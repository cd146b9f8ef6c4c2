"""Named agent configurations to compare side by side (``memgpt-local eval ... --variant NAME``).

A variant is a set of ``AgentSettings`` overrides, optionally a system prompt of its own and
optionally a different runner class (anything built like ``AgentRunner``). Every episode
records the variant's name and its overrides, so the report can put variants side by side
with their accuracy, searches, steps and seconds per episode. To add one, call ``register``
(a mechanism that lives in the product should be an ``AgentSettings`` switch, so the variant
is only its name and its overrides).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from pydantic import ValidationError

from memgpt_local.config import AgentSettings
from memgpt_local.errors import InvalidInputError


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    agent: Mapping[str, Any] = field(default_factory=dict)  # AgentSettings overrides
    system_prompt: str | None = None  # None: the packaged system prompt
    runner_factory: Callable[..., Any] | None = None  # None: memgpt_local.agent.loop.AgentRunner

    def settings(self, base: AgentSettings) -> AgentSettings:
        try:
            return AgentSettings.model_validate({**base.model_dump(), **dict(self.agent)})
        except ValidationError as exc:
            raise InvalidInputError(f"variant {self.name!r} has invalid agent settings: {exc.errors()[0]['msg']}") from exc

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "agent": dict(self.agent),
                "system_prompt": self.system_prompt is not None,
                "runner": getattr(self.runner_factory, "__name__", None)}


VARIANTS: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    if variant.name in VARIANTS:
        raise ValueError(f"variant {variant.name!r} is already registered")
    variant.settings(AgentSettings())  # fail at registration, not in the middle of a run
    VARIANTS[variant.name] = variant
    return variant


def get_variant(name: str) -> Variant:
    """A registered variant, or several joined by ``+`` (their overrides merged, later wins)."""
    parts = [p.strip() for p in name.split("+")]
    for part in parts:
        if part not in VARIANTS:
            raise InvalidInputError(f"unknown variant {part!r}",
                                    f"use one of: {', '.join(sorted(VARIANTS))} (or several joined by '+')")
    if len(parts) == 1:
        return VARIANTS[parts[0]]
    chosen = [VARIANTS[p] for p in parts]
    prompts = {v.system_prompt for v in chosen if v.system_prompt is not None}
    runners = {v.runner_factory for v in chosen if v.runner_factory is not None}
    if len(prompts) > 1 or len(runners) > 1:
        raise InvalidInputError(f"variants {name!r} cannot be combined: more than one has its own prompt or runner")
    merged: dict[str, Any] = {}
    for v in chosen:
        merged.update(v.agent)
    combined = Variant("+".join(parts), "; ".join(v.description for v in chosen), merged,
                       next(iter(prompts), None), next(iter(runners), None))
    combined.settings(AgentSettings())
    return combined


register(Variant("default", "the product's defaults: the packaged prompt, hybrid search"))
register(Variant("text-search", "archival and conversation search by words only (FTS5 BM25), "
                 "as the paper searched nested key-value pairs",
                 agent={"archival_search_mode": "text", "recall_search_mode": "text"}))
register(Variant("vector-search", "archival and conversation search by meaning only (embeddings)",
                 agent={"archival_search_mode": "vector", "recall_search_mode": "vector"}))

# Memory policy mechanisms (issue 7): each one switched on alone, then together; "plain"
# switches off the two that are on by default, to show what the bare agent policy does.
register(Variant("plain", "the bare policy: every mechanism off (no forced reply, no forced read of "
                 "search results, no search budget, no recap, no reply check, no question focus, no echo or copy guard)",
                 agent={"reply_required": False, "read_search_results": False, "search_budget": 0,
                        "reply_check": False, "search_recap": False, "question_focus": False,
                        "echo_guard": False, "copy_guard": False}))
register(Variant("no-reply-check", "the defaults without the reply check", agent={"reply_check": False}))
register(Variant("no-search-budget", "the defaults without the search budget", agent={"search_budget": 0}))
register(Variant("prefetch", "read-ahead: top recall/archival hits shown with each user message",
                 agent={"memory_prefetch": True}))
register(Variant("search-first", "the first step after a user message must search memory",
                 agent={"search_first": True}))
register(Variant("linked", "search hits come with the entries their rare identifiers link to (3 hops)",
                 agent={"link_depth": 3}))
register(Variant("all-mechanisms", "prefetch + search-first + linked memory",
                 agent={"memory_prefetch": True, "search_first": True, "link_depth": 3}))
register(Variant("budget-check", "search budget 3 + reply check, no recap (the first reporting run's defaults)",
                 agent={"search_budget": 3, "reply_check": True, "search_recap": False}))
register(Variant("no-recap", "the defaults without the recap of the best hits before a budget-forced reply",
                 agent={"search_recap": False}))
register(Variant("no-question-focus", "the defaults without ranking search hits by the user's question",
                 agent={"question_focus": False}))
register(Variant("no-echo-guard", "the defaults without holding back a reply that asks the user's question back",
                 agent={"echo_guard": False}))
register(Variant("no-copy-guard", "the defaults without holding back a reply that copies a search hit other hits "
                 "answer better", agent={"copy_guard": False}))
