"""Hidden choices stay hidden: the card kept when passing and the scoring card kept out of
those drawn are private fields; public texts and rule explanations never show a hidden
card (Passing: 'discard all action cards but one'; hands and drawn cards are secret)."""

from __future__ import annotations

import msgspec
import pytest

from referee.engine import Match, resolve_move
from referee.engine.rng import Rng
from referee.errors import AmbiguousMove, IllegalMove
from referee.games.dynasties import GAME
from referee.games.dynasties import tasks as T
from referee.games.dynasties.moves import Done, KeepScoring, Pass, Score, Trade
from tests.dynasties.helpers import idx, new_game, turn_of
from tests.dynasties.hidden import named_in, positions, redeal_secrets

D = GAME.data  # the component data of the current game


@pytest.mark.parametrize(("move", "private", "public"), [
    (Pass(2, 0, 22), ("keep",), "pass 2, kept a card"),
    (Pass(0, 0, 22), ("keep",), "pass, kept a card"),
    (Pass(1, 27, 22), ("keep",), "pass with 27, kept a card"),
    (Pass(0, 0, 0), (), "pass"),
    (Pass(3, 0, 0), (), "pass 3"),
    (KeepScoring("y20"), ("card",), "kept a scoring card"),
    (Score("y20"), (), "score y20"),
    (Trade(7, 2), (), "trade 2 with 7"),
    (Done(), (), "done"),
])
def test_private_fields_and_public_text(move, private, public) -> None:
    assert GAME.private_fields(move) == private
    assert GAME.public_text(move) == public


def test_public_text_never_depends_on_a_private_field() -> None:
    """Over random games: changing a private field never changes the public text, and a
    move without private fields reads the same in public as in the log."""
    seen = set()
    for n in (3, 4, 5):
        match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"hidden-{n}")
        rng = Rng(f"hidden-moves-{n}")
        while not GAME.finished(match.state):
            player = GAME.to_move(match.state)[0]
            move = rng.choice(GAME.legal_moves(match.state, player), "playout")
            private = GAME.private_fields(move)
            if not private:
                assert GAME.public_text(move) == GAME.format_move(move)
            for field in private:
                seen.add(type(move).__name__)
                other = move.keep % 34 + 1 if isinstance(move, Pass) else next(
                    k for k in D.scoring if k != move.card)
                changed = msgspec.structs.replace(move, **{field: other})
                assert GAME.public_text(changed) == GAME.public_text(move)
                assert str(getattr(move, field)) not in GAME.public_text(move).split()
            match.play(player, move)
    assert seen == {"Pass", "KeepScoring"}


def test_card_not_held_does_not_list_the_hand() -> None:
    s = new_game()
    turn_of(s, "blue")
    hand = s.players[0].hand
    missing = next(n for n in range(1, 35) if n not in hand)
    with pytest.raises(IllegalMove) as err:
        resolve_move(GAME, s, "blue", f"trade 1 with {missing}")
    assert str(err.value).startswith(
        f"'trade 1 with {missing}' is not legal: you do not hold card {missing} "
        "(play a card from your hand)")
    reason = GAME.why_illegal(s, "blue", Trade(missing, 1))
    assert reason == f"you do not hold card {missing} (play a card from your hand)"


def test_pass_keeping_a_card_not_held_does_not_list_the_hand() -> None:
    s = new_game()
    turn_of(s, "blue")
    missing = next(n for n in range(1, 35) if n not in s.players[0].hand)
    assert GAME.why_illegal(s, "blue", Pass(0, 0, missing)) == (
        "Passing: you keep exactly one of your remaining action cards (name one you hold "
        "and do not play)")


def test_keeping_a_scoring_card_not_drawn_shows_no_drawn_card() -> None:
    s = new_game()
    blue = s.players[idx(s, "blue")]
    blue.looking = [s.yellow.pop(0), s.yellow.pop(0)]
    s.queue = [T.KeepScoring(player=0)]
    other = next(k for k in D.yellow if k not in blue.looking)
    reason = GAME.why_illegal(s, "blue", KeepScoring(other))
    assert not any(card in reason for card in blue.looking + blue.scoring)
    assert reason == "keep one of the scoring cards you drew (see your own status for the " \
        "options)"


def test_why_illegal_never_depends_on_hidden_cards() -> None:
    """At real positions of every kind, re-dealing all hidden cards and tiles (except those
    the move names) never changes an explanation: it cannot show them."""
    candidates = [Trade(c, 1) for c in range(1, 35, 3)] + [Pass(s, 0, k) for s in (0, 2)
                                                            for k in range(0, 35, 5)]
    candidates += [KeepScoring(k) for k in D.scoring][::3] + [Score(k) for k in D.scoring][1::3]
    candidates.append(Done())
    checked = 0
    for kind, state in positions(4, "why-hidden").items():
        for move in candidates:
            other = redeal_secrets(state, named_in(move))
            for player in [pl.id for pl in state.players]:
                assert GAME.why_illegal(state, player, move) == \
                    GAME.why_illegal(other, player, move), (kind, move)
                checked += 1
    assert checked > 1000


def test_ambiguous_pass_lists_no_hand_card() -> None:
    """'pass' fits one move per card that could be kept; the hint shows them as others
    would read them, so an error message in a public log shows no card of the hand."""
    s = new_game()
    turn_of(s, "blue")
    with pytest.raises(AmbiguousMove) as err:
        resolve_move(GAME, s, "blue", "pass")
    assert err.value.legal == ["pass, kept a card"]
    assert "say which (keep)" in str(err.value)
