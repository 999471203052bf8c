"""PII and secret scrubbing: e-mail addresses, API keys, tokens and private keys become placeholders."""

from __future__ import annotations

import re
from collections import Counter

EMAIL = "<EMAIL>"
KEY = "<KEY>"
PRIVATE_KEY = "<PRIVATE_KEY>"

_PRIVATE_KEY_RE = re.compile(
    r"-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----"
    r".*?-----END \1-----",
    re.DOTALL,
)
_EMAIL_RE = re.compile(r"\b[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b")
# Well-known token shapes (AWS, GitHub, Slack, Google, OpenAI/Stripe-style, JWT).
_TOKEN_RES = [
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    re.compile(r"\b(?:sk|pk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b"),
    re.compile(r"\bsk-[A-Za-z0-9]{20,}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b"),
]
# `api_key = "..."`, `SECRET_TOKEN: '...'`: a long opaque literal assigned to a secret-looking name.
_ASSIGNED_SECRET_RE = re.compile(
    r"""(?i)\b([A-Za-z_]*(?:api_?key|secret|token|passw(?:or)?d|auth)[A-Za-z_]*\s*[:=]\s*)"""
    r"""(["'])([A-Za-z0-9+/_\-]{20,})\2"""
)
_EXAMPLE_DOMAINS = ("example.com", "example.org", "example.net")


def _email_sub(match: re.Match[str]) -> str:
    text = match.group(0)
    return text if text.lower().endswith(_EXAMPLE_DOMAINS) else EMAIL


def _has_digit_and_letter(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def scrub(text: str, counts: Counter[str] | None = None) -> str:
    """Return `text` with secrets and e-mail addresses replaced; tally replacements into `counts`."""
    counts = counts if counts is not None else Counter()
    text, n = _PRIVATE_KEY_RE.subn(PRIVATE_KEY, text)
    counts["private_key"] += n
    for pattern in _TOKEN_RES:
        text, n = pattern.subn(KEY, text)
        counts["token"] += n

    def assigned(match: re.Match[str]) -> str:
        if not _has_digit_and_letter(match.group(3)):
            return match.group(0)
        counts["assigned_secret"] += 1
        return f"{match.group(1)}{match.group(2)}{KEY}{match.group(2)}"

    text = _ASSIGNED_SECRET_RE.sub(assigned, text)
    before = text
    text = _EMAIL_RE.sub(_email_sub, text)
    if text != before:
        counts["email"] += sum(1 for _ in _EMAIL_RE.finditer(before)) - sum(
            1 for m in _EMAIL_RE.finditer(before) if m.group(0).lower().endswith(_EXAMPLE_DOMAINS)
        )
    return text
