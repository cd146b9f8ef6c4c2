"""A BERT sentence encoder in plain numpy: the same MiniLM weights sentence-transformers
runs, without importing torch.

Importing torch and sentence-transformers takes ~5 s of a one-shot ``archival search`` on a
laptop; numpy, ``tokenizers`` and ``safetensors`` take a tenth of that. This runs a
sentence-transformers folder whose modules are Transformer (a BERT encoder), mean Pooling
and Normalize (all-MiniLM-L6-v2 is one): WordPiece tokens from the folder's
``tokenizer.json``, truncated to ``max_seq_length``; embeddings, post-norm encoder layers with
exact (erf) GELU, the attention-masked mean of the last hidden states, L2 normalization.
``tests/test_embedders.py`` checks its vectors against sentence-transformers' (cosine >= 0.999)
so stores written by either stay searchable by the other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from memgpt_local.errors import EmbedderError

SUPPORTED_MODULES = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1e-7 (Abramowitz and Stegun 7.1.26, odd extension); numpy has none."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def supported(folder: Path) -> bool:
    """Whether ``folder`` is a sentence-transformers folder this encoder can run."""
    try:
        modules = [m["type"] for m in _read_json(folder / "modules.json")]
        config = _read_json(folder / "config.json")
        pooling = _read_json(folder / "1_Pooling" / "config.json")
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return (
        modules == SUPPORTED_MODULES
        and config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and pooling.get("pooling_mode_mean_tokens") is True
        and not any(pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens"))
        and (folder / "model.safetensors").is_file()
        and (folder / "tokenizer.json").is_file()
    )


class BertEncoder:
    """The weights and tokenizer of one folder; ``encode`` gives normalized mean-pooled vectors."""

    def __init__(self, folder: Path):
        if not supported(folder):
            raise EmbedderError(
                f"{folder} is not a BERT sentence-transformers folder with mean pooling and normalization",
                'set embedder.runtime = "sentence-transformers" in config.toml to run it with torch',
            )
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = _read_json(folder / "config.json")
        st_config = (
            _read_json(folder / "sentence_bert_config.json") if (folder / "sentence_bert_config.json").is_file() else {}
        )
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dim = int(config["hidden_size"])
        self.max_len = min(int(st_config.get("max_seq_length", 512)), int(config["max_position_embeddings"]))
        raw = load_file(str(folder / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float32, copy=False) for k, v in raw.items()}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_len)
        self._spans = Tokenizer.from_file(str(folder / "tokenizer.json"))  # whole texts, for chunking
        self._spans.no_padding()
        self._spans.no_truncation()
        # the linear layers' weights transposed once (x @ W.T as x @ Wt)
        for key in [k for k in self.w if k.endswith(".weight") and self.w[k].ndim == 2 and "embeddings" not in k]:
            self.w[key] = np.ascontiguousarray(self.w[key].T)

    def token_starts(self, text: str) -> list[int]:
        """Where each wordpiece of ``text`` starts (no special tokens, no truncation)."""
        encoding = self._spans.encode(text, add_special_tokens=False)
        return [start for start, end in encoding.offsets if end > start]

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        return [enc.ids for enc in self.tokenizer.encode_batch(texts)]

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        ids = self.token_ids(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # similar lengths pad little
        for start in range(0, len(order), batch_size):
            chosen = order[start : start + batch_size]
            out[chosen] = self._forward([ids[i] for i in chosen])
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        w, n = self.w, max(len(ids) for ids in batch)
        tokens = np.zeros((len(batch), n), dtype=np.int64)
        mask = np.zeros((len(batch), n), dtype=np.float32)
        for row, ids in enumerate(batch):
            tokens[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][tokens]
            + w["embeddings.position_embeddings.weight"][:n][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        bias = ((1.0 - mask) * np.float32(np.finfo(np.float32).min))[:, None, None, :]
        for layer in range(self.layers):
            x = self._layer(x, bias, f"encoder.layer.{layer}.")
        pooled = (x * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _layer(self, x: np.ndarray, bias: np.ndarray, p: str) -> np.ndarray:
        w = self.w
        b, n, d = x.shape
        h, hd = self.heads, d // self.heads

        def heads(name: str) -> np.ndarray:  # (b * h, n, hd), contiguous for BLAS
            y = x @ w[f"{p}attention.self.{name}.weight"] + w[f"{p}attention.self.{name}.bias"]
            return np.ascontiguousarray(y.reshape(b, n, h, hd).transpose(0, 2, 1, 3)).reshape(b * h, n, hd)

        q, k, v = heads("query"), heads("key"), heads("value")
        scores = np.matmul(q, np.ascontiguousarray(k.transpose(0, 2, 1))).reshape(b, h, n, n)
        scores = scores / np.float32(np.sqrt(hd)) + bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = np.matmul(scores.reshape(b * h, n, n), v).reshape(b, h, n, hd)
        context = np.ascontiguousarray(context.transpose(0, 2, 1, 3)).reshape(b, n, d)
        attended = context @ w[f"{p}attention.output.dense.weight"] + w[f"{p}attention.output.dense.bias"]
        x = _layer_norm(
            attended + x, w[f"{p}attention.output.LayerNorm.weight"], w[f"{p}attention.output.LayerNorm.bias"], self.eps
        )
        inner = _gelu(x @ w[f"{p}intermediate.dense.weight"] + w[f"{p}intermediate.dense.bias"])
        out = inner @ w[f"{p}output.dense.weight"] + w[f"{p}output.dense.bias"]
        return _layer_norm(out + x, w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"], self.eps)
