# ruff: noqa: F811  (the fixtures `repo` and `signed_repo` come from tests/git/test_repository_attacks.py)
"""A game's identity cannot be copied, played as the cheater would through git and the
workflow's `run:` steps (examples/github-workflow.yml, run by tests/git/test_repository_attacks.py's
helpers): a copy of a running sealed game (seats swapped, a bot seat added, only
`created` changed, a new id over the same commitment) is refused in the pull request's
check naming both files, cannot be opened with the repository secret, and prints no card
of a real hand; `check FILE --since` still sees a rename; a new file cannot take over a
site page; the publish job's site shows a sealed game's board.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from referee.ledger import gamefile, identity, replay, secret
from tests.conftest import run
from tests.git.test_repository_attacks import (  # noqa: F401  (fixtures)
    REPO_SECRET,
    base,
    commit,
    git,
    legal,
    passed,
    pull_request,
    pull_request_jobs,
    push_to_new_origin,
    referee,
    refused,
    repo,
    run_workflow,
    sh,
    signed_repo,
)
from tests.leaks import leaks

ENV = {"REFEREE_SECRET": REPO_SECRET}
SEALED = "games/s.json"


def new_sealed(repo: Path, rel: str, game_id: str, players: str = "ann,ben,cat") -> None:
    referee(repo, "new", "dynasties", rel, "--players", players, "--sealed", "--id",
            game_id, "--github", "ann=ann-gh,ben=ben-gh,cat=cat-gh", env=ENV)


@pytest.fixture
def dyn_repo(repo: Path) -> Path:
    """main also holds a running sealed Dynasties game (ann, ben, cat) whose seed CI
    derives from the repository secret; the pull request branch is checked out."""
    git(repo, "checkout", "-q", "main")
    new_sealed(repo, SEALED, "dyn-1")
    move = legal(repo, SEALED, "ann", env=ENV)[0]
    referee(repo, "move", SEALED, "--as", "ann", move, env=ENV)
    commit(repo, "a sealed game")
    git(repo, "branch", "-q", "-f", "pr", "main")
    git(repo, "checkout", "-q", "pr")
    return repo


def hands(path: Path, seed: str | None = None) -> dict[str, list[int]]:
    """Every player's hidden hand of action cards (read here with the secret)."""
    gf = gamefile.read(path)
    match = replay.replay(gf, seed or secret.repository_seed(REPO_SECRET, gf))
    return {pl.id: list(pl.hand) for pl in match.state.players}


def names_a_card(text: str, cards: list[int]) -> list[str]:
    """The cards of ``cards`` that ``text`` names (as a hand lists it or in a move's text)."""
    return [f"a{n:02d}" for n in cards
            if re.search(rf"\b{n} = a{n:02d}\b|\bwith {n}\b", text)]


