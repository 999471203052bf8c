"""Completion models: catalog, backends (llama.cpp in-process) and the shared loader (DESIGN §4)."""
