"""The decoding state the llama backend keeps beside the model, in plain Python (no llama.cpp
here, so each piece is tested on pieces fed by hand):

- ``StopTracker``: when the grammar's output is complete;
- ``FieldWatch``: whether the next token falls inside one JSON key's string value;
- ``NgramBan``: the tokens a reply may not pick (``RepeatBan``: its own runs, a held draft's
  runs) and when it must close before a formula;
- ``PromptLookup``: draft tokens for speculative decoding by prompt lookup.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from difflib import SequenceMatcher

from memgpt_local.runtime.base import Grammar, RepeatBan
from memgpt_local.text import formula_start, sentence_spans, without_partial_word, words

OPEN, CLOSE, INSIDE, OUTSIDE = "open", "close", "inside", "outside"
# a first sentence this short ("I see.", "Oh no!", "That's so cool!") is no answer of its own: a
# formula after it is turned away (``NgramBan``), not stopped at. At four, "That's so cool!" and
# "That's great news!" went out alone, the comment after them ("I'm glad you're ...", opening like
# an earlier reply's) cut (a `make run` chat, stop 55)
SHORT_OPENING_WORDS = 6
GLUED_WORD_MIN = 4  # a banned word this long is refused glued to the word before it, too


def _plain(json_text: str) -> str:
    """A JSON string's text so far with its line breaks and quotes unescaped."""
    return json_text.replace("\\n", "\n").replace('\\"', '"')


class JsonStrings:
    """Where each character of generated JSON falls: the quote that opens a string, the one that
    closes it, a character inside one (escapes included), or outside every string."""

    def __init__(self) -> None:
        self.in_str = self.escaped = False

    def step(self, ch: str) -> str:
        if not self.in_str:
            if ch == '"':
                self.in_str = True
                return OPEN
            return OUTSIDE
        if self.escaped:
            self.escaped = False
        elif ch == "\\":
            self.escaped = True
        elif ch == '"':
            self.in_str = False
            return CLOSE
        return INSIDE


class StopTracker:
    """Says when the grammar's output is complete: a closed JSON object, or max_chars of text."""

    def __init__(self, grammar: Grammar | None):
        self.kind = grammar.kind if grammar is not None else None
        self.max_chars = grammar.max_chars if grammar is not None else 0
        self.depth, self.chars = 0, 0
        self.strings = JsonStrings()

    def feed(self, piece: str) -> bool:
        if self.kind == "text":
            self.chars += len(piece)
            return self.chars >= self.max_chars
        if self.kind not in ("call", "json"):
            return False
        for ch in piece:
            if self.strings.step(ch) != OUTSIDE:
                continue
            if ch in "{[":
                self.depth += 1
            elif ch in "}]":
                self.depth -= 1
                if self.depth == 0:
                    return True
        return False


class FieldWatch:
    """Follows generated JSON text and says whether the next token falls inside the string
    value of one key."""

    def __init__(self, field: str):
        self.field = field
        self.in_field = False
        self.strings = JsonStrings()
        self.buf: list[str] = []
        self.last_string: str | None = None
        self.key: str | None = None  # the key whose value comes next (after its colon)

    def feed(self, piece: str) -> None:
        for ch in piece:
            where = self.strings.step(ch)
            if where == INSIDE:
                if not self.in_field:
                    self.buf.append(ch)
            elif where == CLOSE:
                self.in_field = False
                self.last_string = "".join(self.buf)
            elif where == OPEN:
                self.buf = []
                self.in_field = self.key == self.field
                self.key = None
            elif ch == ":":
                self.key = self.last_string
            elif ch in ",{}[]":
                self.key = None


_MARKS = (".", ",", "!", "?", ";", ":")


def _is_list_number(piece: str) -> bool:
    return piece.strip(" .)").isdigit()


# the first bytes of the UTF-8 of U+3000-U+DFFF: CJK punctuation, kana, CJK ideographs, Hangul (not
# U+2000-U+2FFF, whose E2 begins the curly quotes and dashes of English text)
WIDE_SCRIPT_LEADS = frozenset(range(0xE3, 0xEE))


