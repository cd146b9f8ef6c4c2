"""The ``Backend`` protocol every model runtime implements, and prefix-matching helpers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, Sequence, runtime_checkable

from memgpt_local.schemas import ChatMessage, Completion

if TYPE_CHECKING:
    from memgpt_local.runtime.grammar import Grammar

TextCallback = Callable[[str], None]


@runtime_checkable
class Backend(Protocol):
    """A chat model that renders, counts and completes a list of messages."""

    name: str
    n_ctx: int  # the context window actually allocated

    def count_tokens(self, messages: list[ChatMessage]) -> int:
        """Exact tokens of the rendered prompt, generation prompt included."""
        ...

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        grammar: Grammar | None,
        max_tokens: int,
        on_text: TextCallback | None = None,
    ) -> Completion:
        """One completion; raises ``ContextOverflowError`` if prompt + max_tokens > n_ctx."""
        ...

    def reset_cache(self) -> None:
        """Forget the KV cache: the next call evaluates its whole prompt."""
        ...

    def close(self) -> None:
        ...


def common_prefix_len(cached: Sequence[int], tokens: Sequence[int]) -> int:
    """Length of the longest common prefix of two token lists."""
    n = 0
    for a, b in zip(cached, tokens):
        if a != b:
            break
        n += 1
    return n


def reusable_prefix(cached: Sequence[int], tokens: Sequence[int]) -> int:
    """Tokens of ``tokens`` served from a cache holding ``cached``.

    At least one prompt token is always evaluated, to have fresh logits to sample from
    (llama-cpp-python does the same).
    """
    return min(common_prefix_len(cached, tokens), max(0, len(tokens) - 1))
