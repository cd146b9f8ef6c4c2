"""Moving an agent between memory files: one versioned JSON document per agent."""