def writes_wide_script(piece: bytes) -> bool:
    """Whether a token's bytes begin a Chinese, Japanese or Korean character."""
    return any(byte in WIDE_SCRIPT_LEADS for byte in piece)


class NgramBan:
    """The tokens that would complete an ``n``-gram the watched value already holds. Number
    tokens are left out of the runs, so a numbered list that starts its items over ("2. Baked
    salmon with rice. ... 7. Baked salmon with rice.") repeats a run like any other text.

    Inside a word only the tokens that end it may be refused, never the one that goes on with
    it: a rare name is several tokens, and refusing its last piece misspelt it ("I live in
    Lirkboickbury now." held, the rewrite said "You live in Lirkboickury now."). The copy is
    then refused at the next word instead. A refused word's twin without its space is refused
    with it: after " the", " Dr" refused, the model wrote "Dr" and the user read "a gig by
    theDrorbroels"."""

    def __init__(
        self,
        ban: RepeatBan,
        tokenize: Callable[[str], list[tuple[int, str]]] | None = None,
        wide_script: Callable[[], list[int]] | None = None,
        closing: Callable[[], list[int]] | None = None,
    ):
        self.n = max(2, ban.n)
        self.closing = closing  # the vocabulary's tokens that end the value (see ``_UNFINISHED``)
        # the vocabulary's tokens that write a CJK character (``RepeatBan.latin_only``), read once
        self.wide_script = wide_script if ban.latin_only else None
        self.tokenize = tokenize
        self.twins: dict[int, int | None] = {}  # " Dr" -> "Dr", when the vocabulary has it
        self.watch = FieldWatch(ban.field)
        self.prior: dict[tuple[int, ...], set[int]] = {}  # the runs of ``ban.prior``, refused in every value
        self.pieces: dict[int, str] = {}  # the text of each token seen, to tell a word's start from its middle
        self.last_piece = ""
        for text in ban.prior:
            if tokenize is None:
                break
            pieces = [(t, piece) for t, piece in tokenize(text) if not _is_list_number(piece)]
            self.pieces.update(pieces)
            kept = [t for t, _ in pieces]
            for end in range(self.n, len(kept) + 1):
                self.prior.setdefault(tuple(kept[end - self.n : end - 1]), set()).add(kept[end - 1])
        self.seen: dict[tuple[int, ...], set[int]] = self._fresh()  # (n-1) tokens -> the tokens that followed
        self.value: list[int] = []
        self.thought = ThoughtRuns(ban.thought_n) if ban.thought_n else None
        self.banned = 0  # steps at which a token was refused, for the counters
        self.refuses_runs = ban.n > 0
        self.formulas, self.formula_words = ban.formulas, ban.formula_words
        # the formulas by their number of words (an offer of help may be longer than ``formula_words``)
        self.formulas_of: dict[int, frozenset[tuple[str, ...]]] = {
            n: frozenset(o for o in ban.formulas if len(o) == n) for n in {len(o) for o in ban.formulas}
        }
        self.openings = ban.openings
        self.banned_openers = ban.banned_openers
        self.opener_tokens: list[int] | None = None  # the tokens of ``banned_openers``, spelled once
        self.mark_tokens: list[int] | None = None  # the tokens of ``_MARKS``, spelled once
        self.banned_words = ban.banned_words
        # the tokens of ``banned_words``, spelled once: (refused anywhere, refused where a word may start)
        self.word_tokens: tuple[list[int], list[int]] | None = None
        self.max_sentences = ban.max_sentences
        self.max_items = ban.max_items
        self.max_questions = ban.max_questions
        # the questions of the forced start are not the model's: "Hello! What's your name?" at a
        # first login was cut "Hello! What's your name? I'm here" as the grammar let it close
        self.fixed_questions = questions_ended(ban.fixed_start)
        self.full = False  # the value holds ``max_sentences`` sentences (or ``max_items`` items): it must close now
        self.follows_text = bool(
            self.formulas
            or self.openings
            or self.banned_openers
            or self.banned_words
            or self.max_sentences
            or self.max_items
            or self.max_questions
        )
        # the grammar writes the value's first words: a refused token there has no way around it
        self.fixed = len(json.dumps(ban.fixed_start, ensure_ascii=False)) - 2 if ban.fixed_start else 0
        # sentences the fixed start ends ("Hello Priya!"): the model's own first sentence is the next
        ended = ban.fixed_start.rstrip()[-1:] in (".", "!", "?")
        self.fixed_sentences = len(sentence_spans(ban.fixed_start)) if ended else 0
        self.written = 0  # characters of the watched value so far, as JSON string text
        self.tail = ""  # its last characters, digits included (``_in_a_code``)
        self.text = ""  # the watched value so far, as JSON string text
        self.formula = False  # the value has begun a formula: it must close now
        self.closed = 0  # values closed before a formula, for the counters
        self.turned = 0  # values turned away from a formula after a short first sentence, for the counters
        self.turned_this_value = False
        self.opened = 0  # first sentences turned away from an earlier reply's opening, for the counters
        self.opened_this_value = False
        self.starts: dict[str, list[int]] = {}  # a formula's word -> the tokens that start it

    def _fresh(self) -> dict[tuple[int, ...], set[int]]:
        return {key: set(followers) for key, followers in self.prior.items()}

    def must_close(self) -> bool:
        """Whether the value has begun a formula (see ``RepeatBan.formulas``) or holds its
        ``max_sentences`` sentences (or ``max_items`` items, ``max_questions`` questions), and
        ends here."""
        return (self.formula or self.full) and self.watch.in_field

    def refused(self) -> list[int]:
        """Tokens the next step may not pick (empty outside the watched value and the thought)."""
        if self.thought is not None and self.thought.watch.in_field:
            return self.thought.refused(self.pieces, self.last_piece)
        if not self.watch.in_field or self.written < self.fixed:
            return []
        refused = self._repeats()
        if refused and self.last_piece[-1:].isalpha():
            # the copy may not slip past on a mark glued to the word before it: barred from " train"
            # after "I hope you get a chance to", a greeting went on "to.train more." (a `make run`
            # chat, stop 55)
            refused += [t for t in self._marks() if t not in refused]
        refused += self.wide_script() if self.wide_script is not None else []
        if not self.follows_text:
            return refused
        text = _plain(self.text)  # once a token for every rule that reads it
        if self.tokenize is not None:
            spans = sentence_spans(text)
            refused += self._formula_turn(text, spans) + self._opening_turn(text, spans) + self._opener(text)
            refused += self._item_turn(text)
            refused += self._unsaid(text)
        if self.closing is not None and _UNFINISHED.search(text):
            refused += self.closing()
        return refused

    def _marks(self) -> list[int]:
        """The tokens that are a bare punctuation mark, spelled once."""
        if self.mark_tokens is None:
            spelled = [self.tokenize(mark) for mark in _MARKS] if self.tokenize is not None else []
            self.mark_tokens = [t[0][0] for t, mark in zip(spelled, _MARKS) if len(t) == 1 and t[0][1] == mark]
        return self.mark_tokens

    def _opener(self, text: str) -> list[int]:
        """At the start of a sentence, the tokens that spell one of ``banned_openers`` (with and
        without a leading space): the sentence has to begin another way."""
        if not self.banned_openers or (text.strip() and text.rstrip()[-1] not in (".", "!", "?")):
            return []
        if self.opener_tokens is None and self.tokenize is not None:
            spelled = [self.tokenize(form) for word in self.banned_openers for form in (word, " " + word)]
            # only a token that is the whole word: " Im" begins "Imagine", "I" + "'m" is "I'm"
            self.opener_tokens = [t[0][0] for t in spelled if t and t[0][1].strip() in self.banned_openers]
        return list(self.opener_tokens or [])

    def _unsaid(self, text: str) -> list[int]:
        """The tokens that spell one of ``banned_words`` as a whole word: with a leading space
        anywhere, without one where a word may start (after no letter or digit: "my" also ends
        "enemy") and, for a word of ``GLUED_WORD_MIN`` letters or more, after a letter too; a
        mark (",") is refused wherever it stands; a capitalised word of several tokens (a name)
        by its first, after a space."""
        if not self.banned_words or self.tokenize is None:
            return []
        if self.word_tokens is None:
            anywhere: list[int] = []
            at_word_start: list[int] = []
            for word in self.banned_words:
                spaced, bare = self.tokenize(" " + word), self.tokenize(word)
                if len(spaced) == 1 and spaced[0][1].strip() == word:
                    anywhere.append(spaced[0][0])
                elif word[:1].isupper() and len(spaced) > 1:
                    # a name in several pieces is refused at its first (" Wire" of "Wiremu", " S" of
                    # "Siosaia"), and with it every other word spelt from there: only a forced
                    # denial's one sentence bans a name, and "I don't know Siosaia's father's name."
                    # was said with no thought to copy it from (a `make run` chat, stop 42)
                    anywhere.append(spaced[0][0])
                if len(bare) == 1 and bare[0][1] == word:
                    # a word of ``GLUED_WORD_MIN`` letters or more is refused after a letter too:
                    # banned " favorite", " subject" and " school", a greeting went out as "What's
                    # yourfavoritesubject inschool?" (a `make run` chat, stop 52)
                    glued = not word[:1].isalnum() or len(word) >= GLUED_WORD_MIN
                    (anywhere if glued else at_word_start).append(bare[0][0])
            self.word_tokens = (anywhere, at_word_start)
        anywhere, at_word_start = self.word_tokens
        return anywhere + (at_word_start if not text[-1:].isalnum() else [])

    def _repeats(self) -> list[int]:
        """The tokens that would complete a run of ``n`` the value (or a held draft) holds."""
        if not self.refuses_runs or len(self.value) < self.n - 1:
            return []
        if _in_a_code(self.tail.rsplit(None, 1)[-1] if self.tail.strip() else ""):
            return []  # inside an id: one said again is copied exactly, never respelt
        refused = _word_ends(list(self.seen.get(tuple(self.value[-(self.n - 1) :]), ())), self.pieces, self.last_piece)
        return refused + [twin for t in refused if (twin := self._twin(t)) is not None and twin not in refused]

    def _formula_turn(self, text: str, spans: list[tuple[int, str]]) -> list[int]:
        """After a short first sentence ("I see.", under ``SHORT_OPENING_WORDS`` words), the
        first tokens of the words that would complete a formula's opening: there the formula
        stop would leave the bare "I see." as the reply (eval chat seed 6, to "peanuts make me
        ill, but gnocchi is my favourite meal"), so the sentence is turned away from the formula
        instead ("Thanks for telling me" may not go on "about"). After a longer first sentence
        the formula stop ends the reply as before."""
        if not self.formulas or self.formula:
            return []
        if len(spans) < 2 or len(words(text[: spans[-1][0]])) >= SHORT_OPENING_WORDS:
            return []
        sentence = spans[-1][1]
        n = len(words(sentence)) + 1  # the formulas this sentence's next word would complete
        refused = self._completing(sentence, self.formulas_of[n], n) if n in self.formulas_of else []
        if refused and not self.turned_this_value:
            self.turned += 1
            self.turned_this_value = True
        return refused

    def _opening_turn(self, text: str, spans: list[tuple[int, str]]) -> list[int]:
        """While the first sentence (after a fixed start that ends one: a greeting's "Hello Priya!")
        has one word fewer than ``formula_words`` and those words begin one of ``openings``, the
        first tokens of the words that would complete it: the reply is turned away from opening
        like an earlier one ("I'm glad to" may not go on "hear" again; it says "I'm glad you
        enjoyed it" instead)."""
        if not self.openings or len(spans) != self.fixed_sentences + 1 or text.rstrip()[-1:] in (".", "!", "?"):
            return []
        refused = self._completing(spans[-1][1], self.openings)
        if refused and not self.opened_this_value:
            self.opened += 1
            self.opened_this_value = True
        return refused

    def _item_turn(self, text: str) -> list[int]:
        """In a numbered list (when ``max_items`` is set), the first tokens of the word that would
        make the item's first ``ITEM_OPENING_WORDS`` words those of an earlier item: "1. Use a
        rabbit-proof outlet cover 2. Use a rabbit-proof outlet guard 3. ..." went on to item 8
        with a word changed (a `make run` chat, stop 45); the item has to say something else."""
        if not self.max_items:
            return []
        # "2." just written: the next token (" Slime") begins the item
        starts = list_items(text + " " if text[-1:] in ".)" else text)
        if len(starts) < 2:
            return []
        items = [_MARKER_HEAD.sub("", text[a:b]) for a, b in zip(starts, [*starts[1:], len(text)])]
        # an earlier item shorter than that counts whole: "3. Balloon Balloon 4. Balloon Balloon"
        # (a `make run` chat, stop 46) never reached three words to compare
        openings = {tuple(words(item)[:ITEM_OPENING_WORDS]) for item in items[:-1]}
        refused: list[int] = []
        for k in range(1, ITEM_OPENING_WORDS + 1):
            of_k = frozenset(o for o in openings if len(o) == k)
            if of_k:
                refused += self._completing(items[-1], of_k, k) if k > 1 else self._first_word(items[-1], of_k)
        return refused

    def _first_word(self, item: str, openings: frozenset[tuple[str, ...]]) -> list[int]:
        """Before an item's first word, the first tokens of an earlier one-word item's word."""
        if words(item):
            return []
        return [t for (word,) in openings for t in self._word_starts(word)]

    def _completing(self, sentence: str, openings: frozenset[tuple[str, ...]], k: int = 0) -> list[int]:
        """The first tokens of the words that would complete one of ``openings`` (of ``k`` words,
        default ``formula_words``) when ``sentence`` holds all of its words but the last."""
        begun = tuple(words(sentence))
        if len(begun) != (k or self.formula_words) - 1:
            return []
        return [t for opening in openings if opening[:-1] == begun for t in self._word_starts(opening[-1])]

    def _word_starts(self, word: str) -> list[int]:
        """The first token of `` word`` and of `` Word`` (a formula's words are lowercase)."""
        if word not in self.starts and self.tokenize is not None:
            pieces = [self.tokenize(" " + form) for form in dict.fromkeys((word, word.capitalize()))]
            self.starts[word] = list(dict.fromkeys(first[0][0] for first in pieces if first))
        return self.starts.get(word, [])

    def _twin(self, token: int) -> int | None:
        """The token that spells ``token``'s word without its leading space, if there is one."""
        if token not in self.twins:
            piece, twin = self.pieces.get(token, ""), None
            if self.tokenize is not None and piece[:1] == " " and piece[1:2].isalnum():
                spelled = self.tokenize(piece[1:])
                twin = spelled[0][0] if len(spelled) == 1 and spelled[0][1] == piece[1:] else None
            self.twins[token] = twin
        return self.twins[token]

    def accept(self, token: int, piece: str) -> None:
        if self.thought is not None:
            self.thought.accept(token, piece)
        inside = self.watch.in_field
        self.watch.feed(piece)
        self.pieces[token], self.last_piece = piece, piece
        if not self.watch.in_field:
            self.value, self.seen, self.text, self.formula, self.written = [], self._fresh(), "", False, 0
            self.tail = ""
            self.full = False
            self.turned_this_value = self.opened_this_value = False
            return
        if inside:
            self.written += len(piece)
            self.tail = (self.tail + piece)[-_TAIL_CHARS:]
        if inside and self.follows_text and not self.formula:
            self.text += piece
        if inside and self.formulas and not self.formula:
            text = without_partial_word(_plain(self.text))
            self.formula = formula_start(text, self.formulas) is not None
        # a sentence can only have ended on a piece that holds its mark: the text is counted then
        ends = any(mark in piece for mark in ".!?")
        if inside and ends and self.max_sentences and not self.full and self.written >= self.fixed:
            self.full = sentences_ended(_plain(self.text)) >= self.max_sentences
        if inside and "?" in piece and self.max_questions and not self.full and self.written >= self.fixed:
            self.full = questions_ended(_plain(self.text)) - self.fixed_questions >= self.max_questions
        if inside and self.max_items and not self.full and piece[:1].isspace():  # an item's first word
            plain = _plain(self.text)  # its last word has only begun: the words before it are compared
            self.full = items_begun(plain) > self.max_items or repeated_item(without_partial_word(plain)) is not None
        if inside and not _is_list_number(piece):  # list numbers: "7. Bake salmon" = "12. Bake salmon"
            self.value.append(token)
            if len(self.value) >= self.n:
                self.seen.setdefault(tuple(self.value[-self.n : -1]), set()).add(token)


