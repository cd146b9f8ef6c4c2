"""memgpt-local: an offline agent with long-term memory (MemGPT on local GGUF models)."""

__version__ = "0.1.0"
