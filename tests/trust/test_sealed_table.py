"""A sealed game at one table (docs/playing.md): the game master keeps the secret away
from the players' folder; a player's `status` without it exits 0 and shows the public
view the referee signed (referee/trust/publicview.py), the moves since and where their
hand is; `move` without it names `--unchecked`; a public view that is not the
referee's, of another game or another history is never shown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import ok, run
from tests.support.games import new_game, new_game_result

SEED = "0123456789abcdef0123456789abcdef"
CURRENT = ("(sealed: the board is the public view its referee signed at move {n}, in\n"
           "    g.public.signed)")


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A sealed Staufer game in the players' folder (the current folder), its secret in
    the game master's (gm/s.secret)."""
    (tmp_path / "gm").mkdir()
    (tmp_path / "players").mkdir()
    monkeypatch.chdir(tmp_path / "players")
    made = new_game_result("g.json", "staufer", "--sealed", "--secret-out",
                           tmp_path / "gm" / "s.secret", players="ann,ben,cat",
                           seed=SEED, game_id="t1")
    assert ("public view: g.public.txt; players without the secret see it with `referee "
            "status g.json`, their hands once you write their views: `referee views g.json "
            "--signers FILE` (docs/playing.md: a sealed game at one table)\n") in made.stdout
    return tmp_path


def publish(table: Path) -> None:
    """The game master writes the views again (no player has a key: the public view)."""
    (table / "gm" / "keys").write_text("")
    ok("views", "g.json", "--signers", table / "gm" / "keys", "--secret",
       table / "gm" / "s.secret")


def test_status_without_the_secret_shows_the_referees_public_view(table: Path) -> None:
    result = run("status", "g.json", "--as", "ann")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == ["The Staufer Dynasty: g.json (move 0)", "=" * 36]
    assert lines[2] == "The Staufer Dynasty - round 1"  # the board every player sees
    assert "\n".join(lines[-6:]) == (
        "Round 1: ann to choose an action (supply/deploy)\n\n" + CURRENT.format(n=0) + "\n"
        "Your hand and your legal moves are in your view, once the referee writes it\n"
        "    (`referee views g.json`): then `referee view g.ann.age`")
    assert Path("g.public.txt").read_text().splitlines() == lines[:-5]
    out = json.loads(ok("status", "g.json", "--json").stdout)
    assert (out["to_move"], out["finished"], out["secret"]) == (["ann"], False, False)
    assert out["public_view"]["moves"] == 0 and out["since_view"] == []


def test_a_move_without_the_secret_names_unchecked(table: Path) -> None:
    before = Path("g.json").read_bytes()
    result = run("move", "g.json", "--as", "ann", "supply 2.")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "error: this game is sealed and its secret is not at hand, so the move cannot be "
        "checked\n"
        "  a player without the secret appends it unchecked (a referee with the secret "
        'checks it later): referee move g.json --as ann --unchecked "supply 2"\n'
        "  give the game's secret with --secret FILE (or REFEREE_SECRET)\n")
    assert Path("g.json").read_bytes() == before


def test_moves_since_the_public_view_are_listed_and_the_turn_is_not_guessed(
        table: Path) -> None:
    ok("move", "g.json", "--as", "ann", "--unchecked", "supply 2")
    result = run("status", "g.json")
    assert result.exit_code == 0
    assert result.stdout.endswith(
        "Round 1: ann to choose an action (supply/deploy)\n\n"
        "Appended since the referee's public view of move 0, not yet checked by a\n"
        "    referee:\n"
        "   1. ann: supply 2\n\n"
        "Whose turn it is now is known once the referee, who holds the secret, has\n"
        "    checked these moves and written the views again (`referee views g.json`).\n")
    out = json.loads(ok("status", "g.json", "--json").stdout)
    assert out["to_move"] is None and out["since_view"] == [
        {"n": 1, "by": "ann", "move": "supply 2", "bot": False}]
    publish(table)
    result = run("status", "g.json")
    assert result.stdout.endswith(
        "Round 1: ben to choose an action (supply/deploy)\n\n"
        "The last moves:\n"
        "   1. ann: supply 2\n\n" + CURRENT.format(n=1) + "\n")
    assert json.loads(ok("status", "g.json", "--json").stdout)["to_move"] == ["ben"]
    Path("g.ben.age").write_bytes(b"")  # (as `views` writes it for a player with a key)
    assert ok("status", "g.json", "--as", "ben").stdout.splitlines()[-1] == (
        "Your hand and your legal moves: `referee view g.ben.age`")