class ThoughtRuns:
    """The tokens that would complete a run of ``n`` tokens the step's thought already holds
    (``RepeatBan.thought_n``): its runs only, no other rule."""

    def __init__(self, n: int):
        self.n = max(2, n)
        self.watch = FieldWatch("thought")
        self.value: list[int] = []
        self.seen: dict[tuple[int, ...], set[int]] = {}

    def accept(self, token: int, piece: str) -> None:
        inside = self.watch.in_field
        self.watch.feed(piece)
        if not self.watch.in_field:
            self.value, self.seen = [], {}
        elif inside:
            self.value.append(token)
            if len(self.value) >= self.n:
                self.seen.setdefault(tuple(self.value[-self.n : -1]), set()).add(token)

    def refused(self, pieces: dict[int, str], last_piece: str) -> list[int]:
        if len(self.value) < self.n - 1:
            return []
        return _word_ends(list(self.seen.get(tuple(self.value[-(self.n - 1) :]), ())), pieces, last_piece)


def _word_ends(refused: list[int], pieces: dict[int, str], last_piece: str) -> list[int]:
    """``refused`` less, inside a word (after ``last_piece``), the tokens that would go on with
    it: only a token that ends the word may be refused, so a rare name is never misspelt."""
    if last_piece[-1:].isalnum():
        return [t for t in refused if not pieces.get(t, "")[:1].isalnum()]
    return refused


