"""Function specs -> a GBNF grammar of the model's whole output, the parser of that output,
and the function documentation shown to the model.

All three derive from the same declarations, any ``CallSpec`` (``runtime.base``; the agent's
are ``functions.specs.FunctionSpec``), passed in by the caller. Everything here is pure
Python: a ``Grammar`` is a plain value, validated by the backend that compiles it (llama.cpp's
own parser, ``runtime.llama``). ``scripts/write_grammar.py`` writes the grammar of the
default functions to ``grammars/default_functions.gbnf``.

Output layout (one JSON object, keys in this order, separators exactly as ``json.dumps``
writes them, so there is no free whitespace at all)::

    {"thought": "...", "function": "NAME", "arguments": {...}, "request_heartbeat": true}

``request_heartbeat`` appears only for functions with ``allows_heartbeat``; a grammar built
with ``heartbeat=False`` omits it for every function, and ``parse_call`` then reads the call
as ``request_heartbeat=False``.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import types
import typing
from collections.abc import Sequence
from typing import Any, Literal

import annotated_types
from pydantic import ValidationError
from pydantic.fields import FieldInfo

from memgpt_local.errors import CallParseError, GrammarError
from memgpt_local.runtime.base import CallSpec, Grammar
from memgpt_local.schemas import FunctionCall

MAX_GBNF_REPEAT = 2000  # llama.cpp refuses x{m,n} with n above this
INT_MAX_DIGITS = 18  # digits allowed for an int field without an upper bound
FLOAT_MAX_FRACTION_DIGITS = 6

_BASE_RULES = {
    "hex": "[0-9a-fA-F]",
    # one JSON string character: no raw control characters, no lone surrogate escapes
    "jchar": (
        '[^"\\\\\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" ([0-9a-cA-Ce-fE-F] hex hex hex | [dD] [0-7] hex hex))'
    ),
    "bool": '"true" | "false"',
    "date": '"\\"" [0-9] [0-9] [0-9] [0-9] "-" ("0" [1-9] | "1" [0-2]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) "\\""',
}


# ---------------------------------------------------------------- GBNF text helpers


def gbnf_literal(text: str) -> str:
    """``text`` as a GBNF string literal."""
    out = []
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _repeat(symbol: str, low: int, high: int) -> str:
    """``symbol{low,high}``, split in pieces llama.cpp accepts (each at most 2000)."""
    if high < low:
        raise GrammarError(f"empty repetition {{{low},{high}}}")
    parts: list[str] = []
    while high > 0:
        take_high = min(high, MAX_GBNF_REPEAT)
        take_low = min(low, take_high)
        parts.append(f"{symbol}{{{take_low},{take_high}}}")
        low -= take_low
        high -= take_high
    return " ".join(parts) if parts else '""'


def _digits_range(lo: str, hi: str) -> list[str]:
    """GBNF sequences matching exactly the digit strings between lo and hi (same length)."""
    if not lo:
        return [""]
    if lo[0] == hi[0]:
        return [f'"{lo[0]}" {rest}'.strip() for rest in _digits_range(lo[1:], hi[1:])]
    k = len(lo) - 1
    out: list[str] = []
    if lo[1:] == "0" * k and hi[1:] == "9" * k:
        return [f"[{lo[0]}-{hi[0]}]" + " [0-9]" * k]
    first, last = int(lo[0]), int(hi[0])
    if lo[1:] == "0" * k:
        first -= 1
    else:
        out += [f'"{lo[0]}" {rest}'.strip() for rest in _digits_range(lo[1:], "9" * k)]
    if hi[1:] != "9" * k:
        tail = [f'"{hi[0]}" {rest}'.strip() for rest in _digits_range("0" * k, hi[1:])]
    else:
        tail = []
        last += 1
    if last - first >= 2:
        a, b = first + 1, last - 1
        head = f'"{a}"' if a == b else f"[{a}-{b}]"
        out.append(head + " [0-9]" * k)
    return out + tail


def int_range_gbnf(lo: int, hi: int) -> str:
    """A GBNF body for the decimal integers lo..hi, exactly (no leading zeros)."""
    if lo > hi:
        raise GrammarError(f"empty integer range {lo}..{hi}")
    alts: list[str] = []
    if lo < 0:
        neg_hi = -lo
        neg_lo = max(1, -hi) if hi < 0 else 1
        alts += [f'"-" ({body})' for body in [_nonneg_range(neg_lo, neg_hi)]]
        if hi < 0:
            return " | ".join(alts)
        lo = 0
    alts.append(_nonneg_range(lo, hi))
    return " | ".join(f"({a})" if " | " in a and len(alts) > 1 else a for a in alts)


def _nonneg_range(lo: int, hi: int) -> str:
    alts: list[str] = []
    for length in range(len(str(lo)), len(str(hi)) + 1):
        start = max(lo, 10 ** (length - 1) if length > 1 else 0)
        end = min(hi, 10**length - 1)
        if start <= end:
            alts += _digits_range(str(start), str(end))
    return " | ".join(alts)


# ---------------------------------------------------------------- field -> GBNF


class _Rules:
    """Collects named rules; value rules are shared by name."""

    def __init__(self) -> None:
        self.rules: dict[str, str] = {}

    def add(self, name: str, body: str) -> str:
        if self.rules.get(name, body) != body:
            raise GrammarError(f"two different GBNF rules named {name!r}")
        self.rules[name] = body
        return name

    def text(self) -> str:
        used = dict(self.rules)
        for name, body in _BASE_RULES.items():
            used.setdefault(name, body)
        head = [f"root ::= {used.pop('root')}"]
        return "\n".join(head + [f"{name} ::= {body}" for name, body in used.items()]) + "\n"


def _constraint(field: FieldInfo, kind: type) -> Any:
    for item in field.metadata:
        if isinstance(item, kind):
            return item
    return None


def _string_rule(rules: _Rules, low: int, high: int) -> str:
    return rules.add(f"str-{low}-{high}", f'"\\"" {_repeat("jchar", low, high)} "\\""')


def _bound(value: object) -> int:
    """An ``annotated_types`` bound (typed only as comparable) as an int."""
    if not isinstance(value, typing.SupportsInt):
        raise TypeError(f"the bound {value!r} of an integer field is not a number")
    return int(value)


def _int_bounds(field: FieldInfo) -> tuple[int, int]:
    lo, hi = -(10**INT_MAX_DIGITS - 1), 10**INT_MAX_DIGITS - 1
    for item in field.metadata:
        if isinstance(item, annotated_types.Ge):
            lo = max(lo, _bound(item.ge))
        elif isinstance(item, annotated_types.Gt):
            lo = max(lo, _bound(item.gt) + 1)
        elif isinstance(item, annotated_types.Le):
            hi = min(hi, _bound(item.le))
        elif isinstance(item, annotated_types.Lt):
            hi = min(hi, _bound(item.lt) - 1)
    return lo, hi


def _name(text: str) -> str:
    return text.replace("_", "-").lower()


def _value_rule(rules: _Rules, owner: str, key: str, annotation: Any, field: FieldInfo) -> str:
    """The name of a rule for one value of type ``annotation`` (constraints from ``field``)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) != 1:
            raise GrammarError(f"{owner}.{key}: unions other than Optional[X] are not supported")
        inner = _value_rule(rules, owner, key, options[0], field)
        return rules.add(f"{inner}-or-null", f'{inner} | "null"')
    if origin is Literal or (isinstance(annotation, type) and issubclass(annotation, enum.Enum)):
        values = typing.get_args(annotation) if origin is Literal else [m.value for m in annotation]
        alts = " | ".join(gbnf_literal(json.dumps(v, ensure_ascii=False)) for v in values)
        return rules.add(f"{_name(owner)}-{_name(key)}-enum", alts)
    if annotation is bool:
        return "bool"
    if annotation is int:
        lo, hi = _int_bounds(field)
        return rules.add(_int_rule_name(lo, hi), int_range_gbnf(lo, hi))
    if annotation is float:
        frac = f'("." {_repeat("[0-9]", 1, FLOAT_MAX_FRACTION_DIGITS)})?'
        return rules.add("float", f'"-"? ("0" | [1-9] {_repeat("[0-9]", 0, INT_MAX_DIGITS - 1)}) {frac}')
    if annotation is dt.date:
        return "date"
    if annotation is str:
        max_len = _constraint(field, annotated_types.MaxLen)
        if max_len is None:
            raise GrammarError(
                f"{owner}.{key} is a string without max_length",
                "give it Field(max_length=...) so the grammar can bound it",
            )
        min_len = _constraint(field, annotated_types.MinLen)
        return _string_rule(rules, min_len.min_length if min_len else 0, max_len.max_length)
    raise GrammarError(f"{owner}.{key}: type {annotation!r} is not supported by the grammar generator")


