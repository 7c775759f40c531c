"""Re-dealing hidden components for determinization (shared by the games' modules).

A *slot* is one place that holds a hidden component: ``(container, index)``. Re-dealing
gathers what the slots hold, sorts it (so that the result depends only on *which*
components are hidden, never on where they really lie), shuffles it with the bot's own
generator and puts it back into the same slots. Sizes of hands, stacks and piles, and the
kind of component in each slot, stay as they were: those are public.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from referee.engine.rng import Rng

__all__ = ["STREAM", "Slot", "fresh_rng", "redeal", "redeal_by_kind", "slots_of"]

Slot = tuple[list[Any], int]
STREAM = "determinize"


def slots_of(container: list[Any]) -> list[Slot]:
    """Every position of ``container`` as a slot."""
    return [(container, i) for i in range(len(container))]


def redeal(slots: list[Slot], rng: Rng) -> None:
    """Shuffle the components in ``slots`` among those slots (sorted first, then shuffled
    with ``rng``), in place."""
    pool = sorted(container[i] for container, i in slots)
    rng.shuffle(pool, STREAM)
    for (container, i), item in zip(slots, pool, strict=True):
        container[i] = item


def redeal_by_kind(slots: Iterable[Slot], kind: Callable[[Any], str], rng: Rng) -> None:
    """Re-deal separately per kind (a card back, a tile colour): a slot keeps the kind of
    component it held. Kinds are taken in sorted order so that draws are reproducible."""
    groups: dict[str, list[Slot]] = {}
    for container, i in slots:
        groups.setdefault(kind(container[i]), []).append((container, i))
    for name in sorted(groups):
        redeal(groups[name], rng)


def fresh_rng(game_rng: Rng, rng: Rng) -> Rng:
    """A generator for the determinized state: a new key drawn from the bot's ``rng`` and
    the game's counters (public: how many draws were made), so that every future draw (a
    reshuffle, the bag, dice) is re-dealt too."""
    key = rng.block(STREAM + "-key").to_bytes(32, "big")
    return Rng(key, game_rng.counters)