# the inside of an id (a UUID, a long number, a hex code): a run of digits, hex letters and hyphens
# with a digit in it. A reply that follows a chain says an id twice ("K points to V. V points to
# W"), and a redraft after a hold says the held draft's ids again; refused as a repeat, the id was
# respelt ("d33fd5a3 -02d2 -4ec2", "a0534a1f-955583b9") and the answer no longer held it (eval
# nested-kv seed 8, the second wording, stop 49)
_CODE_RUN = re.compile(r"[0-9a-fA-F-]*\d[0-9a-fA-F-]*")


_TAIL_CHARS = 48


def _in_a_code(word: str) -> bool:
    """Whether ``word``, the value's last word so far, is an id being written."""
    return len(word) >= 4 and _CODE_RUN.fullmatch(word) is not None


# a value that may not end here: after a list item's number, a colon or an opening quote. Its
# runs refused by a held draft, a redraft ended "Here are ten more funk bass lines you should
# learn: 1. '" (a `make run` chat, stop 46)
_UNFINISHED = re.compile(r"(?:(?:^|\s)\d{1,2}[.)]|:|(?:^|\s)['\u2018\u201c\"(])\s*$")

_SENTENCE_END = re.compile(r"(?:[^\W\d_]{2}|[)\"'])[.!?]+(?=\s|$)")
_ENDS_SENTENCE = re.compile(r"(?:[^\W\d_]{2}|[)\"'])[.!?]+$")