def _int_rule_name(lo: int, hi: int) -> str:
    def part(v: int) -> str:
        return f"m{-v}" if v < 0 else str(v)

    return f"int-{part(lo)}-{part(hi)}"


MESSAGE_FIELD = "message"  # the argument a reply's start is forced into (``message_start``)
MESSAGE_START_MIN_MORE = 8  # characters a reply must add after a forced start


def _started_string_rule(rules: _Rules, start: str, field: FieldInfo) -> str:
    """A JSON string that begins with ``start`` and goes on for at least
    ``MESSAGE_START_MIN_MORE`` characters (within the field's max_length)."""
    max_len = _constraint(field, annotated_types.MaxLen)
    high = (max_len.max_length if max_len else 2000) - len(start)
    if high < MESSAGE_START_MIN_MORE:
        raise GrammarError(f"the forced start {start!r} leaves no room in its field")
    escaped = json.dumps(start, ensure_ascii=False)[1:-1]
    return rules.add(
        "message-started",
        f'"\\"" {gbnf_literal(escaped)} {_repeat("jchar", MESSAGE_START_MIN_MORE, high)} "\\""',
    )


def _args_body(rules: _Rules, spec: CallSpec, message_start: str = "") -> str:
    fields = spec.args_model.model_fields
    if not fields:
        return '"{}"'
    pieces: list[str] = []
    for i, (key, field) in enumerate(fields.items()):
        prefix = "{" if i == 0 else ", "
        pieces.append(gbnf_literal(f'{prefix}"{key}": '))
        if message_start and key == MESSAGE_FIELD and field.annotation is str:
            pieces.append(_started_string_rule(rules, message_start, field))
            continue
        pieces.append(_value_rule(rules, spec.name, key, field.annotation, field))
    pieces.append('"}"')
    return " ".join(pieces)


