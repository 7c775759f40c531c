"""`referee rematch` through the CLI: seats rotated, same people, options and header
fields, a fresh seed (sealed stays sealed), the link to the old game, an unfinished game
refused, and bad input that changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.ledger import gamefile
from tests.conftest import ok, run
from tests.support.games import new_game

PLAYERS = "ann=Ann A <ann@example.org>,ben=Ben B <ben@example.org>,cat"


def finish(path: Path, *extra: object) -> None:
    """Play the toy game (a pile of 5) to its end: ann 2, ben 2, cat 1 takes the last."""
    for player, n in (("ann", 2), ("ben", 2), ("cat", 1)):
        ok("move", path, "--as", player, f"take {n}", *extra)


def header(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    return {k: v for k, v in data.items() if k != "log"}


@pytest.fixture
def done(tmp_path: Path) -> Path:
    path = tmp_path / "g1.json"
    new_game(path, "toy", "--option", "pile=5", "--github", "ann=annhub", players=PLAYERS,
             game_id="toy-1")
    finish(path)
    return path


def test_rematch_rotates_seats_keeps_people_and_options(done: Path, tmp_path: Path) -> None:
    new = tmp_path / "g2.json"
    result = ok("rematch", done, new, "--id", "toy-2")
    assert "seats rotated by one: ann moved from the first seat to the last" in result.output
    assert "a rematch of toy-1" in result.output
    old, fresh = header(done), header(new)
    assert [p["id"] for p in fresh["players"]] == ["ben", "cat", "ann"]
    by_id = {p["id"]: p for p in fresh["players"]}
    assert by_id["ann"] == {"id": "ann", "name": "Ann A", "email": "ann@example.org",
                            "github": "annhub"}
    assert by_id["cat"] == next(p for p in old["players"] if p["id"] == "cat")
    assert fresh["options"] == old["options"] == {"pile": "5"}
    assert fresh["id"] == "toy-2"
    assert fresh["rematch_of"] == {"id": "toy-1", "header": gamefile.header_hash(
        json.loads(done.read_text()))}
    assert fresh["rng"]["seed"] != old["rng"]["seed"]
    assert json.loads(new.read_text())["log"] == []
    ok("check", new)
    assert "ben to take" in ok("status", new).output


def test_rematch_json_and_header_fields_copied(done: Path, tmp_path: Path) -> None:
    out = json.loads(ok("rematch", done, tmp_path / "g2.json", "--json").output)
    assert out["players"] == ["ben", "cat", "ann"]
    assert out["moved_to_last"] == "ann"
    assert out["copied"] == []
    assert out["rematch_of"]["id"] == "toy-1"
    assert out["id"].startswith("toy-") and out["id"] != "toy-1"


def test_rematch_of_rematch_rotates_again(done: Path, tmp_path: Path) -> None:
    second, third = tmp_path / "g2.json", tmp_path / "g3.json"
    ok("rematch", done, second)
    for player, n in (("ben", 2), ("cat", 2), ("ann", 1)):
        ok("move", second, "--as", player, f"take {n}")
    ok("rematch", second, third)
    assert [p["id"] for p in header(third)["players"]] == ["cat", "ann", "ben"]
    assert header(third)["rematch_of"]["id"] == header(second)["id"]


def test_sealed_rematch_stays_sealed(tmp_path: Path) -> None:
    old = tmp_path / "s1.json"
    new_game(old, "toy", "--option", "pile=5", "--sealed", players=PLAYERS)
    finish(old)
    new = tmp_path / "s2.json"
    result = ok("rematch", old, new)
    assert "sealed: the seed is in" in result.output
    rng = header(new)["rng"]
    assert "seed" not in rng and rng["commitment"] != header(old)["rng"]["commitment"]
    assert (tmp_path / "s2.json.secret").exists()
    ok("move", new, "--as", "ben", "take 1")
    assert "verified" in ok("check", new, "--json").output


def test_sealed_rematch_with_repository_secret(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_SECRET", "3f9a0c7e5b1d2468" * 4)
    old = tmp_path / "r1.json"
    new_game(old, "toy", "--option", "pile=5", "--sealed", players=PLAYERS)
    finish(old)
    new = tmp_path / "r2.json"
    assert "derived from the repository secret" in ok("rematch", old, new).output
    assert not list(tmp_path.glob("*.secret"))
    assert "commitment" in header(new)["rng"]
    ok("check", new)


def test_sealed_without_secret_refused_unless_forced(tmp_path: Path) -> None:
    old = tmp_path / "s1.json"
    new_game(old, "toy", "--option", "pile=5", "--sealed", players=PLAYERS)
    finish(old)
    (tmp_path / "s1.json.secret").rename(tmp_path / "kept.secret")
    result = run("rematch", old, tmp_path / "s2.json")
    assert result.exit_code == 1, result.output
    assert "without its secret" in result.output
    ok("rematch", old, tmp_path / "s2.json", "--secret", tmp_path / "kept.secret")
    ok("rematch", old, tmp_path / "s3.json", "--force")
    assert "commitment" in header(tmp_path / "s3.json")["rng"]


def test_bot_seats_and_nonces_carry_over(tmp_path: Path) -> None:
    old = tmp_path / "b1.json"
    new_game(old, "staufer", "--nonces", players="ann,ben,bot:cat=greedy")
    new = tmp_path / "b2.json"
    ok("rematch", old, new, "--force")
    fresh = header(new)
    assert [p["id"] for p in fresh["players"]] == ["ben", "cat", "ann"]
    assert fresh["players"][1]["bot"] == {"level": "greedy"}
    assert "bot" not in fresh["players"][0] and "bot" not in fresh["players"][2]
    assert fresh["rng"]["nonce_commitments"] == {} and fresh["rng"]["nonces"] == {}


def test_unfinished_refused_one_message_nothing_written(tmp_path: Path) -> None:
    old = tmp_path / "u1.json"
    new_game(old, "toy", players=PLAYERS)
    ok("move", old, "--as", "ann", "take 1")
    before = old.read_bytes()
    result = run("rematch", old, tmp_path / "u2.json")
    assert result.exit_code == 1
    assert "not finished" in result.output and "--force" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "u2.json").exists()
    assert old.read_bytes() == before
    ok("rematch", old, tmp_path / "u2.json", "--force")


@pytest.mark.parametrize("case", ["exists", "same-id", "bad-id", "missing", "broken",
                                  "illegal"])
def test_bad_input_changes_nothing(done: Path, tmp_path: Path, case: str) -> None:
    target = tmp_path / "g2.json"
    args: list[object] = ["rematch", done, target]
    if case == "exists":
        target.write_text("keep me")
    elif case == "same-id":
        args += ["--id", "toy-1"]
    elif case == "bad-id":
        args += ["--id", "../x"]
    elif case == "missing":
        args[1] = tmp_path / "nope.json"
    elif case == "broken":
        bad = tmp_path / "bad.json"
        bad.write_text(done.read_text().replace('"take"', '"tike"', 1))
        args[1] = bad
    else:  # an illegal move, its hash chain recomputed: refused even with --force
        data = json.loads(done.read_text())
        data["log"][0]["move"]["n"] = 4
        for i, entry in enumerate(data["log"]):
            entry["prev"] = (gamefile.header_hash(data) if i == 0
                             else gamefile.entry_hash(data["log"][i - 1]))
        bad = tmp_path / "bad.json"
        bad.write_text(gamefile.dumps(data))
        args[1:2] = [bad]
        args.append("--force")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    result = run(*args)
    assert result.exit_code in (1, 2), result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) <= 3, result.output
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_header_fields_of_later_releases_are_copied(done: Path, tmp_path: Path) -> None:
    """Whatever the header carries beyond a new game's own fields (a time control) is
    copied as it stands: here a field the format knows, added to the old header."""
    from referee.play.rematch import new_header

    gf = gamefile.read(done)
    gf.data["clock"] = {"bank": 86400}
    data, copied = new_header(gf, "toy-9")
    assert copied == ["clock"] and data["clock"] == {"bank": 86400}
    assert list(data)[-1] == "log"


# --- by mail: the judge starts the rematch once every human player has agreed ---------


def judge_game(tmp_path: Path, players: str | None = None):  # type: ignore[no-untyped-def]
    from tests.judge.support import reply
    from tests.judge.test_maildir_loop import PLAYERS as JUDGE_PLAYERS
    from tests.judge.test_maildir_loop import Setup

    setup = Setup(tmp_path, players=players or JUDGE_PLAYERS, extra=("--option", "pile=5"))
    setup.judge()
    for player, n in (("ann", 2), ("ben", 2), ("cat", 1)):
        setup.send(reply(setup.latest(player), f"take {n}"))
    setup.new_mail()
    return setup


def test_rematch_by_mail_after_everyone_agreed(tmp_path: Path) -> None:
    from tests.judge.support import body_text, reply

    setup = judge_game(tmp_path)
    out = setup.send(reply(setup.latest("ben"), "rematch"))
    assert sorted(m["X-Referee-Player"] for m in out) == ["ann", "ben", "cat"]
    for msg in out:
        assert "Rematch: ben agreed; waiting for ann, cat." in body_text(msg)
    ann = next(m for m in out if m["X-Referee-Player"] == "ann")
    assert "Reply `rematch` to this mail to agree." in body_text(ann)
    log = json.loads(setup.path.read_text())["log"]
    assert log[-1]["meta"] == {"kind": "rematch", "player": "ben"} and log[-1]["by"] == "ben"
    # the same agreement again records nothing new
    setup.send(reply(setup.latest("ben"), "rematch"))
    assert len(json.loads(setup.path.read_text())["log"]) == len(log)
    out = setup.send(reply(setup.latest("ann"), "rematch"))
    assert "Rematch: ben, ann agreed; waiting for cat." in body_text(out[0])
    assert not (setup.games / "toy-1-r2.json").exists()
    out = setup.send(reply(setup.latest("cat"), "rematch"))
    new = setup.games / "toy-1-r2.json"
    fresh = header(new)
    assert [p["id"] for p in fresh["players"]] == ["ben", "cat", "ann"]
    assert fresh["rematch_of"]["id"] == "toy-1" and "commitment" in fresh["rng"]
    assert (setup.games / "toy-1-r2.json.secret").exists()
    starts = [m for m in out if str(m["Subject"]).startswith(f"[referee] {fresh['id']} ")]
    assert sorted(m["X-Referee-Player"] for m in starts) == ["ann", "ben", "cat"]
    ben = next(m for m in starts if m["X-Referee-Player"] == "ben")
    assert body_text(ben).splitlines()[0].startswith("Your turn, ben")
    cat = next(m for m in out if m["X-Referee-Player"] == "cat" and m not in starts)
    assert "Everyone agreed: the rematch has started (toy-1-r2.json)" in body_text(cat)


def test_rematch_by_mail_refused_before_the_end(tmp_path: Path) -> None:
    from tests.judge.support import body_text, reply
    from tests.judge.test_maildir_loop import Setup

    setup = Setup(tmp_path)
    setup.judge()
    setup.new_mail()
    before = setup.path.read_bytes()
    out = setup.send(reply(setup.latest("ben"), "rematch"))
    assert [m["X-Referee-Player"] for m in out] == ["ben"]
    assert "`rematch` not done: the game is not finished yet." in body_text(out[0])
    assert setup.path.read_bytes() == before


def test_a_forged_rematch_record_fails_the_replay(done: Path) -> None:
    """A player may write only their own agreement: one for another player (a file
    edited by hand, its chain recomputed) is refused on every read."""
    data = json.loads(done.read_text())
    entry = {"n": len(data["log"]) + 1, "by": "ann",
             "meta": {"kind": "rematch", "player": "ben"}, "prev": gamefile.next_prev(data)}
    data["log"].append(entry)
    done.write_text(gamefile.dumps(data))
    result = run("check", done)
    assert result.exit_code == 1 and "only the game master may write it" in result.output


def test_people_as_they_stand_at_the_end(tmp_path: Path) -> None:
    """A replaced player's successor (name, address, no inherited GitHub login) and a
    seat handed to a bot during the game carry over; a seat given back does not."""
    from referee.judge import meta

    old = tmp_path / "p1.json"
    new_game(old, "staufer", "--github", "ben=benhub", players=PLAYERS)
    meta.append(old, "gm", {"kind": "replace", "player": "ben", "name": "Dan D",
                            "email": "dan@example.org"})
    ok("seat", old, "cat", "--bot", "greedy", "--as", "gm")
    ok("seat", old, "ann", "--bot", "random", "--as", "gm")
    ok("seat", old, "ann", "--human", "--as", "gm")
    new = tmp_path / "p2.json"
    ok("rematch", old, new, "--force")
    by_id = {p["id"]: p for p in header(new)["players"]}
    assert by_id["ben"] == {"id": "ben", "name": "Dan D", "email": "dan@example.org"}
    assert by_id["cat"]["bot"] == {"level": "greedy"}
    assert "bot" not in by_id["ann"] and by_id["ann"]["email"] == "ann@example.org"


def test_bot_seats_need_no_agreement_and_paths_count_up(tmp_path: Path) -> None:
    from referee.play.rematch import humans, next_path, waiting_for

    path = tmp_path / "h.json"
    new_game(path, "staufer", players="ann,ben,bot:cat=greedy")
    data = json.loads(path.read_text())
    assert humans(data) == ["ann", "ben"]
    assert waiting_for(data, ["ben"]) == ["ann"] and waiting_for(data, ["ben", "ann"]) == []
    assert next_path(tmp_path / "g.json").name == "g-r2.json"
    assert next_path(tmp_path / "g-r2.json").name == "g-r3.json"
    assert next_path(tmp_path / "g-r9.json").name == "g-r10.json"