# a numbered list's item marker, "1." or "2)", at the start or after a space or a colon, with a
# space after it (the item's first word has begun)
_LIST_MARKER = re.compile(r"(?:^|(?<=[\s:]))(\d{1,2})[.)](?=\s)")


# a later item's number written another way once the list is under way, before a capital or a
# quote: a list of bass lines refused "3. 'I'm in Love'" (item 2's opening) went on "3, 'I'm in
# Love' ... 5 'I'm in Love' ...", items the cap and the opening rule did not see (a `make run`
# chat, stop 46)
_LOOSE_MARKER = re.compile(r"(?<=\s)(\d{1,2})[,:]?\s+(?=['\"\u2018\u201cA-Z])")


def list_items(text: str) -> list[int]:
    """Where each item of ``text``'s numbered list begins: the markers numbered 1, 2, 3, ... in
    order ("Ideas: 1. Games 2. Meet at 10. Then 3. A film" has three; "10." is no item); after
    the first, also a number without its period before a capital or a quote ("2, 'Superstition'",
    ``_LOOSE_MARKER``)."""
    strict = [(m.start(), int(m[1]), True) for m in _LIST_MARKER.finditer(text)]
    loose = [(m.start(), int(m[1]), False) for m in _LOOSE_MARKER.finditer(text)]
    starts: list[int] = []
    for start, number, is_strict in sorted(strict + loose):
        if number == len(starts) + 1 and (is_strict or starts) and start not in starts:
            starts.append(start)
    return starts


