"""Evaluation of FIM code models: HumanEval infilling, held-out exact match, sandboxed execution."""
