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