# ---------------------------------------------------------------- public API


def call_grammar_text(
    functions: Sequence[CallSpec], *, thought_max_chars: int = 400, heartbeat: bool = True, message_start: str = ""
) -> str:
    """The GBNF text of a call grammar (pure; not checked by llama.cpp). With ``message_start``
    a ``message`` argument begins with those words and goes on after them."""
    if not functions:
        raise GrammarError("a call grammar needs at least one function")
    names = [spec.name for spec in functions]
    if len(set(names)) != len(names):
        raise GrammarError(f"duplicate function names in {names}")
    if thought_max_chars < 0:
        raise GrammarError("thought_max_chars must be 0 (no thought) or more")
    rules = _Rules()
    rules.add("root", "")
    thought = _string_rule(rules, 0, thought_max_chars)
    call_alts: list[str] = []
    for spec in functions:
        fn = _name(spec.name)
        args = rules.add(f"{fn}-args", _args_body(rules, spec, message_start))
        body = f'{gbnf_literal(json.dumps(spec.name) + ", ")} "\\"arguments\\": " {args}'
        if heartbeat and spec.allows_heartbeat:
            body += ' ", \\"request_heartbeat\\": " bool'
        call_alts.append(rules.add(f"call-{fn}", body))
    rules.rules["root"] = f'"{{\\"thought\\": " {thought} ", \\"function\\": " ({" | ".join(call_alts)}) "}}"'
    return rules.text()


def build_call_grammar(
    functions: Sequence[CallSpec], *, thought_max_chars: int = 400, heartbeat: bool = True, message_start: str = ""
) -> Grammar:
    """The grammar of one model step calling one of ``functions`` (it carries them as ``specs``);
    a ``message`` argument begins with ``message_start``."""
    text = call_grammar_text(
        functions, thought_max_chars=thought_max_chars, heartbeat=heartbeat, message_start=message_start
    )
    return Grammar(
        text=text,
        heartbeat=heartbeat,
        thought_max_chars=thought_max_chars,
        specs=tuple(functions),
        message_start=message_start,
    )


