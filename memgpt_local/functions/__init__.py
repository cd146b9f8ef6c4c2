"""The agent's functions: each declared once (name, doc, pydantic arguments) in ``specs``;
their implementations against memory live in ``execute``."""
