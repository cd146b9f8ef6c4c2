"""What the ``models`` commands show and do, kept out of the CLI: listing, info, add, remove."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memgpt_local.errors import NotFoundError
from memgpt_local.runtime.catalog import (
    Registered,
    installed_path,
    load_catalog,
    read_registry,
    register_model,
    resolve_model_path,
    unregister_model,
)
from memgpt_local.runtime.gguf import read_gguf_info


def list_models(data_dir: Path, *, default: str) -> list[dict[str, Any]]:
    """Catalog models (installed or not) and registered files, one dict each."""
    rows: list[dict[str, Any]] = []
    for name, entry in load_catalog().items():
        path = installed_path(data_dir, name)
        installed = path is not None and path.is_file()
        rows.append(
            {
                "name": name,
                "kind": "catalog",
                "installed": installed,
                "default": name == default,
                "size": path.stat().st_size if installed and path is not None else entry.size,
                "quantization": entry.quantization,
                "n_ctx_train": entry.n_ctx_train,
                "path": str(path) if installed else None,
            }
        )
    for name, reg in read_registry(data_dir).items():
        path = Path(reg.path)
        row: dict[str, Any] = {
            "name": name,
            "kind": "registered",
            "installed": path.is_file(),
            "default": name == default,
            "size": None,
            "quantization": None,
            "n_ctx_train": None,
            "path": reg.path,
        }
        if path.is_file():
            info = read_gguf_info(path)
            row.update(size=info.size_bytes, quantization=info.quantization, n_ctx_train=info.n_ctx_train)
        rows.append(row)
    return rows


def model_info(data_dir: Path, model: str, *, n_ctx_cap: int) -> dict[str, Any]:
    """Header facts of an installed model or a GGUF path (no weights are loaded)."""
    path = resolve_model_path(data_dir, model)
    info = read_gguf_info(path)
    n_ctx_train = info.n_ctx_train
    return {
        "name": model,
        "path": str(path),
        "size_bytes": info.size_bytes,
        "architecture": info.architecture,
        "model_name": info.model_name,
        "quantization": info.quantization,
        "n_ctx_train": n_ctx_train,
        "n_ctx": min(n_ctx_train, n_ctx_cap) if n_ctx_train else n_ctx_cap,
        "n_ctx_cap": n_ctx_cap,
        "chat_template": info.chat_template is not None,
        "vocab_only": info.vocab_only,
        "tensors": info.n_tensors,
    }


def add_model(data_dir: Path, path: Path, name: str | None) -> Registered:
    """Validate a GGUF file and register it."""
    info = read_gguf_info(path)
    chosen = name or path.name.removesuffix(".gguf")
    del info
    return register_model(data_dir, chosen, path)


def remove_model(data_dir: Path, name: str, *, delete_file: bool = False) -> str:
    """Unregister ``name``, or delete an installed catalog model's file with ``delete_file``."""
    entry = unregister_model(data_dir, name)
    if entry is not None:
        return f"removed {name} (the file {entry.path} is kept)"
    path = installed_path(data_dir, name)
    if path is not None and path.is_file():
        if not delete_file:
            return f"{name} is a catalog model installed at {path}; pass --delete-file to delete it"
        path.unlink()
        return f"deleted {path}"
    raise NotFoundError(f"no registered or installed model named {name!r}", "see `memgpt-local models list`")
