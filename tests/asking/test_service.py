"""The Ask service: answers stream to every tab as turns, the conversation is kept (and goes into the next
prompt), cleared by New conversation, stopped by Stop; no model, an empty question and a model failing
in the middle of its answer are told as such. The model is a scripted chat server on a loopback port
(`chat_script`, through the real openai: client), or SmolLM2 in process."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ghostbook import protocol as p
from ghostbook.asking.answering import ANSWER_TOKENS
from ghostbook.asking.plan import unchanged_answer
from ghostbook.asking.service import AskService
from ghostbook.completion.settings import SettingsStore
from ghostbook.models.loader import ModelRegistry, chat_server, edit_factory
from ghostbook.session.outputs import CellOutputs
from ghostbook.session.state import Cell

from tests.asking.chat_script import ScriptedChat

pytestmark = pytest.mark.timeout(120)

ANSWER = "It loads the sales.\n\n```python\nsales.describe()\n```\n"
TRACEBACK = ["\x1b[0;31mNameError\x1b[0m: name 'totl' is not defined"]


class Tabs:
    """What the service sent: to one tab (`sent`) and to all of them (`broadcast`)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.broadcast: list[dict[str, Any]] = []
        self.answer_begun = asyncio.Event()  # a turn with some answer was broadcast

    def send(self, client_id: str, message: p.ServerEvent) -> None:
        self.sent.append((client_id, message.model_dump(mode="json")))

    def publish(self, message: p.ServerEvent, key: str | None = None) -> None:
        self.broadcast.append(message.model_dump(mode="json"))
        if isinstance(message, p.AskTurnEvent) and message.turn.answer:
            self.answer_begun.set()

    def turns(self) -> list[dict[str, Any]]:
        return [m["turn"] for m in self.broadcast if m["type"] == "ask_turn"]


@pytest.fixture
def chat() -> Iterator[ScriptedChat]:
    server = ScriptedChat(ANSWER)
    yield server
    server.stop()


def notebook() -> list[Cell]:
    error = {"output_type": "error", "ename": "NameError", "evalue": "name 'totl' is not defined",
             "traceback": TRACEBACK}
    return [Cell("load", "code", "import pandas as pd\nsales = pd.read_csv('sales.csv')"),
            Cell("broken", "code", "print(totl)", outputs=CellOutputs.from_json([error]))]


def service(tmp_path: Path, tabs: Tabs, model: str, cells: list[Cell] | None = None) -> AskService:
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"edit_model": model, "enabled": False})
    cells = cells or notebook()
    return AskService(lambda: cells, tabs.send, tabs.publish, registry=ModelRegistry(edit_factory, remote=chat_server),
                      store=store)


def question(text: str, cell_ids: list[str] | None = None, ref: str = "q") -> p.AskQuestion:
    return p.AskQuestion(type="ask_question", ref=ref, question=text, cell_ids=cell_ids or [])


async def answered(asking: AskService, client: str, message: p.AskQuestion) -> None:
    task = asking.ask(client, message)
    assert task is not None
    await asyncio.wait_for(task, 30)


def test_an_answer_streams_to_every_tab_and_the_conversation_is_kept(tmp_path: Path, chat: ScriptedChat) -> None:
    chat.delay = 0.06  # slower than the service's 50 ms: the tabs see it grow

    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, chat.spec)
        await answered(asking, "tab1", question("why does this fail?", ["broken"]))
        turns = tabs.turns()
        assert turns[0]["state"] == "answering" and turns[0]["answer"] == ""
        assert turns[0]["question"] == "why does this fail?" and turns[0]["cell_ids"] == ["broken"]
        growing = [t["answer"] for t in turns if t["state"] == "answering" and t["answer"]]
        assert len(growing) >= 3 and all(ANSWER.startswith(a) for a in growing)  # streamed, in order
        assert turns[-1]["state"] == "done" and turns[-1]["answer"] == ANSWER and turns[-1]["error"] is None
        user = chat.requests[-1]["messages"][-1]["content"]
        assert "print(totl)" in user and "NameError: name 'totl' is not defined" in user and "\x1b" not in user
        assert "sales = pd.read_csv" in user and user.endswith("Question: why does this fail?")

        # a second question: the first turn goes into its prompt; any tab gets the whole conversation
        await answered(asking, "tab2", question("and how do I fix it?"))
        messages = chat.requests[-1]["messages"]
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
        assert messages[1]["content"] == "why does this fail?" and messages[2]["content"] == ANSWER
        await asking.handle("tab3", p.GetConversation(type="get_conversation", ref="c"))
        client, reply = tabs.sent[-1]
        assert client == "tab3" and reply["type"] == "ask_conversation" and reply["ref"] == "c"
        assert [t["question"] for t in reply["turns"]] == ["why does this fail?", "and how do I fix it?"]
        assert all(t["state"] == "done" and t["answer"] == ANSWER for t in reply["turns"])

        # New conversation: every tab is told; the next question starts afresh
        await asking.handle("tab1", p.AskClear(type="ask_clear"))
        assert tabs.broadcast[-1] == {"type": "ask_conversation", "ref": None, "turns": []}
        await answered(asking, "tab1", question("what is sales?"))
        assert [m["role"] for m in chat.requests[-1]["messages"]] == ["system", "user"]

    asyncio.run(scenario())


