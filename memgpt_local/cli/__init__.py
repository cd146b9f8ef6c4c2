"""Click commands, one module per command group; thin: parse, call, print."""