def test_a_forged_public_view_is_never_shown(table: Path) -> None:
    doc = json.loads(Path("g.public.signed").read_text())
    doc["to_move"] = ["cat"]
    doc["text"] = doc["text"].replace("ann to", "cat to")
    Path("g.public.signed").write_text(json.dumps(doc))
    result = run("status", "g.json")
    assert result.exit_code == 0
    assert "cat to choose" not in result.stdout and "round 1" not in result.stdout
    assert result.stdout.endswith(
        "note: g.public.signed: its public view is not signed by the referee of this\n"
        "    game: it is forged or damaged, and not shown\n")
    assert json.loads(ok("status", "g.json", "--json").stdout)["to_move"] is None


def test_a_public_view_of_another_history_is_not_shown(table: Path) -> None:
    shutil.copy("g.json", "start.json")
    ok("move", "g.json", "--as", "ann", "--unchecked", "supply 2")
    publish(table)
    shutil.copy("start.json", "g.json")  # the file as it was, and another first move
    ok("move", "g.json", "--as", "ann", "--unchecked", "supply 3")
    result = run("status", "g.json")
    assert result.exit_code == 0
    assert "supply 2" not in result.stdout
    assert result.stdout.endswith("note: g.public.signed: its public view shows another "
                                  "history than this game file\n")


def test_without_any_public_view_status_says_who_can_tell(table: Path) -> None:
    Path("g.public.signed").unlink()
    ok("move", "g.json", "--as", "ann", "--unchecked", "supply 2")
    result = run("status", "g.json")
    assert result.exit_code == 0
    assert result.stdout == (
        "The Staufer Dynasty: g.json (move 1)\n" + "=" * 36 + "\n"
        "This game is sealed, and neither its secret nor a public view of it signed by\n"
        "    its referee is at hand here.\n\n"
        "The moves so far, not checked without the secret:\n"
        "   1. ann: supply 2\n\n"
        "The board and whose turn it is come from the referee, who holds the secret:\n"
        "    `referee views g.json` publishes them (and each player's view), `referee\n"
        "    status g.json --secret SECRET` shows them.\n")


def test_the_views_of_a_repository_are_found_and_a_folder_can_be_named(
        table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    games, views = table / "repo" / "games", table / "repo" / "views"
    games.mkdir(parents=True)
    views.mkdir()
    shutil.move("g.json", games / "g.json")
    shutil.move("g.public.signed", views / "g.public.signed")
    monkeypatch.chdir(table / "repo")
    assert "Round 1: ann to choose" in ok("status", "games/g.json").stdout
    shutil.move(views / "g.public.signed", table / "gm" / "g.public.signed")
    assert "Round 1: ann" not in ok("status", "games/g.json").stdout
    named = ok("status", "games/g.json", "--views", table / "gm").stdout
    assert "Round 1: ann to choose" in named


def test_in_german(table: Path) -> None:
    lines = ok("status", "g.json", "--as", "ann", "--lang", "de").stdout.splitlines()
    assert lines[-5:] == [
        "(versiegelt: das Brett ist die öffentliche Ansicht, die sein Schiedsrichter bei",
        "    Zug 0 signiert hat, in g.public.signed)",
        "Deine Hand und deine erlaubten Züge stehen in deiner Ansicht, sobald der",
        "    Schiedsrichter sie schreibt (`referee views g.json`): dann `referee view",
        "    g.ann.age`"]


def test_a_game_with_nonces_names_who_owes_one(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    new_game("d.json", "dynasties", "--sealed", "--nonces", "--secret-out",
             tmp_path / "away.secret", players="ann,ben,cat")
    result = run("status", "d.json")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[2:] == [
        "waiting for nonce commitments from ann, ben, cat before the first move (`referee",
        "    nonce FILE --as PLAYER`)"]


def test_views_keep_and_restore_the_signed_public_view(table: Path) -> None:
    """`views` leaves a game whose files are as it wrote them, and writes the signed
    public view again when it is gone or edited."""
    publish(table)
    signed = Path("g.public.signed").read_bytes()
    keys = table / "gm" / "keys"
    again = ok("views", "g.json", "--signers", keys, "--secret", table / "gm" / "s.secret")
    assert "  public: g.public.txt unchanged\n" in again.stdout
    Path("g.public.signed").write_text("{}")
    assert "note: g.public.signed: its public view is not one the referee writes" in ok(
        "status", "g.json").stdout.replace("\n    ", " ")
    publish(table)
    assert Path("g.public.signed").read_bytes() == signed
