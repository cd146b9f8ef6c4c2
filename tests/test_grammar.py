"""Grammar generation, validation by llama.cpp, parsing and function docs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from memgpt_local.errors import CallParseError, GrammarError
from memgpt_local.functions.specs import DEFAULT_FUNCTIONS, FUNCTIONS_BY_NAME, SEND_MESSAGE
from memgpt_local.runtime.base import CallSpec, Grammar
from memgpt_local.runtime.grammar import (
    build_call_grammar,
    build_notes_grammar,
    build_text_grammar,
    call_grammar_text,
    int_range_gbnf,
    parse_call,
    render_call,
    render_function_docs,
)
from memgpt_local.runtime.llama import check_gbnf
from memgpt_local.schemas import FunctionCall

GRAMMAR_FILE = Path(__file__).resolve().parent.parent / "grammars" / "default_functions.gbnf"


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Spec:
    """A function declaration of the runtime's own shape (``CallSpec``), not the agent's."""

    name: str
    description: str
    args_model: type[BaseModel]
    allows_heartbeat: bool = True


def test_checked_in_grammar_is_up_to_date():
    expected = call_grammar_text(DEFAULT_FUNCTIONS)
    assert GRAMMAR_FILE.read_text(encoding="utf-8") == expected, "regenerate with: python scripts/write_grammar.py"


@pytest.mark.parametrize("spec", DEFAULT_FUNCTIONS, ids=lambda s: s.name)
def test_each_function_alone_builds_and_validates(spec):
    grammar = build_call_grammar([spec])
    check_gbnf(grammar.text)
    assert grammar.function_names == (spec.name,)
    assert grammar.specs == (spec,) and grammar.spec(spec.name) is spec
    for key in spec.args_model.model_fields:
        assert f'\\"{key}\\": ' in grammar.text
    assert ("request_heartbeat" in grammar.text) == spec.allows_heartbeat


@pytest.mark.parametrize("heartbeat", [True, False])
def test_subsets_and_heartbeat_flag(heartbeat):
    subset = [FUNCTIONS_BY_NAME["send_message"], FUNCTIONS_BY_NAME["archival_memory_search"]]
    grammar = build_call_grammar(subset, thought_max_chars=50, heartbeat=heartbeat)
    check_gbnf(grammar.text)
    assert "conversation_search" not in grammar.text
    assert ("request_heartbeat" in grammar.text) is heartbeat
    assert "jchar{0,50}" in grammar.text


def test_a_grammar_without_a_thought_is_accepted_by_llama_cpp():
    grammar = build_call_grammar([FUNCTIONS_BY_NAME["send_message"]], thought_max_chars=0, heartbeat=False)
    check_gbnf(grammar.text)
    assert grammar.thought_max_chars == 0
    with pytest.raises(GrammarError, match="0 \\(no thought\\) or more"):
        build_call_grammar([FUNCTIONS_BY_NAME["send_message"]], thought_max_chars=-1)


def test_bad_grammar_is_a_clear_error():
    with pytest.raises(GrammarError, match="Undefined rule identifier 'nowhere'"):
        check_gbnf("root ::= nowhere\n")
    with pytest.raises(GrammarError):
        check_gbnf('root ::= "unterminated\n')


def test_the_whole_default_grammar_is_accepted_by_llama_cpp():
    for heartbeat in (True, False):
        check_gbnf(build_call_grammar(DEFAULT_FUNCTIONS, heartbeat=heartbeat).text)


def test_a_grammar_is_a_plain_value_built_without_llama_cpp():
    code = (
        "import sys, memgpt_local.runtime.grammar as g\n"
        "from memgpt_local.functions.specs import DEFAULT_FUNCTIONS\n"
        "g.build_call_grammar(DEFAULT_FUNCTIONS), g.build_text_grammar(10)\n"
        "assert 'llama_cpp' not in sys.modules, 'building a grammar loaded llama_cpp'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_llama_backend_validates_a_grammar_when_it_compiles_it(vocab_dir):
    from memgpt_local.runtime.llama import LlamaCppBackend, _GrammarSampler

    backend = LlamaCppBackend(vocab_dir / "ggml-vocab-qwen2.gguf")
    try:
        with pytest.raises(GrammarError, match="Undefined rule identifier 'nowhere'") as info:
            _GrammarSampler(backend._vocab, "root ::= nowhere\n", backend._n_vocab, {})
        assert "grammar generator" in str(info.value)  # the hint
        with pytest.raises(GrammarError, match="Undefined rule identifier 'nowhere'"):
            backend._library_grammar(Grammar("root ::= nowhere\n", kind="text", max_chars=5))
        assert backend._library_grammar(build_text_grammar(5)) is not None
    finally:
        backend.close()


def test_grammar_specs_and_function_names_agree():
    specs = (Spec("a", "x", Args), Spec("b", "y", Args, allows_heartbeat=False))
    assert Grammar("root ::= x", specs=specs).function_names == ("a", "b")
    assert Grammar("root ::= x", function_names=("a",)).specs == ()
    with pytest.raises(GrammarError, match="differ"):
        Grammar("root ::= x", function_names=("b", "a"), specs=specs)
    spec: CallSpec = DEFAULT_FUNCTIONS[0]  # the agent's declarations have the runtime's shape
    assert build_call_grammar([spec]).specs == (spec,)


def test_unbounded_string_is_refused():
    class Loose(Args):
        text: str

    with pytest.raises(GrammarError, match="max_length"):
        build_call_grammar([Spec("loose", "x", Loose)])


def test_long_strings_split_repetitions_llama_accepts():
    class Big(Args):
        text: str = Field(max_length=4500)

    grammar = build_call_grammar([Spec("big", "x", Big)])
    assert "jchar{0,2000} jchar{0,2000} jchar{0,500}" in grammar.text
    check_gbnf(grammar.text)


def _gbnf_to_regex(body: str) -> str:
    out = re.sub(r'"(.)"', lambda m: re.escape(m.group(1)), body)
    return "^(?:" + out.replace(" ", "") + ")$"


@pytest.mark.parametrize("lo,hi", [(0, 99), (1, 360), (-5, 10), (7, 7), (10, 1234), (-100, -3), (0, 0), (95, 105)])
def test_int_ranges_are_exact(lo, hi):
    pattern = re.compile(_gbnf_to_regex(int_range_gbnf(lo, hi)))
    for value in range(lo - 20, hi + 21):
        assert bool(pattern.match(str(value))) == (lo <= value <= hi), value
    assert not pattern.match("007")


HOSTILE = [
    'he said "hi" \\ and left',
    "line one\nline two\ttab\r\n",
    "unicode: café, 日本語, emoji 🦊, RTL עברית",
    "control \x01\x1f and nul \x00 chars",
    'backslash-u literal \\u0041 and quote \\"',
    '{"json": [1, 2]} inside',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_round_trip(text):
    call = FunctionCall(
        thought=text[:400], function="send_message", arguments={"message": text}, request_heartbeat=True
    )
    rendered = render_call(call, SEND_MESSAGE)
    assert "\n" not in rendered and "\x00" not in rendered
    parsed = parse_call(rendered, DEFAULT_FUNCTIONS)
    assert parsed == call


SAMPLES = {
    "send_message": {"message": "Hello!"},
    "core_memory_append": {"label": "human", "content": "Likes tea."},
    "core_memory_replace": {"label": "persona", "old_content": "old", "new_content": ""},
    "conversation_search": {"query": "tea", "page": 3},
    "conversation_search_date": {"start_date": "2024-01-31", "end_date": "2024-02-29", "page": 0},
    "archival_memory_insert": {"content": "A note."},
    "archival_memory_search": {"query": "ferret name", "page": 99},
    "pause_heartbeats": {"minutes": 360},
}


@pytest.mark.parametrize("spec", DEFAULT_FUNCTIONS, ids=lambda s: s.name)
def test_sample_outputs_parse(spec):
    call = FunctionCall(
        thought="t", function=spec.name, arguments=SAMPLES[spec.name], request_heartbeat=spec.allows_heartbeat
    )
    parsed = parse_call(render_call(call, spec), DEFAULT_FUNCTIONS)
    assert parsed.function == spec.name
    assert parsed.arguments == spec.args_model.model_validate(SAMPLES[spec.name]).model_dump(mode="json")


def test_sample_outputs_match_the_grammar_in_llama_cpp(vocab_dir):
    """Feed each rendered sample through llama.cpp's grammar engine, token by token."""
    from memgpt_local.runtime.llama import LlamaCppBackend, _GrammarSampler

    backend = LlamaCppBackend(vocab_dir / "ggml-vocab-qwen2.gguf")
    grammar = build_call_grammar(DEFAULT_FUNCTIONS)
    for spec in DEFAULT_FUNCTIONS:
        for text in [HOSTILE[0], HOSTILE[2], HOSTILE[3]] if spec is SEND_MESSAGE else [None]:
            args = {"message": text} if text else SAMPLES[spec.name]
            call = FunctionCall(
                thought="hm", function=spec.name, arguments=args, request_heartbeat=spec.allows_heartbeat
            )
            rendered = render_call(call, spec)
            sampler = _GrammarSampler(backend._vocab, grammar.text, backend._n_vocab, {})
            try:
                for token in backend._llm.tokenize(rendered.encode(), add_bos=False, special=False):
                    assert sampler.allows(token), (spec.name, rendered)
                    sampler.accept(token)
            finally:
                sampler.close()
    # and something the grammar must refuse
    sampler = _GrammarSampler(backend._vocab, grammar.text, backend._n_vocab, {})
    bad = backend._llm.tokenize(b'{"thought": "x", "function": "nope"', add_bos=False, special=False)
    ok = True
    for token in bad:
        if not sampler.allows(token):
            ok = False
            break
        sampler.accept(token)
    sampler.close()
    backend.close()
    assert not ok


