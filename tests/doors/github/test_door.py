"""The GitHub door (referee/doors/github/, docs/git-and-ci.md "Moving through issues"),
through the CLI: `referee judge GAMES --github-event FILE --answer-out ANSWER` on GitHub's
own payloads (tests/data/github/: @octokit/webhooks-examples, changed here in code only
in the fields a test needs), the links `referee site --github-repo` and `referee show
--md` draw, and what a public issue must never show.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from referee import engine
from referee.doors.github import answer as answers
from referee.doors.github import event as events
from referee.git import issues
from referee.judge import handling, readings
from referee.ledger import gamefile, replay, roster, secret
from tests.conftest import ok, run
from tests.githubevents import DATA, REPO, github_event, payload
from tests.leaks import leaks
from tests.support.games import new_game

LOGINS = {"ann": "ann-gh", "ben": "Ben-GH", "cat": "cat-gh"}
VENDORED = {"issues.opened": ("issue", "opened"), "issue_comment.created": ("comment", "created"),
            "issue_comment.edited": ("comment", "edited"),
            "issue_comment.deleted": ("comment", "deleted")}


# --------------------------------------------------------------------------- helpers


class Runner:
    """`referee judge GAMES --github-event ...` in a folder, each event a file of its
    own; the answer (None: none written)."""

    def __init__(self, tmp: Path, games: Path) -> None:
        self.tmp, self.games, self.count = tmp, games, 0

    def __call__(self, found: dict[str, Any] | bytes, *extra: object
                 ) -> tuple[Any, str | None]:
        self.count += 1
        path = self.tmp / f"event-{self.count}.json"
        path.write_bytes(found if isinstance(found, bytes) else json.dumps(found).encode())
        out = self.tmp / f"answer-{self.count}.md"
        result = run("judge", self.games, "--github-event", path, "--answer-out", out, *extra)
        assert "Traceback" not in result.output
        return result, out.read_text(encoding="utf-8") if out.exists() else None


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    new_game(folder / "g1.json", "staufer", "--github",
             ",".join(f"{p}={login}" for p, login in LOGINS.items()), players="ann,ben,cat",
             seed="gh", game_id="g1")
    return folder


@pytest.fixture
def judge(tmp_path: Path, games: Path) -> Runner:
    return Runner(tmp_path, games)


def state(path: Path) -> tuple[gamefile.GameFile, engine.Match]:
    gf = gamefile.read(path)
    return gf, replay.replay(gf, secret.find_seed(gf, None, path))


def legal(path: Path, player: str) -> list[str]:
    _, match = state(path)
    return engine.legal_strings(match.game, match.state, player)


def to_move(path: Path) -> str:
    _, match = state(path)
    return str(match.game.to_move(match.state)[0])


def site_links(tmp: Path, games: Path) -> list[tuple[str, str]]:
    """(title, body) of every issue link on the game's page of `referee site
    --github-repo`."""
    out = tmp / "site"
    ok("site", games, "--out", out, "--github-repo", REPO)
    page = (out / "g1" / "index.html").read_text(encoding="utf-8")
    found = []
    for url in re.findall(r'href="(https://github\.com/[^"]+)"', page):
        query = parse_qs(urlsplit(html.unescape(url)).query, keep_blank_values=True)
        found.append((query["title"][0], query["body"][0]))
    return found


# --------------------------------------------------------------------------- done when


def test_a_link_of_the_site_is_played_by_its_seat_and_by_nobody_else(
        tmp_path: Path, games: Path, judge: Runner) -> None:
    """The issue's "done when": the site draws issue links for the player to move; a
    real `issues` opened event built from the first, by the seat's login, is played with
    an answer written; the same event by another login plays nothing and says why; a
    real `issue_comment` event with the next player's move, by that player's login (in
    other case), is played."""
    path = games / "g1.json"
    links = site_links(tmp_path, games)
    first = legal(path, "ann")[0]
    assert links[0] == (f"[referee] g1: ann {first}", f"{first}\n\nplay 0\n")
    assert len(links) == len(legal(path, "ann")) + 1  # every move, and the typed one
    title, body = links[0]
    before = gamefile.read(path).log
    done, answer = judge(github_event("issues.opened", title=title, body=body,
                                      login="mallory", text_id=9001))
    assert done.exit_code == 0 and done.output.startswith("answered: g1 issue:9001")
    assert answer is not None and "`mallory` holds no seat in `g1`" in answer
    assert gamefile.read(path).log == before
    done, answer = judge(github_event("issues.opened", title=title, body=body,
                                      login="ann-gh", text_id=9002))
    assert done.exit_code == 0 and done.output.startswith("played: g1 issue:9002")
    assert answer is not None and f"Played for ann: `{first}`." in answer
    entry = gamefile.read(path).log[-1]
    assert (entry["by"], entry["github"]) == ("ann", "issue:9002")
    assert "Your turn: @Ben-GH." in answer
    nxt = legal(path, "ben")[0]
    assert f"[{issues.escape_markdown(nxt)}](https://github.com/{REPO}/issues/new?" in answer
    done, answer = judge(github_event("issue_comment.created", title=title, body=nxt,
                                      login="bEN-gh", text_id=77001))
    assert done.output.startswith("played: g1 comment:77001"), done.output
    entry = gamefile.read(path).log[-1]
    assert (entry["by"], entry["github"]) == ("ben", "comment:77001")
    assert answer is not None and f"Played for ben: `{nxt}`." in answer


def test_a_stale_link_plays_nothing_and_the_answer_says_why(
        tmp_path: Path, games: Path, judge: Runner) -> None:
    path = games / "g1.json"
    stale = [link for link in site_links(tmp_path, games)]
    ok("move", path, "--as", "ann", legal(path, "ann")[0])
    ok("move", path, "--as", "ben", legal(path, "ben")[0])
    before = gamefile.read(path).log
    title, body = stale[3]  # (ann's move of play 0; the game is at play 2)
    done, answer = judge(github_event("issues.opened", title=title, body=body,
                                      login="ann-gh", text_id=9003))
    assert done.exit_code == 0 and done.output.startswith("rejected: g1 issue:9003 stale")
    assert answer is not None and "this issue answers move 0, but the game is at move 2" in \
        " ".join(answer.split())
    assert gamefile.read(path).log == before
    # a move typed without a `play` line answers the game as it is
    mover = to_move(path)
    done, answer = judge(github_event("issues.opened", title="[referee] g1", body=legal(
        path, mover)[0], login=LOGINS[mover], text_id=9004))
    assert done.output.startswith("played: g1 issue:9004"), done.output


def test_an_event_sent_again_is_played_once(games: Path, judge: Runner) -> None:
    path = games / "g1.json"
    sent = github_event("issues.opened", title="[referee] g1", body=legal(path, "ann")[0]
                        + "\n\nplay 0", login="ann-gh", text_id=424242)
    assert judge(sent)[0].output.startswith("played:")
    for state_kept in (True, False):  # (a workflow's checkout has no judge state)
        if not state_kept:
            for name in games.glob(".referee-judge*"):
                name.unlink()
        done, answer = judge(sent)
        assert done.exit_code == 0 and done.output.startswith("duplicate: g1 issue:424242")
        assert answer is not None and "played before, as log entry 1" in answer
    assert [e.get("github") for e in gamefile.read(path).log] == ["issue:424242"]


def test_edited_and_deleted_comments_a_bot_and_a_stranger_play_nothing(
        games: Path, judge: Runner) -> None:
    path = games / "g1.json"
    move = legal(path, "ann")[0]
    before = gamefile.read(path).log
    said = {
        "edited": (github_event("issue_comment.edited", title="[referee] g1", body=move,
                                login="ann-gh", text_id=5), "edited message is not played"),
        "deleted": (github_event("issue_comment.deleted", title="[referee] g1", body=move,
                                 login="ann-gh", text_id=6), "deleted text takes nothing"),
        "a bot": (github_event("issues.opened", title="[referee] g1", body=move,
                               login="ann-gh", text_id=7, sender_type="Bot"),
                  "a bot's or an app's account"),
        "a stranger": (github_event("issue_comment.created", title="[referee] g1", body=move,
                                    login="octocat", text_id=8), "`octocat` holds no seat"),
    }
    for what, (sent, why) in said.items():
        done, answer = judge(sent)
        assert done.exit_code == 0, (what, done.output)
        assert answer is not None and why in answer, (what, answer)
        assert gamefile.read(path).log == before, what
    not_theirs = github_event("issues.opened", title="[referee] g1", body=move,
                              login="ann-gh", text_id=9)
    not_theirs["issue"]["user"]["login"] = "ben-gh"  # sent by ann, written by ben
    done, answer = judge(not_theirs)
    assert answer is not None and "not `ann-gh`'s own" in answer
    assert gamefile.read(path).log == before


def test_what_is_not_for_the_referee_gets_no_answer(games: Path, judge: Runner) -> None:
    path = games / "g1.json"
    move = legal(path, "ann")[0]
    untouched = payload("issues.opened")  # GitHub's own example: no game in its title
    pull = github_event("issue_comment.created", title="[referee] g1", body=move,
                        login="ann-gh", text_id=10)
    pull["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
    labeled = github_event("issues.opened", title="[referee] g1", body=move, login="ann-gh",
                           text_id=11)
    labeled["action"] = "labeled"
    chat = github_event("issue_comment.created", title="[referee] g1", body="nice one!",
                        login="ben-gh", text_id=12)
    nowhere = github_event("issues.opened", title="[referee] g2: ann supply 1", body=move,
                           login="ann-gh", text_id=132)
    done, answer = judge(nowhere)
    assert answer is not None and "No game `g2` can be played here" in answer
    for sent in (untouched, pull, labeled, chat):
        done, answer = judge(sent)
        assert done.exit_code == 0 and done.output.startswith("none: "), done.output
        assert answer is None
    assert gamefile.read(path).log == []
    # an issue opened for the referee is answered even when nothing in it is a move
    done, answer = judge(github_event("issues.opened", title="[referee] g1",
                                      body="hello there", login="ann-gh", text_id=13))
    assert answer is not None and "Nothing in this issue reads as a move" in answer
    done, answer = judge(github_event("issues.opened", title="[referee] g1",
                                      body=f"{move}\n" + "x" * events.BODY_MAX,
                                      login="ann-gh", text_id=131))
    assert answer is not None and "too long to read (more than 2000 characters)" in answer
    assert gamefile.read(path).log == []


@pytest.mark.parametrize("bad", ["not json", "too deep", "too large", "not an issue event",
                                 "negative id"])
def test_a_bad_event_file_is_a_usage_error_that_changes_nothing(
        tmp_path: Path, games: Path, judge: Runner, bad: str) -> None:
    good = json.dumps(github_event("issues.opened", title="[referee] g1", body="supply 1",
                                   login="ann-gh", text_id=14))
    raw = {"not json": b"{\"action\": \"opened\",",
           "too deep": b'{"action":"opened","x":' + b"[" * 40 + b"]" * 40 + b"}",
           "too large": good.encode() + b" " * events.EVENT_MAX,
           "not an issue event": json.dumps(payload("issue_comment.created")["comment"]
                                            ).encode(),
           "negative id": good.replace('"id": 14,', '"id": -14,').encode()}[bad]
    before = sorted(p.name for p in games.iterdir())
    done, answer = judge(raw)
    assert done.exit_code == 2, done.output
    assert done.output.startswith("error: --github-event:"), done.output
    assert answer is None and sorted(p.name for p in games.iterdir()) == before


def test_bad_usage_exits_2_and_changes_nothing(tmp_path: Path, games: Path) -> None:
    sent = tmp_path / "e.json"
    sent.write_text(json.dumps(payload("issues.opened")))
    before = sorted(p.name for p in games.iterdir())
    for args, says in (
            (["--github-event", sent], "go together"),
            (["--answer-out", tmp_path / "a.md"], "go together"),
            (["--github-event", sent, "--answer-out", tmp_path], "is a folder"),
            (["--github-event", sent, "--answer-out", tmp_path / "no" / "a.md"], "no such"),
            (["--github-event", tmp_path / "missing.json", "--answer-out", tmp_path / "a.md"],
             "cannot read"),
            (["--github-event", sent, "--answer-out", tmp_path / "a.md", "--once"], "alone"),
            (["--github-event", sent, "--answer-out", tmp_path / "a.md", "--outbox",
              tmp_path / "o", "--maildir", tmp_path / "i", "--from", "r@x.org"], "alone")):
        done = run("judge", games, *args)
        assert done.exit_code == 2 and says in done.output, (args, done.output)
        assert "Traceback" not in done.output
    assert sorted(p.name for p in games.iterdir()) == before
    assert not (tmp_path / "a.md").exists()


# --------------------------------------------------------------------------- what is shown


def test_an_answer_is_bounded_and_its_code_blocks_hold(games: Path, judge: Runner) -> None:
    """Whatever a seat types, the answer stays in ANSWER_MAX bytes, repeats at most
    ECHO_MAX characters of it, and keeps it inside a code block no run of backticks
    closes (no mention, link or image escapes)."""
    path = games / "g1.json"
    word = legal(path, "ann")[0].split()[0]
    typed = f"{word} 9 ````` @everyone ![x](https://evil.example/p.png) " + "`" * 9 + \
        "\U00010400" * 300
    done, answer = judge(github_event("issues.opened", title="[referee] g1", body=typed,
                                      login="ann-gh", text_id=15))
    assert done.output.startswith("rejected: g1 issue:15"), done.output
    assert answer is not None and len(answer.encode()) <= answers.ANSWER_MAX
    assert "\U00010400" * (readings.ECHO_MAX + 1) not in answer
    blocks = re.findall(r"^(`{3,})text\n(.*?)\n\1$", answer, re.S | re.M)
    assert blocks and "@everyone" not in re.sub(r"^(`{3,})text\n.*?\n\1$", "", answer,
                                                flags=re.S | re.M)
    assert all(len(fence) > max(map(len, re.findall("`+", inside)), default=0)
               for fence, inside in blocks)
    long = answers.compose(["a line"], ["x" * 200_000, "é" * 100_000], ["[l](u)"])
    assert len(long.encode()) <= answers.ANSWER_MAX and long.endswith("[l](u)\n")
    assert long.count("```") == 4  # (each cut text still closed)


def sealed_games(tmp_path: Path) -> Path:
    folder = tmp_path / "sealed"
    folder.mkdir()
    new_game(folder / "s1.json", "staufer", "--sealed", "--insecure-seed", "--github",
             ",".join(f"{p}={login}" for p, login in LOGINS.items()), players="ann,ben,cat",
             seed="gh-sealed", game_id="s1")
    return folder


def test_a_sealed_game_shows_in_public_only_what_every_player_may_see(
        tmp_path: Path) -> None:
    folder = sealed_games(tmp_path)
    path = folder / "s1.json"
    judge = Runner(tmp_path, folder)
    mover = to_move(path)
    word, *rest = legal(path, mover)[0].split()
    typo = " ".join([word[0] + word[2:], *rest])
    done, answer = judge(github_event("issues.opened", title="[referee] s1", body=typo,
                                      login=LOGINS[mover], text_id=16))
    assert done.output.startswith("rejected: s1 issue:16"), done.output
    assert answer is not None
    assert f"Line 1 `{typo}` was not accepted. Why, and the closest legal moves, are not " \
        "shown" in " ".join(answer.split())
    assert "Closest legal moves" not in answer and legal(path, mover)[0] not in answer
    _, match = state(path)  # (hidden from the public: every seat's hand, the mover's too)
    assert not leaks(answer, engine.hidden_items(match.game, match.state, None))
    # the links: one that opens an issue for the game, never a legal move
    ok("site", folder, "--out", tmp_path / "site", "--github-repo", REPO)
    page = (tmp_path / "site" / "s1" / "index.html").read_text(encoding="utf-8")
    urls = [html.unescape(u) for u in re.findall(r'href="(https://github\.com/[^"]+)"', page)]
    assert len(urls) == 1 and "title=%5Breferee%5D%20s1&body=%0A%0Aplay%200" in urls[0]
    md = ok("show", path, "--md", "-", "--github-repo", REPO).output
    assert md.count(f"https://github.com/{REPO}/issues/new") == 1
    assert not leaks(md, engine.hidden_items(match.game, match.state, None))
    # a public move typed into that issue is played; without the secret, nothing is
    move = legal(path, mover)[0]
    kept = path.with_name(path.name + ".secret")
    kept.rename(tmp_path / "away.secret")
    before = gamefile.read(path).log
    done, answer = judge(github_event("issues.opened", title="[referee] s1", body=move,
                                      login=LOGINS[mover], text_id=17))
    assert done.exit_code == 0 and "\nanswered: s1 issue:17" in done.output
    assert "skipping s1.json: no secret beside it" in done.output  # (the job's log)
    assert answer is not None and "`s1` cannot be played here now" in answer
    assert gamefile.read(path).log == before
    (tmp_path / "away.secret").rename(kept)
    done, answer = judge(github_event("issues.opened", title="[referee] s1", body=move,
                                      login=LOGINS[mover], text_id=17))
    assert done.output.startswith("played: s1 issue:17"), done.output


def hidden_choice_game(tmp_path: Path, sealed: bool) -> tuple[Path, str, str]:
    """A Dynasties game (GitHub logins) played by first legal moves until the seat to
    move has a hidden choice: (its file, the seat, the choice)."""
    from referee.judge.basics import Config
    from referee.judge.core import Judge

    folder = tmp_path / "dyn"
    folder.mkdir()
    path = folder / "d.json"
    new_game(path, "dynasties", "--github", ",".join(f"{p}={login}" for p, login in LOGINS.items()),
             *(["--sealed", "--insecure-seed"] if sealed else []), players="ann,ben,cat",
             seed="hidden", game_id="d1")
    core = Judge(Config(folder, ""), [])
    try:
        for _ in range(200):
            game = core.load(path)
            assert game is not None
            mover = game.match.game.to_move(game.match.state)[0]
            moves = engine.legal_strings(game.match.game, game.match.state, mover)
            hidden = [m for m in moves if handling.hidden_in(game, mover, [m])]
            if hidden:
                return path, mover, hidden[0]
            ok("move", path, "--as", mover, moves[0])
    finally:
        core.close()
    raise AssertionError("no hidden choice in 200 moves")


@pytest.mark.parametrize("sealed", [True, False], ids=["sealed", "open"])
def test_a_hidden_choice_in_an_issue_is_withdrawn_and_made_by_pull_request_instead(
        tmp_path: Path, sealed: bool) -> None:
    path, mover, hidden = hidden_choice_game(tmp_path, sealed)
    judge = Runner(tmp_path, path.parent)
    before = gamefile.read(path).log
    done, answer = judge(github_event("issue_comment.created", title="[referee] d1",
                                      body=f"ok then: {hidden}", login=LOGINS[mover],
                                      text_id=18))
    assert done.output.startswith("withdrawn: d1 comment:18 hidden at the table"), done.output
    assert gamefile.read(path).log == before
    assert answer is not None and hidden not in answer
    assert "That is a hidden choice: never in a public issue" in " ".join(answer.split())
    assert f'referee move dyn/d.json --as {mover} "YOUR CHOICE"' in answer
    assert ("--unchecked" in answer) == sealed
    # the command the answer names, run as a player runs it (sealed: without the secret)
    if sealed:
        kept = path.with_name(path.name + ".secret")
        kept.rename(tmp_path / "away.secret")
        ok("move", path, "--as", mover, hidden, "--unchecked")
        entry = gamefile.read(path).log[-1]
        assert entry["sealed"] and hidden not in entry["public"]
        (tmp_path / "away.secret").rename(kept)
        ok("check", path)
    else:
        ok("move", path, "--as", mover, hidden)


# --------------------------------------------------------------------------- the pieces


def test_the_vendored_payloads_are_read_as_github_sends_them() -> None:
    for name, (kind, action) in VENDORED.items():
        found = events.read(DATA / f"{name}.payload.json")
        assert (found.kind, found.action, found.sender, found.bot) == (
            kind, action, "Codertocat", False)
        assert found.repository == "Codertocat/Hello-World" and found.issue == 1
        assert issues.game_in_title(found.title) is None  # (GitHub's title names no game)
    assert events.depth((DATA / "issues.opened.payload.json").read_bytes()) < 10


def test_titles_bodies_and_links_read_back() -> None:
    assert issues.game_in_title("[referee] g1: ann supply 2") == "g1"
    assert issues.game_in_title("  [Referee]   g.1-x_2") == "g.1-x_2"
    for title in ("[referee]g1", "referee g1", "[referee] .g1", "Re: [referee] g1",
                  "[referee] g1@x"):
        assert issues.game_in_title(title) is None, title
    assert issues.read_body("supply 2\r\n\r\nPLAY 12\nplay 13") == ("supply 2\n", 12)
    assert issues.read_body("supply 2") == ("supply 2", None)
    assert issues.read_body("play 9999999999")[1] == issues.PLAY_MAX
    assert issues.read_body("play 99999999999") == ("play 99999999999", None)
    url = issues.new_issue_url(REPO, issues.title("g1", "ann", "deploy a & b"),
                               issues.body("deploy a & b", 3))
    query = parse_qs(urlsplit(url).query)
    assert query == {"title": ["[referee] g1: ann deploy a & b"],
                     "body": ["deploy a & b\n\nplay 3\n"]}
    assert " " not in url and url.count("&") == 1  # (the one between title and body)
    for spec in ("octo-org/games", "a/b.c_d-e"):
        assert issues.check_repo(spec) == spec
    for spec in ("octo", "/games", "-octo/games", "octo/..", "octo/ga mes", "a/b/c",
                 "o" * 40 + "/g"):
        with pytest.raises(issues.UsageError):
            issues.check_repo(spec)


def test_a_login_is_compared_without_case_and_a_replaced_seat_has_none() -> None:
    data = {"players": [{"id": "ann", "github": "Ann-GH"}, {"id": "ben", "github": "ben"}],
            "log": []}
    assert roster.settings(data).github_of("ann-gh") == ["ann"]
    data["log"] = [{"meta": {"kind": "replace", "player": "ann", "name": "Yuki",
                             "email": "yuki@example.org"}}]
    assert roster.settings(data).github_of("ann-gh") == []
    assert roster.settings(data).github_of("BEN") == ["ben"]


@pytest.mark.parametrize("login", ["-ann", "ann-", "an--n", "a_n", "a" * 40, "ann gh"])
def test_new_refuses_what_is_no_github_login(tmp_path: Path, login: str) -> None:
    done = run("new", "staufer", tmp_path / "g.json", "--players", "ann,ben", "--github",
               f"ann={login}")
    assert done.exit_code == 2 and "is not a GitHub login" in done.output
    assert not (tmp_path / "g.json").exists()


def test_new_refuses_one_login_for_two_seats_in_any_case(tmp_path: Path) -> None:
    done = run("new", "staufer", tmp_path / "g.json", "--players", "ann,ben", "--github",
               "ann=Octo,ben=octo")
    assert done.exit_code == 2 and "given for two seats" in done.output
    new_game(tmp_path / "g.json", "staufer", "--github", "ann=a-1,ben=B2", players="ann,ben",
             seed="1")


@pytest.mark.parametrize("value", ["issue:0", "issue:12a", "pull:1", "comment:" + "1" * 21,
                                   "issue:1\n"])
def test_a_log_entrys_github_field_is_bounded(games: Path, value: str) -> None:
    path = games / "g1.json"
    ok("move", path, "--as", "ann", legal(path, "ann")[0])
    data = json.loads(path.read_text())
    data["log"][0]["github"] = value
    path.write_text(json.dumps(data))
    done = run("check", path)
    assert done.exit_code == 1 and "$.log[0].github" in done.output, done.output


def test_show_md_writes_the_public_board_with_the_links(tmp_path: Path, games: Path) -> None:
    path = games / "g1.json"
    out = tmp_path / "README-board.md"
    ok("show", path, "--md", out, "--github-repo", REPO)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("## The Staufer Dynasty: g1\n")
    for move in legal(path, "ann")[:issues.LINKS_MAX]:
        url = issues.new_issue_url(REPO, issues.title("g1", "ann", move), issues.body(move, 0))
        assert f"[{issues.escape_markdown(move)}]({url})" in text
    assert "github.com" not in ok("show", path, "--md", "-").output
    for args, says in ((["--md", "-", "--as", "ann"], "without --as"),
                       (["--svg", "-", "--github-repo", REPO], "goes with --md"),
                       (["--md", "-", "--github-repo", "nope"], "OWNER/NAME"),
                       (["--md", "-", "--svg", "-"], "exactly one")):
        done = run("show", path, *args)
        assert done.exit_code == 2 and says in done.output, (args, done.output)


def test_a_seat_that_reads_german_is_answered_in_german(games: Path, judge: Runner) -> None:
    from tests.i18n_check import english_sentences

    path = games / "g1.json"
    ok("lang", path, "--as", "ann", "de")
    move = legal(path, "ann")[0]
    said = {move: f"Gespielt für ann: `{move}`.",
            "hallo": "Nichts in diesem Issue liest sich als Zug",
            "help": "So spielst du über GitHub-Issues"}
    for n, (typed, german) in enumerate(said.items()):
        done, answer = judge(github_event("issues.opened", title="[referee] g1", body=typed,
                                          login="ann-gh", text_id=19 + n))
        assert done.exit_code == 0 and answer is not None and german in answer, answer
        assert answer.startswith(answers.MARK + "\n")  # (an HTML comment: not shown)
        shown = re.sub(r"\]\([^)]*\)", "]", answer[len(answers.MARK):])  # (no addresses)
        assert english_sentences(shown) == [], typed


def test_show_md_of_a_game_owing_nonces_names_the_nonces(tmp_path: Path) -> None:
    """Before the first move of a game with nonces, the Markdown board says who owes a
    nonce, as `status` does (the game's own prompt would name a move nobody can make
    yet), and shows no board."""
    path = new_game(tmp_path / "n.json", "staufer", "--nonces", players="ann,ben",
                    seed="md-nonces", game_id="n1")
    md = ok("show", path, "--md", "-").output
    line = "Waiting for ann and ben: waiting for nonce commitments from ann, ben before " \
        "the first move"
    assert md.splitlines()[2].startswith(line), md
    assert "waiting for nonce commitments from ann, ben" in " ".join(ok("status", path)
                                                                    .output.split())
