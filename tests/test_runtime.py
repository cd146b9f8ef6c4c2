"""Backends: the scripted fake, token counts with tokenizer-only GGUFs, the real smollm2 model."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field, create_model

from memgpt_local.errors import (
    BadModelFileError,
    ContextOverflowError,
    ModelError,
    ScriptExhaustedError,
)
from memgpt_local.functions.specs import DEFAULT_FUNCTIONS, FUNCTIONS_BY_NAME
from memgpt_local.runtime.base import Backend, CallSpec, Grammar, RepeatBan
from memgpt_local.runtime.gguf import read_gguf_info
from memgpt_local.runtime.grammar import (
    InvalidScriptError,
    build_call_grammar,
    build_text_grammar,
    parse_call,
    render_function_docs,
)
from memgpt_local.runtime.scripted import ScriptedBackend
from memgpt_local.schemas import ChatMessage, FunctionCall

SYSTEM = ChatMessage(role="system", content="You are a helpful assistant with long-term memory.")


def msgs(*texts: str) -> list[ChatMessage]:
    return [SYSTEM] + [ChatMessage(role="user", content=t) for t in texts]


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ShortArgs(Args):
    message: str = Field(min_length=1, max_length=5)


@dataclass(frozen=True)
class Spec:
    name: str
    description: str
    args_model: type[BaseModel]
    allows_heartbeat: bool = True


# ---------------------------------------------------------------- scripted backend


def test_scripted_replays_records_and_runs_out():
    call = FunctionCall(thought="say hi", function="send_message", arguments={"message": "hi"}, request_heartbeat=False)
    backend = ScriptedBackend([call, "free text"])
    assert isinstance(backend, Backend)
    grammar = build_call_grammar(DEFAULT_FUNCTIONS)
    first = backend.complete(msgs("hello"), grammar=grammar, max_tokens=100)
    assert parse_call(first.text, DEFAULT_FUNCTIONS) == call
    assert json.loads(first.text)["request_heartbeat"] is False
    assert backend.complete(msgs("x"), grammar=None, max_tokens=100).text == "free text"
    assert [r.max_tokens for r in backend.requests] == [100, 100]
    assert backend.requests[0].grammar is grammar
    with pytest.raises(ScriptExhaustedError):
        backend.complete(msgs("again"), grammar=None, max_tokens=10)


def test_scripted_validates_calls_at_construction_given_functions():
    bad_page = FunctionCall(function="conversation_search", arguments={"query": "a", "page": 100})
    with pytest.raises(InvalidScriptError, match="page"):
        ScriptedBackend([bad_page], functions=DEFAULT_FUNCTIONS)
    with pytest.raises(InvalidScriptError, match="unknown function"):
        ScriptedBackend([FunctionCall(function="fly")], functions=DEFAULT_FUNCTIONS)
    backend = ScriptedBackend([], functions=DEFAULT_FUNCTIONS)
    with pytest.raises(InvalidScriptError, match="script item 1: unknown function"):
        backend.enqueue("fine", FunctionCall(function="fly"))
    with pytest.raises(InvalidScriptError, match="neither"):
        ScriptedBackend([42])  # type: ignore[list-item]


def test_scripted_validates_calls_against_the_request_grammar_without_functions():
    bad_page = FunctionCall(function="conversation_search", arguments={"query": "a", "page": 100})
    backend = ScriptedBackend([bad_page, FunctionCall(function="fly")])  # nothing to check them against yet
    grammar = build_call_grammar(DEFAULT_FUNCTIONS)
    with pytest.raises(InvalidScriptError, match="page"):
        backend.complete(msgs("q"), grammar=grammar, max_tokens=50)
    with pytest.raises(InvalidScriptError, match="not allowed"):
        backend.complete(msgs("q"), grammar=grammar, max_tokens=50)


def test_scripted_calls_use_the_grammars_own_specs():
    """The grammar's spec decides, not a default one: a reply the grammar bounds to 5
    characters cannot be scripted longer."""
    short = build_call_grammar([Spec("send_message", "Say it.", ShortArgs)])
    backend = ScriptedBackend(
        [FunctionCall(function="send_message", arguments={"message": "hello there"})], functions=DEFAULT_FUNCTIONS
    )
    with pytest.raises(InvalidScriptError, match="message"):
        backend.complete(msgs("q"), grammar=short, max_tokens=50)
    backend.enqueue(FunctionCall(function="send_message", arguments={"message": "hey"}))
    assert json.loads(backend.complete(msgs("q"), grammar=short, max_tokens=50).text)["arguments"] == {"message": "hey"}


def test_scripted_call_without_a_call_grammar():
    call = FunctionCall(function="send_message", arguments={"message": "hi"})
    backend = ScriptedBackend([call, call])
    with pytest.raises(InvalidScriptError, match="request with no grammar, not a call grammar"):
        backend.complete(msgs("q"), grammar=None, max_tokens=50)
    with pytest.raises(InvalidScriptError, match="a text grammar"):
        backend.complete(msgs("q"), grammar=build_text_grammar(100), max_tokens=50)
    given = ScriptedBackend([call], functions=DEFAULT_FUNCTIONS)  # with functions, calls render anywhere
    assert json.loads(given.complete(msgs("q"), grammar=None, max_tokens=50).text)["function"] == "send_message"


def test_scripted_respects_the_request_grammar():
    call = FunctionCall(function="archival_memory_search", arguments={"query": "tea"}, request_heartbeat=True)
    backend = ScriptedBackend([call, call])
    only_send = build_call_grammar([FUNCTIONS_BY_NAME["send_message"]])
    with pytest.raises(InvalidScriptError, match="not allowed"):
        backend.complete(msgs("q"), grammar=only_send, max_tokens=50)
    no_heartbeat = build_call_grammar(DEFAULT_FUNCTIONS, heartbeat=False)
    text = backend.complete(msgs("q"), grammar=no_heartbeat, max_tokens=50).text
    assert "request_heartbeat" not in text
    assert json.loads(text)["arguments"] == {"query": "tea", "page": 0}


def test_scripted_prefix_reuse_and_overflow():
    reply = FunctionCall(function="send_message", arguments={"message": "ok"})
    backend = ScriptedBackend([reply] * 3, n_ctx=200, functions=DEFAULT_FUNCTIONS)
    first = backend.complete(msgs("one"), grammar=None, max_tokens=20)
    assert first.evaluated_tokens == first.prompt_tokens == backend.count_tokens(msgs("one"))
    history = msgs("one") + [ChatMessage(role="assistant", content=first.text)]
    second = backend.complete(history + [ChatMessage(role="user", content="two")], grammar=None, max_tokens=20)
    assert second.evaluated_tokens < second.prompt_tokens
    cached = first.prompt_tokens + first.generated_tokens  # the reply is reused too
    assert second.evaluated_tokens == second.prompt_tokens - cached
    with pytest.raises(ContextOverflowError) as info:
        backend.complete(msgs("word " * 300), grammar=None, max_tokens=20)
    assert info.value.n_ctx == 200 and info.value.reserved == 20


def test_scripted_truncates_at_max_tokens():
    backend = ScriptedBackend(
        [FunctionCall(function="send_message", arguments={"message": "a b c d e f g"})], functions=DEFAULT_FUNCTIONS
    )
    out = backend.complete(msgs("x"), grammar=None, max_tokens=5)
    assert out.finish_reason == "length" and out.generated_tokens == 5


# ---------------------------------------------------------------- GGUF validation


def test_bad_gguf_files(tmp_path: Path, smollm_path: Path):
    text = tmp_path / "notes.gguf"
    text.write_text("just some text\n")
    with pytest.raises(BadModelFileError, match="wrong magic"):
        read_gguf_info(text)
    wrong = tmp_path / "wrong.gguf"
    wrong.write_bytes(b"GGML" + b"\0" * 100)
    with pytest.raises(BadModelFileError, match="wrong magic"):
        read_gguf_info(wrong)
    truncated = tmp_path / "cut.gguf"
    with smollm_path.open("rb") as src:
        truncated.write_bytes(src.read(5_000_000))
    with pytest.raises(BadModelFileError, match="truncated"):
        read_gguf_info(truncated)
    header_cut = tmp_path / "cut2.gguf"
    with smollm_path.open("rb") as src:
        header_cut.write_bytes(src.read(1000))
    with pytest.raises(BadModelFileError, match="truncated"):
        read_gguf_info(header_cut)
    from memgpt_local.runtime.llama import LlamaCppBackend

    with pytest.raises(BadModelFileError):
        LlamaCppBackend(truncated)
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    with pytest.raises(BadModelFileError, match="empty file"):
        read_gguf_info(empty)


def test_gguf_info_of_smollm(smollm_path: Path):
    info = read_gguf_info(smollm_path)
    assert info.n_ctx_train == 8192 and info.quantization == "Q4_1" and info.chat_template


# ---------------------------------------------------------------- tokenizer-only files


def test_qwen2_vocab_template_and_exact_counts(vocab_dir: Path):
    from memgpt_local.runtime.llama import LlamaCppBackend

    backend = LlamaCppBackend(vocab_dir / "ggml-vocab-qwen2.gguf")
    try:
        assert backend.n_ctx == 8192  # min(32768 trained, the 8192 cap)
        messages = msgs("Hello there, how are you?")
        prompt = backend.render(messages)
        assert prompt.startswith("<|im_start|>system\nYou are a helpful")
        assert prompt.endswith("<|im_start|>assistant\n")
        tokens = backend.tokenize_prompt(prompt)
        assert backend.count_tokens(messages) == len(tokens)
        special = backend._llm.tokenize(b"<|im_start|>", add_bos=False, special=True)
        assert len(special) == 1 and tokens[0] == special[0]  # specials are single tokens, no BOS
        longer = messages + [ChatMessage(role="assistant", content="Fine."), ChatMessage(role="user", content="ok")]
        assert backend.count_tokens(longer) > backend.count_tokens(messages)
        with pytest.raises(ModelError, match="vocabulary-only"):
            backend.complete(messages, grammar=None, max_tokens=5)
    finally:
        backend.close()


def test_missing_template_needs_a_chat_format(vocab_dir: Path):
    from memgpt_local.runtime.llama import LlamaCppBackend

    path = vocab_dir / "ggml-vocab-llama-spm.gguf"
    if read_gguf_info(path).chat_template:
        pytest.skip("this vocab file carries a template")
    with pytest.raises(ModelError, match="no chat template"):
        LlamaCppBackend(path)
    backend = LlamaCppBackend(path, chat_format="chatml")
    try:
        tokens = backend.tokenize_prompt(backend.render(msgs("hi")))
        assert tokens[0] == backend._llm.token_bos()  # SPM wants one BOS, added exactly once
        assert tokens.count(backend._llm.token_bos()) == 1
    finally:
        backend.close()


# ---------------------------------------------------------------- the real model


@pytest.mark.real_model
def test_smollm_counts_match_evaluated(real_backend):
    messages = msgs("What is 2+2?")
    prompt = real_backend.render(messages)
    assert prompt.startswith("<|im_start|>system")
    real_backend.reset_cache()
    out = real_backend.complete(messages, grammar=None, max_tokens=4)
    assert out.prompt_tokens == real_backend.count_tokens(messages) == out.evaluated_tokens


def short_specs(max_chars: int = 40) -> list[CallSpec]:
    """DEFAULT_FUNCTIONS with every string bounded to ``max_chars`` (keeps the tiny model quick)."""
    out = []
    for spec in DEFAULT_FUNCTIONS:
        fields = {}
        for key, field in spec.args_model.model_fields.items():
            if field.annotation is str:
                low = 1 if any(getattr(m, "min_length", 0) for m in field.metadata) else 0
                fields[key] = (str, Field(min_length=low, max_length=max_chars))
            else:
                fields[key] = (field.annotation, field)
        model = create_model(f"Short{spec.args_model.__name__}", __base__=Args, **fields)
        out.append(replace(spec, args_model=model))
    return out


@pytest.mark.real_model
def test_smollm_constrained_generations_parse_and_reuse_prefix(real_backend):
    specs = short_specs()
    grammar = build_call_grammar(specs, thought_max_chars=60)
    system = ChatMessage(
        role="system",
        content="You are an assistant with memory. Functions:\n" + render_function_docs(DEFAULT_FUNCTIONS),
    )
    questions = [
        "Hi!",
        "What is my name?",
        "Remember that I like tea.",
        "Search your notes for ferrets.",
        "What did we talk about yesterday?",
        "Be quiet for an hour.",
        "Say hello in French.",
        "Store the fact that Paris is in France.",
        "Find messages from 2024-01-01 to 2024-01-31.",
        "Thanks, bye!",
    ]
    real_backend.reset_cache()
    results = []
    for question in questions:
        out = real_backend.complete(
            [system, ChatMessage(role="user", content=question)], grammar=grammar, max_tokens=100
        )
        assert out.finish_reason == "stop", out.text
        results.append(parse_call(out.text, specs))
        # all ten share the system prompt: only the user turn is evaluated after the first
        if len(results) > 1:
            suffix = out.prompt_tokens - out.evaluated_tokens
            assert out.evaluated_tokens < 40 and suffix > 300
    assert len(results) == 10

    # a second call that extends the first prompt evaluates only the new suffix
    first_msgs = [system, ChatMessage(role="user", content="Hi!")]
    real_backend.reset_cache()
    first = real_backend.complete(first_msgs, grammar=grammar, max_tokens=100)
    assert first.evaluated_tokens == first.prompt_tokens
    follow = first_msgs + [
        ChatMessage(role="assistant", content=first.text),
        ChatMessage(role="user", content="And now?"),
    ]
    second = real_backend.complete(follow, grammar=grammar, max_tokens=100)
    new_tokens = second.prompt_tokens - first.prompt_tokens
    assert second.evaluated_tokens <= new_tokens
    assert second.evaluated_tokens >= new_tokens - first.generated_tokens - 2


@pytest.mark.real_model
def test_smollm_context_overflow_and_streaming(real_backend):
    with pytest.raises(ContextOverflowError) as info:
        real_backend.complete(msgs("tea " * 3000), grammar=None, max_tokens=10)
    assert info.value.n_ctx == 2048 and info.value.prompt_tokens > 2048
    pieces: list[str] = []
    out = real_backend.complete(
        msgs("Hi"),
        grammar=build_call_grammar([FUNCTIONS_BY_NAME["send_message"]]),
        max_tokens=80,
        on_text=pieces.append,
    )
    assert "".join(pieces) == out.text


@pytest.mark.real_model
def test_smollm_library_grammar_path_agrees_on_format(real_backend):
    grammar = build_call_grammar([FUNCTIONS_BY_NAME["send_message"]], thought_max_chars=60)
    real_backend.constrained = "llama-cpp-python"
    try:
        out = real_backend.complete(msgs("Hello"), grammar=grammar, max_tokens=120)
    finally:
        real_backend.constrained = "fast"
    assert parse_call(out.text, DEFAULT_FUNCTIONS).function == "send_message"


@pytest.mark.real_model
def test_amx_kernels_are_not_used_and_a_long_prompt_decodes(real_backend):
    """llama.cpp's AMX kernels crash in decode on a CPU that has AMX (llama.cpp #20824): where
    the build carries them, the model is loaded without extra buffer types, and a prompt of
    several batches is evaluated."""
    from memgpt_local.runtime.llama import amx_compiled

    assert real_backend._llm.model_params.use_extra_bufts is not amx_compiled()
    words = " ".join(f"word{i}" for i in range(250))
    prompt = [ChatMessage(role="user", content=f"Repeat the last word: {words}")]
    reply = real_backend.complete(prompt, grammar=None, max_tokens=4)
    assert reply.prompt_tokens > 512


def testmodel_params_switch_restores_the_library_default():
    import llama_cpp

    from memgpt_local.runtime.llama import model_params

    default = llama_cpp.llama_cpp.llama_model_default_params
    with model_params(use_extra_buffers=False):
        assert llama_cpp.llama_cpp.llama_model_default_params().use_extra_bufts is False
    assert llama_cpp.llama_cpp.llama_model_default_params is default
    assert default().use_extra_bufts is True


def asked_to_repeat(what: str, text: str) -> tuple[Grammar, list[ChatMessage]]:
    """A grammar that lets the model write one JSON message freely, and a prompt that asks it
    to repeat ``text`` (``what``: "this text exactly", "this sentence twice") in it: the sampler
    checks below read what it does to a text the model would otherwise copy."""
    grammar = Grammar(text='root ::= "{\\"message\\": \\"" [^"\\\\]* "\\"}"', kind="json")
    prompt = [
        ChatMessage(role="system", content="You are a helpful assistant."),
        ChatMessage(role="user", content=f'Repeat {what}, in JSON as {{"message": "..."}}: {text}'),
    ]
    return grammar, prompt


@pytest.mark.real_model
def test_smollm_stops_a_reply_a_few_words_into_a_formula(real_backend):
    """Asked to say a sentence twice, the model stops when the second one opens like a formula
    (``RepeatBan.formulas``); without formulas it writes both."""
    from memgpt_local.runtime.base import RepeatBan
    from memgpt_local.text import formula_start

    grammar, prompt = asked_to_repeat("this sentence twice", "the quick brown fox jumps over the lazy dog.")
    formulas = frozenset({("the", "quick", "brown", "fox")})
    texts = {}
    for name, avoid in (("free", frozenset()), ("stopped", formulas)):
        real_backend.reset_cache()
        done = real_backend.complete(
            prompt, grammar=grammar, max_tokens=60, avoid=RepeatBan("message", 0, formulas=avoid, formula_words=4)
        )
        # free, the model may loop the sentence until max_tokens: the JSON is then left open
        texts[name] = done.text.split('"message": "', 1)[1].removesuffix('"}')
        assert real_backend.last_stats["formulas_stopped"] == (1 if avoid else 0)
    assert texts["free"].lower().count("the quick brown fox") >= 2
    cut = formula_start(texts["stopped"], formulas)
    assert cut is not None and texts["stopped"][:cut].strip() == "The quick brown fox jumps over the lazy dog."
    assert len(texts["stopped"]) - cut < 30  # it stopped a word or two after the formula's opening


@pytest.mark.real_model
@pytest.mark.parametrize("formula", ["the quick brown fox", "the quick brown fox jumps over"])
def test_smollm_turns_away_from_a_formula_after_a_short_first_sentence(real_backend, formula):
    """After "Nice." a formula is not stopped at (the reply would be the bare "Nice."): the word
    that would complete its opening is refused, and the model writes on. A formula may be longer
    than ``formula_words`` (an offer of help, ``loop.OFFERS_OF_HELP``)."""
    from memgpt_local.runtime.base import Grammar, RepeatBan
    from memgpt_local.text import formula_start

    # the grammar writes "Nice."; the model goes on with the sentence it was asked to repeat
    grammar = Grammar(text='root ::= "{\\"message\\": \\"Nice." [^"\\\\]* "\\"}"', kind="json")
    prompt = [
        ChatMessage(role="system", content="You are a helpful assistant."),
        ChatMessage(
            role="user",
            content='Repeat this text exactly, in JSON as {"message": "..."}: '
            "Nice. The quick brown fox jumps over the lazy dog.",
        ),
    ]
    formulas = frozenset({tuple(formula.split())})
    begun = "nice. " + formula.rsplit(" ", 1)[0]
    texts = {}
    for name, avoid in (("free", frozenset()), ("turned", formulas)):
        real_backend.reset_cache()
        done = real_backend.complete(
            prompt, grammar=grammar, max_tokens=24, avoid=RepeatBan("message", 0, formulas=avoid, formula_words=4)
        )
        texts[name] = done.text.split('"message": "', 1)[1].removesuffix('"}')  # may stop unclosed at 24 tokens
        assert real_backend.last_stats["formulas_turned"] == (1 if avoid else 0)
        assert real_backend.last_stats["formulas_stopped"] == 0
    assert texts["free"].lower().startswith("nice. " + formula)
    assert texts["turned"].lower().startswith(begun)
    assert formula_start(texts["turned"], formulas) is None and len(texts["turned"]) > len(begun) + 1


@pytest.mark.real_model
@pytest.mark.parametrize("constrained", ["fast", "llama-cpp-python"])
def test_smollm_writes_a_forced_start_and_goes_on_from_it(real_backend, constrained):
    """A greeting's "Hello Lena!" is written by the grammar, with a held draft holding it under
    the repeat ban: nothing inside the start is refused, and the model adds words of its own."""
    start = "Hello Lena!"
    grammar = build_call_grammar([FUNCTIONS_BY_NAME["send_message"]], thought_max_chars=40, message_start=start)
    ban = RepeatBan(field="message", n=2, prior=("Hello Lena! Hello Lena!",), fixed_start=start)
    real_backend.constrained = constrained
    try:
        out = real_backend.complete(msgs("Greet me."), grammar=grammar, max_tokens=120, avoid=ban)
    finally:
        real_backend.constrained = "fast"
    # (the library's own sampler has no repeat ban: smollm may loop there until max_tokens)
    message = out.text.partition('"message": "')[2]
    assert message.startswith(start) and len(message.rstrip('"}')) >= len(start) + 8


@pytest.mark.real_model
def test_smollm_opens_its_own_way_when_an_earlier_reply_took_the_opening(real_backend):
    """A first sentence one word short of an earlier reply's opening may not go on with the word
    that completes it: the model writes another first sentence, and the step still completes."""
    from memgpt_local.runtime.base import RepeatBan

    grammar, prompt = asked_to_repeat("this text exactly", "The quick brown fox jumps over the lazy dog.")
    openings = frozenset({("the", "quick", "brown", "fox")})
    texts = {}
    for name, avoid in (("free", frozenset()), ("turned", openings)):
        real_backend.reset_cache()
        done = real_backend.complete(
            prompt, grammar=grammar, max_tokens=24, avoid=RepeatBan("message", 0, openings=avoid, formula_words=4)
        )
        texts[name] = done.text.split('"message": "', 1)[1].removesuffix('"}')
        assert real_backend.last_stats["openings_turned"] == (1 if avoid else 0)
    assert texts["free"].lower().startswith("the quick brown fox")
    assert texts["turned"].lower().startswith("the quick brown") and not texts["turned"].lower().startswith(
        "the quick brown fox"
    )


def test_wide_script_is_told_from_latin_text_and_its_punctuation():
    from memgpt_local.runtime.decoding import writes_wide_script

    for wide in ("团队", "。", "こんにちは", "안녕"):
        assert writes_wide_script(wide.encode()), wide
    for latin in ("rowing team", "Zoë’s café — “naïve” …", "🙂", "Łódź"):
        assert not writes_wide_script(latin.encode()), latin


@pytest.mark.real_model
def test_smollm_writes_no_banned_name_of_several_tokens(real_backend):
    """A forced denial may not name the user ("I don't know Siosaia's mother's name.", `make
    run`, stop 42): a name the vocabulary spells in several pieces is refused at its first
    (" Wire" of " Wire" "mu", " S" of " S" "iosa" "ia")."""
    from memgpt_local.runtime.base import RepeatBan

    grammar, prompt = asked_to_repeat("this text exactly", "Hello Wiremu!")
    texts = {}
    for banned in ((), ("Wiremu",)):
        real_backend.reset_cache()
        done = real_backend.complete(
            prompt, grammar=grammar, max_tokens=24, avoid=RepeatBan("message", 0, banned_words=banned)
        )
        texts[banned] = done.text.split('"message": "', 1)[1]
    assert "Wiremu" in texts[()], texts
    assert "Wire" not in texts[("Wiremu",)], texts


@pytest.mark.real_model
def test_smollm_writes_no_chinese_when_latin_only(real_backend):
    """qwen2.5 drifted into Chinese mid-greeting ("rowing团队", `make run`, stop 42): asked to
    copy Chinese, the model copies it freely and writes none of it with ``latin_only``."""
    from memgpt_local.runtime.base import Grammar, RepeatBan
    from memgpt_local.runtime.decoding import writes_wide_script

    _, prompt = asked_to_repeat("this text exactly", "你好你好你好，我的朋友。")
    grammar = Grammar(text='root ::= "{\\"message\\": \\"你" [^"\\\\]* "\\"}"', kind="json")  # begun in Chinese
    texts = {}
    for latin_only in (False, True):
        real_backend.reset_cache()
        done = real_backend.complete(
            prompt, grammar=grammar, max_tokens=24, avoid=RepeatBan("message", 0, latin_only=latin_only)
        )
        texts[latin_only] = done.text.split('"message": "你', 1)[1]
    assert writes_wide_script(texts[False].encode()), texts
    assert not writes_wide_script(texts[True].encode()), texts


@pytest.mark.real_model
def test_smollm_begins_no_sentence_with_a_banned_opener(real_backend):
    """With "I" and "My" banned as openers (a redraft after a reply spoke as the user), asked to
    repeat sentences that all begin "I", the model begins each of its sentences another way."""
    from memgpt_local.runtime.base import RepeatBan
    from memgpt_local.text import sentences, words

    grammar, prompt = asked_to_repeat("this text exactly", "I love tea. I bake bread. My cat sleeps.")
    texts = {}
    for name, banned in (("free", ()), ("banned", ("I", "My"))):
        real_backend.reset_cache()
        done = real_backend.complete(
            prompt, grammar=grammar, max_tokens=30, avoid=RepeatBan("message", 0, banned_openers=banned)
        )
        texts[name] = done.text.split('"message": "', 1)[1].removesuffix('"}')
    assert texts["free"].startswith("I love tea")
    firsts = [words(s)[0] for s in sentences(texts["banned"]) if words(s)]
    assert firsts and not {"i", "my"} & set(firsts), texts["banned"]


@pytest.mark.real_model
def test_smollm_says_no_banned_word_anywhere(real_backend):
    """With "my" banned (a redraft after a reply copied the user's "my dad's car"), asked to
    repeat a sentence that says "my" twice, the model writes it without the word."""
    from memgpt_local.runtime.base import RepeatBan
    from memgpt_local.text import words

    grammar, prompt = asked_to_repeat("this text exactly", "Adam drove my dad's car, sadly, into my pond.")
    texts = {}
    for name, banned in (("free", ()), ("banned", ("my", "My"))):
        real_backend.reset_cache()
        done = real_backend.complete(
            prompt, grammar=grammar, max_tokens=30, avoid=RepeatBan("message", 0, banned_words=banned)
        )
        texts[name] = done.text.split('"message": "', 1)[1].removesuffix('"}')
    assert "my" in words(texts["free"]) and "," in texts["free"], texts["free"]
    assert "my" not in words(texts["banned"]), texts["banned"]
    real_backend.reset_cache()  # a mark, refused right after a word: a forced denial's ", but ..."
    marks = real_backend.complete(
        prompt, grammar=grammar, max_tokens=30, avoid=RepeatBan("message", 0, banned_words=(",",))
    )
    assert "," not in marks.text.split('"message": "', 1)[1], marks.text