def output(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def write(repo: Path, rel: str, data: dict[str, Any]) -> None:
    (repo / rel).write_text(gamefile.dumps(data))


def header(repo: Path, rel: str = SEALED) -> dict[str, Any]:
    data = json.loads((repo / rel).read_text())
    data["log"] = []
    return data


def copy_refused(repo: Path, rel: str, *words: str) -> str:
    """The pull request adding ``rel`` (a copy) fails naming both files; returns the log."""
    commit(repo, "a new game")
    done = pull_request(repo, base(repo), "ann-gh")
    refused(done, rel, SEALED, "the same game as", "cannot be copied", *words)
    return output(done)


def cannot_open(repo: Path, rel: str) -> str:
    """With the repository secret, `status` of the copy is refused: its header derives
    another seed than the one it copied the commitment of."""
    done = sh(repo, "referee", "status", rel, "--as", "ann", env=ENV, check=False)
    assert done.returncode == 1, output(done)
    assert "does not match this game's commitment" in done.stderr
    assert "Traceback" not in output(done)
    return output(done)


# --- the seed is bound to the whole header ---------------------------------------------


def test_the_seed_is_bound_to_the_header_not_to_the_id(dyn_repo: Path) -> None:
    data = json.loads((dyn_repo / SEALED).read_text())
    seed = secret.game_seed(REPO_SECRET, data)
    assert secret.repository_seed(REPO_SECRET, gamefile.read(dyn_repo / SEALED)) == seed
    assert secret.game_seed(REPO_SECRET, data) != secret.legacy_game_seed(REPO_SECRET, "dyn-1")
    for change in ("created", "players", "options", "rules", "id"):
        other = json.loads(json.dumps(data))
        other[change] = ({"x": 1} if change == "options" else
                         list(reversed(other["players"])) if change == "players" else
                         other[change] + "x")
        assert secret.game_seed(REPO_SECRET, other) != seed, change
    derived = json.loads(json.dumps(data))  # what the seed itself gives may change
    derived["rng"] = {"seed": "revealed"}
    assert secret.game_seed(REPO_SECRET, derived) == seed
    derived["log"] = [{"n": 1}]
    assert secret.game_seed(REPO_SECRET, derived) == seed
    nonces = json.loads(json.dumps(data))  # a game with nonces: filled in later
    nonces["rng"].update(nonce_commitments={}, nonces={})
    filled = json.loads(json.dumps(nonces))
    filled["rng"].update(nonce_commitments={"ann": "c"}, nonces={"ann": "n"})
    assert secret.game_seed(REPO_SECRET, filled) == secret.game_seed(REPO_SECRET, nonces)
    assert secret.game_seed(REPO_SECRET, nonces) != seed  # taking nonces is part of it


# --- copies of a running sealed game ---------------------------------------------------


def test_a_copy_with_two_seats_swapped_is_refused_and_opens_nowhere(
        signed_repo: dict[str, object]) -> None:
    """ann copies the header of the running game dyn-1 into a new file with ann's and
    ben's seats swapped: "ann's" view of the copy would be ben's real hand. The pull
    request fails naming both files; with the repository secret neither `status` nor
    `views` opens the copy; no output names a card of ben's (or cat's) real hand."""
    repo = signed_repo["repo"]
    assert isinstance(repo, Path)
    git(repo, "checkout", "-q", "main")
    new_sealed(repo, SEALED, "dyn-1")
    commit(repo, "a sealed game")
    git(repo, "branch", "-q", "-f", "pr", "main")
    git(repo, "checkout", "-q", "pr")
    real = hands(repo / SEALED)
    copy = header(repo)
    copy["players"][0], copy["players"][1] = copy["players"][1], copy["players"][0]
    write(repo, "games/c.json", copy)
    logs = copy_refused(repo, "games/c.json", "the same rng commitment")
    logs += cannot_open(repo, "games/c.json")
    views = sh(repo, "referee", "views", "games/c.json", "--out", "views", env=ENV,
               check=False)
    assert views.returncode == 1 and "does not match" in views.stderr, output(views)
    assert list(repo.glob("views/c.*.age")) == []
    logs += output(views)
    for player in ("ben", "cat"):
        assert names_a_card(logs, real[player]) == [], (player, logs)


def test_a_copy_with_a_bot_seat_names_no_card_in_the_ci_log(dyn_repo: Path) -> None:
    """The same copy with ben's seat made a bot seat, ann's real first move and a dummy
    move for the bot: the check would once print the bot's intended move, a card of
    ben's real hand. It fails as a copy before anything is replayed."""
    repo = dyn_repo
    real = hands(repo / SEALED)
    copy = header(repo)
    copy["players"][1]["bot"] = {"level": "greedy"}
    original = json.loads((repo / SEALED).read_text())
    gamefile.append_raw(copy, {k: v for k, v in original["log"][0].items()
                               if k in ("n", "by", "move", "sealed", "public")})
    gamefile.append_raw(copy, {"n": 2, "by": "ben", "bot": True,  # a dummy: ann's card
                               "move": original["log"][0]["move"]})
    write(repo, "games/c.json", copy)
    commit(repo, "a copy with a bot")
    done = pull_request(repo, base(repo), "ann-gh")
    refused(done, "games/c.json", SEALED, "the same game as")
    assert "the bot plays" not in output(done)
    for player in ("ben", "cat"):
        assert names_a_card(output(done), real[player]) == [], output(done)


def test_a_copy_with_only_created_changed_gets_another_seed(dyn_repo: Path) -> None:
    repo = dyn_repo
    copy = header(repo)
    copy["created"] = copy["created"].replace("Z", ".5Z") if "." not in copy["created"] \
        else copy["created"] + "1"
    write(repo, "games/c.json", copy)
    copy_refused(repo, "games/c.json", "the same rng commitment")
    cannot_open(repo, "games/c.json")


def test_a_copy_under_a_new_id_with_the_same_commitment_is_refused(dyn_repo: Path) -> None:
    repo = dyn_repo
    copy = header(repo)
    copy["id"] = "fresh-game"
    copy["players"][0], copy["players"][1] = copy["players"][1], copy["players"][0]
    write(repo, "games/c.json", copy)
    copy_refused(repo, "games/c.json", "the same rng commitment")
    cannot_open(repo, "games/c.json")


def test_an_exact_copy_of_the_whole_file_is_refused(dyn_repo: Path) -> None:
    (dyn_repo / "games" / "c.json").write_bytes((dyn_repo / SEALED).read_bytes())
    copy_refused(dyn_repo, "games/c.json", "the same header")


def test_a_copy_of_a_game_made_by_an_earlier_release_is_refused_unreplayed(
        repo: Path) -> None:
    """Games made before the seed was bound to the header derive it from the id alone
    and still replay with the repository secret; a copy of one derives the same seed, so
    only the identity check stands between it and ben's hand: it refuses the copy before
    any replay, and nothing in the log names one of ben's cards."""
    git(repo, "checkout", "-q", "main")
    legacy = secret.legacy_game_seed(REPO_SECRET, "old-1")
    referee(repo, "new", "dynasties", SEALED, "--players", "ann,ben,cat", "--sealed",
            "--seed", legacy, "--id", "old-1", "--github", "ann=ann-gh,ben=ben-gh")
    (repo / f"{SEALED}.secret").unlink()  # CI holds only the repository secret
    move = legal(repo, SEALED, "ann", env=ENV)[0]
    referee(repo, "move", SEALED, "--as", "ann", move, env=ENV)
    commit(repo, "an old sealed game")
    passed(run_workflow(repo, {"github.event_name": "push", "github.event.before": "0" * 40,
                               "secrets.REFEREE_SECRET": REPO_SECRET}))
    git(repo, "branch", "-q", "-f", "pr", "main")
    git(repo, "checkout", "-q", "pr")
    real = hands(repo / SEALED, legacy)
    copy = header(repo)
    copy["players"][1]["bot"] = {"level": "greedy"}
    original = json.loads((repo / SEALED).read_text())
    gamefile.append_raw(copy, {k: v for k, v in original["log"][0].items()
                               if k in ("n", "by", "move", "sealed", "public")})
    gamefile.append_raw(copy, {"n": 2, "by": "ben", "bot": True,  # a dummy: ann's card
                               "move": original["log"][0]["move"]})
    write(repo, "games/c.json", copy)
    logs = copy_refused(repo, "games/c.json", "the same rng commitment")
    assert "the bot plays" not in logs
    assert names_a_card(logs, real["ben"]) == [], logs
    pending = sh(repo, "referee", "pending", "games", env=ENV, check=False)
    assert pending.returncode == 1
    assert pending.stdout.count("is the same game as") == 2, pending.stdout  # both files
    assert names_a_card(output(pending), real["ben"]) == []


# --- a sealed game's bot seat tells nothing ----------------------------------------------


@pytest.mark.slow
def test_a_forged_bot_move_in_a_sealed_game_names_the_entry_not_the_bots_move(
        repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A sealed game with a bot seat: ann writes a move for cat's bot that is not the
    bot's. The pull request fails naming the entry, and the log shows neither the bot's
    intended move nor any other card of cat's hand; the bot's own move passes."""
    git(repo, "checkout", "-q", "main")
    referee(repo, "new", "dynasties", SEALED, "--players", "ann,ben,bot:cat=greedy",
            "--sealed", "--id", "dyn-bot", "--github", "ann=ann-gh,ben=ben-gh", env=ENV)
    for _ in range(12):  # ann and ben play (without the secret) until cat's bot owes
        owing = json.loads(referee(repo, "status", SEALED, "--json", env=ENV).stdout)
        if owing["to_move"] == ["cat"]:
            break
        who = owing["to_move"][0]
        referee(repo, "move", SEALED, "--as", who, legal(repo, SEALED, who, env=ENV)[0],
                "--unchecked")
    assert owing["to_move"] == ["cat"]
    n = len(gamefile.read(repo / SEALED).log) + 1
    commit(repo, "ann and ben moved; the bot owes its move")
    git(repo, "branch", "-q", "-f", "pr", "main")
    git(repo, "checkout", "-q", "pr")
    honest = tmp_path_factory.mktemp("outside") / "honest.json"  # not in the repository
    honest.write_bytes((repo / SEALED).read_bytes())
    referee(repo, "bot", str(honest), env=ENV)
    gf = gamefile.read(repo / SEALED)
    match = replay.replay(gf, secret.repository_seed(REPO_SECRET, gf))
    game, cats = match.game, hands(repo / SEALED)["cat"]
    bots = json.loads(honest.read_text())["log"][n - 1]
    assert bots["by"] == "cat" and bots["bot"] is True
    chosen = gamefile.decode_move(game, bots["move"], "$")
    bot_cards = names_a_card(game.format_move(chosen), cats)
    forged = next(m for m in game.legal_moves(match.state, "cat")
                  if m != chosen and not set(names_a_card(game.format_move(m), cats))
                  & set(bot_cards))
    data = json.loads((repo / SEALED).read_text())
    gamefile.append_entry(data, "cat", forged, extra={"bot": True})
    write(repo, SEALED, data)
    commit(repo, "cat's bot moves (not really)")
    done = pull_request(repo, base(repo), "ann-gh")
    refused(done, f"entry {n} is not the move of cat's bot (greedy)")
    assert "the bot plays" not in output(done)
    assert game.format_move(chosen) not in output(done)
    told = names_a_card(game.format_move(forged), cats)  # the forger's own text
    assert names_a_card(output(done), [n for n in cats if f"a{n:02d}" not in told]) == [], \
        output(done)
    (repo / SEALED).write_bytes(honest.read_bytes())  # the bot's own move passes...
    commit(repo, "the bot's own move")
    plain, sealed = pull_request_jobs(repo, base(repo), "ann-gh")
    passed(sealed)
    # ...the check with the secret; the pull_request job, without it, cannot replay the
    # bot and counts its move as the author's (docs/git-and-ci.md)
    refused(plain, f"entry {n} is by cat, but only entries by ann")


# --- check FILE --since sees renames -----------------------------------------------------


def test_check_file_since_refuses_a_rename_that_wipes_the_history(repo: Path) -> None:
    data = json.loads((repo / "games" / "g.json").read_text())
    data["log"] = []
    (repo / "games" / "g.json").unlink()
    write(repo, "games/g2.json", data)
    commit(repo, "fresh start")
    for args in (["games/g2.json"], ["games/g2.json", "games/h.json"]):
        done = sh(repo, "referee", "check", *args, "--since", base(repo), "--by", "ann",
                  check=False)
        refused(done, "games/g.json", "gone", "may not be deleted, renamed")


# --- the site ------------------------------------------------------------------------------


def test_a_new_file_cannot_take_over_a_site_page(repo: Path) -> None:
    """`games/my game.json` once took the URL of `games/my-game.json` (both made the
    slug my-game, and the new one sorted first). Pages are named by the unique game id:
    the old page stays the old game's; a new file claiming its id is refused by the
    check and served by nobody; an id that is a name of the site is not served."""
    git(repo, "checkout", "-q", "main")
    referee(repo, "new", "staufer", "games/my-game.json", "--players", "ann,ben",
            "--seed", "mine", "--id", "my-game")
    commit(repo, "my game")
    git(repo, "branch", "-q", "-f", "pr", "main")
    git(repo, "checkout", "-q", "pr")
    referee(repo, "new", "staufer", "games/my game.json", "--players", "ann,cat",
            "--seed", "theirs", "--id", "their-game")
    referee(repo, "site", "games", "-o", "_site")
    page = (repo / "_site" / "my-game" / "index.html").read_text()
    assert "my-game.json" in page and "my game.json" not in page
    assert "my game.json" in (repo / "_site" / "their-game" / "index.html").read_text()
    clash = header(repo, "games/my game.json")
    clash["id"] = "MY-GAME"
    write(repo, "games/my game.json", clash)
    commit(repo, "take over the page")
    refused(pull_request(repo, base(repo), "ann-gh"), "games/my game.json",
            "games/my-game.json", "the same game id")
    done = sh(repo, "referee", "site", "games", "-o", "_site")
    assert "not served" in done.stderr and "games/my game.json" in done.stderr
    assert not (repo / "_site" / "MY-GAME").exists()
    assert not (repo / "_site" / "my-game").exists()  # a copy is served by neither
    clash["id"] = "index.html"
    write(repo, "games/my game.json", clash)
    done = sh(repo, "referee", "site", "games", "-o", "_site")
    assert "a name the site uses for itself" in done.stderr
    assert (repo / "_site" / "index.html").is_file()
    assert (repo / "_site" / "my-game" / "index.html").is_file()


def test_the_publish_jobs_site_shows_a_sealed_games_board(
        signed_repo: dict[str, object], tmp_path: Path) -> None:
    """The sealed game made with the repository secret gets its board on the Pages site
    (every position drawn, public only), as `referee site` now reads REFEREE_SECRET as
    the repository secret, like `status` and `views`."""
    repo = signed_repo["repo"]
    assert isinstance(repo, Path)
    git(repo, "checkout", "-q", "main")
    new_sealed(repo, SEALED, "dyn-pages")
    move = legal(repo, SEALED, "ann", env=ENV)[0]
    referee(repo, "move", SEALED, "--as", "ann", move, env=ENV)
    commit(repo, "a sealed game")
    push_to_new_origin(repo, tmp_path)
    context = {"github.event_name": "push", "secrets.REFEREE_SECRET": REPO_SECRET,
               "github.sha": git(repo, "rev-parse", "HEAD")}
    passed(run_workflow(repo, context, job="publish"))
    folder = repo / "_site" / "dyn-pages"
    assert sorted(p.name for p in folder.glob("pos-*.svg")) == ["pos-0.svg", "pos-1.svg"]
    page = (folder / "index.html").read_text()
    assert "the positions cannot be rebuilt" not in page
    gf = gamefile.read(repo / SEALED)
    match = replay.replay(gf, secret.repository_seed(REPO_SECRET, gf))
    hidden = match.game.hidden_items(match.state, None)  # every form of each, word by word
    assert hidden
    for path in (repo / "_site").rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert REPO_SECRET not in text
            assert leaks(text, hidden) == [], path
    without = sh(repo, "referee", "site", "games", "-o", str(tmp_path / "bare"))
    assert "1 sealed without their secret" in without.stdout
    assert not list((tmp_path / "bare" / "dyn-pages").glob("pos-*.svg"))


# --- the library function ----------------------------------------------------------------


def test_duplicates_finds_copies_by_header_commitment_and_id() -> None:
    def head(gid: str, commitment: str | None = None, created: str = "t") -> dict[str, Any]:
        rng = {"commitment": commitment, "recipient": "r"} if commitment else {"seed": "s"}
        return {"format": "referee/1", "game": "staufer", "id": gid, "created": created,
                "players": [{"id": "ann"}], "options": {}, "rng": rng, "log": []}

    games = [("a", head("one", "c1")), ("a", head("one", "c1")), ("b", head("two", "c1")),
             ("c", head("ONE", None, "u")), ("d", head("three", "c3")),
             ("e", head("one", "c9"))]
    found = identity.duplicates(games)
    assert [(d.file, d.other, d.kind) for d in found] == [
        ("b", "a", "commitment"), ("c", "a", "id"), ("e", "a", "header")]
    assert "b is the same game as a" in found[0].message
    assert sorted(identity.duplicated_files(found)) == ["a", "b", "c", "e"]
    same = head("one", "c1")
    same["rng"]["recipient"] = "other"  # derived from the seed: not part of the identity
    assert identity.clashes("x", same, [("a", head("one", "c1"))])[0].kind == "header"
    assert identity.duplicates([("a", {"id": 3, "rng": []}), ("b", {})]) == []


def test_check_since_says_what_the_bot_replays_cost(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    path = tmp_path / "g.json"
    assert run("new", "staufer", str(path), "--players", "ann,bot:ben=greedy",
               "--seed", "cost").exit_code == 0
    commit(tmp_path, "new game")
    assert run("move", str(path), "--as", "ann", "supply 2").exit_code == 0
    done = sh(tmp_path, "referee", "check", "--since", "HEAD")
    assert re.search(r"replayed [1-9]\d* bot moves in \d+\.\d s \(\d+\.\d s of CPU\)",
                     done.stdout), done.stdout


def test_a_seat_above_the_cap_stays_readable_but_neither_plays_nor_is_replayed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file recording a seat above this referee's cap (as earlier releases allowed)
    still reads; its new bot moves are refused unreplayed by `check --since`, the seat
    does not play, and `check --bots` replays its old moves at the recorded level. (The
    cap is lowered to 1 here so that the recorded level, 2, is cheap to replay.)"""
    from referee.ledger import seats

    git(tmp_path, "init", "-q", "-b", "main")
    path = tmp_path / "g.json"
    assert run("new", "staufer", str(path), "--players", "ann,bot:ben=mcts:2",
               "--seed", "cap").exit_code == 0
    commit(tmp_path, "new game")
    assert run("move", str(path), "--as", "ann", "supply 2").exit_code == 0
    assert gamefile.read(path).log[1]["by"] == "ben"  # the bot moved, within the cap
    monkeypatch.setattr(seats, "MAX_ITERATIONS", 1)
    monkeypatch.chdir(tmp_path)
    since = run("check", "--since", "HEAD")
    assert since.exit_code == 1
    assert "is a move of ben's bot (mcts, 2 it.), above this referee's cap of 1" in since.output
    assert "referee seat FILE ben --bot mcts:1 --as gm" in since.output
    assert run("status", str(path)).exit_code == 0
    whole = run("check", str(path), "--bots")
    assert whole.exit_code == 0, whole.output
    assert "bot-seat moves replayed: each is its bot's move" in whole.output
    owing = json.loads(run("status", str(path), "--json").output)["to_move"]
    if owing == ["ann"]:
        legal_now = json.loads(run("status", str(path), "--as", "ann", "--json")
                               .output)["legal"]
        moved = run("move", str(path), "--as", "ann", legal_now[0])
        assert moved.exit_code == 0
        owing = json.loads(run("status", str(path), "--json").output)["to_move"]
    assert owing == ["ben"]
    before = path.read_bytes()
    played = run("bot", str(path))
    assert played.exit_code != 0 and "above this referee's cap of 1" in played.output, \
        played.output
    assert path.read_bytes() == before


def test_check_file_since_refuses_a_copy_it_was_not_given(dyn_repo: Path) -> None:
    """Naming only some FILEs does not hide a copy elsewhere in the change."""
    write(dyn_repo, "games/c.json", header(dyn_repo))
    commit(dyn_repo, "a copy, and a check of another file")
    done = sh(dyn_repo, "referee", "check", "games/g.json", "--since", base(dyn_repo),
              "--by", "ann", env=ENV, check=False)
    refused(done, "games/c.json is the same game as games/s.json", "cannot be copied")
    assert "ok   " in done.stdout and "games/g.json" in done.stdout  # the named file: ok
