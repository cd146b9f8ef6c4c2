"""The prompt every notes question is asked with: instructions, worked examples as earlier
exchanges (the user's text, then the lines answered as ``{"facts": [...]}``), then the text asked
about. The notes pass, the plan, work and answer questions differ only in what they show."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from memgpt_local.schemas import ChatMessage


def few_shot(
    instructions: str, examples: Iterable[tuple[str, Sequence[str]]], asked: str, *, ensure_ascii: bool = True
) -> list[ChatMessage]:
    """``instructions`` as the system message, each ``(text, lines)`` example as a user message and
    the assistant's answer, then ``asked`` as the last user message."""
    prompt = [ChatMessage(role="system", content=instructions)]
    for text, lines in examples:
        answer = json.dumps({"facts": list(lines)}, ensure_ascii=ensure_ascii)
        prompt += [ChatMessage(role="user", content=text), ChatMessage(role="assistant", content=answer)]
    return [*prompt, ChatMessage(role="user", content=asked)]
