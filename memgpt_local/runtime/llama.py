"""``LlamaCppBackend``: a GGUF model in-process via llama-cpp-python (the only importer of it).

- Rendering uses the model's own chat template (GGUF ``tokenizer.chat_template``) or an explicit
  ``chat_format`` ("chatml" or a path to a Jinja template file); token counts are the model
  tokenizer's counts of exactly the token list that is evaluated.
- KV-cache prefix reuse: before each call the longest common prefix with the tokens already in
  the cache is kept and only the suffix is evaluated; the counters report it.
- Constrained decoding ("fast", the default): sample from the raw logits first, check that one
  token against llama.cpp's grammar, and mask the whole vocabulary only when it is rejected;
  characters the grammar forces (JSON keys and punctuation) are fast-forwarded and evaluated
  as one batch. ``constrained="llama-cpp-python"`` uses the library's own grammar sampling
  instead (for comparison in ``scripts/bench_decode.py``).
- Grammars arrive as plain values (``runtime.base.Grammar``) and are validated here, when
  llama.cpp compiles them: one it refuses is a ``GrammarError`` carrying the parser's message.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import llama_cpp
import numpy as np
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from memgpt_local.errors import BadModelFileError, ContextOverflowError, GrammarError, ModelError
from memgpt_local.runtime.base import Grammar, RepeatBan, TextCallback, reusable_prefix
from memgpt_local.runtime.decoding import NgramBan, PromptLookup, StopTracker, writes_wide_script
from memgpt_local.runtime.gguf import read_gguf_info
from memgpt_local.runtime.kv_state import SavedState, StateFileError, StateKey, read_state, write_state
from memgpt_local.schemas import ChatMessage, Completion

if TYPE_CHECKING:
    from llama_cpp.llama_types import ChatCompletionRequestMessage

    from memgpt_local.config import ModelSettings

LOG_ENV = "MEMGPT_LOCAL_LLAMA_LOG"
ConstrainedMode = Literal["fast", "llama-cpp-python"]
DraftMode = Literal["none", "prompt-lookup"]

# A plain ChatML template (used when chat_format="chatml").
CHATML_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

# ---------------------------------------------------------------- llama.cpp log capture

_recent_log: list[str] = []


@llama_cpp.llama_log_callback
def _log_callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
    message = text.decode("utf-8", errors="replace")
    _recent_log.append(message)
    del _recent_log[:-50]
    if os.environ.get(LOG_ENV):
        print(message, end="", file=sys.stderr)


llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))


def _log_tail() -> str:
    lines = [line.strip() for line in _recent_log if line.strip()]
    return " / ".join(lines[-3:])


@contextlib.contextmanager
def _captured_stderr() -> Iterator[list[str]]:
    """Capture what C code writes to file descriptor 2 (llama.cpp's grammar parser does)."""
    out: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield out
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            out.append(sink.read().decode("utf-8", errors="replace"))


# ---------------------------------------------------------------- loading

_load_lock = threading.Lock()


@functools.cache
def amx_compiled() -> bool:
    """Whether this llama.cpp build carries its AMX matrix kernels (built natively on a CPU
    with AMX, e.g. Xeon Sapphire Rapids). Those kernels crash in decode on Q4_K/Q6_K models
    (segmentation fault in the first batch; llama.cpp #20824) and give wrong results on
    Q4_0/Q4_1 (#16315), so models load without extra buffer types where they are present."""
    return "AMX_INT8 = 1" in llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")


@contextlib.contextmanager
def model_params(*, use_extra_buffers: bool) -> Iterator[None]:
    """Loads inside this block get ``use_extra_bufts`` as given. ``llama_cpp.Llama`` takes
    its model parameters from ``llama_model_default_params()`` and has no argument for this
    one, so that function is wrapped for the duration of the load (under a lock)."""
    if use_extra_buffers:
        yield
        return
    module = llama_cpp.llama_cpp
    default = module.llama_model_default_params

    def params() -> llama_cpp.llama_model_params:
        value = default()
        value.use_extra_bufts = False
        return value

    with _load_lock:
        module.llama_model_default_params = params
        try:
            yield
        finally:
            module.llama_model_default_params = default


GRAMMAR_BUG_HINT = "this is a bug in the grammar generator or in a function spec"


def check_gbnf(text: str) -> None:
    """Load ``text`` with llama.cpp's grammar parser; ``GrammarError`` if it is refused."""
    _recent_log.clear()
    with _captured_stderr() as captured:
        sampler = llama_cpp.llama_sampler_init_grammar(None, text.encode("utf-8"), b"root")
    if not sampler:
        details = " / ".join(line.strip() for line in "".join(captured).splitlines() if line.strip())
        raise GrammarError(f"llama.cpp refused the grammar: {details or _log_tail() or 'no details'}", GRAMMAR_BUG_HINT)
    llama_cpp.llama_sampler_free(sampler)


# ---------------------------------------------------------------- grammar sampling


class _GrammarSampler:
    """Owns one llama.cpp grammar sampler; checks single tokens, masks logits, finds forced text."""

    def __init__(self, vocab: llama_cpp.llama_vocab_p, text: str, n_vocab: int, char_tokens: dict[str, int]):
        _recent_log.clear()
        self._ptr = llama_cpp.llama_sampler_init_grammar(vocab, text.encode("utf-8"), b"root")
        if not self._ptr:
            check_gbnf(text)  # raises with the parser's own message
            raise GrammarError(f"llama.cpp refused the grammar: {_log_tail() or 'no details'}", GRAMMAR_BUG_HINT)
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_arr = llama_cpp.llama_token_data_array(data=self._one, size=1, selected=-1, sorted=False)
        self._all = (llama_cpp.llama_token_data * n_vocab)()
        self._all_np = np.ctypeslib.as_array(self._all)
        self._all_np["id"] = np.arange(n_vocab, dtype=np.int32)
        self._all_arr = llama_cpp.llama_token_data_array(data=self._all, size=n_vocab, selected=-1, sorted=False)
        self._chars = list(char_tokens.items())
        self._char_buf = (llama_cpp.llama_token_data * max(1, len(self._chars)))()
        for i, (_, token) in enumerate(self._chars):
            # llama_cpp annotates the field as c_int32, but ctypes reads and writes it as an int
            self._char_buf[i].id = token  # type: ignore[assignment]
        self.masks = 0

    def allows(self, token: int, ptr: llama_cpp.llama_sampler_p | None = None) -> bool:
        self._one[0].id, self._one[0].logit = token, 0.0  # type: ignore[assignment]  # as in __init__: an int field
        self._one_arr.size, self._one_arr.selected = 1, -1
        llama_cpp.llama_sampler_apply(ptr or self._ptr, ctypes.byref(self._one_arr))
        return self._one[0].logit != -np.inf

    def mask(self, logits: np.ndarray) -> np.ndarray:
        """``logits`` with every token the grammar rejects set to -inf."""
        self.masks += 1
        self._all_np["logit"] = logits
        self._all_arr.size, self._all_arr.selected, self._all_arr.sorted = len(logits), -1, False
        llama_cpp.llama_sampler_apply(self._ptr, ctypes.byref(self._all_arr))
        return self._all_np["logit"].copy()

    def accept(self, token: int) -> None:
        llama_cpp.llama_sampler_accept(self._ptr, token)

    def forced_text(self, limit: int) -> str:
        """The characters the grammar allows as the only continuation (ASCII probe), at most ``limit``."""
        if not self._chars:
            return ""
        probe = llama_cpp.llama_sampler_clone(self._ptr)
        out: list[str] = []
        try:
            arr = llama_cpp.llama_token_data_array(
                data=self._char_buf, size=len(self._chars), selected=-1, sorted=False
            )
            while len(out) < limit:
                for i in range(len(self._chars)):
                    self._char_buf[i].logit = 0.0
                arr.size, arr.selected = len(self._chars), -1
                llama_cpp.llama_sampler_apply(probe, ctypes.byref(arr))
                allowed = [i for i in range(len(self._chars)) if self._char_buf[i].logit != -np.inf]
                if len(allowed) != 1:
                    break
                char, token = self._chars[allowed[0]]
                if self._eog_allowed(probe):
                    break
                out.append(char)
                llama_cpp.llama_sampler_accept(probe, token)
        finally:
            llama_cpp.llama_sampler_free(probe)
        return "".join(out)

    def _eog_allowed(self, ptr: llama_cpp.llama_sampler_p) -> bool:
        return self.eog_token is not None and self.allows(self.eog_token, ptr)

    eog_token: int | None = None

    def close(self) -> None:
        if self._ptr:
            llama_cpp.llama_sampler_free(self._ptr)
            self._ptr = None


# ---------------------------------------------------------------- the backend


class LlamaCppBackend:
    """A GGUF chat model in-process. See the module docstring."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int | None = None,
        n_ctx_cap: int = 8192,
        n_threads: int | None = None,
        n_batch: int = 512,
        chat_format: str | None = None,
        seed: int = 0,
        temperature: float = 0.0,
        constrained: ConstrainedMode = "fast",
        fast_forward: bool = True,
        name: str | None = None,
        draft: DraftMode = "none",
        draft_max_tokens: int = 6,
        draft_ngram: int = 3,
    ):
        path = Path(model_path)
        info = read_gguf_info(path)
        self._options = dict(
            n_ctx_cap=n_ctx_cap, n_threads=n_threads, n_batch=n_batch, chat_format=chat_format, seed=seed,
            temperature=temperature, constrained=constrained, fast_forward=fast_forward, name=name,
            draft=draft, draft_max_tokens=draft_max_tokens, draft_ngram=draft_ngram,
        )  # fmt: skip
        self._sides: dict[int, LlamaCppBackend] = {}
        self.info = info
        self.model_path = path
        self.name = name or path.stem
        self.n_ctx_train = info.n_ctx_train or n_ctx_cap
        self.n_ctx = n_ctx or min(self.n_ctx_train, n_ctx_cap)
        self.temperature = temperature
        self.constrained = constrained
        self.fast_forward = fast_forward
        # prompt-lookup drafting verifies greedily: with sampling it would change the output
        self.draft: DraftMode = draft if temperature <= 0.0 else "none"
        self.draft_max_tokens = draft_max_tokens
        self.draft_ngram = draft_ngram
        self._drafted = self._accepted = 0
        self.vocab_only = info.vocab_only
        _recent_log.clear()
        try:
            with model_params(use_extra_buffers=not amx_compiled()):
                self._llm = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=self.n_ctx,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    n_batch=min(n_batch, self.n_ctx),
                    seed=seed,
                    vocab_only=info.vocab_only,
                    verbose=False,
                )
        except (ValueError, RuntimeError) as exc:
            raise BadModelFileError(
                f"llama.cpp cannot load {path}: {_log_tail() or exc}",
                "check the file (`memgpt-local models info PATH`) or pull it again",
            ) from exc
        model = self._llm._model
        self._vocab = model.vocab
        self._n_vocab = self._llm.n_vocab()
        self._wide_script: list[int] | None = None  # see ``_read_vocabulary``
        self._quote_tokens: list[int] | None = None
        self._bos_text = model.token_get_text(model.token_bos()) if model.token_bos() >= 0 else ""
        eos = model.token_eos()
        self._eos_text = model.token_get_text(eos) if eos >= 0 else ""
        self._eos_token = eos if eos >= 0 else None
        self._formatter = self._make_formatter(chat_format, info.chat_template)
        self._rng = np.random.default_rng(seed)
        self._char_tokens: dict[str, int] | None = None
        self._pieces: dict[int, bytes] = {}
        self._checked_grammars: set[str] = set()  # texts llama.cpp accepted (library sampling)
        self.last_stats: dict[str, float] = {}
        self._state_file: Path | None = None
        self._state_max_bytes = 0
        self._state_warn: Callable[[str], None] | None = None
        self._state_tried = False
        self._saved_tokens: list[int] | None = None
        self.state_stats: dict[str, float] = {}  # what the last restore and save did

    def side_context(self, n_ctx: int) -> LlamaCppBackend:
        """A second context of at most ``n_ctx`` tokens on the same model file, with the same
        settings and its own KV cache; opened on the first call for a size, then reused, and
        closed with this backend. llama.cpp memory-maps the weights, so both share one copy: a
        side context costs its KV cache (about 28 KiB a token for qwen2.5-1.5b) and a load."""
        size = min(n_ctx, self.n_ctx)
        if size not in self._sides:
            self._sides[size] = LlamaCppBackend(self.model_path, n_ctx=size, **self._options)  # type: ignore[arg-type]
        return self._sides[size]

    # ------------------------------------------------------------ rendering and counting

    def _make_formatter(self, chat_format: str | None, template: str | None) -> Jinja2ChatFormatter:
        if chat_format == "chatml":
            template = CHATML_TEMPLATE
        elif chat_format:
            path = Path(chat_format).expanduser()
            if not path.is_file():
                raise ModelError(
                    f"unknown chat format {chat_format!r}",
                    'use "chatml" or the path of a Jinja chat template file',
                )
            template = path.read_text(encoding="utf-8")
        if not template:
            raise ModelError(
                f"the model {self.name} has no chat template in its metadata",
                'pass a chat format (model.chat_format in config.toml: "chatml" or a template file)',
            )
        try:
            return Jinja2ChatFormatter(template=template, eos_token=self._eos_text, bos_token=self._bos_text)
        except Exception as exc:  # jinja2.TemplateSyntaxError and friends
            raise ModelError(f"the chat template of {self.name} does not compile: {exc}") from exc

    def render(self, messages: list[ChatMessage]) -> str:
        """The prompt text: messages in the chat template, generation prompt appended."""
        try:
            result = self._formatter(messages=[_template_message(m) for m in messages])
        except Exception as exc:  # the template's raise_exception, jinja errors
            raise ModelError(f"the chat template of {self.name} cannot render these messages: {exc}") from exc
        return result.prompt

    def tokenize_prompt(self, prompt: str) -> list[int]:
        """The exact token list evaluated for ``prompt`` (BOS added once when the model wants it)."""
        add_bos = bool(self._llm._model.add_bos_token()) and not (self._bos_text and prompt.startswith(self._bos_text))
        return self._llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)

    def count_tokens(self, messages: list[ChatMessage]) -> int:
        return len(self.tokenize_prompt(self.render(messages)))

    # ------------------------------------------------------------ generation

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        grammar: Grammar | None,
        max_tokens: int,
        on_text: TextCallback | None = None,
        avoid: RepeatBan | None = None,
    ) -> Completion:
        if self.vocab_only:
            raise ModelError(f"{self.name} is a vocabulary-only file: it can count tokens but not generate")
        if max_tokens < 1:
            raise ModelError("max_tokens must be at least 1")
        tokens = self.tokenize_prompt(self.render(messages))
        if len(tokens) + max_tokens > self.n_ctx:
            raise ContextOverflowError(len(tokens), self.n_ctx, max_tokens)
        if grammar is not None and self.constrained == "llama-cpp-python":
            return self._complete_library(tokens, grammar, max_tokens, on_text)
        started = time.perf_counter()
        evaluated = self._prefill(tokens)
        prefill = time.perf_counter() - started
        sampler = None
        if grammar is not None:
            sampler = _GrammarSampler(self._vocab, grammar.text, self._n_vocab, self._chars())
            sampler.eog_token = self._eos_token
        ban = (
            NgramBan(avoid, self._tokenize_pieces, self._wide_script_tokens, self._closing_tokens)
            if avoid is not None
            else None
        )
        lookup = (
            PromptLookup(tokens, self.draft_ngram, self.draft_max_tokens) if self.draft == "prompt-lookup" else None
        )
        self._drafted = self._accepted = 0
        try:
            text, generated, finish, forced = self._decode(sampler, grammar, max_tokens, on_text, ban, lookup)
        finally:
            if sampler is not None:
                self.last_stats = {"masks": sampler.masks}
                sampler.close()
        decode = time.perf_counter() - started - prefill
        self.last_stats.update(
            {
                "forced_tokens": forced,
                "refused_repeats": ban.banned if ban else 0,
                "formulas_stopped": ban.closed if ban else 0,
                "formulas_turned": ban.turned if ban else 0,
                "openings_turned": ban.opened if ban else 0,
            }
        )
        return Completion(
            text=text,
            prompt_tokens=len(tokens),
            evaluated_tokens=evaluated,
            generated_tokens=generated,
            prefill_seconds=prefill,
            decode_seconds=decode,
            finish_reason=finish,
            draft_tokens=self._drafted,
            accepted_draft_tokens=self._accepted,
        )

    def prefill(self, messages: list[ChatMessage]) -> int:
        """Read ``messages``' prompt into the KV cache now (``Prefills``), so the call that sends
        it, or a prompt that goes on from it, evaluates only what is new; returns the tokens
        evaluated. A prompt too long for the window is left alone."""
        if self.vocab_only:
            return 0
        tokens = self.tokenize_prompt(self.render(messages))
        return self._prefill(tokens) if len(tokens) < self.n_ctx else 0

    # ------------------------------------------------------------ saved state (runtime/kv_state.py)

    def attach_state_file(
        self, path: Path | None, *, max_bytes: int = 512 << 20, warn: Callable[[str], None] | None = None
    ) -> None:
        """Restore the KV cache from ``path`` at the first call whose prompt shares a prefix
        with it, and write it there at ``save_state_file`` (None: no state file)."""
        self._state_file, self._state_max_bytes, self._state_warn = path, max_bytes, warn
        self._state_tried, self._saved_tokens = False, None

    def _state_key(self) -> StateKey:
        return StateKey.for_model(self.model_path, self.n_ctx, llama_cpp.__version__)

    def save_state_file(self) -> int | None:
        """Write the cache's state when it changed since it was restored or saved; returns the
        bytes written (None: nothing to write, or over the size bound)."""
        llm = self._llm
        if self._state_file is None or self.vocab_only or llm.n_tokens == 0:
            return None
        tokens = llm._input_ids[: llm.n_tokens].tolist()
        if tokens == self._saved_tokens:
            return None
        started = time.perf_counter()
        size = llama_cpp.llama_state_seq_get_size(llm._ctx.ctx, 0)
        if size > self._state_max_bytes:
            self.state_stats = {"skipped_bytes": size}
            return None
        buf = (ctypes.c_uint8 * size)()
        n = llama_cpp.llama_state_seq_get_data(llm._ctx.ctx, buf, size, 0)
        written = write_state(self._state_file, self._state_key(), SavedState(tokens, ctypes.string_at(buf, n)))
        self._saved_tokens = tokens
        seconds = time.perf_counter() - started
        self.state_stats = {"saved_tokens": len(tokens), "saved_bytes": written, "save_seconds": seconds}
        return written

    def _restore_state(self, tokens: list[int]) -> None:
        """Load the saved state when it serves a prefix of ``tokens`` (first call only)."""
        self._state_tried = True
        path = self._state_file
        if path is None or not path.exists():
            return
        started = time.perf_counter()
        try:
            saved = read_state(path, self._state_key())
        except StateFileError as exc:
            if self._state_warn is not None:
                self._state_warn(f"the saved model state {path} is not used: {exc}; it will be rewritten")
            return
        if len(saved.tokens) > self.n_ctx or reusable_prefix(saved.tokens, tokens) == 0:
            return
        llm = self._llm
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        buf = (ctypes.c_uint8 * len(saved.data)).from_buffer_copy(saved.data)
        if llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buf, len(saved.data), 0) != len(saved.data):
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            if self._state_warn is not None:
                self._state_warn(f"llama.cpp refused the saved model state {path}; it will be rewritten")
            return
        llm.input_ids[: len(saved.tokens)] = saved.tokens
        llm.n_tokens = len(saved.tokens)
        self._saved_tokens = saved.tokens
        self.state_stats = {"restored_tokens": len(saved.tokens), "restore_seconds": time.perf_counter() - started}

    def _prefill(self, tokens: list[int]) -> int:
        """Evaluate what the cache lacks of ``tokens``; returns the number of tokens evaluated."""
        llm = self._llm
        if llm.n_tokens == 0 and not self._state_tried:
            self._restore_state(tokens)
        cached = llm._input_ids[: llm.n_tokens].tolist()
        keep = reusable_prefix(cached, tokens)
        if keep < llm.n_tokens and not llm._ctx.kv_cache_seq_rm(-1, keep, -1):
            llm.reset()
            keep = 0
        llm.n_tokens = keep
        llm.eval(tokens[keep:])
        return len(tokens) - keep

    def _logits(self) -> np.ndarray:
        ptr = llama_cpp.llama_get_logits_ith(self._llm._ctx.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))

    def _pick(self, logits: np.ndarray) -> int:
        if self.temperature <= 0.0:
            return int(np.argmax(logits))
        scaled = logits.astype(np.float64) / self.temperature
        scaled -= scaled.max()
        probs = np.exp(scaled)
        probs /= probs.sum()
        return int(self._rng.choice(len(probs), p=probs))

    def _is_eog(self, token: int) -> bool:
        return bool(llama_cpp.llama_vocab_is_eog(self._vocab, token))

    def _choose(self, logits: np.ndarray, sampler: _GrammarSampler | None, ban: NgramBan | None) -> int:
        """The next token from ``logits``: the pick, unless the n-gram ban or the grammar refuse it."""
        raw = logits
        if ban is not None and ban.must_close():
            quote = self._chars().get('"')
            if quote is not None and (sampler is None or sampler.allows(quote)):
                ban.closed += 1
                return quote
        if ban is not None and (refused := ban.refused()):
            logits = raw.copy()
            logits[refused] = -np.inf
            ban.banned += 1
        token = self._pick(logits)
        if sampler is not None and not sampler.allows(token):
            masked = sampler.mask(logits)
            if not np.isfinite(masked).any() and logits is not raw:
                masked = sampler.mask(raw)  # the grammar allows only a refused token: take it
            if not np.isfinite(masked).any():
                raise GrammarError("the grammar admits no token here (a generator bug)")
            token = self._pick(masked)
        return token

    def _eval_rows(self, tokens: list[int]) -> None:
        """Evaluate ``tokens`` keeping the logits of every position (for draft verification)."""
        llm = self._llm
        n_past = llm.n_tokens
        llm._ctx.kv_cache_seq_rm(-1, n_past, -1)
        llm._batch.set_batch(batch=tokens, n_past=n_past, logits_all=True)
        llm._ctx.decode(llm._batch)
        llm.input_ids[n_past : n_past + len(tokens)] = tokens
        llm.n_tokens += len(tokens)

    def _row_logits(self, i: int) -> np.ndarray:
        ptr = llama_cpp.llama_get_logits_ith(self._llm._ctx.ctx, i)
        return np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))

    def _decode(
        self,
        sampler: _GrammarSampler | None,
        grammar: Grammar | None,
        max_tokens: int,
        on_text: TextCallback | None,
        ban: NgramBan | None = None,
        lookup: PromptLookup | None = None,
    ) -> tuple[str, int, Literal["stop", "length"], int]:
        llm = self._llm
        stop = StopTracker(grammar)
        pieces: list[str] = []
        pending = b""
        generated = forced_count = 0
        chosen: int | None = None  # picked from logits already held (a draft's verification)

        def accept(token: int) -> bool:
            """Take ``token`` as output; True when the output is complete."""
            nonlocal generated, pending
            if sampler is not None:
                sampler.accept(token)
            if lookup is not None:
                lookup.add(token)
            generated += 1
            piece_bytes = self._piece(token)
            if ban is not None:
                ban.accept(token, piece_bytes.decode("utf-8", errors="ignore"))
            pending += piece_bytes
            try:
                piece, pending = pending.decode("utf-8"), b""
            except UnicodeDecodeError:
                return False
            pieces.append(piece)
            if on_text is not None:
                on_text(piece)
            return stop.feed(piece)

        while generated < max_tokens:
            forced = sampler.forced_text(256) if (sampler is not None and self.fast_forward) else ""
            if forced:
                chosen = None
                batch = self._tokenize_exact(forced)[: max_tokens - generated]
                forced_count += len(batch)
            else:
                token = chosen if chosen is not None else self._choose(self._logits(), sampler, ban)
                chosen = None
                if self._is_eog(token):
                    return self._text(pieces, pending), generated, "stop", forced_count
                if accept(token):
                    return self._text(pieces, pending), generated, "stop", forced_count
                drafts = lookup.propose()[: max_tokens - generated] if lookup is not None else []
                if not drafts:
                    llm.eval([token])
                    continue
                chosen, done = self._verify(token, drafts, sampler, ban, accept)
                if done:
                    return self._text(pieces, pending), generated, "stop", forced_count
                continue
            done = False
            for token in batch:
                done = accept(token) or done
            if done:
                return self._text(pieces, pending), generated, "stop", forced_count
            llm.eval(batch)
        return self._text(pieces, pending), generated, "length", forced_count

    def _verify(
        self,
        token: int,
        drafts: list[int],
        sampler: _GrammarSampler | None,
        ban: NgramBan | None,
        accept: Callable[[int], bool],
    ) -> tuple[int | None, bool]:
        """Evaluate ``token`` (already accepted) with ``drafts`` in one batch and keep the
        drafts greedy decoding picks anyway. Returns the next token (picked from the logits of
        the last kept position) and whether the output is complete."""
        llm = self._llm
        start = llm.n_tokens
        self._eval_rows([token, *drafts])
        self._drafted += len(drafts)
        kept, next_token, done = 0, None, False
        for i, draft in enumerate(drafts):
            if sampler is not None and self.fast_forward and sampler.forced_text(1):
                break  # forced text is written as plain decoding writes it (its own tokens)
            choice = self._choose(self._row_logits(i), sampler, ban)
            if choice != draft:
                next_token = choice
                break
            kept += 1
            self._accepted += 1
            if self._is_eog(draft) or accept(draft):
                done = True
                break
        else:
            if not (sampler is not None and self.fast_forward and sampler.forced_text(1)):
                next_token = self._choose(self._row_logits(len(drafts)), sampler, ban)
        keep = start + 1 + kept
        llm._ctx.kv_cache_seq_rm(-1, keep, -1)
        llm.n_tokens = keep
        return next_token, done

    def _piece(self, token: int) -> bytes:
        """The bytes of one token (llama-cpp-python's own helper pads them to 32 bytes)."""
        piece = self._pieces.get(token)
        if piece is None:
            size = 64
            while True:
                buf = ctypes.create_string_buffer(size)
                n = llama_cpp.llama_token_to_piece(self._vocab, token, buf, size, 0, False)
                if n >= 0:
                    piece = buf.raw[:n]
                    break
                size = -n + 1
            self._pieces[token] = piece
        return piece

    def _read_vocabulary(self) -> None:
        """Read the vocabulary once (0.7 s for qwen2.5's 151,936 tokens) for the tokens whose
        bytes begin a CJK character and those that begin with a double quote."""
        detokenize = self._llm.detokenize
        pieces = [detokenize([t]) for t in range(self._n_vocab)]
        self._wide_script = [t for t, piece in enumerate(pieces) if writes_wide_script(piece)]
        self._quote_tokens = [t for t, piece in enumerate(pieces) if piece[:1] == b'"']

    def _wide_script_tokens(self) -> list[int]:
        """The tokens whose bytes begin a CJK character."""
        if self._wide_script is None:
            self._read_vocabulary()
        return self._wide_script or []

    def _closing_tokens(self) -> list[int]:
        """The tokens that begin with a double quote: inside a JSON string, they end it."""
        if self._quote_tokens is None:
            self._read_vocabulary()
        return self._quote_tokens or []

    def _tokenize_pieces(self, text: str) -> list[tuple[int, str]]:
        """``text``'s tokens (as inside a JSON string) with their pieces, for the n-gram ban."""
        ids = self._llm.tokenize(json.dumps(text)[1:-1].encode("utf-8"), add_bos=False, special=False)
        return [(t, self._piece(t).decode("utf-8", errors="ignore")) for t in ids]

    def _tokenize_exact(self, text: str) -> list[int]:
        """Tokens whose pieces spell exactly ``text`` (per character if the tokenizer adds a prefix)."""
        ids = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if b"".join(self._piece(t) for t in ids) == text.encode("utf-8"):
            return ids
        chars = self._chars()
        return [chars[c] for c in text]

    @staticmethod
    def _text(pieces: list[str], pending: bytes) -> str:
        return "".join(pieces) + pending.decode("utf-8", errors="replace")

    def _chars(self) -> dict[str, int]:
        """Printable ASCII characters that are single tokens (the forced-text probe)."""
        if self._char_tokens is None:
            table: dict[str, int] = {}
            for code in range(0x20, 0x7F):
                char = chr(code)
                ids = self._llm.tokenize(char.encode(), add_bos=False, special=False)
                if len(ids) == 1 and self._piece(ids[0]) == char.encode():
                    table[char] = ids[0]
            self._char_tokens = table
        return self._char_tokens

    def _complete_library(
        self, tokens: list[int], grammar: Grammar, max_tokens: int, on_text: TextCallback | None
    ) -> Completion:
        """llama-cpp-python's own grammar sampling (Llama.generate), for comparison."""
        llm = self._llm
        cached = llm._input_ids[: llm.n_tokens].tolist()
        evaluated = len(tokens) - reusable_prefix(cached, tokens)
        stop = StopTracker(grammar)
        started = time.perf_counter()
        first = None
        out: list[int] = []
        finish: Literal["stop", "length"] = "length"
        library_grammar = self._library_grammar(grammar)
        for token in llm.generate(tokens, temp=self.temperature, grammar=library_grammar, reset=True):
            if first is None:
                first = time.perf_counter()
            if self._is_eog(token):
                finish = "stop"
                break
            out.append(token)
            piece = llm.detokenize([token]).decode("utf-8", errors="replace")
            if on_text is not None:
                on_text(piece)
            if stop.feed(piece):
                finish = "stop"
                break
            if len(out) >= max_tokens:
                break
        end = time.perf_counter()
        first = first or end
        return Completion(
            text=llm.detokenize(out).decode("utf-8", errors="replace"),
            prompt_tokens=len(tokens),
            evaluated_tokens=evaluated,
            generated_tokens=len(out),
            prefill_seconds=first - started,
            decode_seconds=end - first,
            finish_reason=finish,
        )

    def _library_grammar(self, grammar: Grammar) -> llama_cpp.LlamaGrammar:
        """llama-cpp-python's grammar object for ``grammar``, its text validated first (the
        library compiles it later, inside ``generate``, without checking)."""
        if grammar.text not in self._checked_grammars:
            check_gbnf(grammar.text)
            self._checked_grammars.add(grammar.text)
        return llama_cpp.LlamaGrammar.from_string(grammar.text, verbose=False)

    def reset_cache(self) -> None:
        self._llm.reset()
        self._llm._ctx.kv_cache_seq_rm(-1, 0, -1)

    def close(self) -> None:
        for side in getattr(self, "_sides", {}).values():
            side.close()
        self._sides = {}
        llm = getattr(self, "_llm", None)
        if llm is not None:
            llm.close()
            del self._llm


def _template_message(message: ChatMessage) -> ChatCompletionRequestMessage:
    """``message`` as the chat formatter takes it: ``{"role": ..., "content": ...}``."""
    if message.role == "system":
        return {"role": "system", "content": message.content}
    if message.role == "user":
        return {"role": "user", "content": message.content}
    return {"role": "assistant", "content": message.content}


def load_backend(model: str, settings: ModelSettings, data_dir: Path, *, n_ctx: int | None = None) -> LlamaCppBackend:
    """A backend for ``model`` (catalog name, registered name or path) with ``settings``."""
    from memgpt_local.runtime.catalog import resolve_model_path

    path = resolve_model_path(data_dir, model)
    return LlamaCppBackend(
        path,
        n_ctx=n_ctx,
        n_ctx_cap=settings.n_ctx_cap,
        n_threads=settings.n_threads,
        n_batch=settings.n_batch,
        chat_format=settings.chat_format,
        seed=settings.seed,
        temperature=settings.temperature,
        name=model if not Path(model).is_file() else Path(model).stem,
        draft=settings.draft,
        draft_max_tokens=settings.draft_max_tokens,
    )
