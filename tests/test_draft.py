"""Prompt-lookup speculative decoding (runtime/llama.py): drafts copied from the context,
verified greedily in one batch. The output is the one plain greedy decoding writes, with and
without a grammar, and copy-heavy prompts get drafts accepted.

"The same output" holds up to floating point: a batch of positions is the same arithmetic in
another order, so where two tokens are nearly tied the pick can go the other way, as it
already does between a prompt read from the cache and one read afresh. On smollm2 the first
prompt under the call grammar is such a case (the function name: "core" vs "send_", 0.16
logits apart); under the grammar the test checks valid calls instead; scripts/bench_chat.py counts how
often qwen's replies differ."""

from __future__ import annotations

import pytest

from memgpt_local.functions.specs import DEFAULT_FUNCTIONS
from memgpt_local.runtime.base import RepeatBan
from memgpt_local.runtime.decoding import PromptLookup
from memgpt_local.runtime.grammar import build_call_grammar, parse_call
from memgpt_local.schemas import ChatMessage


def test_lookup_proposes_what_followed_the_latest_occurrence():
    lookup = PromptLookup([1, 2, 3, 4, 5, 9, 2, 3, 4, 7, 8], n=3, max_draft=3)
    assert lookup.propose() == []  # (4, 7, 8) never occurred before
    for token in (2, 3, 4):
        lookup.add(token)
    assert lookup.propose() == [7, 8, 2]  # the latest (2, 3, 4) was followed by 7, 8
    lookup.add(99)
    assert lookup.propose() == []


def test_lookup_on_a_short_context_proposes_nothing():
    lookup = PromptLookup([5], n=3, max_draft=4)
    assert lookup.propose() == []
    lookup.add(6)
    assert lookup.propose() == []


NOTES = (
    "Search results:\n1. 2025-03-04 user: We named the puppy Stoundbea after the hill behind the farm.\n"
    "2. 2025-03-06 user: Stoundbea chewed the garden hose again this morning.\n"
)
PROMPTS = [
    [
        ChatMessage(role="system", content="Answer using the search results. Quote them exactly."),
        ChatMessage(role="user", content=NOTES + "What did we name the puppy, and what did it chew?"),
    ],
    [
        ChatMessage(role="system", content="You are a helpful assistant."),
        ChatMessage(role="user", content="Repeat this sentence twice: the quick brown fox jumps over the lazy dog."),
    ],
    [ChatMessage(role="user", content="Write a short poem about rain.")],
]


@pytest.mark.real_model
def test_drafting_writes_what_greedy_decoding_writes(real_backend):
    accepted = 0
    saved = real_backend.draft
    try:
        for prompt in PROMPTS:
            outputs = {}
            for mode in ("none", "prompt-lookup"):
                real_backend.draft = mode
                real_backend.reset_cache()
                done = real_backend.complete(prompt, grammar=None, max_tokens=80)
                outputs[mode] = done.text
                if mode == "prompt-lookup":
                    accepted += done.accepted_draft_tokens
                    assert done.accepted_draft_tokens <= done.draft_tokens
                else:
                    assert done.draft_tokens == 0
            assert outputs["prompt-lookup"] == outputs["none"]
    finally:
        real_backend.draft = saved
    assert accepted > 0


@pytest.mark.real_model
def test_drafting_under_the_call_grammar_gives_valid_calls(real_backend):
    """Under the grammar smollm2 meets near-ties (see the module docstring), so the check is
    that the output is a valid call, drafts were accepted, and forced JSON was not drafted."""
    functions = list(DEFAULT_FUNCTIONS)
    grammar = build_call_grammar(functions, thought_max_chars=120)
    saved = real_backend.draft
    real_backend.draft = "prompt-lookup"
    accepted = 0
    try:
        for prompt in PROMPTS:
            real_backend.reset_cache()
            done = real_backend.complete(prompt, grammar=grammar, max_tokens=120, avoid=RepeatBan("message", 8))
            call = parse_call(done.text, functions)
            assert call.function in {f.name for f in functions}
            accepted += done.accepted_draft_tokens
    finally:
        real_backend.draft = saved
    assert accepted > 0


@pytest.mark.real_model
def test_the_cache_after_drafting_holds_exactly_the_output(real_backend):
    """Rejected drafts leave the KV cache: the next call reuses the prompt and the output only."""
    saved = real_backend.draft
    real_backend.draft = "prompt-lookup"
    try:
        real_backend.reset_cache()
        first = real_backend.complete(PROMPTS[0], grammar=None, max_tokens=40)
        cached = real_backend._llm.input_ids[: real_backend._llm.n_tokens].tolist()
        prompt_tokens = real_backend.tokenize_prompt(real_backend.render(PROMPTS[0]))
        assert cached[: len(prompt_tokens)] == prompt_tokens
        assert len(cached) <= len(prompt_tokens) + first.generated_tokens
        reply = ChatMessage(role="assistant", content=first.text)
        follow = [*PROMPTS[0], reply, ChatMessage(role="user", content="ok")]
        again = real_backend.complete(follow, grammar=None, max_tokens=8)
        assert again.evaluated_tokens < again.prompt_tokens - len(prompt_tokens) + 1 + 20
    finally:
        real_backend.draft = saved
