"""The project's error types.

One base class whose ``str()`` is a sentence for the user (with a hint on how to fix the
problem); typed subclasses carry their data as attributes so callers can act on them.
"""

from __future__ import annotations


class MemGPTLocalError(Exception):
    """Base error. ``str(err)`` is one line meant for the user, ending with a fix hint."""

    def __init__(self, message: str, hint: str | None = None):
        self.message = message
        self.hint = hint
        super().__init__(message)

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ConfigError(MemGPTLocalError):
    """The config file or a setting is invalid."""


class DataDirError(MemGPTLocalError):
    """The data directory cannot be created, read or written."""


class StoreError(MemGPTLocalError):
    """The memory database is unusable (corrupt, locked, unreadable)."""


class SchemaTooNewError(StoreError):
    def __init__(self, path: str, file_version: int, known_version: int):
        self.path, self.file_version, self.known_version = path, file_version, known_version
        super().__init__(
            f"{path} has schema version {file_version}, newer than this memgpt-local knows ({known_version})",
            "upgrade memgpt-local, or point --data-dir at another directory",
        )


class EmbedderMismatchError(StoreError):
    def __init__(self, stored: str, stored_dim: int, current: str, current_dim: int):
        self.stored, self.stored_dim = stored, stored_dim
        self.current, self.current_dim = current, current_dim
        super().__init__(
            f"the memory file was embedded with {stored} ({stored_dim} d) but the configured "
            f"embedder is {current} ({current_dim} d)",
            "run `memgpt-local reembed` to rebuild all vectors with the configured embedder, "
            "or set the embedder back in config.toml",
        )


class NotFoundError(MemGPTLocalError):
    """A named thing (agent, message, passage, source, model) does not exist."""


class AgentNotFoundError(NotFoundError):
    def __init__(self, name: str):
        self.name = name
        super().__init__(f"no agent named {name!r}", "see `memgpt-local agents list`")


class InvalidInputError(MemGPTLocalError):
    """User or model input is malformed (a bad date, a bad page, a bad import line)."""


class EmbedderError(MemGPTLocalError):
    """The embedding model cannot be loaded or used."""


class ModelError(MemGPTLocalError):
    """A chat model cannot be found, loaded or used."""


class BadModelFileError(ModelError):
    """A file is not a usable GGUF model."""


class ContextOverflowError(ModelError):
    def __init__(self, prompt_tokens: int, n_ctx: int, reserved: int = 0):
        self.prompt_tokens, self.n_ctx, self.reserved = prompt_tokens, n_ctx, reserved
        super().__init__(
            f"prompt of {prompt_tokens} tokens plus {reserved} reserved for the reply does not "
            f"fit the context window of {n_ctx} tokens",
            "shorten the input or raise model.n_ctx_cap in config.toml",
        )


class GrammarError(ModelError):
    """A GBNF grammar failed to build or to load into llama.cpp."""


class PullError(ModelError):
    """A model download or assembly failed."""


class ScriptExhaustedError(MemGPTLocalError):
    """The scripted test backend was asked for more completions than it was given."""


class CallParseError(ModelError):
    """The model's output is not a valid function call; ``str()`` is meant for the model."""

    def __init__(self, text: str, reason: str):
        self.text, self.reason = text, reason
        super().__init__(f"Error: {reason}", "reply again with one JSON object as described")


class KeyRequiredError(StoreError):
    """The memory file is encrypted and no key was found."""

    def __init__(self, path: str):
        self.path = path
        super().__init__(
            f"the memory file {path} is encrypted (or not a database) and no key was found",
            "store the passphrase in the OS keyring (`memgpt-local key store`), set "
            "MEMGPT_LOCAL_PASSPHRASE, or run in a terminal to be asked for it",
        )


class WrongKeyError(StoreError):
    """The key given for an encrypted memory file does not open it."""

    def __init__(self, path: str, reason: str = "the passphrase is wrong or the file is not a memgpt-local database"):
        self.path = path
        super().__init__(
            f"cannot decrypt the memory file {path}: {reason}",
            "check the passphrase in the keyring or MEMGPT_LOCAL_PASSPHRASE; the file was not changed",
        )
