"""Settings, the data directory and the config file.

The data directory comes from ``--data-dir``, else ``MEMGPT_LOCAL_HOME``, else the
platform's user data dir. It holds ``memory.db`` (all memory of all agents),
``config.toml`` (defaults) and ``models/`` (GGUF files and the model registry).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import urlsplit, urlunsplit

import platformdirs

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from memgpt_local.errors import ConfigError, DataDirError

HOME_ENV = "MEMGPT_LOCAL_HOME"
STORE_ENV = "MEMGPT_LOCAL_STORE"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")  # a store URL starting so names a server, not a file


def redacted_url(url: str) -> str:
    """A store ``url`` with its password replaced by ``***``, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


CONFIG_NAME = "config.toml"
DB_NAME = "memory.db"


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ModelSettings(Section):
    default: str = "qwen2.5-coder-1.5b"
    n_ctx_cap: int = Field(8192, ge=512, description="largest n_ctx used, sized for laptop RAM")
    n_threads: int | None = Field(None, ge=1)
    n_batch: int = Field(512, ge=8)
    chat_format: str | None = None
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    seed: int = 0
    persist_kv: bool = Field(
        True,
        description="keep the KV cache of each agent's prompt in a file beside the memory file, so a new "
        "process reads only new tokens (never for an encrypted memory file)",
    )
    persist_kv_max_mb: int = Field(512, ge=1, description="a state larger than this is not written")
    draft: Literal["none", "prompt-lookup"] = Field(
        "prompt-lookup",
        description="speculative decoding: draft tokens copied from the context, verified greedily in one batch "
        "(output unchanged; off when temperature > 0)",
    )
    draft_max_tokens: int = Field(6, ge=1, le=32, description="tokens drafted per verification batch")
    remote_n_ctx: int | None = Field(
        None,
        ge=512,
        description="for a model on an inference server (model = http://HOST:PORT/v1): its context size, "
        "when the server does not report one (llama.cpp's server does)",
    )
    remote_constraint: Literal["grammar", "json_schema"] = Field(
        "grammar",
        description="how a server keeps each step a valid call: grammar (GBNF: llama.cpp's server, "
        "llama_cpp.server) or json_schema (vLLM, Ollama)",
    )
    remote_timeout: float = Field(600.0, gt=0, description="seconds one request to an inference server may take")


class EmbedderSettings(Section):
    model: str = Field("all-MiniLM-L6-v2", description="a known name or a local sentence-transformers folder")
    batch_size: int = Field(32, ge=1, le=1024)
    device: str = Field("cpu", description="for runtime sentence-transformers")
    runtime: Literal["numpy", "sentence-transformers"] = Field(
        "numpy",
        description="numpy: BERT folders run without torch (fast start, same vectors); "
        "sentence-transformers: the library (also used for any folder numpy cannot run)",
    )
    threads: int = Field(1, ge=1, le=64, description="BLAS threads of the numpy runtime")


PolicyName = Literal[  # in the order they act, whatever the order of ``agent.policies``
    "direct_reply",
    "search_first",
    "search_uncovered",
    "prefetch",
    "core_at_question",
    "answer_start",
    "question_focus",
    "read_results",
    "search_budget",
    "recap",
    "saved_already",
    "searched_already",
    "core_found",
    "nothing_found",
    "recall_at_question",
    "one_reply",
    "reply_required",
    "language_guard",
    "repeat_guard",
    "internal_guard",
    "refusal_guard",
    "tone_guard",
    "identity_guard",
    "perspective_guard",
    "owner_guard",
    "unasked_denial",
    "later_promise",
    "thought_answer",
    "greet_by_name",
    "greeting_grounded",
    "echo_guard",
    "asked_known",
    "all_questions",
    "name_asked",
    "ideas_given",
    "copy_guard",
    "denial_guard",
    "grounded_reply",
    "reply_check",
]
POLICY_NAMES: tuple[PolicyName, ...] = get_args(PolicyName)
DEFAULT_POLICIES: tuple[PolicyName, ...] = (
    "direct_reply",
    "core_at_question",
    "answer_start",
    "question_focus",
    "read_results",
    "search_budget",
    "recap",
    "saved_already",
    "searched_already",
    "core_found",
    "nothing_found",
    "recall_at_question",
    "one_reply",
    "reply_required",
    "language_guard",
    "repeat_guard",
    "internal_guard",
    "refusal_guard",
    "tone_guard",
    "identity_guard",
    "perspective_guard",
    "owner_guard",
    "unasked_denial",
    "later_promise",
    "thought_answer",
    "greet_by_name",
    "greeting_grounded",
    "echo_guard",
    "asked_known",
    "all_questions",
    "name_asked",
    "ideas_given",
    "copy_guard",
    "grounded_reply",
    "reply_check",
)


