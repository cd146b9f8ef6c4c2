"""The runtime's plain values and protocols: the ``Backend`` every model runtime implements,
the ``Grammar`` a request constrains its output with, the ``CallSpec`` shape of a function a
call grammar admits; and prefix-matching helpers.

A ``Grammar`` is a plain value (GBNF text plus what it admits, and the specs it was built
from); the backend that compiles it validates it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from memgpt_local.errors import GrammarError
from memgpt_local.schemas import ChatMessage, Completion

TextCallback = Callable[[str], None]
TokenT = TypeVar("TokenT", bound=Hashable)  # token ids, or the scripted backend's token strings


class CallSpec(Protocol):
    """A function a call grammar admits, as the runtime sees it (``functions.specs.FunctionSpec``
    is one): its name, its description, its arguments' pydantic model, and whether the call may
    carry ``request_heartbeat``."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def args_model(self) -> type[BaseModel]: ...

    @property
    def allows_heartbeat(self) -> bool: ...


@dataclass(frozen=True)
class Grammar:
    """A GBNF grammar (``text``, start symbol ``root``) and what it admits.

    A call grammar carries the ``specs`` it was built from (``function_names`` are theirs), so
    a fake backend can check a scripted call against the same schema.
    """

    text: str
    function_names: tuple[str, ...] = ()
    heartbeat: bool = True
    thought_max_chars: int | None = None  # a call grammar's bound on the thought (0: an empty one)
    kind: Literal["call", "text", "json"] = "call"  # json: a JSON value, done when it closes
    max_chars: int = 0  # for kind == "text"
    message_start: str = ""  # a call grammar's forced start of a ``message`` argument
    specs: tuple[CallSpec, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "specs", tuple(self.specs))
        if not self.specs:
            return
        names = tuple(spec.name for spec in self.specs)
        if not self.function_names:
            object.__setattr__(self, "function_names", names)
        elif self.function_names != names:
            raise GrammarError(f"function names {list(self.function_names)} differ from the specs' {list(names)}")

    def spec(self, name: str) -> CallSpec | None:
        """The spec of function ``name`` this grammar was built from, if it carries one."""
        return next((spec for spec in self.specs if spec.name == name), None)


