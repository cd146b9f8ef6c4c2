"""Documents: reading files (text, markdown, PDF, HTML, source code), cutting them into
token-aware chunks and loading them into an agent's archival memory as sources."""