def test_a_finished_answer_carries_its_changes_to_the_cells_by_id(tmp_path: Path, chat: ScriptedChat) -> None:
    chat.answer = ("Fix the name, and show the total.\n\nCell broken:\n```python\nprint(total)\n```\n\n"
                   "New cell after broken:\n```python\ntotal\n```\n\nCell nowhere:\n```python\nx = 1\n```\n")

    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, chat.spec)
        await answered(asking, "tab1", question("fix it", ["broken"]))
        assert "# cell broken\nprint(totl)" in chat.requests[-1]["messages"][-1]["content"]
        turns = tabs.turns()
        assert all(t["changes"] == [] for t in turns[:-1])  # while it streams: no changes yet
        done = turns[-1]
        assert done["state"] == "done"
        assert done["changes"] == [{"kind": "modify", "cell_id": "broken", "source": "print(total)"},
                                   {"kind": "insert", "cell_id": "broken", "source": "total"}]
        assert len(done["notes"]) == 1 and "nowhere" in done["notes"][0]
        p.server_adapter.validate_python(tabs.broadcast[-1])  # the wire's own shape

    asyncio.run(scenario())


CHANGES = "Fix the name.\n\nCell broken:\n```python\nprint(sales)\n```\n"


def test_an_openai_server_gets_the_cells_the_question_is_about_as_its_prediction(
        tmp_path: Path, chat: ScriptedChat) -> None:
    chat.answer = CHANGES

    async def scenario() -> None:
        asking = service(tmp_path, Tabs(), chat.spec)
        await answered(asking, "tab1", question("fix it", ["broken"]))
        body = chat.requests[-1]
        assert body["prediction"] == {"type": "content", "content": unchanged_answer([("broken", "print(totl)")])}
        assert "max_tokens" not in body and body["stream_options"] == {"include_usage": True}
        assert asking.conversation.turns[-1].plan.changes[0].source == "print(sales)"

        # no cell named: the notebook's code cells
        await answered(asking, "tab1", question("tidy the notebook"))
        cells = [(cell.id, cell.source) for cell in notebook()]
        assert chat.requests[-1]["prediction"]["content"] == unchanged_answer(cells)

        # a notebook longer than the answer may be: no prediction (it would be paid for, unused)
        big = [Cell(f"c{i}", "code", f"value_{i} = {i} * 1.5  # a long enough line") for i in range(200)]
        asking = service(tmp_path, Tabs(), chat.spec, big)
        await answered(asking, "tab1", question("tidy the notebook"))
        assert "prediction" not in chat.requests[-1] and chat.requests[-1]["max_tokens"] == ANSWER_TOKENS

    asyncio.run(scenario())


def test_a_llamacpp_server_answers_with_changes_without_a_prediction(tmp_path: Path, chat: ScriptedChat) -> None:
    chat.answer = CHANGES

    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, chat.llamacpp_spec)
        await answered(asking, "tab1", question("fix it", ["broken"]))
        body = chat.requests[-1]
        assert body["cache_prompt"] is True and body["max_tokens"] == ANSWER_TOKENS
        assert "prediction" not in body and "stream_options" not in body
        done = tabs.turns()[-1]
        assert done["state"] == "done"
        assert done["changes"] == [{"kind": "modify", "cell_id": "broken", "source": "print(sales)"}]

    asyncio.run(scenario())


