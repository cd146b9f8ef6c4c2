"""Packaged data files: system prompt, default persona and human, model catalog."""
