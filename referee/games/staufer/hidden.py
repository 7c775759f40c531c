"""Hidden state of The Staufer Dynasty, item by item (for leak tests), and whether a move
touched it (for undo).

Hidden: each player's contract cards (from the others, until the end of the game), the
contracts left in the box and the face-down chest stack (from everyone, always). The
stack's contents follow from the chests on view, so what it hides is its order: which
chest is drawn next. Chests with the same label (``purple``, ``turquoise keep``) cannot
be told apart, so a leaked single label cannot be told from a public one by its text;
a leaked id or a run of the next labels in draw order can. A contract is found by its
id and by its text in English and in German.
"""

from __future__ import annotations

from typing import Any

from referee import i18n
from referee.engine import HiddenItem

from .state import State
from .views import chest_label, describe_contract

ORDER_RUN = 6  # labels of the next draws that make one "stack order" token
ORDER_MIN = 4  # fewer chests left: no order token (a short run appears by chance)


def _contract(state: State, cid: str, kind: str, where: str, owner: str | None
              ) -> HiddenItem:
    text = describe_contract(state.data, cid, len(state.players))
    with i18n.language("de"):
        german = describe_contract(state.data, cid, len(state.players))
    return HiddenItem(kind, where, (cid, text, german), owner)


def _stack(state: State) -> list[HiddenItem]:
    top_first = list(reversed(state.stack))  # the top is the last element
    items = [HiddenItem("chest", f"the chest stack, no. {i + 1} from the top", (cid,))
             for i, cid in enumerate(top_first)]
    if len(top_first) >= ORDER_MIN:
        run = [chest_label(state.data, c) for c in top_first[:ORDER_RUN]]
        items.append(HiddenItem(
            "draw", f"the order of the chest stack (next {len(run)} draws)",
            (", ".join(run), ", ".join(reversed(run))), None, distinct=False))
    return items


def hidden_items(state: State, viewer: str | None) -> list[HiddenItem]:
    items: list[HiddenItem] = []
    if not state.finished:
        for p, who in enumerate(state.players):
            if who != viewer:
                items += [_contract(state, c, "contract", f"{who}'s contracts", who)
                          for c in state.contracts[p]]
    items += [_contract(state, c, "contract", "the contracts left in the box", None)
              for c in state.unused_contracts]
    return items + _stack(state)


def _secret(state: State) -> tuple[Any, ...]:
    hands = None if state.finished else state.contracts
    return hands, state.stack, state.unused_contracts


def reveals(before: State, after: State) -> bool:
    """A contract dealt or opened (the game ended), a chest drawn from the stack."""
    return _secret(before) != _secret(after)