class PrefetchSettings(Section):
    hits: int = Field(3, ge=1, le=10, description="recall and archival hits shown with each user message")


class SearchBudgetSettings(Section):
    searches: int = Field(3, ge=1, le=50, description="searches in one turn after which the next step must reply")


class RecapSettings(Section):
    hits: int = Field(3, ge=1, le=10, description="best search hits of the turn shown again before the reply")


class FactNoteSettings(Section):
    enabled: bool = Field(True, description="after a user's turn, facts they stated go into the human block")
    max_facts: int = Field(6, ge=1, le=20, description="facts read from one message at most")


class GuardSettings(Section):
    hits: int = Field(3, ge=1, le=10, description="search hits shown with the notice when a draft is held back")


class ReplyCheckSettings(Section):
    window: float = Field(
        0.4,
        ge=0.0,
        le=1.0,
        description="show an unread entry only if its similarity to the "
        "question is within this of the best search hit's (1 = no filter)",
    )
    rounds: int = Field(4, ge=1, le=10, description="reply checks at most per turn")
    max_df: int = Field(
        3, ge=1, le=20, description="a name or id is looked up only if at most this many entries hold it"
    )


# [agent] keys of earlier versions: a bool switched a policy on or off; the others moved into
# the policy's own table. Files that still use them keep working (see AgentSettings).
_LEGACY_SWITCHES = {
    "reply_required": "reply_required",
    "read_search_results": "read_results",
    "memory_prefetch": "prefetch",
    "search_first": "search_first",
    "echo_guard": "echo_guard",
    "copy_guard": "copy_guard",
    "question_focus": "question_focus",
    "search_recap": "recap",
    "reply_check": "reply_check",
}
_LEGACY_VALUES = {
    "prefetch_k": ("prefetch", "hits"),
    "reply_check_window": ("reply_check", "window"),
    "reply_check_rounds": ("reply_check", "rounds"),
}
LEGACY_KEYS = {
    **{old: f"agent.policies ({new!r})" for old, new in _LEGACY_SWITCHES.items()},
    **{old: f"agent.{table}.{key}" for old, (table, key) in _LEGACY_VALUES.items()},
    "search_budget": "agent.policies ('search_budget') and agent.search_budget.searches",
    "recap_k": "agent.recap.hits, agent.echo_guard.hits and agent.copy_guard.hits",
    "link_max_df": "agent.link_max_df and agent.reply_check.max_df",
}


def _translate_legacy(raw: dict[str, Any]) -> dict[str, Any]:
    """Old flat [agent] keys as the policy list and tables they became (same behaviour)."""
    data = dict(raw)
    policies = list(data.get("policies", DEFAULT_POLICIES))

    def switch(name: str, on: bool) -> None:
        if on and name not in policies:
            policies.append(name)
        if not on and name in policies:
            policies.remove(name)

    def put(table: str, key: str, value: Any) -> None:
        current = data.get(table)
        data[table] = {**(current if isinstance(current, dict) else {}), key: value}

    legacy = False
    for old, name in _LEGACY_SWITCHES.items():
        if isinstance(data.get(old), bool):
            switch(name, data.pop(old))
            legacy = True
    for old, (table, key) in _LEGACY_VALUES.items():
        if old in data:
            put(table, key, data.pop(old))
            legacy = True
    budget = data.get("search_budget")
    if isinstance(budget, int) and not isinstance(budget, bool):
        data.pop("search_budget")
        switch("search_budget", budget > 0)
        if budget > 0:
            put("search_budget", "searches", budget)
        legacy = True
    if "recap_k" in data:  # it also capped the hits the echo and copy guards show
        k = data.pop("recap_k")
        for table in ("recap", "echo_guard", "copy_guard"):
            put(table, "hits", k)
        legacy = True
    if legacy and "link_max_df" in data:  # it also drove the reply check
        put("reply_check", "max_df", data["link_max_df"])
    if legacy:
        data["policies"] = policies
    return data


