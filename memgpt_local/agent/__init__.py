"""The MemGPT agent: main context assembly, the step loop with heartbeats, the queue
manager (memory pressure and eviction) and the recursive summary. The events that drive it
are ``memgpt_local.events``."""
