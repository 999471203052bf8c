"""`ghostbook eval notebook-ai`: Ask's changes to several cells, measured on real notebooks (NOTEBOOK_AI.md)."""
