"""The model runtime: backends (llama.cpp in-process, a scripted fake), grammars of the
model's output, the model catalog and pulling/validating GGUF files."""
