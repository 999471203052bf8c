from ghostbook.session.runtime import completion_types


def test_types_come_from_the_kernels_metadata_by_text_without_unknown() -> None:
    # as IPython answers `my_` (issue 14.15): a known function, a name jedi cannot type
    reply = {"matches": ["my_function", "my_number"],
             "metadata": {"_jupyter_types_experimental": [
                 {"text": "my_function", "type": "function", "signature": "()"},
                 {"text": "my_number", "type": "<unknown>", "signature": ""}]}}
    assert completion_types(reply, reply["matches"]) == ["function", None]  # type: ignore[arg-type]
    # fewer or reordered entries still label the matches they name
    reply = {"metadata": {"_jupyter_types_experimental": [{"text": "path", "type": "module"}]}}
    assert completion_types(reply, ["pardir", "path"]) == [None, "module"]
    assert completion_types({"metadata": {}}, ["x"]) == [None]
    assert completion_types({"metadata": {"_jupyter_types_experimental": "bad"}}, ["x"]) == [None]
