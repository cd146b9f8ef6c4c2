"""Token-aware chunking: a document's text cut into passages sized for the embedder.

Sizes are counted in the embedder's own tokens (its wordpiece tokenizer, loaded with the
model on first use), so a chunk never overflows the model's input and nothing is silently
truncated. The default is ~300 tokens, clamped to the model's input limit (254 wordpieces
for all-MiniLM-L6-v2), with an overlap of 40 tokens between consecutive chunks.

Where a chunk ends is chosen by preference: before a markdown heading (always, so each
section starts a chunk, and without overlap), else at the last paragraph start past half
the size, else at the last sentence or line start past half the size, else at the last word
start that fits. Each chunk is an exact slice of the text: ``text[start:end]``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from memgpt_local.errors import InvalidInputError
from memgpt_local.memory.embed import Embedder, NumpyBertEmbedder, SentenceTransformerEmbedder

DEFAULT_SIZE = 300
DEFAULT_OVERLAP = 40
FALLBACK_MAX_TOKENS = 254
SPECIAL_TOKENS = 2  # [CLS] and [SEP] take two places of the model's input

HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
FENCE = re.compile(r"(```|~~~)")
SENTENCE_END = re.compile(r"[.!?…][\"')\]]*\s+")
REGEX_TOKEN = re.compile(r"[^\W_]+|[^\w\s]|_", re.UNICODE)


class TokenSpans(Protocol):
    """Where the tokens of a text start, and how many tokens one embedder input may hold."""

    @property
    def max_tokens(self) -> int: ...

    def starts(self, text: str) -> list[int]: ...


class WordpieceTokens:
    """The sentence-transformers model's tokenizer, loaded with the model on first use."""

    def __init__(self, embedder: SentenceTransformerEmbedder):
        self._embedder = embedder
        self._tokenizer: Callable[..., Any] | None = None  # a transformers tokenizer
        self._max_tokens: int | None = None

    def _load(self) -> Callable[..., Any]:
        if self._tokenizer is None:
            model = self._embedder._load()  # the embedder owns the (lazily loaded) model
            self._tokenizer = model.tokenizer
            self._max_tokens = int(model.max_seq_length) - SPECIAL_TOKENS
        return self._tokenizer

    @property
    def max_tokens(self) -> int:
        self._load()
        assert self._max_tokens is not None
        return self._max_tokens

    def starts(self, text: str) -> list[int]:
        tokenizer = self._load()
        encoded = tokenizer(
            text,
            add_special_tokens=False,
            return_offsets_mapping=True,
            return_attention_mask=False,
            return_token_type_ids=False,
            verbose=False,
        )
        return [start for start, end in encoded["offset_mapping"] if end > start]


class EncoderTokens:
    """The numpy runtime's wordpiece tokenizer (the same ``tokenizer.json``), loaded with the model."""

    def __init__(self, embedder: NumpyBertEmbedder):
        self._embedder = embedder

    @property
    def max_tokens(self) -> int:
        return self._embedder._load().max_len - SPECIAL_TOKENS

    def starts(self, text: str) -> list[int]:
        return self._embedder._load().token_starts(text)


class RegexTokens:
    """Words and punctuation marks: an approximation for embedders without a tokenizer."""

    def __init__(self, max_tokens: int = FALLBACK_MAX_TOKENS):
        self._max_tokens = max_tokens

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def starts(self, text: str) -> list[int]:
        return [m.start() for m in REGEX_TOKEN.finditer(text)]


def tokens_for(embedder: Embedder) -> TokenSpans:
    if isinstance(embedder, SentenceTransformerEmbedder):
        return WordpieceTokens(embedder)
    if isinstance(embedder, NumpyBertEmbedder):
        return EncoderTokens(embedder)
    return RegexTokens()


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str
    start: int  # character span in the document text: text[start:end] == chunk text
    end: int
    tokens: int


@dataclass(frozen=True)
class _Layout:
    """Cut points of one text, each list sorted."""

    tokens: list[int]  # token starts
    words: list[int]  # token starts after whitespace
    sentences: list[int]  # sentence and line starts
    paragraphs: list[int]  # block starts (after a blank line, around headings)
    headings: list[int]  # starts of heading lines
    bodies: list[int]  # starts of non-heading blocks
    heading_set: frozenset[int]


def _blocks(text: str, markdown: bool) -> tuple[list[int], list[int], list[int]]:
    """(paragraph starts, heading starts, body block starts) from a line scan."""
    paragraphs: list[int] = []
    headings: list[int] = []
    bodies: list[int] = []
    in_block = False
    fence: str | None = None
    pos = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        fence_mark = FENCE.match(stripped) if markdown else None
        is_heading = markdown and fence is None and HEADING.match(line) is not None
        if not stripped and fence is None:
            in_block = False
        elif is_heading:
            paragraphs.append(pos)
            headings.append(pos)
            in_block = False
        elif not in_block:
            paragraphs.append(pos)
            bodies.append(pos)
            in_block = True
        if fence_mark:
            fence = None if fence == fence_mark.group(1) else (fence or fence_mark.group(1))
        pos += len(line)
    return paragraphs, headings, bodies


