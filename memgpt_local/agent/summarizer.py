"""The recursive summary: evicted messages folded into one running summary by the model itself.

``Summarizer.summarize(previous, messages)`` writes the messages as transcript lines and feeds
them to the model in chunks small enough that every summary call (instructions, the summary
so far, the chunk, and the room for the answer) fits the model's window; each call carries
the summary the previous one wrote. The answer is free text under a text grammar, cut to
``SUMMARY_MAX_CHARS``, and it begins "The user" (``SUMMARY_START``, written by the grammar):
left to begin as it liked, qwen2.5-coder-1.5b went on with the chat instead, and the summary
of an eval chat's first session was the assistant's first reply word for word ("Hello
Folpreette! I'm glad to know you work as a librarian. What's your favorite book?"). Read at
the head of the queue, that line then came back as the greeting at every later login. Begun
"The user", the same call wrote "The user logged in for the first time. They are Folpreette,
a librarian from Stobathitonton ...". The results of replies ("Message sent.") are left out
of the transcript, and so are notices that instruct the model (``summary_line``): they say
nothing and cost prefill.
"""

from __future__ import annotations

from collections.abc import Sequence

from memgpt_local import events
from memgpt_local.agent.context import is_reply_result, transcript_line
from memgpt_local.errors import ContextOverflowError
from memgpt_local.functions.specs import FUNCTIONS_BY_NAME
from memgpt_local.runtime.base import Backend
from memgpt_local.runtime.grammar import build_text_grammar
from memgpt_local.schemas import ChatMessage, Message, human_time

SUMMARY_MAX_CHARS = 1500
SUMMARY_MAX_TOKENS = 400
SUMMARY_START = "The user"

SUMMARIZER_INSTRUCTIONS = (
    "You maintain the running summary of a long conversation between a user and their assistant. "
    "Merge the previous summary and the new messages into one updated summary of at most "
    f"{SUMMARY_MAX_CHARS} characters. Keep names, dates, numbers, decisions, promises and facts about "
    "the user; drop greetings and filler. Write plain sentences, no lists of messages."
)


def summary_prompt(previous: str, lines: Sequence[str]) -> list[ChatMessage]:
    """The messages of one summary call: the instructions, the summary so far, new lines."""
    body = "\n".join(lines)
    user = f"Previous summary:\n{previous.strip() or '(none)'}\n\nNew messages:\n{body}\n\nUpdated summary:"
    return [ChatMessage(role="system", content=SUMMARIZER_INSTRUCTIONS), ChatMessage(role="user", content=user)]


_FOR_THE_MODEL = "For you, not the user"  # the opening of notices that instruct the model


def summary_line(message: Message) -> str | None:
    """``message`` as a line of the transcript the summary is written from, or None when it
    carries nothing to remember: a reply's result ("Message sent."), a notice that instructs the
    model (a pressure warning, the core lines quoted beside a question). A login is only said to
    have happened: summarised whole, its instructions came back as "You greet them by their
    name, Folpreette, and mention ..." (eval chat seed 14)."""
    if is_reply_result(message, FUNCTIONS_BY_NAME):
        return None
    if message.role == "system":
        kind = events.kind_of(message.content, message.role)
        if kind == "memory pressure warning" or _FOR_THE_MODEL in message.content:
            return None
        if kind == "login":
            return f"{human_time(message.created_at)} the user logged in"
    return transcript_line(message)


class Summarizer:
    """Writes the recursive summary with ``backend``; see the module docstring."""

    def __init__(self, backend: Backend):
        self.backend = backend

    def _fits(self, previous: str, lines: Sequence[str]) -> bool:
        tokens = self.backend.count_tokens(summary_prompt(previous, lines))
        return tokens + SUMMARY_MAX_TOKENS <= self.backend.n_ctx

    def next_chunk(self, summary: str, lines: Sequence[str]) -> tuple[list[str], int]:
        """The longest run of ``lines`` that fits one summary call beside ``summary``, and how
        many lines it consumed. A single line too long to fit is cut down until it does."""
        chunk: list[str] = []
        for line in lines:
            if not self._fits(summary, [*chunk, line]):
                break
            chunk.append(line)
        if chunk:
            return chunk, len(chunk)
        line = lines[0]
        while len(line) > 80 and not self._fits(summary, [line]):
            line = line[: len(line) // 2] + " …"
        return [line], 1

    def summarize(self, previous: str, messages: Sequence[Message]) -> str:
        """Fold ``messages`` into ``previous`` with the model, chunk by chunk, each summary
        call sized against the summary it actually carries."""
        grammar = build_text_grammar(SUMMARY_MAX_CHARS, start=SUMMARY_START)
        summary = previous[:SUMMARY_MAX_CHARS]
        lines = [line for m in messages if (line := summary_line(m))]
        while lines:
            chunk, used = self.next_chunk(summary, lines)
            lines = lines[used:]
            prompt = summary_prompt(summary, chunk)
            if self.backend.count_tokens(prompt) + SUMMARY_MAX_TOKENS > self.backend.n_ctx:
                raise ContextOverflowError(self.backend.count_tokens(prompt), self.backend.n_ctx, SUMMARY_MAX_TOKENS)
            completion = self.backend.complete(prompt, grammar=grammar, max_tokens=SUMMARY_MAX_TOKENS)
            text = completion.text.strip()
            if text:
                summary = text[:SUMMARY_MAX_CHARS]
        return summary
