"""The notebook's conversation with the edit model: questions and their answers, in the server's memory
only (one per notebook session, shared by its tabs; never written into the .ipynb)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ghostbook import protocol as p
from ghostbook.asking.plan import Plan

_ids = itertools.count(1)


@dataclass
class Turn:
    """A question, the cells selected when it was asked, and its answer (Markdown) so far."""

    question: str
    cell_ids: list[str] = field(default_factory=list)
    answer: str = ""
    state: p.AskTurnState = "answering"
    error: str | None = None
    plan: Plan = field(default_factory=Plan)  # the changes the finished answer proposes
    id: str = field(default_factory=lambda: f"t{next(_ids)}")

    @property
    def answering(self) -> bool:
        return self.state == "answering"

    def to_wire(self) -> p.AskTurn:
        return p.AskTurn.model_construct(id=self.id, question=self.question, cell_ids=list(self.cell_ids),
                                         answer=self.answer, state=self.state, error=self.error,
                                         changes=[p.PlannedChange.model_construct(kind=c.kind, cell_id=c.cell_id,
                                                                                  source=c.source)
                                                  for c in self.plan.changes],
                                         notes=list(self.plan.notes))


class Conversation:
    """The turns, oldest first."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []

    def ask(self, question: str, cell_ids: list[str]) -> Turn:
        turn = Turn(question, cell_ids)
        self.turns.append(turn)
        return turn

    def before(self, turn: Turn) -> list[Turn]:
        """The turns asked before `turn` that got some answer (the model's memory of the conversation)."""
        index = self.turns.index(turn) if turn in self.turns else len(self.turns)
        return [t for t in self.turns[:index] if t.answer.strip()]

    def clear(self) -> None:
        self.turns = []

    def to_wire(self) -> list[p.AskTurn]:
        return [turn.to_wire() for turn in self.turns]