def build_text_grammar(max_chars: int, *, start: str = "") -> Grammar:
    """Plain text of at most ``max_chars`` characters, no control characters but newlines,
    beginning with ``start`` when one is given (the model goes on from it)."""
    if max_chars < 1 or len(start) >= max_chars:
        raise GrammarError("max_chars must be at least 1, and longer than the start")
    body = _repeat("tchar", 0 if start else 1, max_chars - len(start))
    head = f"{gbnf_literal(start)} " if start else ""
    text = f"root ::= {head}{body}\ntchar ::= [^\\x00-\\x09\\x0b-\\x1f]\n"
    return Grammar(text=text, kind="text", max_chars=max_chars)


def build_notes_grammar(
    key: str,
    *,
    max_items: int,
    label_max_words: int = 3,
    value_max_chars: int = 120,
) -> Grammar:
    """A JSON object ``{key: ["Label: value", ...]}`` of at most ``max_items`` short lines, each
    a label of at most ``label_max_words`` words (letters, ``'`` and ``-``: "Name", "Sister's
    wedding"; a word after the first may hold digits) and a value: how facts are written into
    core memory. (A free label let the model put a whole clause before the colon: "Moved to
    Sopot last week and S: near the sea". A label of letters alone turned "I've got Year 11
    mocks coming up" into "Year ial mocks: coming up", in a `make run` chat, stop 47.)
    Whitespace between the parts is the model's choice: forced to write ``[`` straight after
    the key, a model that lays JSON out over lines (qwen2.5-coder writes ``[\\n    "Name:
    ...``) took the only other way out, ``]``: no facts, every time."""
    if max_items < 1 or label_max_words < 1:
        raise GrammarError("max_items and label_max_words must be at least 1")
    label = "lword " + _repeat('(" " nword)', 0, label_max_words - 1) if label_max_words > 1 else "lword"
    value = f"vstart {_repeat('jchar', 0, value_max_chars - 1)}"
    item = f'"\\"" {label} ":" " "? {value} "\\""'
    more = _repeat('("," ws item)', 0, max_items - 1) if max_items > 1 else ""
    rules = [
        f'root ::= "{{" ws {gbnf_literal(json.dumps(key))} ":" ws "[" ws (item {more} ws)? "]" ws "}}"',
        f"item ::= {item}",
        "lword ::= [A-Za-z] " + _repeat("[A-Za-z'-]", 0, 19),
        "nword ::= [A-Za-z0-9] " + _repeat("[A-Za-z0-9'-]", 0, 19),
        'vstart ::= [^"\\\\ \\x00-\\x1f]',
        "ws ::= [ \\n]{0,12}",
        *(f"{name} ::= {body}" for name, body in _BASE_RULES.items() if name in ("hex", "jchar")),
    ]
    return Grammar(text="\n".join(rules) + "\n", kind="json")


def render_call(call: FunctionCall, spec: CallSpec, *, heartbeat: bool = True) -> str:
    """The exact text the grammar makes the model write for ``call`` (arguments validated)."""
    if call.function != spec.name:
        raise GrammarError(f"call of {call.function!r} rendered with the spec of {spec.name!r}")
    try:
        args = spec.args_model.model_validate(call.arguments).model_dump(mode="json")
    except ValidationError as exc:
        raise InvalidScriptError(f"invalid arguments for {spec.name}: {_describe(exc)}") from exc
    obj: dict[str, Any] = {"thought": call.thought, "function": spec.name, "arguments": args}
    if heartbeat and spec.allows_heartbeat:
        obj["request_heartbeat"] = call.request_heartbeat
    return json.dumps(obj, ensure_ascii=False)