def _layout(text: str, starts: list[int], markdown: bool) -> _Layout:
    paragraphs, headings, bodies = _blocks(text, markdown)
    lines = [m.end() for m in re.finditer(r"\n", text) if m.end() < len(text)]
    sentences = sorted(set(lines) | {m.end() for m in SENTENCE_END.finditer(text)})
    words = [s for s in starts if s == 0 or text[s - 1].isspace()]
    return _Layout(starts, words, sentences, paragraphs, headings, bodies, frozenset(headings))


def _last_in(points: list[int], low: int, high: int) -> int | None:
    """The last point p with low < p <= high."""
    i = bisect.bisect_right(points, high) - 1
    return points[i] if i >= 0 and points[i] > low else None


def _first_in(points: list[int], low: int, high: int) -> int | None:
    """The first point p with low <= p < high."""
    i = bisect.bisect_left(points, low)
    return points[i] if i < len(points) and points[i] < high else None


class Chunker:
    """Cuts texts into chunks of at most ``size`` embedder tokens, ``overlap`` shared."""

    def __init__(self, tokens: TokenSpans, size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP):
        if size < 8:
            raise InvalidInputError(f"chunk size {size} is too small", "use at least 8 tokens")
        if not 0 <= overlap < size:
            raise InvalidInputError(f"chunk overlap {overlap} is out of range", f"use 0 to {size - 1} tokens")
        self.tokens = tokens
        self.requested_size = size
        self.requested_overlap = overlap

    @property
    def size(self) -> int:
        return min(self.requested_size, self.tokens.max_tokens)

    @property
    def overlap(self) -> int:
        return min(self.requested_overlap, self.size // 2)

    def chunk(self, text: str, *, markdown: bool = False) -> list[Chunk]:
        layout = _layout(text, self.tokens.starts(text), markdown)
        chunks: list[Chunk] = []
        start = _skip_space(text, 0)
        while start < len(text):
            end, next_start = self._cut(text, layout, start)
            left, right = start, end
            while right > left and text[right - 1].isspace():
                right -= 1
            if right > left:
                count = self._count(layout, left, right)
                chunks.append(Chunk(len(chunks), text[left:right], left, right, count))
            start = _skip_space(text, next_start)
        return chunks

    @staticmethod
    def _count(layout: _Layout, start: int, end: int) -> int:
        return bisect.bisect_left(layout.tokens, end) - bisect.bisect_left(layout.tokens, start)

    def _cut(self, text: str, layout: _Layout, start: int) -> tuple[int, int]:
        """(end of the chunk starting at ``start``, start of the next one)."""
        first = bisect.bisect_left(layout.tokens, start)
        fits_all = first + self.size >= len(layout.tokens)
        limit = len(text) if fits_all else layout.tokens[first + self.size]
        heading = self._heading_cut(layout, start, limit)
        if heading is not None:
            return heading, heading
        if fits_all:
            return len(text), len(text)
        half = layout.tokens[first + self.size // 2]
        end = (
            _last_in(layout.paragraphs, half - 1, limit)
            or _last_in(layout.sentences, half - 1, limit)
            or _last_in(layout.words, start, limit)
            or limit
        )
        return end, self._overlap_start(layout, start, end)

    @staticmethod
    def _heading_cut(layout: _Layout, start: int, limit: int) -> int | None:
        """The first heading in (start, limit] that has body text between start and it."""
        heading = _first_in(layout.headings, start + 1, limit + 1)
        if heading is None:
            return None
        block = bisect.bisect_right(layout.paragraphs, start) - 1
        inside_body = block >= 0 and layout.paragraphs[block] not in layout.heading_set
        while heading is not None:
            if inside_body or _first_in(layout.bodies, start, heading) is not None:
                return heading
            heading = _first_in(layout.headings, heading + 1, limit + 1)
        return None

    def _overlap_start(self, layout: _Layout, start: int, end: int) -> int:
        """Where the next chunk starts: up to ``overlap`` tokens before ``end``."""
        last = bisect.bisect_left(layout.tokens, end)
        first = max(last - self.overlap, bisect.bisect_left(layout.tokens, start) + 1)
        if self.overlap == 0 or first >= last:
            return end
        low = layout.tokens[first]
        return _first_in(layout.sentences, low, end) or _first_in(layout.words, low, end) or end


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position
