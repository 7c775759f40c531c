"""German mails from the judge, per recipient: `lang de` by mail, then a whole game over
Maildir with one German and one English player: each gets mails only in their language,
and the English player's mails are what they would be without the German one."""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from referee import i18n
from referee.judge import text
from tests import toygame
from tests.i18n_check import english_sentences
from tests.judge.support import body_text, reply, wrapped
from tests.judge.test_maildir_loop import Setup

PLAYERS = "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>"


@pytest.fixture(autouse=True)
def toy_in_german(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy game's own words in German when German is asked for, as a translated game
    gives them (the game's words are its package's; the judge only sets the language)."""
    prompt, render = toygame.ToyCore.prompt, toygame.ToyCore.render
    why = toygame.ToyGame.why_illegal

    def de_prompt(self: Any, state: Any) -> str:
        if i18n.current() != "de":
            return prompt(self, state)
        if state.winner:
            return f"Spielende: {state.winner} gewinnt"
        return f"{state.players[state.turn]} nimmt vom Stapel mit {state.pile}"

    def de_render(self: Any, state: Any, viewer: str | None, width: int = 80) -> str:
        if i18n.current() != "de":
            return render(self, state, viewer, width)
        out = f"Stapel: {state.pile}"
        return out + (f"\ndeine Karte: {state.cards[viewer]}" if viewer else "")

    def de_why(self: Any, state: Any, player: str, move: Any) -> str:
        if i18n.current() != "de":
            return why(self, state, player, move)
        return f"nimm 1 bis 3, höchstens die {state.pile} im Stapel"

    monkeypatch.setattr(toygame.ToyGame, "why_illegal", de_why)
    monkeypatch.setattr(toygame.ToyCore, "prompt", de_prompt)
    monkeypatch.setattr(toygame.ToyCore, "render", de_render)


def mine(setup: Setup, messages: list[EmailMessage], pid: str) -> list[str]:
    return [body_text(m) for m in messages if m["X-Referee-Player"] == pid]


def play(tmp_path: Path, lang: str) -> tuple[Setup, dict[str, list[str]]]:
    """A whole toy game by mail; ann first sends ``lang LANG``; ann asks for help and
    sends an illegal move, ben says something; each player's mail bodies in order."""
    tmp_path.mkdir()
    setup = Setup(tmp_path, players=PLAYERS, extra=("--option", "pile=5"))
    setup.judge()
    setup.send(reply(setup.latest("ann"), f"lang {lang}"))
    setup.send(reply(setup.latest("ann"), "help"))
    setup.send(reply(setup.latest("ann"), "take 9"))
    setup.send(reply(setup.latest("ben"), "say good luck"))
    for _ in range(10):
        data = json.loads(setup.path.read_text())
        if any("move" in e for e in data["log"][-1:]) and \
                body_text(setup.latest("ann")).startswith(("Game over", "Spielende")):
            break
        waiting = "ann" if sum("move" in e for e in data["log"]) % 2 == 0 else "ben"
        setup.send(reply(setup.latest(waiting), "take 1"))
    sent = setup.sent()
    return setup, {pid: mine(setup, sent, pid) for pid in ("ann", "ben")}


def test_a_german_and_an_english_player_each_read_their_own_language(
        tmp_path: Path) -> None:
    setup, de = play(tmp_path / "de", "de")
    _, en = play(tmp_path / "en", "en")
    log = json.loads(setup.path.read_text())["log"]
    assert log[0]["meta"] == {"kind": "lang", "player": "ann", "lang": "de"}
    ann = de["ann"]
    assert ann[0].startswith("Your turn, ann:")  # the start: before `lang de`
    answer = next(b for b in ann if "Deine Mails sind jetzt auf Deutsch." in b)
    assert answer.startswith("Du bist am Zug, ann: ann nimmt vom Stapel mit 5\n")
    assert "Deine Mails sind jetzt auf Deutsch." in answer
    assert "Deine erlaubten Züge, nach Art:\n  take: 1, 2, 3" in answer
    assert "Befehle statt eines Zugs: status, help, undo, nonce WÖRTER, say TEXT." in answer
    assert any("  lang de|en        die Sprache deiner Mails" in b for b in ann)
    assert any("Zeile 1 `take 9` wurde nicht angenommen:" in b for b in ann)
    said = next(b for b in ann if b.startswith("ben sagt: good luck"))
    assert "(Eine Nachricht eines Mitspielers" in said
    assert ann[-1].startswith("Spielende: ") and "Schlusswertung:" in ann[-1]
    assert "Seit deiner letzten Mail:" in ann[-1] and "spielte: take 1" in ann[-1]
    for body in ann[1:]:
        # the engine's frame of an illegal move is the core's catalog (de-core's)
        body = body.replace("'take 9' is not legal: ", "")
        plan_notation = ("if", "then")
        assert english_sentences(body, ignore=("good", "luck", *plan_notation)) == [], body
        assert wrapped(body, text.WIDTH), body
    # the English player: the same mails as beside an English ann, word for word
    assert de["ben"] == [b.replace("lang en", "lang de") for b in en["ben"]]
    assert de["ben"] and any(english_sentences(b) for b in de["ben"])  # (it sees English)
    # and the English ann read English all along
    answer = next(b for b in en["ann"] if "Your mails are now in English." in b)
    assert answer.startswith("Your turn, ann: ann to take from a pile of 5\n")


def test_lang_from_the_wrong_address_is_refused(tmp_path: Path) -> None:
    setup = Setup(tmp_path, players=PLAYERS)
    setup.judge()
    setup.new_mail()
    out = setup.send(reply(setup.latest("ann"), "lang de", sender="Eve <eve@evil.example>"))
    assert [str(m["To"]) for m in out] == ["eve@evil.example"]
    assert body_text(out[0]).startswith("Not accepted: this address (eve@evil.example) is "
                                        "not registered for ann")
    assert json.loads(setup.path.read_text())["log"] == []  # nothing recorded


def test_a_bad_language_is_answered_in_the_old_one(tmp_path: Path) -> None:
    setup = Setup(tmp_path, players=PLAYERS)
    setup.judge()
    setup.new_mail()
    out = setup.send(reply(setup.latest("ann"), "lang klingon"))
    assert "`lang` not done: lang: unknown language 'klingon'; languages: en (English), " \
        "de (Deutsch)" in " ".join(body_text(out[0]).split())
    out = setup.send(reply(setup.latest("ann"), "sprache deutsch"))
    assert any("Deine Mails sind jetzt auf Deutsch." in body_text(m) for m in out)
    out = setup.send(reply(setup.latest("ann"), "sprache englisch"))
    assert any("Your mails are now in English." in body_text(m) for m in out)
    kinds = [e["meta"]["lang"] for e in json.loads(setup.path.read_text())["log"]]
    assert kinds == ["de", "en"]


def test_the_say_footer_fits_78_columns(tmp_path: Path) -> None:
    for lang in ("en", "de"):
        with i18n.language(lang):
            relayed = text.say_text("ann", "x" * 200)
        assert all(len(line) <= 78 for line in relayed.splitlines())


def test_a_move_before_the_nonces_is_answered_in_mail_words(tmp_path: Path) -> None:
    setup = Setup(tmp_path, players=PLAYERS, extra=("--nonces",))
    setup.judge()
    assert "reply: nonce WORDS;" in body_text(setup.latest("ann"))
    setup.new_mail()
    out = setup.send(reply(setup.latest("ann"), "take 1"))
    said = " ".join(body_text(out[0]).split())
    assert "Not played: the game starts once every player has sent a nonce: reply `nonce " \
        "WORDS` (still missing: ann, ben)" in said
    assert "referee nonce" not in said and "--as" not in said


@pytest.mark.parametrize("example", ["staufer-3p", "dynasties-3p"])
def test_the_game_over_mail_has_one_final_scoring(example: str) -> None:
    from referee.ledger import gamefile, replay, roster

    gf = gamefile.read(Path(__file__).parents[2] / "examples" / f"{example}.json")
    match = replay.replay(gf, None)
    body = text.body(gf, match, None, gf.players[0], None, roster.settings(gf.data))
    assert body.count("Final scoring") == 1  # the game's own, on its board
    ranking = body.split("Ranking (total points):\n", 1)[1].splitlines()
    scores = match.game.scores(match.state)
    winner = match.game.ranking(match.state)[0][0]
    assert ranking[0] == f"  1. {winner} {scores[winner]} points"
