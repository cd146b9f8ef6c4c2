"""Reading a step while it streams: the growing values of its ``thought`` and ``message``
strings, pulled out of the partial JSON text (the chat and the server show replies as they are
generated)."""

from __future__ import annotations

import json
import re
from collections.abc import Collection

from memgpt_local.functions.specs import DEFAULT_FUNCTIONS, of_kind
from memgpt_local.runtime.decoding import list_items, repeated_item
from memgpt_local.text import formula_start, sentence_spans, without_partial_word, words

REPLY_FUNCTIONS = frozenset(f.name for f in of_kind(DEFAULT_FUNCTIONS, "reply"))


def decode_partial_json_string(body: str) -> str:
    """Decode the inside of a JSON string that may be cut anywhere."""
    for cut in range(0, 7):
        candidate = body[: len(body) - cut] if cut else body
        try:
            return json.loads(f'"{candidate}"')
        except json.JSONDecodeError:
            continue
    return ""


class PartialFieldReader:
    """Tracks the partial values of chosen string fields in a growing JSON text."""

    def __init__(self, fields: tuple[str, ...] = ("thought", "message")):
        self.text = ""
        self._patterns = {f: re.compile(rf'"{f}"\s*:\s*"((?:[^"\\]|\\.)*)(")?', re.S) for f in fields}

    def feed(self, piece: str) -> dict[str, str]:
        self.text += piece
        values = {}
        for name, pattern in self._patterns.items():
            match = pattern.search(self.text)
            if match:
                values[name] = decode_partial_json_string(match.group(1))
        return values

    def replying(self) -> bool:
        """Whether the step so far calls a reply function (its ``message`` is for the user)."""
        return any(f'"{name}"' in self.text for name in REPLY_FUNCTIONS)


_TRAILING_MARKER = re.compile(r"(?:^|(?<=[\s:]))(\d{1,2})[.),:]?$")


def within_items(message: str, max_items: int) -> str:
    """``message`` as far as a stream may show its numbered list: up to the item being written
    (shown once the next begins, or when the step ends), since it may yet turn out a repeat of
    an earlier one (``decoding.repeated_item``; "4. Balloon" was shown, then cut, in a `make run`
    chat, stop 46; "2." was shown before its item, then cut with it: a number at the end is held
    too), and never into the item after the ``max_items``-th: the sampler closes the
    reply once that item's first word is written and the loop cuts it (``loop.first_items``),
    but the chat had shown "8. Use"."""
    if not max_items:
        return message
    items = list_items(message)
    if (marker := _TRAILING_MARKER.search(message)) and int(marker[1]) == len(items) + 1:
        message = message[: marker.start()].rstrip()  # the next item's number, its word not yet written
    if (repeat := repeated_item(message)) is not None:  # the loop cuts there (``loop.without_repeated_items``)
        message = message[:repeat].rstrip()
    items = list_items(message)
    if len(items) > max_items:
        message, items = message[: items[max_items]].rstrip(), items[:max_items]
    if len(items) >= 2:
        return message[: items[-1]].rstrip()
    return message


def settled(message: str, formulas: Collection[tuple[str, ...]], formula_words: int, max_items: int = 0) -> str:
    """The part of a streaming reply that may be shown: within its first ``max_items`` list
    items (``within_items``), up to a formula (``text.formula_start``, which the loop cuts; the
    llama sampler stops there), and without a last sentence (after the first) that has not yet
    shown more than ``formula_words`` whole words, for it may be one. The rest is shown when the
    step ends."""
    message = within_items(message, max_items)
    if not formulas or formula_words < 1:
        return message
    cut = formula_start(without_partial_word(message), formulas)
    if cut is not None:
        return message[:cut]
    spans = sentence_spans(message)
    if len(spans) < 2:
        return message
    start, sentence = spans[-1]
    if len(words(without_partial_word(sentence))) > max(formula_words, *map(len, formulas)):
        return message
    return message[:start]


def unshown(final: str, shown: str) -> str:
    """What a reply that went out (``final``) adds to the part of it already shown."""
    return final[len(shown) :] if final.startswith(shown) else ""