_MARKER_HEAD = re.compile(r"^\d{1,2}[.),:]?")
ITEM_OPENING_WORDS = 3  # a list item may not open with an earlier item's first this-many words


# a list item this close to an earlier one (difflib's ratio, case and marks aside) repeats it
ITEM_REPEAT_RATIO = 0.85


def _item_key(item: str) -> str:
    return " ".join(words(_MARKER_HEAD.sub("", item)))


def _repeats(item: str, earlier: str) -> bool:
    """Whether ``item``'s first words (as many as ``earlier`` has) nearly say ``earlier``."""
    said = earlier.split()
    opening = " ".join(item.split()[: len(said)])
    return (
        len(item.split()) >= len(said)
        and len(opening) >= 4
        and (SequenceMatcher(None, opening, earlier).ratio() >= ITEM_REPEAT_RATIO)
    )


def repeated_item(text: str) -> int | None:
    """Where the first numbered list item of ``text`` that nearly repeats an earlier one begins
    (None when none does): its first words, as many as the earlier item has, nearly say it. "1.
    Balloon Pop 2. Colorful Balloons 3. Balloon Balloon 4. Balloon Ballon 5... 10. Balloon
    Balloon" (a `make run` chat, stop 46) wrote the same demo again with a letter changed, past
    every opening rule, then skipped its numbers."""
    starts = list_items(text)
    keys = [_item_key(text[a:b]) for a, b in zip(starts, [*starts[1:], len(text)])]
    for i in range(1, len(keys)):
        if any(_repeats(keys[i], earlier) for earlier in keys[:i]):
            return starts[i]
    return None