@dataclass(frozen=True)
class RepeatBan:
    """The string value of one JSON key may not repeat a run of ``n`` of its own tokens.

    A small model loops one sentence inside a reply ("Thank you for your patience." a dozen
    times, 500 tokens); the sampler refuses the token that would complete an ``n``-token run
    the value already holds. Everything outside that value (the thought, the JSON) is left
    alone. (Tried and dropped: also refusing runs of earlier replies. Asked a question it had
    answered before, the model then wrote broken near-copies: "How can our help you today?")
    ``prior`` is for the one case where the alternative is worse: after a draft was held back
    for repeating an earlier reply or the user's words, greedy decoding wrote the same draft
    again word for word, and the second one went out.
    """

    field: str  # the JSON key whose string value is watched ("message"; n = 0: no run is refused)
    n: int = 8
    prior: tuple[str, ...] = ()  # texts whose runs are refused too: drafts held back this turn
    # the value ends before a sentence after its first that opens with the ``formula_words`` words
    # of one of ``formulas`` (openings of earlier replies' sentences, ``text.formula_start``): the
    # model stops rather than copy a formula, and the words it began are cut by the caller; after a
    # first sentence under six words ("I see.", "That's so cool!") the word that would complete the opening is refused
    formulas: frozenset[tuple[str, ...]] = frozenset()
    formula_words: int = 4
    # the value's first sentence may not open with one of these ``formula_words``-word openings
    # (of earlier replies' sentences): the word that would complete one is refused, so the reply
    # opens its own way; seven small-talk replies of one session opened "I'm glad/sorry to hear
    # that ..." (eval chat seed 6)
    openings: frozenset[tuple[str, ...]] = frozenset()
    # no sentence of the value may begin with one of these words (as typed: "I", "My"): after a
    # draft held for speaking as the user, the redraft said "I'm looking forward to baking a lemon
    # cake tomorrow." for the user's plan (a `make run` chat, stop 37)
    banned_openers: tuple[str, ...] = ()
    # nor may it say one of these words anywhere (as typed: "my"): after a draft held for speaking as
    # the user, a redraft that opened "The car accident ..." went on "... my dad's car" (`make run`)
    banned_words: tuple[str, ...] = ()
    fixed_start: str = ""  # the value's forced first words (``Grammar.message_start``): never refused
    # the value ends after this many sentences (0: no limit): an answer begun from a core line went
    # on "Sheldeens is a Swedish rock band that formed in 1988 ..." for 300 tokens (eval chat seed 16)
    max_sentences: int = 0
    # and it ends before its numbered list's item after this many (0: no limit): advice for a rainy
    # Saturday ran to "18. Have an outdoor movie night with you friend", items written over and over
    # with a word changed, until the reply's length cut it (a `make run` chat, stop 45)
    max_items: int = 0
    # and it ends after this many questions (0: no limit): told "I'm a vet in Utrecht and I cycle to
    # work every day", a first reply asked "How do you like cycling? Do you have any favorite routes?"
    # (a `make run` chat, stop 63); a friend asks one thing and waits
    max_questions: int = 0
    # nor may it write a Chinese, Japanese or Korean character (``decoding.WIDE_SCRIPT_LEADS``):
    # qwen2.5 drifts into Chinese mid-sentence ("coach of the school's rowing团队 on Saturdays", a
    # `make run` greeting, stop 42); set unless the user writes in one of those scripts
    latin_only: bool = False
    # the step's thought may not repeat a run of this many of its own tokens (0: off): a greeting's
    # redraft thought "... I did not ask for help with mock exams again, so I did not ask for help
    # with mock exams again. I did not ask ..." to its length cut, shown to the user as the
    # assistant's thinking (a `make run` chat, stop 51)
    thought_n: int = 0


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
        avoid: RepeatBan | None = None,
    ) -> Completion:
        """One completion; raises ``ContextOverflowError`` if prompt + max_tokens > n_ctx.
        ``avoid``: n-grams a field may not repeat (a backend that cannot steer its sampler
        ignores it)."""
        ...

    def reset_cache(self) -> None:
        """Forget the KV cache: the next call evaluates its whole prompt."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class StatePersisting(Protocol):
    """A backend that can keep its KV cache in a file between processes (``runtime/kv_state``)."""

    def attach_state_file(
        self, path: Path | None, *, max_bytes: int = ..., warn: Callable[[str], None] | None = None
    ) -> None: ...

    def save_state_file(self) -> int | None: ...


@runtime_checkable
class Prefills(Protocol):
    """A backend that can read a prompt into its KV cache ahead of the call that needs it."""

    def prefill(self, messages: list[ChatMessage]) -> int:
        """Evaluate what the cache lacks of ``messages``' prompt; returns the tokens evaluated."""
        ...


@runtime_checkable
class SideContexts(Protocol):
    """A backend that can open a second context on the same weights: a side task (fact notes)
    then runs its own short prompt without replacing the conversation's cached one."""

    def side_context(self, n_ctx: int) -> Backend: ...


def common_prefix_len(cached: Sequence[TokenT], tokens: Sequence[TokenT]) -> int:
    """Length of the longest common prefix of two token lists."""
    n = 0
    for a, b in zip(cached, tokens):
        if a != b:
            break
        n += 1
    return n


def reusable_prefix(cached: Sequence[TokenT], tokens: Sequence[TokenT]) -> int:
    """Tokens of ``tokens`` served from a cache holding ``cached``.

    At least one prompt token is always evaluated, to have fresh logits to sample from
    (llama-cpp-python does the same).
    """
    return min(common_prefix_len(cached, tokens), max(0, len(tokens) - 1))
