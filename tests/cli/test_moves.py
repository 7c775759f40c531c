"""`referee move FILE --as P MOVE [MOVE ...]`: several decisions in one command, played in
order through the one write core, stopping at the first refused one; and a move read as
kindly as mail and chat read it (referee/play/reading.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.play.lines import command_line_moves
from tests.conftest import run
from tests.support.games import new_game

# Seed "x": ann opens; `deploy milano 4` asks her which figures to seat.
SEAT_PROMPT = "Round 1: ann to choose the figures for the Move/Deploy action (seat ...)\n"
SEAT_LEGAL = ("legal moves for ann (6; a,b = one of the values):\n"
              "  seat: envoy nobles aachen,augsburg,milano,nijmegen,strasbourg bonus\n"
              "    noble bonus\n")


@pytest.fixture
def staufer(tmp_path: Path) -> Path:
    path = tmp_path / "g.json"
    new_game(path, "staufer", players="ann,ben,cat", seed="x")
    return path


def moves_of(path: Path) -> list[str]:
    return [json.dumps(e["move"], sort_keys=True) for e in json.loads(path.read_text())["log"]]


@pytest.mark.parametrize(("words", "moves"), [
    (["deploy", "milano", "4"], ["deploy milano 4"]),
    (["deploy milano 4", "seat envoy"], ["deploy milano 4", "seat envoy"]),
    (["deploy milano 4", "seat", "envoy"], ["deploy milano 4", "seat envoy"]),
    (["supply", "2", "+envoy", "pass 3 keep 1"], ["supply 2 +envoy", "pass 3 keep 1"]),
    (["supply 2."], ["supply 2"]),
    (["supply", "2."], ["supply 2"]),
    (['"Supply 2"', "`seat noble`!"], ["Supply 2", "seat noble"]),
    (["  ", "."], []),
])
def test_the_words_of_a_command_line_are_read_as_moves(words: list[str],
                                                       moves: list[str]) -> None:
    assert command_line_moves(words) == moves


def test_several_quoted_decisions_are_played_in_order(staufer: Path) -> None:
    result = run("move", staufer, "--as", "ann", "deploy milano 4", "seat noble bonus")
    assert result.exit_code == 0, result.output
    assert result.output == ("move 1: ann: deploy milano 4\nmove 2: ann: seat noble bonus\n"
                             "Round 1: ben to choose an action (supply/deploy)\n")
    assert len(moves_of(staufer)) == 2


def test_unquoted_words_stay_one_move(staufer: Path) -> None:
    result = run("move", staufer, "--as", "ann", "deploy", "milano", "4")
    assert result.exit_code == 0, result.output
    assert result.output == "move 1: ann: deploy milano 4\n" + SEAT_PROMPT + SEAT_LEGAL
    result = run("move", staufer, "--as", "ann", "seat", "noble", "bonus.")
    assert result.output.startswith("move 2: ann: seat noble bonus\n")


def test_a_refused_move_stops_the_rest_and_those_before_it_stand(staufer: Path) -> None:
    result = run("move", staufer, "--as", "ann", "deploy milano 4", "seat envoy", "supply 1")
    assert result.exit_code == 1
    assert result.stdout == "move 1: ann: deploy milano 4\n" + SEAT_PROMPT + SEAT_LEGAL
    assert result.stderr == (
        "error: your move 2 of 3 was not played: 'seat envoy' is not legal: your Court does "
        "not hold those figures for this payment\n"
        "  not played either, after it: supply 1\n"
        "closest legal moves:\n"
        "  seat noble bonus\n"
        "  seat envoy nobles milano bonus\n"
        "  seat envoy nobles aachen bonus\n"
        "  seat envoy nobles nijmegen bonus\n"
        "  seat envoy nobles augsburg bonus\n")
    assert len(moves_of(staufer)) == 1


def test_a_refused_first_move_writes_nothing(staufer: Path) -> None:
    before = staufer.read_bytes()
    result = run("move", staufer, "--as", "ben", "supply 2", "deploy milano 4")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "error: your move 1 of 2 was not played: it is not ben's turn: Round 1: ann to "
        "choose an action (supply/deploy)\n"
        "  waiting for: ann\n"
        "  not played either, after it: deploy milano 4\n")
    assert staufer.read_bytes() == before


def test_a_refusal_after_played_moves_as_json(staufer: Path) -> None:
    result = run("move", staufer, "--as", "ann", "--json", "deploy milano 4", "seat envoy")
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert out["accepted_moves"] == [{"n": 1, "text": "deploy milano 4"}]
    assert out["refused"]["error"] == "IllegalMove"
    assert out["refused"]["message"].startswith("your move 2 of 2 was not played: ")
    assert out["to_move"] == ["ann"] and out["legal"][0].startswith("seat ")


@pytest.mark.parametrize("words", [["supply 2."], ["supply", "2."], ['"supply 2"'],
                                   ["SUPPLY 2"], ["Supply", "2!"]])
def test_a_move_is_read_as_kindly_as_mail_reads_it(staufer: Path, words: list[str]) -> None:
    result = run("move", staufer, "--as", "ann", *words)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("move 1: ann: supply 2\n")


def test_dynasties_reads_capitals_and_a_trailing_period(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    new_game(path, "dynasties", players="ann,ben,cat", seed="x")
    result = run("move", path, "--as", "ann", "Pass 3 Keep 1.")
    assert result.output == ("move 1: ann: pass 3 keep 1\n"
                             "round 1: ben to play a card, sit out or pass\n")


def test_several_moves_of_a_sealed_game_appended_unchecked(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    new_game(path, "staufer", "--sealed", "--secret-out", tmp_path / "away.secret",
             players="ann,ben,cat")
    result = run("move", path, "--as", "ann", "--unchecked", "deploy milano 4", "seat noble.",
                 "x y")
    assert result.exit_code == 1
    assert result.stdout == (
        "move 1: ann: deploy milano 4 (appended UNCHECKED: only a referee with the secret "
        "can check it)\n"
        "move 2: ann: seat noble (appended UNCHECKED: only a referee with the secret can "
        "check it)\n")
    assert result.stderr.startswith(
        "error: your move 3 of 3 was not played: unknown move 'x' in 'x y'\n")
    assert len(moves_of(path)) == 2
