"""The judge's core: runs the games of one folder by itself, over whatever doors it has.

A door (:mod:`referee.doors`: mail, chat) turns its transport's events into
authenticated player texts and delivers the core's notices; the core does the rest, once
for every door: it finds the games of its folder (:mod:`referee.judge.core`), reads and
acts on each text (:mod:`referee.judge.handling`, the one command table
:mod:`referee.judge.commands`), decides who is told what (:meth:`~referee.judge.core.
Judge.notify`), tends deadlines and clocks (:mod:`referee.judge.tend`), keeps its state
(:mod:`referee.judge.store`) and runs the one serve loop (:mod:`referee.judge.serve`).
The protocol between the two is :mod:`referee.judge.door`. The core names no
transport: nothing here imports a door, mail or chat.

Exactly once: a text is marked handled only after its game file is durably written and
the answers are queued in the judge's state; a played text's reference is in its log
entry, so a message delivered or fetched again is recognised.

Nobody can stop it with a message: whatever goes wrong while one text is handled (too
large, unreadable, a bug) is logged with the reason and the next is handled. Only a
failure of the judge's surroundings (a full or read-only disk: RetryLater) stops the
pass, and a door whose server is down (DoorDown) waits alone.

The package loads its parts when they are first asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.judge.basics import Config
    from referee.judge.core import Judge
    from referee.judge.door import Door, DoorDown, Notice, Place, Said
    from referee.judge.failures import RetryLater, describe
    from referee.judge.outcome import Outcome
    from referee.judge.tend import sweep

__all__ = ["Config", "Door", "DoorDown", "Judge", "Notice", "Outcome", "Place", "RetryLater",
           "Said", "describe", "sweep"]

#: where each public name lives (the module)
_WHERE = {
    "Config": "basics", "Judge": "core", "Door": "door", "DoorDown": "door",
    "Notice": "door", "Place": "door", "Said": "door", "RetryLater": "failures",
    "describe": "failures", "Outcome": "outcome", "sweep": "tend",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module when first asked for (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = found
    return found
