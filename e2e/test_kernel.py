"""Kernel features seen from the browser: stdin, death and restart, run all, clear outputs."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, output, wait_idle, write_notebook


def test_stdin_input_and_password(server: Server, page: Page) -> None:
    write_notebook(
        server.root / "ask.ipynb",
        [
            ("code", 'name = input("Your name: ")\nprint("hi", name)'),
            ("code", 'import getpass\nsecret = getpass.getpass("Secret: ")\nprint(len(secret))'),
        ],
    )
    open_notebook(page, server.url("/notebooks/ask.ipynb"))
    wait_idle(page)
    first, second = cells(page).nth(0), cells(page).nth(1)

    first.get_by_test_id("run-cell").click()
    box = first.get_by_test_id("stdin-input")
    expect(box).to_be_visible(timeout=KERNEL_TIMEOUT)
    expect(box).to_have_attribute("type", "text")
    expect(output(first)).to_contain_text("Your name:")
    box.fill("Ada")
    box.press("Enter")
    expect(output(first)).to_contain_text("hi Ada", timeout=KERNEL_TIMEOUT)
    expect(first.get_by_test_id("stdin-input")).to_have_count(0)

    second.get_by_test_id("run-cell").click()
    secret = second.get_by_test_id("stdin-input")
    expect(secret).to_be_visible(timeout=KERNEL_TIMEOUT)
    expect(secret).to_have_attribute("type", "password")
    secret.fill("hunter22")
    secret.press("Enter")
    expect(output(second)).to_contain_text("8", timeout=KERNEL_TIMEOUT)
    assert "hunter22" not in output(second).inner_text()


def test_kernel_death_is_reported_and_restart_recovers(server: Server, page: Page) -> None:
    write_notebook(
        server.root / "die.ipynb",
        [("code", "import os\nos._exit(3)"), ("code", "print('after', 'restart')")],
    )
    open_notebook(page, server.url("/notebooks/die.ipynb"))
    wait_idle(page)
    page.get_by_test_id("run-all").click()
    expect(page.get_by_test_id("kernel-status")).to_have_text("dead", timeout=KERNEL_TIMEOUT)
    message = page.get_by_test_id("kernel-message")
    expect(message).to_be_visible()
    expect(message).to_contain_text("3")
    for i in range(2):
        expect(cells(page).nth(i)).to_have_attribute("data-state", "idle")

    page.get_by_test_id("restart-kernel").click()
    wait_idle(page)
    expect(page.get_by_test_id("kernel-message")).to_be_hidden()
    later = cells(page).nth(1)
    later.get_by_test_id("run-cell").click()
    expect(output(later)).to_contain_text("after restart", timeout=KERNEL_TIMEOUT)


def test_run_all_queues_and_clear_outputs(server: Server, page: Page) -> None:
    write_notebook(
        server.root / "queue.ipynb",
        [("code", "import time\ntime.sleep(1.5)\nprint('one')"), ("markdown", "# title"), ("code", "print('two')")],
    )
    open_notebook(page, server.url("/notebooks/queue.ipynb"))
    wait_idle(page)
    first, last = cells(page).nth(0), cells(page).nth(2)
    page.get_by_test_id("run-all").click()
    expect(first).to_have_attribute("data-state", "running", timeout=KERNEL_TIMEOUT)
    expect(last).to_have_attribute("data-state", "queued")
    expect(last.get_by_test_id("cell-prompt")).to_have_text("[*]")
    expect(output(last)).to_contain_text("two", timeout=KERNEL_TIMEOUT)
    expect(first.get_by_test_id("cell-prompt")).to_have_text("[1]")
    expect(last.get_by_test_id("cell-prompt")).to_have_text("[2]")
    expect(output(first)).to_contain_text("one")

    page.get_by_test_id("clear-outputs").click()
    expect(output(first)).to_have_text("")
    expect(output(last)).to_have_text("")