@pytest.mark.parametrize(
    "text,needle",
    [
        ("not json", "not valid JSON"),
        ('{"thought": "x", "function": "send_message", "argu', "ended before"),
        ('{"thought": "x", "function": "fly", "arguments": {}}', "unknown function 'fly'"),
        ('{"thought": "x", "function": "conversation_search", "arguments": {"query": "a", "page": 500}}', "page"),
        (
            '{"thought": "x", "function": "pause_heartbeats", "arguments": {"minutes": 5}, "request_heartbeat": true}',
            "does not take request_heartbeat",
        ),
        ("[1, 2]", "one JSON object"),
        ('{"thought": "x", "function": "send_message", "arguments": {"message": "a"}} trailing', "after the JSON"),
    ],
)
def test_parse_failures_are_messages_for_the_model(text, needle):
    with pytest.raises(CallParseError) as info:
        parse_call(text, DEFAULT_FUNCTIONS)
    assert needle in str(info.value)
    assert str(info.value).startswith("Error: ")


def test_function_docs_derive_from_specs():
    docs = render_function_docs(DEFAULT_FUNCTIONS)
    for spec in DEFAULT_FUNCTIONS:
        assert spec.name in docs and spec.description in docs
    assert "integer 1-360" in docs and 'one of "persona", "human"' in docs
    assert "at most 2000 characters" in docs


