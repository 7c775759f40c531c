"""Bot seats in a players' repository (`referee check --since REV`): a bot seat's new
move is accepted from anybody only if it is exactly the move the seat's bot chooses
there (bots are reproducible); nobody slips their own choice in as the bot's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import msgspec
import pytest
from click.testing import Result

from referee.bots.players import seat_move
from referee.git import history
from referee.ledger import gamefile, replay, seats, secret
from tests.conftest import run
from tests.support.games import new_game


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    new_game(tmp_path / "g.json", "staufer", players="ann,bot:ben=greedy,cat", seed="git-bots")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "new game")
    return tmp_path


def check(repo: Path, *args: str) -> Result:
    return run("check", repo / "g.json", "--since", "HEAD", *args)


def rewrite(path: Path, log: list[dict[str, object]]) -> dict[str, object]:
    """The game file with ``log`` (entries re-chained as a forger would)."""
    data = json.loads(path.read_text())
    data["log"] = []
    for entry in log:
        fields = {k: v for k, v in entry.items() if k not in ("prev", "at", "mac")}
        gamefile.append_raw(data, fields)
    path.write_text(gamefile.dumps(data))
    return data


def test_honest_bot_moves_pass_whoever_added_them(repo: Path) -> None:
    assert run("move", repo / "g.json", "--as", "ann", "supply 2").exit_code == 0
    log = gamefile.read(repo / "g.json").log
    assert [e["by"] for e in log[:2]] == ["ann", "ben"]  # ann's move, then ben's bot
    result = check(repo, "--by", "ann")
    assert result.exit_code == 0, result.output
    assert f"({len(log)} new moves)" in result.output


def test_a_move_slipped_in_as_the_bots_is_refused(repo: Path) -> None:
    path = repo / "g.json"
    run("move", path, "--as", "ann", "supply 2")
    gf = gamefile.read(path)
    bot_entry = gf.log[1]
    assert bot_entry["by"] == "ben" and bot_entry["bot"] is True
    match = replay.replay(gf, upto=1)
    legal = match.game.legal_moves(match.state, "ben")
    chosen = gamefile.decode_move(match.game, bot_entry["move"], "$")
    other = next(m for m in legal if m != chosen)
    forged = {"n": 2, "by": "ben", "move": msgspec.to_builtins(other), "bot": True}
    rewrite(path, [gf.log[0], forged])
    assert run("status", path).exit_code == 0  # a legal move: only the bot check sees it
    for who in (("--by", "ann"), ("--by", "ben"), ()):
        result = check(repo, *who)
        assert result.exit_code == 1
        assert (f"entry 2 is not the move of ben's bot (greedy): the bot plays "
                f"'{match.game.format_move(chosen)}' there") in result.output


def test_a_persons_move_for_a_bot_seat_is_refused(repo: Path) -> None:
    path = repo / "g.json"
    run("move", path, "--as", "ann", "supply 2")
    gf = gamefile.read(path)
    unmarked = {k: v for k, v in gf.log[1].items() if k != "bot"}
    rewrite(path, [gf.log[0], unmarked])
    result = check(repo, "--by", "ann")
    assert result.exit_code == 1
    assert "a move for ben's seat, which a bot plays (greedy), not marked as the bot's" \
        in result.output


def test_a_bot_mark_on_a_persons_seat_gives_no_right_to_add_it(repo: Path) -> None:
    """cat is a person: a move of cat's marked "bot" added in ann's change is cat's
    move, and ann may not add it."""
    path = repo / "g.json"
    run("move", path, "--as", "ann", "supply 2")
    gf = gamefile.read(path)
    match = replay.replay(gf)
    assert gamefile.waiting(gf, match) == ["cat"]
    cat_move = match.game.legal_moves(match.state, "cat")[0]
    data = json.loads(path.read_text())
    gamefile.append_entry(data, "cat", cat_move, extra={"bot": True})
    path.write_text(gamefile.dumps(data))
    result = check(repo, "--by", "ann")
    assert result.exit_code == 1
    assert f"entry {len(data['log'])} is by cat, but only entries by ann may be added" \
        in result.output


def test_a_seat_handed_to_a_bot_in_the_change_is_checked_too(repo: Path) -> None:
    """cat goes on holiday in the same change: cat's later moves are the bot's and are
    replayed; a forged one fails."""
    path = repo / "g.json"
    assert run("seat", path, "cat", "--bot", "random", "--as", "cat").exit_code == 0
    run("move", path, "--as", "ann", "supply 2")
    gf = gamefile.read(path)
    cats = [e for e in gf.log if e["by"] == "cat" and "move" in e]
    assert cats and all(e["bot"] is True for e in cats)
    assert check(repo).exit_code == 0
    assert check(repo, "--by", "cat").exit_code == 1  # ann's move is not cat's
    verified = history.check_bot_moves(gf, None, 0)
    assert verified == {e["n"] for e in gf.log if e["by"] in ("ben", "cat") and "move" in e}


def test_seat_move_is_the_same_key_for_key(repo: Path) -> None:
    """What `check` replays is what `move` played: the key of entry n."""
    path = repo / "g.json"
    run("move", path, "--as", "ann", "supply 2")
    gf = gamefile.read(path)
    match = replay.replay(gf, upto=1)
    key = seats.seat_rng_key(gamefile.rng_key(gf), 2)
    chosen = seat_move(match.game, match.state, "ben", "greedy", None, key)
    assert gamefile.decode_move(match.game, gf.log[1]["move"], "$") == chosen


@pytest.fixture
def signed(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The repository with ann's and ben's SSH keys in .referee/allowed_signers."""
    from tests.conftest import require_tool

    require_tool("ssh-keygen", "openssh-client")
    keys = tmp_path_factory.mktemp("keys")
    lines, found = [], {}
    for who in ("ann", "ben"):
        key = keys / f"id_{who}"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", who, "-f",
                        str(key)], check=True, capture_output=True)
        lines.append(f"{who} ssh-ed25519 {(keys / f'id_{who}.pub').read_text().split()[1]}\n")
        found[who] = key
    (repo / ".referee").mkdir()
    (repo / ".referee" / "allowed_signers").write_text("".join(lines))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "keys")
    git(repo, "config", "gpg.format", "ssh")
    return found


