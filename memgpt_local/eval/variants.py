"""Named agent configurations to compare side by side (``memgpt-local eval ... --variant NAME``).

A variant is a set of ``AgentSettings`` overrides and policies switched on or off (see
``agent/policy/``), optionally a system prompt of its own and optionally a different runner
class (anything built like ``AgentRunner``). Every episode records the variant's name and
what it changes, so the report can put variants side by side with their accuracy, searches,
steps and seconds per episode. To add one, call ``register`` (a mechanism that lives in the
product should be a policy, so the variant is only its name and the policies it changes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from memgpt_local.config import POLICY_NAMES, AgentSettings
from memgpt_local.errors import InvalidInputError


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    agent: Mapping[str, Any] = field(default_factory=dict)  # AgentSettings overrides (tables merge key by key)
    enable: tuple[str, ...] = ()  # policies switched on (see agent.policies)
    disable: tuple[str, ...] = ()  # policies switched off
    system_prompt: str | None = None  # None: the packaged system prompt
    runner_factory: Callable[..., Any] | None = None  # None: memgpt_local.agent.loop.AgentRunner

    def settings(self, base: AgentSettings) -> AgentSettings:
        data = base.model_dump()
        for key, value in self.agent.items():
            data[key] = (
                {**data[key], **value} if isinstance(value, Mapping) and isinstance(data.get(key), dict) else value
            )
        policies = [p for p in data["policies"] if p not in self.disable]
        data["policies"] = policies + [p for p in self.enable if p not in policies]
        try:
            return AgentSettings.model_validate(data)
        except ValidationError as exc:
            raise InvalidInputError(
                f"variant {self.name!r} has invalid agent settings: {exc.errors()[0]['msg']}"
            ) from exc

    def overrides(self) -> dict[str, Any]:
        """What the variant changes, as recorded with each episode."""
        out: dict[str, Any] = dict(self.agent)
        if self.enable:
            out["enable"] = list(self.enable)
        if self.disable:
            out["disable"] = list(self.disable)
        return out

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            **self.overrides(),
            "system_prompt": self.system_prompt is not None,
            "runner": getattr(self.runner_factory, "__name__", None),
        }


VARIANTS: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    if variant.name in VARIANTS:
        raise ValueError(f"variant {variant.name!r} is already registered")
    unknown = [p for p in (*variant.enable, *variant.disable) if p not in POLICY_NAMES]
    if unknown:
        raise ValueError(f"variant {variant.name!r} names unknown policies {unknown}")
    variant.settings(AgentSettings())  # fail at registration, not in the middle of a run
    VARIANTS[variant.name] = variant
    return variant


def get_variant(name: str) -> Variant:
    """A registered variant, or several joined by ``+`` (their changes merged, later wins)."""
    parts = [p.strip() for p in name.split("+")]
    for part in parts:
        if part not in VARIANTS:
            raise InvalidInputError(
                f"unknown variant {part!r}", f"use one of: {', '.join(sorted(VARIANTS))} (or several joined by '+')"
            )
    if len(parts) == 1:
        return VARIANTS[parts[0]]
    chosen = [VARIANTS[p] for p in parts]
    prompts = {v.system_prompt for v in chosen if v.system_prompt is not None}
    runners = {v.runner_factory for v in chosen if v.runner_factory is not None}
    if len(prompts) > 1 or len(runners) > 1:
        raise InvalidInputError(f"variants {name!r} cannot be combined: more than one has its own prompt or runner")
    merged: dict[str, Any] = {}
    enable: list[str] = []
    disable: list[str] = []
    for v in chosen:
        for key, value in v.agent.items():
            old = merged.get(key)
            merged[key] = {**old, **value} if isinstance(old, Mapping) and isinstance(value, Mapping) else value
        enable = [p for p in enable if p not in v.disable] + list(v.enable)
        disable = [p for p in disable if p not in v.enable] + list(v.disable)
    combined = Variant(
        "+".join(parts),
        "; ".join(v.description for v in chosen),
        merged,
        tuple(enable),
        tuple(disable),
        next(iter(prompts), None),
        next(iter(runners), None),
    )
    combined.settings(AgentSettings())
    return combined


register(Variant("default", "the product's defaults: the packaged prompt, hybrid search"))
register(
    Variant(
        "text-search",
        "archival and conversation search by words only (FTS5 BM25), as the paper searched nested key-value pairs",
        agent={"archival_search_mode": "text", "recall_search_mode": "text"},
    )
)
register(
    Variant(
        "vector-search",
        "archival and conversation search by meaning only (embeddings)",
        agent={"archival_search_mode": "vector", "recall_search_mode": "vector"},
    )
)

# Memory policies (agent/policy/): each switched on alone, then together; "plain" switches off
# every one, to show what the bare agent policy does.
register(
    Variant(
        "plain",
        "the bare policy: no memory policy at all (no forced reply, no forced read of search "
        "results, no search budget, no recap, no repeat, echo or copy guard, no reply check, no question "
        "focus)",
        disable=POLICY_NAMES,
    )
)
register(Variant("no-reply-check", "the defaults without the reply check", disable=("reply_check",)))
register(Variant("no-search-budget", "the defaults without the search budget", disable=("search_budget",)))
register(Variant("prefetch", "read-ahead: top recall/archival hits shown with each user message", enable=("prefetch",)))
register(Variant("search-first", "the first step after a user message must search memory", enable=("search_first",)))
register(
    Variant(
        "linked", "search hits come with the entries their rare identifiers link to (3 hops)", agent={"link_depth": 3}
    )
)
register(
    Variant(
        "all-mechanisms",
        "prefetch + search-first + linked memory",
        agent={"link_depth": 3},
        enable=("prefetch", "search_first"),
    )
)
register(
    Variant(
        "budget-check",
        "search budget 3 + reply check, no recap (the first reporting run's defaults)",
        agent={"search_budget": {"searches": 3}},
        enable=("search_budget", "reply_check"),
        disable=("recap",),
    )
)
register(
    Variant(
        "no-recap", "the defaults without the recap of the best hits before a budget-forced reply", disable=("recap",)
    )
)
register(
    Variant(
        "no-question-focus",
        "the defaults without ranking search hits by the user's question",
        disable=("question_focus",),
    )
)
register(
    Variant(
        "no-echo-guard",
        "the defaults without holding back a reply that asks the user's question back",
        disable=("echo_guard",),
    )
)
register(
    Variant(
        "no-copy-guard",
        "the defaults without holding back a reply that copies a search hit other hits answer better",
        disable=("copy_guard",),
    )
)
register(
    Variant(
        "no-refusal-guard",
        "the defaults without holding back a reply that refuses (\"I'm sorry, but I can't assist with that.\")",
        disable=("refusal_guard",),
    )
)
register(
    Variant(
        "no-language-guard",
        "the defaults without holding back (once a turn) a reply in another language than the user's English",
        disable=("language_guard",),
    )
)
register(
    Variant(
        "no-unasked-denial",
        'the defaults without holding back (once a turn) an "I don\'t know" to a message that asked nothing',
        disable=("unasked_denial",),
    )
)
register(
    Variant(
        "no-formula-stop",
        "the defaults without ending a reply before a sentence that opens like one of an earlier reply's",
        agent={"reply_formula_words": 0},
    )
)
register(
    Variant(
        "same-openings",
        "the defaults without turning a reply's first sentence away from an earlier reply's opening",
        agent={"reply_fresh_openings": False},
    )
)
register(
    Variant(
        "reply-thought-0",
        "a step that may only reply has an empty thought: the reply's first words come at once",
        agent={"reply_thought_max_chars": 0},
    )
)
register(
    Variant(
        "denial-guard",
        'hold back (once a turn) an "I don\'t know" while memory holds words of the question, and show them',
        enable=("denial_guard",),
    )
)


register(
    Variant(
        "grounded-reply",
        "hold back (once a turn) an answer about the user that names things nothing in view says",
        enable=("grounded_reply",),
    )
)


register(
    Variant(
        "no-answer-start",
        "the defaults without beginning the reply to a question about the user with the label of the core line "
        'that answers it ("Your parrot")',
        disable=("answer_start",),
    )
)


register(
    Variant(
        "no-core-at-question",
        "the defaults without the core-memory lines quoted beside a question",
        disable=("core_at_question",),
    )
)


def _without_core_memory_editing(*args: Any, **kwargs: Any) -> Any:
    """An ``AgentRunner`` offered no function that edits core memory."""
    from memgpt_local.agent.loop import AgentRunner
    from memgpt_local.functions import handlers
    from memgpt_local.functions.specs import DEFAULT_FUNCTIONS

    core_edits = (handlers.core_memory_append, handlers.core_memory_replace)
    kwargs.setdefault("functions", tuple(f for f in DEFAULT_FUNCTIONS if f.handler not in core_edits))
    return AgentRunner(*args, **kwargs)


register(
    Variant(
        "past-thoughts",
        "the defaults with earlier turns shown in full to the model (their steps' thoughts and reply results)",
        agent={"past_thoughts": True},
    )
)
register(
    Variant(
        "no-direct-reply",
        "the defaults without answering a message that asks nothing of memory in the first step (the model may search)",
        disable=("direct_reply",),
    )
)
register(
    Variant(
        "no-fact-notes",
        "the defaults without fact notes: the model alone decides what to write into the human block",
        agent={"fact_notes": {"enabled": False}},
    )
)
register(
    Variant(
        "no-core-memory",
        "baseline: core memory is never edited (no fact notes, no core_memory_append/replace offered)",
        agent={"fact_notes": {"enabled": False}},
        runner_factory=_without_core_memory_editing,
    )
)
