"""The constrained search over token ids (DESIGN §3): the token index and healing (`tokens`), greedy,
the first-line beam and line-by-line decoding (`beam`, `search`), and the rules a line must obey as
small objects (`syntax_fit`, `indentation`, `repetition`, `reading`, gathered in `lines.LineRules`).
A request's `plan.DecodePlan` is what a backend runs after the prompt; the search reaches a model only
through `models.backend.Evaluation`.
"""
