"""Extending a corpus with more sources: licences from unpacked packages' metadata, files the corpus
already holds skipped, up-weighting by repetition, the record in the report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ghostbook.training.corpus import extend_corpus, read_docs
from ghostbook.training.sources import folder_source

CODE = "def gcd_steps(a, b):\n    '''Steps of Euclid's algorithm.'''\n    n = 0\n    while b:\n" \
       "        a, b = b, a % b\n        n += 1\n    return n\n" * 3


def _package(root: Path, name: str, licence: str, code: str) -> Path:
    """An unpacked wheel: the module and its `.dist-info/METADATA`."""
    (root / f"{name}-1.0.dist-info").mkdir(parents=True)
    (root / f"{name}-1.0.dist-info" / "METADATA").write_text(
        f"Metadata-Version: 2.4\nName: {name}\nVersion: 1.0\nLicense-Expression: {licence}\n\n")
    (root / name).mkdir()
    (root / name / "__init__.py").write_text(code)
    return root


def test_folder_source_reads_the_licence_of_an_unpacked_package(tmp_path: Path) -> None:
    mit, ok = folder_source(_package(tmp_path / "a", "algos", "MIT", CODE))
    assert (mit.name, mit.licence, ok) == ("algos", "MIT", True)
    gpl, ok = folder_source(_package(tmp_path / "b", "copyleft", "GPL-3.0-only", CODE))
    assert (gpl.licence, ok) == ("GPL-3.0-only", False)
    (tmp_path / "mine").mkdir()
    mine, ok = folder_source(tmp_path / "mine")  # the user's own code
    assert (mine.name, mine.licence, ok) == ("mine", "user-supplied", True)


def test_extend_adds_new_permissive_files_repeated_and_records_them(tiny_work: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(tiny_work / "corpus", corpus)
    (corpus / "functions.jsonl").write_text("")  # stale once the split grows
    before = read_docs(corpus / "train.jsonl")
    known = before[0]
    roots = [
        _package(tmp_path / "a", "algos", "MIT", CODE),
        _package(tmp_path / "b", "copyleft", "GPL-3.0-only", CODE.replace("gcd_steps", "gpl_steps")),
        _package(tmp_path / "c", "again", "BSD-3-Clause", known.text),  # a file the corpus already holds
    ]
    record = extend_corpus(corpus, roots, repeat=3)
    after = read_docs(corpus / "train.jsonl")
    added = after[len(before):]
    assert after[: len(before)] == before
    assert [d.source for d in added] == ["algos"] * 3 and added[0].text == CODE
    assert record["repeat"] == 3 and record["files"] == 1 and record["already_in_corpus"] == 1
    report = json.loads((corpus / "report.json").read_text())
    assert report["extensions"] == [record]
    assert report["licences"]["algos"] == "MIT" and report["licences"]["copyleft"].startswith("SKIPPED")
    assert not (corpus / "functions.jsonl").exists()