def test_stop_ends_the_answer_and_keeps_what_it_has(tmp_path: Path, chat: ScriptedChat) -> None:
    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, chat.spec)
        chat.answer = "word " * 400
        task = asking.ask("tab1", question("explain"))
        assert task is not None
        await asyncio.wait_for(tabs.answer_begun.wait(), 30)
        turn_id = tabs.turns()[0]["id"]
        await asking.handle("tab2", p.AskStop(type="ask_stop", turn_id="another"))  # not this turn: nothing
        assert tabs.turns()[-1]["state"] == "answering"
        await asking.handle("tab2", p.AskStop(type="ask_stop", turn_id=turn_id))  # any tab may stop it
        await asyncio.gather(task, return_exceptions=True)  # cancelled (or ended at the cancel)
        last = tabs.turns()[-1]
        assert last["state"] == "stopped" and 0 < len(last["answer"]) < len(chat.answer)
        count = len(tabs.broadcast)
        await asyncio.sleep(0.3)
        assert len(tabs.broadcast) == count  # nothing more comes of it
        await asking.handle("tab1", p.GetConversation(type="get_conversation", ref="c"))
        assert tabs.sent[-1][1]["turns"][0]["state"] == "stopped"

    asyncio.run(scenario())


def test_a_new_question_stops_the_answer_in_progress(tmp_path: Path, chat: ScriptedChat) -> None:
    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, chat.spec)
        chat.hold.clear()  # the first answer waits
        first = asking.ask("tab1", question("first?"))
        await asyncio.sleep(0.2)
        chat.hold.set()
        chat.answer = "Second."
        await answered(asking, "tab2", question("second?"))
        assert first is not None and first.done()
        states = {t["question"]: t["state"] for t in tabs.turns()}
        assert states == {"first?": "stopped", "second?": "done"}

    asyncio.run(scenario())


def test_a_model_failing_mid_answer_shows_an_error_and_the_conversation_goes_on(
        tmp_path: Path, chat: ScriptedChat) -> None:
    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, chat.spec)
        chat.fail_after = 10
        await answered(asking, "tab1", question("explain"))
        last = tabs.turns()[-1]
        assert last["state"] == "error" and "ran out of memory" in last["error"] and last["answer"] == ANSWER[:10]
        chat.fail_after = None
        await answered(asking, "tab1", question("again?"))
        assert tabs.turns()[-1]["state"] == "done"
        assert [m["content"] for m in chat.requests[-1]["messages"][1:3]] == ["explain", ANSWER[:10]]

    asyncio.run(scenario())


def test_a_model_that_cannot_load_ends_the_turn_with_an_error(tmp_path: Path) -> None:
    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, "openai:http://127.0.0.1:9")  # nothing listens there
        await answered(asking, "tab1", question("explain"))
        last = tabs.turns()[-1]
        assert last["state"] == "error" and last["error"].startswith("The model failed:")

    asyncio.run(scenario())


def test_no_model_or_no_question_is_told_to_the_asking_tab_only(tmp_path: Path) -> None:
    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, "")
        assert asking.ask("tab1", question("explain", ref="a")) is None
        assert tabs.sent == [("tab1", {"type": "ask_error", "ref": "a", "reason": "no_model",
                                       "message": tabs.sent[0][1]["message"]})]
        assert "settings" in tabs.sent[0][1]["message"]
        asking.store.update({"edit_model": "openai:http://127.0.0.1:9"})
        assert asking.ask("tab1", question("   ", ref="b")) is None
        assert tabs.sent[-1][1]["reason"] == "empty" and tabs.broadcast == []
        assert asking.conversation.turns == []

    asyncio.run(scenario())


def test_smollm2_answers_in_process(tmp_path: Path, smollm2: Path) -> None:
    """The real chat model through its GGUF chat template: a free answer, streamed, ended by the model."""

    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, str(smollm2))
        await answered(asking, "tab1", question("What does the first cell do?", ["load"]))
        last = tabs.turns()[-1]
        assert last["state"] == "done", last
        assert len(last["answer"].split()) >= 3
        print(f"\nSmolLM2 answered:\n{last['answer']}")

    asyncio.run(scenario())


def test_an_answer_that_repeats_a_paragraph_ends_before_the_repeat(tmp_path: Path, chat: ScriptedChat) -> None:
    paragraph = "The notebook loads the sales into a DataFrame and sums the amounts per city."

    async def scenario() -> None:
        tabs = Tabs()
        asking = service(tmp_path, tabs, chat.spec)
        chat.answer = f"{paragraph}\n\n" * 50
        await answered(asking, "tab1", question("what does it do?"))
        last = tabs.turns()[-1]
        assert last["state"] == "done" and last["answer"] == paragraph + "\n"

    asyncio.run(scenario())
