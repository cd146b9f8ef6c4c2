"""The model catalog (known models and their sources) and the local model registry.

The catalog ships as ``memgpt_local/data/models.json``; ``$MEMGPT_LOCAL_CATALOG`` may name an
extra JSON file of the same shape whose entries are added (or override). A catalog model is
installed as ``<data_dir>/models/<filename>``. ``models add`` registers any other GGUF file
under a name in ``<data_dir>/models/registry.json``.
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


def models_dir(data_dir: Path) -> Path:
    path = data_dir / MODELS_DIR
    path.mkdir(parents=True, exist_ok=True)
    return path


class Registered(_Strict):
    name: str
    path: str
    added_at: str


def read_registry(data_dir: Path) -> dict[str, Registered]:
    path = models_dir(data_dir) / REGISTRY_NAME
    if not path.exists():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {name: Registered.model_validate({"name": name, **e}) for name, e in raw.items()}
    except (json.JSONDecodeError, ValidationError, AttributeError) as exc:
        raise ConfigError(f"the model registry {path} is corrupt: {exc}", "fix or delete it") from exc


def _write_registry(data_dir: Path, entries: dict[str, Registered]) -> None:
    folder = models_dir(data_dir)
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
    entries[name] = entry
    _write_registry(data_dir, entries)
    return entry


def unregister_model(data_dir: Path, name: str) -> Registered | None:
    entries = read_registry(data_dir)
    entry = entries.pop(name, None)
    if entry is not None:
        _write_registry(data_dir, entries)
    return entry


def installed_path(data_dir: Path, name: str) -> Path | None:
    """Where the catalog model ``name`` is (or would be) installed, if it is a catalog name."""
    catalog = load_catalog()
    if name not in catalog:
        return None
    return models_dir(data_dir) / catalog[name].filename


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