def signed_commit(repo: Path, key: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "-c", f"user.signingkey={key}", "commit", "-q", "-S", "-m", "a move")


def test_signed_commit_may_carry_the_bots_moves_but_not_a_forgery(
        repo: Path, signed: dict[str, Path]) -> None:
    base = git(repo, "rev-parse", "HEAD")
    path = repo / "g.json"
    run("move", path, "--as", "ann", "supply 2")
    assert any(e["by"] == "ben" for e in gamefile.read(path).log)
    signed_commit(repo, signed["ann"])
    result = run("check", path, "--since", base, "--signed")
    assert result.exit_code == 0, result.output
    # the same change with ben's bot move replaced by ann's own choice for ben
    gf = gamefile.read(path)
    match = replay.replay(gf, upto=1)
    chosen = gamefile.decode_move(match.game, gf.log[1]["move"], "$")
    other = next(m for m in match.game.legal_moves(match.state, "ben") if m != chosen)
    rewrite(path, [gf.log[0], {"n": 2, "by": "ben", "move": msgspec.to_builtins(other),
                               "bot": True}])
    signed_commit(repo, signed["ann"])
    result = run("check", path, "--since", base, "--signed")
    assert result.exit_code == 1
    assert "entry 2 is not the move of ben's bot (greedy)" in result.output


def test_sealed_bot_moves_are_verified_with_the_secret_given_to_check(tmp_path: Path) -> None:
    """`check --since --secret FILE` hands the secret to the bot-move replay too (the
    secret kept away from the game file, and check run from another folder)."""
    git(tmp_path, "init", "-q")
    path = tmp_path / "g.json"
    assert run("new", "staufer", path, "--players", "ann,bot:ben=greedy,cat",
               "--sealed").exit_code == 0
    kept = tmp_path.parent / f"{tmp_path.name}-kept.secret"
    (tmp_path / "g.json.secret").rename(kept)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "new game")
    result = run("move", path, "--as", "ann", "supply 2", "--secret", kept)
    assert result.exit_code == 0, result.output
    assert [e["by"] for e in gamefile.read(path).log[:2]] == ["ann", "ben"]
    honest = run("check", path, "--since", "HEAD", "--by", "ann", "--secret", kept)
    assert honest.exit_code == 0, honest.output
    gf = gamefile.read(path)
    seed = secret.find_seed(gf, kept, path)
    assert seed is not None
    match = replay.replay(gf, seed, upto=1)
    chosen = replay.entry_move(gf, 1, seed)
    other = next(m for m in match.game.legal_moves(match.state, "ben") if m != chosen)
    rewrite(path, [gf.log[0], {"n": 2, "by": "ben", "move": msgspec.to_builtins(other),
                               "bot": True}])
    forged = run("check", path, "--since", "HEAD", "--by", "ann", "--secret", kept)
    assert forged.exit_code == 1
    assert "not the move of ben's bot" in forged.output


def test_check_bots_replays_every_bot_move_of_a_whole_game(repo: Path) -> None:
    """`check --bots` (no git needed): every bot-seat move of the game is its bot's."""
    path = repo / "g.json"
    assert run("move", path, "--as", "ann", "supply 2").exit_code == 0
    gf = gamefile.read(path)
    bot_moves = [e for e in gf.log if e["by"] == "ben"]
    assert bot_moves and all(e["bot"] is True for e in bot_moves)
    honest = run("check", path, "--bots")
    assert honest.exit_code == 0, honest.output
    moves = "1 bot-seat move" if len(bot_moves) == 1 else f"{len(bot_moves)} bot-seat moves"
    assert f"{moves} replayed: each is its bot's move" in honest.output
    i = gf.log.index(bot_moves[0])
    match = replay.replay(gf, upto=i)
    chosen = gamefile.decode_move(match.game, bot_moves[0]["move"], "$")
    other = next(m for m in match.game.legal_moves(match.state, "ben") if m != chosen)
    rewrite(path, [*gf.log[:i], {"n": i + 1, "by": "ben", "move": msgspec.to_builtins(other),
                                 "bot": True}])
    assert run("check", path).exit_code == 0  # legal: only the bot replay sees it
    forged = run("check", path, "--bots")
    assert forged.exit_code == 1
    assert "not the move of ben's bot" in forged.output