def test_text_grammar():
    grammar = build_text_grammar(300)
    assert grammar.kind == "text" and grammar.max_chars == 300
    json.dumps(grammar.text)
    check_gbnf(grammar.text)
    started = build_text_grammar(300, start='The "user"')
    assert started.text.startswith('root ::= "The \\"user\\"" ') and started.max_chars == 300
    check_gbnf(started.text)
    with pytest.raises(GrammarError):
        build_text_grammar(5, start="The user")


def _grammar_takes(backend, grammar_text: str, text: str) -> bool:
    """Whether llama.cpp's grammar engine lets ``text`` through, token by token."""
    from memgpt_local.runtime.llama import _GrammarSampler

    sampler = _GrammarSampler(backend._vocab, grammar_text, backend._n_vocab, {})
    try:
        for token in backend._llm.tokenize(text.encode(), add_bos=False, special=False):
            if not sampler.allows(token):
                return False
            sampler.accept(token)
        return True
    finally:
        sampler.close()


def test_a_notes_label_may_hold_a_number_after_its_first_word(vocab_dir):
    """Labels of letters alone made "I've got Year 11 mocks coming up" into "Year ial mocks:
    coming up" (a `make run` chat, stop 47); a label still starts with a letter."""
    from memgpt_local.runtime.llama import LlamaCppBackend

    backend = LlamaCppBackend(vocab_dir / "ggml-vocab-qwen2.gguf")
    grammar = build_notes_grammar("facts", max_items=3)
    check_gbnf(grammar.text)
    try:
        assert _grammar_takes(backend, grammar.text, '{"facts": ["Year 11 mocks: coming up", "Name: Priya"]}')
        assert _grammar_takes(backend, grammar.text, '{"facts": []}')
        assert not _grammar_takes(backend, grammar.text, '{"facts": ["11 mocks: coming up"]}')
        assert not _grammar_takes(backend, grammar.text, '{"facts": ["Year 11 mocks soon: coming up"]}')
    finally:
        backend.close()
