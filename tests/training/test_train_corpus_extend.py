"""Extending a corpus with more sources: licences from unpacked packages' metadata, files the corpus
already holds skipped, up-weighting by repetition, the record in the report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ghostbook.training.corpus import extend_corpus, read_docs
from ghostbook.training.sources import folder_source

CODE = "def gcd_steps(a, b):\n    '''Steps of Euclid's algorithm.'''\n    n = 0\n    while b:\n" \
       "        a, b = b, a % b\n        n += 1\n    return n\n" * 3


def _metadata(name: str, licence: str) -> str:
    return f"Metadata-Version: 2.4\nName: {name}\nVersion: 1.0\nLicense-Expression: {licence}\n\n"


def _package(root: Path, name: str, licence: str, code: str) -> Path:
    """An unpacked wheel: the module and its `.dist-info/METADATA`."""
    (root / f"{name}-1.0.dist-info").mkdir(parents=True)
    (root / f"{name}-1.0.dist-info" / "METADATA").write_text(_metadata(name, licence))
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


def _wheel(folder: Path, name: str, licence: str, code: str) -> Path:
    """A minimal wheel in a local package index folder (pip's --find-links)."""
    import zipfile

    folder.mkdir(exist_ok=True)
    path = folder / f"{name}-1.0-py3-none-any.whl"
    info = f"{name}-1.0.dist-info"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{name}/__init__.py", code)
        z.writestr(f"{info}/METADATA", _metadata(name, licence))
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")
    return path


def test_preset_packages_are_fetched_and_added_once(tiny_work: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from ghostbook.training.cli import main
    from ghostbook.training.model import PRESETS

    index = tmp_path / "index"
    _wheel(index, "algos", "MIT", CODE)
    _wheel(index, "closed", "LicenseRef-Proprietary", CODE.replace("gcd_steps", "closed_steps"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # pip reads its options from the environment: a local index only
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    monkeypatch.setitem(PRESETS, "tiny", replace(PRESETS["tiny"], extra_packages=("algos==1.0", "closed==1.0"),
                                                 extra_repeat=2))
    work = tmp_path / "work"
    shutil.copytree(tiny_work / "corpus", work / "corpus")
    before = read_docs(work / "corpus" / "train.jsonl")
    assert main(["corpus", "--preset", "tiny", "--work", str(work)]) == 0
    added = read_docs(work / "corpus" / "train.jsonl")[len(before):]
    assert [d.source for d in added] == ["algos", "algos"]
    report = json.loads((work / "corpus" / "report.json").read_text())
    assert report["licences"]["closed"].startswith("SKIPPED") and len(report["extensions"]) == 1
    assert main(["corpus", "--preset", "tiny", "--work", str(work)]) == 0  # already extended: unchanged
    assert len(read_docs(work / "corpus" / "train.jsonl")) == len(before) + 2


def test_fetch_reports_what_pip_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ghostbook.training.packages import fetch_packages

    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path))
    with pytest.raises(RuntimeError, match="no-such-package"):
        fetch_packages(["no-such-package==9.9"], tmp_path / "out")


def test_tokenizer_ignores_what_an_extension_added(tiny_work: Path, tmp_path: Path) -> None:
    from ghostbook.training.cli import step_tokenizer

    work = tmp_path / "work"
    shutil.copytree(tiny_work / "corpus", work / "corpus")
    step_tokenizer(work, 512)
    before = (work / "tokenizer.json").read_bytes()
    extend_corpus(work / "corpus", [_package(tmp_path / "a", "algos", "MIT", CODE * 40)], repeat=5)
    step_tokenizer(work, 512, force=True)
    assert (work / "tokenizer.json").read_bytes() == before  # the shipped model's tokenizer stays reproducible
