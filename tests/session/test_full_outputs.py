"""The whole text of long streams: written to a bounded file per stream, read page by page, removed
with its output and with the session."""

from __future__ import annotations

from ghostbook.session.full_outputs import FullOutputs, read_page
from ghostbook.session.state import Cell
from ghostbook.web.output_routes import render_page

LINES = "".join(f"{i}\n" for i in range(50_000))


def printed(text: str, cell_id: str = "c0", store: FullOutputs | None = None) -> tuple[Cell, FullOutputs, str]:
    """A cell that printed `text` in kernel-sized messages, its store (collecting as the runtime does)
    and the stream's full id."""
    cell = Cell(id=cell_id, cell_type="code")
    store = store if store is not None else FullOutputs()
    for at in range(0, len(text), 4096):
        cell.outputs.add("stream", {"name": "stdout", "text": text[at:at + 4096]}, keep_dropped=True)
        store.collect(cell)
    return cell, store, cell.outputs.to_wire()[0]["full_text"]["id"]


def all_lines(store: FullOutputs, full_id: str, page_lines: int = 2000) -> list[str]:
    found = store.snapshot(full_id)
    assert found is not None
    lines: list[str] = []
    first = read_page(*found, page=0, page_lines=page_lines)
    for number in range(first.pages):
        page = read_page(*found, page=number, page_lines=page_lines)
        assert page.first == number * page_lines and page.total_lines == first.total_lines
        lines += page.lines
    return lines


def test_pages_give_back_every_line_in_order() -> None:
    cell, store, full_id = printed(LINES + "no newline at the end")
    assert all_lines(store, full_id) == [str(i) for i in range(50_000)] + ["no newline at the end"]
    assert all_lines(store, full_id, page_lines=777)[-2:] == ["49999", "no newline at the end"]
    found = store.snapshot(full_id)
    assert found is not None
    assert read_page(*found, page=999).page == 25  # clamped to the last page
    assert len(cell.outputs.to_json()[0]["text"]) < 50_000  # memory and the saved file keep the capped text
    store.close()


def test_files_go_with_their_output_and_with_the_session() -> None:
    cell, store, full_id = printed(LINES)
    found = store.snapshot(full_id)
    assert found is not None and found[0].is_file()
    path = found[0]
    cell.outputs.clear()  # cleared or run again
    store.collect(cell)
    assert full_id not in store and not path.exists() and store.total == 0
    _, store, full_id = printed(LINES, store=store)
    folder = store.snapshot(full_id)[0].parent  # type: ignore[index]
    store.close()
    assert not folder.exists()


def test_caps_per_cell_and_in_total_keep_the_text_whole_around_what_is_lost() -> None:
    store = FullOutputs(cell_bytes=100_000, total_bytes=150_000)
    _, store, first = printed(LINES, store=store)
    lines = all_lines(store, first)
    assert lines[0] == "0" and lines[-1] == "49999"
    assert any(line.startswith("[… ") and "not kept: over the limit" in line for line in lines)
    assert store.total <= 100_000
    _, store, second = printed(LINES, "c1", store)
    assert store.total <= 150_000
    assert all_lines(store, second)[-1] == "49999"  # the tail is always there
    store.close()


def test_the_page_escapes_the_text() -> None:
    _, store, full_id = printed("<script>alert(1)</script>\n" * 20_000)
    found = store.snapshot(full_id)
    assert found is not None
    html = render_page(full_id, read_page(*found, page=1), "<b>nb</b>.ipynb")
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;nb&lt;/b&gt;" in html and f"/outputs/{full_id}?page=3" in html
    store.close()