class InvalidScriptError(GrammarError):
    """A scripted call that the grammar could never produce."""


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def parse_call(text: str, functions: Sequence[CallSpec]) -> FunctionCall:
    """Parse one model step; ``CallParseError`` carries a message fit to show the model."""
    by_name = {spec.name: spec for spec in functions}
    try:
        obj, end = json.JSONDecoder().raw_decode(text.strip())
    except json.JSONDecodeError as exc:
        stripped = text.strip()
        truncated = stripped.startswith("{") and not json_depth_closed(stripped)
        reason = (
            "it ended before the JSON object was complete"
            if truncated
            else f"it is not valid JSON ({exc.msg} at character {exc.pos})"
        )
        raise CallParseError(text, f"your last output could not be read: {reason}") from exc
    except RecursionError as exc:
        raise CallParseError(text, "your last output nests JSON too deeply") from exc
    if end != len(text.strip()):
        raise CallParseError(text, "your last output had text after the JSON object")
    if not isinstance(obj, dict):
        raise CallParseError(text, "your last output must be one JSON object")
    extra = set(obj) - {"thought", "function", "arguments", "request_heartbeat"}
    if extra:
        raise CallParseError(text, f"unknown keys in your output: {', '.join(sorted(extra))}")
    name = obj.get("function")
    if not isinstance(name, str) or name not in by_name:
        allowed = ", ".join(by_name)
        raise CallParseError(text, f"unknown function {name!r}; the available functions are: {allowed}")
    spec = by_name[name]
    thought = obj.get("thought", "")
    if not isinstance(thought, str):
        raise CallParseError(text, '"thought" must be a string')
    arguments = obj.get("arguments", {})
    if not isinstance(arguments, dict):
        raise CallParseError(text, '"arguments" must be a JSON object')
    try:
        args = spec.args_model.model_validate(arguments).model_dump(mode="json")
    except ValidationError as exc:
        raise CallParseError(text, f"invalid arguments for {name}: {_describe(exc)}") from exc
    heartbeat = obj.get("request_heartbeat", False)
    if not isinstance(heartbeat, bool):
        raise CallParseError(text, '"request_heartbeat" must be true or false')
    if heartbeat and not spec.allows_heartbeat:
        raise CallParseError(text, f"{name} does not take request_heartbeat")
    return FunctionCall(thought=thought, function=name, arguments=args, request_heartbeat=heartbeat)


# ---------------------------------------------------------------- documentation


def _describe_type(annotation: Any, field: FieldInfo) -> str:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)][0]
        return _describe_type(inner, field) + " or null"
    if origin is Literal:
        return "one of " + ", ".join(json.dumps(v) for v in typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return "one of " + ", ".join(json.dumps(m.value) for m in annotation)
    if annotation is bool:
        return "true or false"
    if annotation is int:
        lo, hi = _int_bounds(field)
        return f"integer {lo}-{hi}" if hi < 10**INT_MAX_DIGITS - 1 else "integer"
    if annotation is float:
        return "number"
    if annotation is dt.date:
        return "date YYYY-MM-DD"
    if annotation is str:
        max_len = _constraint(field, annotated_types.MaxLen)
        return f"string, at most {max_len.max_length} characters" if max_len else "string"
    return getattr(annotation, "__name__", str(annotation))


def render_function_docs(functions: Sequence[CallSpec], *, heartbeat: bool = True) -> str:
    """The function documentation for the system prompt, derived from the specs."""
    lines: list[str] = []
    for spec in functions:
        fields = spec.args_model.model_fields
        lines.append(f"{spec.name}({', '.join(fields)})")
        lines.append(f"  {spec.description}")
        for key, field in fields.items():
            default = "" if field.is_required() else f" (default {json.dumps(field.default, default=str)})"
            desc = f" {field.description}" if field.description else ""
            lines.append(f"  - {key}: {_describe_type(field.annotation, field)}{default}.{desc}")
        if heartbeat and spec.allows_heartbeat:
            lines.append("  - request_heartbeat: true to continue with another step right after this call.")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def describe_output_format(*, heartbeat: bool = True) -> str:
    """One sentence describing the output object (for the system prompt)."""
    example: dict[str, Any] = {
        "thought": "...",
        "function": "archival_memory_search",
        "arguments": {"query": "...", "page": 0},
    }
    if heartbeat:
        example["request_heartbeat"] = True
    return "Reply with exactly one JSON object: " + json.dumps(example)


def json_depth_closed(text: str) -> bool:
    """True once ``text`` holds one complete top-level JSON object (strings understood)."""
    depth, in_str, escaped, started = 0, False, False, False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            depth += 1
            started = True
        elif ch in "}]":
            depth -= 1
            if started and depth == 0:
                return True
    return False


__all__ = [
    "build_call_grammar",
    "build_text_grammar",
    "call_grammar_text",
    "describe_output_format",
    "parse_call",
    "render_call",
    "render_function_docs",
]
