from ghostbook.session.outputs import MAX_OUTPUTS, CellOutputs, StreamText


def test_streams_coalesce_per_name() -> None:
    outputs = CellOutputs()
    for text in ["a\n", "b\n"]:
        outputs.add("stream", {"name": "stdout", "text": text})
    outputs.add("stream", {"name": "stderr", "text": "warn\n"})
    outputs.add("stream", {"name": "stdout", "text": "c\n"})
    assert [(o["name"], o["text"]) for o in outputs.to_json()] == [
        ("stdout", "a\nb\n"), ("stderr", "warn\n"), ("stdout", "c\n")]


def test_a_million_lines_keep_head_and_tail_and_say_what_was_dropped() -> None:
    stream = StreamText("stdout", head_chars=1000, tail_chars=1000)
    for start in range(0, 1_000_000, 1000):
        stream.append("".join(f"{i}\n" for i in range(start, start + 1000)))
        assert len(stream.head) + len(stream.tail) <= 4000  # memory stays bounded
    text = stream.text()
    assert text.startswith("0\n1\n2\n")
    assert text.endswith("999998\n999999\n")
    assert "lines" in text and "dropped" in text
    dropped = stream.dropped_lines
    kept = text.count("\n") - 1  # minus the marker line
    assert dropped + kept == 1_000_000
    assert len(text) < 3000


def test_small_output_is_kept_whole() -> None:
    stream = StreamText("stdout")
    stream.append("hello\n")
    assert stream.text() == "hello\n"


def test_rich_outputs_are_capped() -> None:
    outputs = CellOutputs()
    for i in range(MAX_OUTPUTS + 50):
        outputs.add("display_data", {"data": {"text/plain": str(i)}, "metadata": {}})
    shown = [o["data"]["text/plain"] for o in outputs.to_json()]
    assert len(shown) == MAX_OUTPUTS
    assert shown[0] == "0" and shown[-1] == str(MAX_OUTPUTS + 49)


def test_loaded_outputs_round_trip() -> None:
    raw = [{"output_type": "stream", "name": "stdout", "text": "x\ny\n"},
           {"output_type": "error", "ename": "E", "evalue": "v", "traceback": []}]
    assert CellOutputs.from_json(raw).to_json() == raw


# ---- streams as a terminal shows them (issue 14.13) ---------------------------------------------

def stream_text(*chunks: str) -> str:
    outputs = CellOutputs()
    for chunk in chunks:
        outputs.add("stream", {"name": "stderr", "text": chunk})
    [output] = outputs.to_json()
    return str(output["text"])


def test_a_progress_bar_redrawn_with_carriage_returns_stays_one_line() -> None:
    bars = [f"\r{i:3d}%|{'#' * (i // 10):<10}| {i}/100" for i in range(0, 101, 5)]
    assert stream_text(*bars) == "100%|##########| 100/100"
    assert stream_text(*bars, "\n", "done\n") == "100%|##########| 100/100\ndone\n"
    # \r and \n split across messages still make one line break
    assert stream_text("a\r", "\nb\n") == "a\nb\n"
    assert stream_text("first\r\nsecond\n") == "first\nsecond\n"


def test_carriage_return_overwrites_and_backspace_steps_back() -> None:
    assert stream_text("abcdef\rXY") == "XYcdef"
    assert stream_text("abc\b\bZ") == "aZc"
    assert stream_text("12345\b\b\b\b\b\b\b!") == "!2345"
    assert stream_text("kept\nold line\rnew\n") == "kept\nnew line\n"


def test_ansi_erase_line_codes() -> None:
    assert stream_text("abcdef\r\x1b[Knew") == "new"
    assert stream_text("abcdef\rab\x1b[0K") == "ab"
    assert stream_text("abcdef\x1b[2K\rxy") == "xy"
    assert stream_text("abcdef\b\b\x1b[1K!") == "    !f"
    assert stream_text("abc\x1b[1Gz") == "zbc"
    assert stream_text("line 1\x1b[A\nline 2\n") == "line 1\nline 2\n"  # cursor up: dropped


def test_colours_take_no_column_and_survive_redraws() -> None:
    red, reset = "\x1b[31m", "\x1b[0m"
    assert stream_text(f"{red}50%{reset}\r{red}99%{reset}") == f"{red}{reset}{red}99%{reset}"
    assert stream_text(f"{red}error{reset}\n") == f"{red}error{reset}\n"


def test_redrawn_lines_are_capped_like_any_other() -> None:
    stream = StreamText("stderr", head_chars=1000, tail_chars=1000)
    for i in range(100_000):
        stream.append(f"\r{i}")
    assert stream.text() == "99999"
    stream.append("\n" + "x" * 50_000)  # a line without end is let go of, not kept whole
    assert len(stream.text()) < 25_000


def test_loaded_streams_are_shown_as_a_terminal_would() -> None:
    raw = [{"output_type": "stream", "name": "stderr", "text": ["10%\r", "100%\n"]}]
    assert CellOutputs.from_json(raw).to_json()[0]["text"] == "100%\n"


def test_alternating_stdout_and_stderr_are_capped_too() -> None:
    outputs = CellOutputs()
    for i in range(MAX_OUTPUTS * 5):
        outputs.add("stream", {"name": "stdout" if i % 2 else "stderr", "text": f"{i}\n"})
    shown = outputs.to_json()
    assert len(shown) == MAX_OUTPUTS
    assert shown[0]["text"] == "0\n" and shown[-1]["text"] == f"{MAX_OUTPUTS * 5 - 1}\n"
    assert outputs.dropped_outputs == MAX_OUTPUTS * 4


def test_json_values_under_text_mime_types_become_json_text_so_the_notebook_stays_valid() -> None:
    import json

    import nbformat

    spec = {"mark": "bar", "data": {"values": [{"a": 1}]}}
    outputs = CellOutputs()
    outputs.add("execute_result", {"execution_count": 1, "metadata": {}, "data": {
        "application/vnd.vegalite.v6.json": spec,  # altair 6's mimetype renderer
        "application/vnd.plotly.v1+json": {"data": []},  # +json: any JSON, kept as it is
        "application/json": [1, 2],
        "text/plain": ["<VegaLite 6 object>"],
    }})
    data = outputs.to_json()[0]["data"]
    assert json.loads(data["application/vnd.vegalite.v6.json"]) == spec
    assert data["application/vnd.plotly.v1+json"] == {"data": []} and data["application/json"] == [1, 2]
    assert data["text/plain"] == ["<VegaLite 6 object>"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("chart", outputs=outputs.to_json())])
    nbformat.validate(notebook)


def test_the_version_counts_changes_that_tabs_would_see() -> None:
    outputs = CellOutputs()
    outputs.clear()
    assert outputs.version == 0  # clearing nothing changes nothing
    outputs.add("stream", {"name": "stdout", "text": "a"})
    outputs.add("stream", {"name": "stdout", "text": "b"})
    assert outputs.version == 2
    assert not outputs.update_display("nope", {"data": {}})
    assert outputs.version == 2
    outputs.clear(wait=True)
    assert outputs.version == 2  # shown until the next output
    outputs.add("display_data", {"data": {"text/plain": "c"}, "metadata": {}})
    assert outputs.version > 2 and len(outputs.items) == 1