class AgentSettings(Section):
    core_memory_limit: int = Field(2000, ge=50)
    warning_fraction: float = Field(0.70, gt=0.0, lt=1.0)
    flush_fraction: float = Field(1.00, gt=0.0, le=1.0)
    evict_fraction: float = Field(0.50, gt=0.0, lt=1.0)
    idle_evict_fraction: float | None = Field(
        0.80,
        gt=0.0,
        le=1.0,
        description="after a turn, once warned, evict when the prompt is at this fraction of the budget: the "
        "summary is written while the user reads the reply, not in the middle of their next turn (unset: off)",
    )
    reply_reserve_tokens: int = Field(768, ge=32, description="tokens kept free for one step's output")
    heartbeat_cap: int = Field(10, ge=1)
    max_holds: int = Field(
        3,
        ge=1,
        description="held drafts a turn may have; the draft after the last is the turn's final step (a turn of "
        "five drafts, each policy holding once, took a minute)",
    )
    page_size: int = Field(5, ge=1, le=50)
    result_max_chars: int = Field(3000, ge=200)
    thought_max_chars: int = Field(300, ge=20)
    reply_thought_max_chars: int | None = Field(
        None,
        ge=0,
        description="longest thought of a step that may only reply (unset: thought_max_chars; 0: an empty "
        "thought, so the reply's first words come at once)",
    )
    direct_thought_max_chars: int | None = Field(
        0,
        ge=0,
        description="longest thought of the first step of a turn that needs no memory (direct_reply; unset: as "
        "any step that may only reply): its answer was written in the thought, and the reply pointed at it "
        '("I hope these tips are helpful!") or copied it up to the thought\'s cut',
    )
    message_max_chars: int = Field(
        800,
        ge=20,
        le=2000,
        description="longest reply in characters: a few chat sentences fit with room; a list the model "
        "loops stops here (at 1500, a 14-item list of cat tips took 30 s)",
    )
    reply_max_list_items: int = Field(
        7,
        ge=0,
        le=50,
        description="a reply's numbered list ends after this many items (0 = no limit): advice for a rainy day ran to "
        "18 items written over and over with a word changed, until the reply's length cut it",
    )
    reply_max_questions: int = Field(
        1,
        ge=0,
        le=20,
        description="a reply to a message that asks nothing (or a login's greeting) ends after this many questions "
        "(0 = no limit): told 'I'm a vet in Utrecht and I cycle to work every day', a reply asked 'How do you like "
        "cycling? Do you have any favorite routes?'",
    )
    reply_repeat_ngram: int = Field(
        8, ge=0, le=64, description="a reply may not repeat a run of this many of its own tokens (0 = off)"
    )
    thought_repeat_ngram: int = Field(
        8, ge=0, le=64, description="a step's thought may not repeat a run of this many of its own tokens (0 = off)"
    )
    reply_formula_words: int = Field(
        4,
        ge=0,
        le=12,
        description="a reply ends before a sentence, after its first, that opens with the same this-many words as "
        "a sentence of an earlier turn's reply: a formula ('What else would you like to know about him?' closed "
        "every reply of an eval chat session) is neither sent nor shown to the model again; after a first sentence "
        "under six words ('I see.', 'That's so cool!') the formula is turned away instead (0 = off)",
    )
    reply_fresh_openings: bool = Field(
        True,
        description="a reply's first sentence may not open with the same reply_formula_words words as a sentence of an "
        "earlier turn's reply (one that does not deny): the sampler refuses the word that would complete the opening, "
        "unless core memory or the user's message holds it; seven small-talk replies of one eval chat session opened "
        '"I\'m glad/sorry to hear that ..."',
    )
    idle_heartbeat_minutes: float = Field(0.0, ge=0.0, description="0 disables the idle timer")
    past_thoughts: bool = Field(
        False,
        description="show the model the inner thoughts and send_message results of earlier turns' steps (false: "
        "earlier turns show their calls and replies only; qwen2.5-coder-1.5b copied its old thoughts and replies)",
    )
    stable_core_memory: bool = Field(
        True,
        description="the system message shows core memory as of the last eviction; the agent's edits arrive as "
        "notices, so the KV cache keeps the conversation (false: re-render, and re-read, at every edit)",
    )
    archival_search_mode: Literal["hybrid", "text", "vector"] = Field(
        "hybrid", description="archival_memory_search: words and meaning, words only, or meaning only"
    )
    recall_search_mode: Literal["hybrid", "text", "vector"] = Field(
        "hybrid", description="conversation_search: words and meaning, words only, or meaning only"
    )
    link_depth: int = Field(
        0, ge=0, le=5, description="linked memory: hops followed from search hits via rare identifiers (0 = off)"
    )
    link_max_df: int = Field(
        3, ge=1, le=20, description="an identifier links only if at most this many entries hold it"
    )
    # memory policies: the enabled ones, then one table each (see agent/policy/ and docs/eval)
    policies: list[PolicyName] = Field(
        default_factory=lambda: list(DEFAULT_POLICIES), description="the memory policies that act on every turn"
    )
    prefetch: PrefetchSettings = Field(default_factory=PrefetchSettings)
    search_budget: SearchBudgetSettings = Field(default_factory=SearchBudgetSettings)
    recap: RecapSettings = Field(default_factory=RecapSettings)
    echo_guard: GuardSettings = Field(default_factory=GuardSettings)
    copy_guard: GuardSettings = Field(default_factory=GuardSettings)
    denial_guard: GuardSettings = Field(default_factory=GuardSettings)
    reply_check: ReplyCheckSettings = Field(default_factory=ReplyCheckSettings)
    fact_notes: FactNoteSettings = Field(default_factory=FactNoteSettings)

    @model_validator(mode="before")
    @classmethod
    def _legacy_keys(cls, data: Any) -> Any:
        return _translate_legacy(data) if isinstance(data, dict) else data

    @field_validator("policies")
    @classmethod
    def _once_each(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    def uses(self, policy: str) -> bool:
        return policy in self.policies


class StoreSettings(Section):
    url: str | None = Field(
        None,
        description="where the memory lives: unset = memory.db in the data dir; "
        "postgresql://USER:PASSWORD@HOST:PORT/DBNAME = a PostgreSQL database with pgvector",
    )

    @field_validator("url")
    @classmethod
    def _a_postgres_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(POSTGRES_SCHEMES):
            raise ValueError("a store URL starts with postgresql:// (leave it unset for the memory file)")
        return value


class Settings(Section):
    model: ModelSettings = Field(default_factory=ModelSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    embedder: EmbedderSettings = Field(default_factory=EmbedderSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The data dir: explicit flag, else $MEMGPT_LOCAL_HOME, else the user data dir."""
    if explicit:
        path = Path(explicit)
    elif os.environ.get(HOME_ENV):
        path = Path(os.environ[HOME_ENV])
    else:
        path = Path(platformdirs.user_data_dir("memgpt-local", appauthor=False))
    path = path.expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataDirError(
            f"cannot create the data directory {path}: {exc.strerror or exc}",
            f"pass --data-dir or set {HOME_ENV} to a writable directory",
        ) from exc
    if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        raise DataDirError(
            f"the data directory {path} is not readable and writable",
            f"fix its permissions, or pass --data-dir / set {HOME_ENV}",
        )
    return path


def _describe_error(err: ErrorDetails) -> str:
    key = ".".join(str(p) for p in err.get("loc", ()))
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        parent = err["loc"][:-1]
        model: type[BaseModel] = Settings
        for part in parent:
            model = model.model_fields[str(part)].annotation  # type: ignore[assignment]
        allowed = ", ".join(model.model_fields)
        return f"unknown key {key!r} (allowed: {allowed})"
    return f"{key}: {err.get('msg', 'invalid')} (got {err.get('input')!r})"


def load_settings(data_dir: Path) -> Settings:
    """Read ``config.toml`` from the data dir (missing file = defaults)."""
    path = data_dir / CONFIG_NAME
    if not path.exists():
        return Settings()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}", "fix or delete the file") from exc
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(_describe_error(e) for e in exc.errors())
        raise ConfigError(f"invalid {path}: {problems}", "fix the file or delete it to use defaults") from exc


def _toml_value(item: Any) -> str:
    if isinstance(item, bool):
        return str(item).lower()
    if isinstance(item, (int, float)):
        return str(item)
    if isinstance(item, list):
        return "[" + ", ".join(_toml_value(v) for v in item) + "]"
    escaped = str(item).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _toml_table(name: str, values: dict[str, Any], lines: list[str]) -> None:
    lines.append(f"[{name}]")
    tables = {k: v for k, v in values.items() if isinstance(v, dict)}
    for key, item in values.items():
        if key in tables:
            continue
        lines.append(f"# {key} =" if item is None else f"{key} = {_toml_value(item)}")
    lines.append("")
    for key, table in tables.items():
        _toml_table(f"{name}.{key}", table, lines)


def render_settings_toml(settings: Settings) -> str:
    """The settings as TOML text (for `memgpt-local config show`/init)."""
    lines: list[str] = []
    for section, value in settings.model_dump().items():
        _toml_table(section, value, lines)
    return "\n".join(lines)
