"""Settings, the data directory and the config file.

The data directory comes from ``--data-dir``, else ``MEMGPT_LOCAL_HOME``, else the
platform's user data dir. It holds ``memory.db`` (all memory of all agents),
``config.toml`` (defaults) and ``models/`` (GGUF files and the model registry).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Literal

import platformdirs

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memgpt_local.errors import ConfigError, DataDirError

HOME_ENV = "MEMGPT_LOCAL_HOME"
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


class EmbedderSettings(Section):
    model: str = Field("all-MiniLM-L6-v2", description="a known name or a local sentence-transformers folder")
    batch_size: int = Field(32, ge=1, le=1024)
    device: str = "cpu"


class AgentSettings(Section):
    core_memory_limit: int = Field(2000, ge=50)
    warning_fraction: float = Field(0.70, gt=0.0, lt=1.0)
    flush_fraction: float = Field(1.00, gt=0.0, le=1.0)
    evict_fraction: float = Field(0.50, gt=0.0, lt=1.0)
    reply_reserve_tokens: int = Field(768, ge=32, description="tokens kept free for one step's output")
    heartbeat_cap: int = Field(10, ge=1)
    page_size: int = Field(5, ge=1, le=50)
    result_max_chars: int = Field(3000, ge=200)
    thought_max_chars: int = Field(300, ge=20)
    message_max_chars: int = Field(1500, ge=20, le=2000)
    idle_heartbeat_minutes: float = Field(0.0, ge=0.0, description="0 disables the idle timer")
    archival_search_mode: Literal["hybrid", "text", "vector"] = Field(
        "hybrid", description="archival_memory_search: words and meaning, words only, or meaning only")
    recall_search_mode: Literal["hybrid", "text", "vector"] = Field(
        "hybrid", description="conversation_search: words and meaning, words only, or meaning only")
    # memory policy mechanisms (each can be switched off; see `memgpt-local eval --variant`)
    reply_required: bool = Field(True, description="a turn started by a user message always ends with send_message")
    read_search_results: bool = Field(True, description="a search always gets another step, so its results are read")
    memory_prefetch: bool = Field(False, description="read ahead: show top recall/archival hits with each user message")
    prefetch_k: int = Field(3, ge=1, le=10)
    search_first: bool = Field(False, description="the first step after a user message must use a memory function")
    link_depth: int = Field(0, ge=0, le=5, description="linked memory: hops followed from search hits via rare identifiers (0 = off)")
    link_max_df: int = Field(3, ge=1, le=20, description="an identifier links only if at most this many entries hold it")
    search_budget: int = Field(3, ge=0, le=50, description="searches in one turn after which the next step must reply (0 = no limit)")
    echo_guard: bool = Field(True, description="hold back (once a turn) a reply that asks the user their own question back, and show the turn's best search hits")
    copy_guard: bool = Field(True, description="hold back (once a turn) a reply that copies a search hit word for word when another hit of the turn is closer to the user's question")
    question_focus: bool = Field(True, description="rank a turn's search hits by the user's question as well as the query (hits already shown in the turn excepted)")
    search_recap: bool = Field(True, description="when the search budget ends a turn's searching, show its best hits again before the reply")
    recap_k: int = Field(3, ge=1, le=10)
    reply_check: bool = Field(True, description="hold back a reply whose names or ids memory knows more about, and show those entries first")
    reply_check_window: float = Field(0.4, ge=0.0, le=1.0, description="reply check: show an unread entry only if its similarity to the question is within this of the best search hit's (1 = no filter)")
    reply_check_rounds: int = Field(4, ge=1, le=10, description="reply checks at most per turn")


class Settings(Section):
    model: ModelSettings = Field(default_factory=ModelSettings)
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


def _describe_error(err: dict[str, Any]) -> str:
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


def render_settings_toml(settings: Settings) -> str:
    """The settings as TOML text (for `memgpt-local config show`/init)."""
    lines: list[str] = []
    for section, value in settings.model_dump().items():
        lines.append(f"[{section}]")
        for key, item in value.items():
            if item is None:
                lines.append(f"# {key} =")
            elif isinstance(item, bool):
                lines.append(f"{key} = {str(item).lower()}")
            elif isinstance(item, (int, float)):
                lines.append(f"{key} = {item}")
            else:
                escaped = str(item).replace("\\", "\\\\").replace('"', '\\"')
                lines.append(f'{key} = "{escaped}"')
        lines.append("")
    return "\n".join(lines)