def items_begun(text: str) -> int:
    """How many numbered list items ``text`` has begun."""
    return len(list_items(text))


QUESTION_END = re.compile(r"\?+(?=[\s\"')\]]|$)")


def questions_ended(text: str) -> int:
    """How many questions ``text`` holds, each counted at its question mark ("How is Finn? Is he
    well?" is 2; "What's a?b" none)."""
    return len(QUESTION_END.findall(text))


def sentences_ended(text: str) -> int:
    """How many sentences ``text`` holds when it ends at the end of one ("Your band is the
    Sheldeens." is 1, "Your band is the" is 0): a period after one letter ("e.g.") or a
    digit ("at 10.30") is no end."""
    if not _ENDS_SENTENCE.search(text):
        return 0
    return len(_SENTENCE_END.findall(text))


class PromptLookup:
    """Draft tokens for speculative decoding by prompt lookup: when the last ``n`` tokens
    occurred before (in the prompt or the output so far), propose the tokens that followed
    their latest occurrence. Replies copy names, dates and phrases from search results, core
    memory and the user's message, so such runs are common; a draft costs one batched
    evaluation, and greedy verification keeps the output the model would have written."""

    def __init__(self, context: list[int], n: int, max_draft: int):
        self.n, self.max_draft = n, max_draft
        self.tokens = list(context)
        self.follows: dict[tuple[int, ...], int] = {}  # n-gram -> position after its latest occurrence
        for end in range(n, len(self.tokens)):
            self.follows[tuple(self.tokens[end - n : end])] = end

    def add(self, token: int) -> None:
        self.tokens.append(token)
        end = len(self.tokens) - 1
        if end >= self.n:
            self.follows[tuple(self.tokens[end - self.n : end])] = end

    def propose(self) -> list[int]:
        if len(self.tokens) < self.n:
            return []
        start = self.follows.get(tuple(self.tokens[-self.n :]))
        return [] if start is None else self.tokens[start : start + self.max_draft]
