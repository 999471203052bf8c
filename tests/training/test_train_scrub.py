"""Scrubbing of secrets and PII, and HumanEval decontamination."""

from __future__ import annotations

from collections import Counter

from ghostbook.training.decontaminate import Decontaminator, humaneval_texts
from ghostbook.training.scrub import EMAIL, KEY, PRIVATE_KEY, scrub


def test_scrub_replaces_emails_keys_and_private_keys() -> None:
    text = (
        'AUTHOR = "Jane Doe <jane.doe@corp-mail.io>"\n'
        'aws = "AKIAABCDEFGHIJKLMNOP"\n'
        'api_key = "a1b2c3d4e5f6g7h8i9j0k1l2"\n'
        'gh = "ghp_' + "x1" * 20 + '"\n'
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\n"
        "contact = 'someone@example.com'\n"
    )
    counts: Counter[str] = Counter()
    out = scrub(text, counts)
    assert "jane.doe@corp-mail.io" not in out and EMAIL in out
    assert "AKIAABCDEFGHIJKLMNOP" not in out
    assert "a1b2c3d4e5f6g7h8i9j0k1l2" not in out
    assert "ghp_" not in out and out.count(KEY) == 3
    assert PRIVATE_KEY in out and "MIIEow" not in out
    assert "someone@example.com" in out  # documentation addresses are kept
    assert counts["email"] == 1 and counts["private_key"] == 1


def test_scrub_leaves_ordinary_code_alone() -> None:
    code = 'def token_count(text: str) -> int:\n    secret = "short"\n    return len(text.split())\n'
    assert scrub(code) == code


def test_decontamination_flags_humaneval_code_only() -> None:
    decon = Decontaminator(humaneval_texts())
    solution = humaneval_texts()[0]
    assert decon.is_contaminated("# copied\n" + solution[:600])
    # Whitespace changes do not hide a copy.
    assert decon.is_contaminated(solution[:600].replace("    ", "\t"))
    assert not decon.is_contaminated("def add(a, b):\n    '''Sum.'''\n    return a + b\n" * 3)
