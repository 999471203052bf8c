"""#14.3: the kernel started on opening a notebook changes its metadata in memory only; a kernel the
user chooses changes the document (and so is saved)."""

from ghostbook.session import actions as a
from ghostbook.session.ops import KernelChosen
from ghostbook.session.reducer import apply
from ghostbook.session.state import NotebookData

NOTEBOOK = {"cells": [], "metadata": {"kernelspec": {"name": "python3", "display_name": "Old label",
                                                     "language": "python"}, "tool": 1},
            "nbformat": 4, "nbformat_minor": 5}


def test_the_kernel_started_on_open_does_not_change_the_document() -> None:
    data = NotebookData.from_nbformat("n.ipynb", NOTEBOOK)
    actions = apply(data, KernelChosen("python3", "Python 3 (ipykernel)"))
    assert not [x for x in actions if isinstance(x, a.DocumentChanged)]
    assert data.metadata["kernelspec"] == {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                           "language": "python"}  # saved with the next edit
    assert data.metadata["tool"] == 1


def test_a_kernel_the_user_chose_changes_the_document() -> None:
    data = NotebookData.from_nbformat("n.ipynb", NOTEBOOK)
    actions = apply(data, KernelChosen("other", "Other", by_user=True))
    assert [x for x in actions if isinstance(x, a.DocumentChanged)]
    assert data.metadata["kernelspec"]["name"] == "other"
