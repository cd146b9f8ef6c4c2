"""The MemGPT agent: main context assembly, the step loop with heartbeats, the queue
manager (memory pressure and eviction into a recursive summary) and events."""
