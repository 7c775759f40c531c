"""Notification channels in a whole judge game over Maildir, posting to a real HTTP
receiver on loopback: `notify via URL` by mail (besides the mail, or instead of it), the
notices (your turn, who moved, game over, the site link), a failing receiver retried and
its error told in the player's next mail, and the URL in no game file, no mail to
anybody, no site page, no `status` or `show` and no line of the judge's log."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from click.testing import Result

from referee.judge.store import JOURNAL_NAME, STATE_NAME
from referee.ledger import gamefile
from tests.conftest import ok, run
from tests.judge.support import body_text, reply, wrapped
from tests.judge.test_maildir_loop import Setup
from tests.mail.test_notify import Receiver, receiver  # noqa: F401 - the fixture

SITE = "https://games.example.org/club"


class Watched(Setup):
    """A judge setup that keeps the judge's log (its output) of every run."""

    def __init__(self, tmp_path: Path, **kwargs: object) -> None:
        super().__init__(tmp_path, **kwargs)  # type: ignore[arg-type]
        self.options = ("--notify-private", "--site-url", SITE)
        self.logs: list[str] = []

    def judge(self, *extra: str) -> Result:
        result = super().judge(*extra)
        self.logs.append(result.output)
        return result

    def fresh(self, pid: str):  # type: ignore[no-untyped-def]
        """A mail of ``pid``'s to reply to at the current state (`status` answered)."""
        self.send(reply(self.latest(pid), "status"))
        return self.latest(pid)


def _setup(tmp_path: Path) -> Watched:
    setup = Watched(tmp_path)
    setup.judge()
    setup.new_mail()
    return setup


def _everything_public(setup: Watched, tmp_path: Path) -> list[str]:
    """Every text the URL must never be in: the game file, every mail, the judge's log,
    the site, `status` and `log` of each player, the board."""
    texts = [setup.path.read_text(), *setup.logs]
    texts += [m.as_string() for m in setup.sent()]
    site, games = tmp_path / "site", tmp_path / "published"
    games.mkdir()  # (the game files alone, as a club publishes them)
    shutil.copy(setup.path, games / setup.path.name)
    ok("site", games, "--out", site)
    texts += [p.read_text(errors="replace") for p in site.rglob("*") if p.is_file()]
    for pid in ("ann", "ben", "cat"):
        texts.append(ok("status", setup.path, "--as", pid).output)
        texts.append(ok("log", setup.path, "--as", pid).output)
    texts.append(ok("show", setup.path, "--as", "cat", "--svg", tmp_path / "board.svg").output)
    texts.append((tmp_path / "board.svg").read_text())
    return texts


def _play(setup: Watched, pid: str, move: str) -> list:  # type: ignore[type-arg]
    return setup.send(reply(setup.fresh(pid), move))


def test_a_whole_game_notifies_the_channels_and_never_shows_a_url(
        tmp_path: Path, receiver: Receiver) -> None:  # noqa: F811
    setup = _setup(tmp_path)
    ann_url, ben_url = receiver.url("ann/SECRET-A"), receiver.url("ben/SECRET-B")
    told = setup.send(reply(setup.latest("ann"), f"notify via {ann_url}"))
    (answer,) = told
    assert answer["X-Referee-Player"] == "ann"
    assert "Your notification channel is json://127.0.0.1, besides the mail." in \
        body_text(answer)
    told = setup.send(reply(setup.latest("ben"), f"notify via {ben_url} only"))
    assert "json://127.0.0.1, instead of the mail" in body_text(told[0])
    assert receiver.posts == []  # setting a channel is no notice

    out = _play(setup, "ann", "take 3")
    by = {m["X-Referee-Player"] for m in out}
    assert "ben" not in by  # ben's turn: told on his channel only
    (ben_notice,) = receiver.at("ben/SECRET-B")
    assert ben_notice["title"] == "toy-1: Toy Take-Away"
    assert ben_notice["message"].splitlines() == [
        "Your turn, Ben.", f"{SITE}/toy-1/"]
    (ann_notice,) = receiver.at("ann/SECRET-A")  # her confirmation, also as a notice
    assert ann_notice["message"].startswith("Waiting for ben.")

    _play(setup, "ben", "take 3")
    assert len(receiver.at("ann/SECRET-A")) == 1  # her mode `turn`: no mail, no notice
    _play(setup, "cat", "take 3")
    assert receiver.at("ann/SECRET-A")[-1]["message"].splitlines() == [
        "Your turn, Ann.", "Moved since your last notice: ben, cat.", f"{SITE}/toy-1/"]
    _play(setup, "ann", "take 1")
    match_over = receiver.at("ben/SECRET-B")[-1]["message"]
    assert match_over.startswith("Game over. Ranking: 1. ann;"), match_over
    assert receiver.at("ann/SECRET-A")[-1]["message"].startswith("Game over.")
    assert not any(p.startswith("/cat") for p, _ in receiver.posts)  # cat has none

    for text in _everything_public(setup, tmp_path):
        for secret in ("SECRET-A", "SECRET-B", f":{receiver.port}/"):
            assert secret not in text
    state = [setup.games / STATE_NAME, setup.games / JOURNAL_NAME]
    # the judge's private store (its state file and journal) holds it...
    assert any(b"SECRET-A" in p.read_bytes() for p in state if p.exists())
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in state  # ...owner-only
               if p.exists())


@pytest.mark.slow
def test_a_failing_channel_is_retried_and_its_error_told_in_the_next_mail(
        tmp_path: Path, receiver: Receiver) -> None:  # noqa: F811
    setup = _setup(tmp_path)
    setup.send(reply(setup.latest("ben"), f"notify via {receiver.url('ben/SECRET')} only"))
    receiver.codes = [500]
    out = _play(setup, "ann", "take 2")
    assert len(receiver.at("ben/SECRET")) == 3  # three tries, within the judge's pass
    ben = [m for m in out if m["X-Referee-Player"] == "ben"]
    assert len(ben) == 1  # `only`, but the channel failed: the mail came after all
    text = body_text(ben[0])
    assert wrapped(text)
    assert "Your notification channel failed: json://127.0.0.1: Failed to send JSON" in \
        text and "error=500" in text and "(3 tries)" in text
    assert "SECRET" not in text and "SECRET" not in "".join(setup.logs)
    assert "channel of ben in toy-1 failed" in setup.logs[-1]
    receiver.codes = [200]
    out = _play(setup, "ben", "take 2")
    assert len(receiver.at("ben/SECRET")) == 4
    assert all("notification channel failed" not in body_text(m) for m in out)


def test_another_player_cannot_set_a_channel_by_mail(tmp_path: Path,
                                                     receiver: Receiver) -> None:  # noqa: F811
    setup = _setup(tmp_path)
    ann_mail = setup.latest("ann")
    out = setup.send(reply(ann_mail, f"notify via {receiver.url('evil/x')}",
                           sender="Ben <ben@example.org>"))
    assert out and all("Not accepted" in body_text(m) for m in out)
    assert all("ben@example.org" in str(m["To"]) for m in out)  # told to the sender only
    _play(setup, "ann", "take 1")
    assert receiver.posts == []
    assert all(b"evil" not in (setup.games / name).read_bytes()
               for name in (STATE_NAME, JOURNAL_NAME) if (setup.games / name).exists())


def test_a_bad_url_by_mail_is_refused_without_repeating_it(
        tmp_path: Path, receiver: Receiver) -> None:  # noqa: F811
    setup = _setup(tmp_path)
    for line, words in (("notify via file:///home/SECRET", "network scheme"),
                        (f"notify via json://x.org/{'S' * 600}", "at most 512"),
                        (f"notify via {receiver.url('a/SECRET')} sometimes", "`also`")):
        (answer,) = setup.send(reply(setup.latest("ann"), line))
        text = body_text(answer)
        assert "`notify via` not done" in text and words in text, text
        assert "SECRET" not in text and "S" * 50 not in text
    (answer,) = setup.send(reply(setup.latest("ann"), "notify via"))
    assert "write `notify via URL [also|only] | notify via off`" in body_text(answer)
    assert "SECRET" not in "".join(setup.logs)
    _play(setup, "ann", "take 1")
    assert receiver.posts == []


def test_a_channel_set_with_the_command_line_is_used_by_the_judge_and_turned_off(
        tmp_path: Path, receiver: Receiver) -> None:  # noqa: F811
    setup = _setup(tmp_path)
    ok("notify", setup.path, "--notify-private", "--as", "ben", receiver.url("ben/cli-SECRET"))
    assert b"cli-SECRET" not in setup.path.read_bytes()
    setup.judge()
    _play(setup, "ann", "take 1")
    assert receiver.at("ben/cli-SECRET")[-1]["message"].startswith("Your turn, Ben.")
    # by mail `off` is later than the file's record: it is in force
    (answer,) = setup.send(reply(setup.fresh("ben"), "notify via off"))
    assert "You have no notification channel" in body_text(answer)
    count = len(receiver.posts)
    _play(setup, "ben", "take 1")
    assert len(receiver.posts) == count
    assert "cli-SECRET" not in "".join(m.as_string() for m in setup.sent())
    assert "cli-SECRET" not in run("log", setup.path).output
    assert gamefile.read(setup.path).log[0]["meta"]["via"] == "also"


def test_a_private_target_is_refused_without_the_judge_option(
        tmp_path: Path, receiver: Receiver) -> None:  # noqa: F811
    setup = _setup(tmp_path)
    setup.options = ()
    (answer,) = setup.send(reply(setup.latest("ben"), f"notify via {receiver.url('ben/x')}"))
    told = " ".join(body_text(answer).split())
    assert "`notify via` not done: this json:// channel is refused: its host resolves to a " \
        "loopback address" in told and "--notify-private" in told, told
    assert str(receiver.port) not in told and "ben/x" not in told
    # set while the judge allowed it, then the judge runs without: checked before the send
    setup.options = ("--notify-private",)
    setup.send(reply(setup.latest("ben"), f"notify via {receiver.url('ben/x')}"))
    setup.options = ()
    out = _play(setup, "ann", "take 1")
    assert receiver.posts == []
    ben = next(m for m in out if m["X-Referee-Player"] == "ben")
    assert "not sent: its host resolves to a loopback address" in \
        " ".join(body_text(ben).split())


def test_a_say_still_comes_by_mail_and_is_no_notice(tmp_path: Path,
                                                    receiver: Receiver) -> None:  # noqa: F811
    setup = _setup(tmp_path)
    setup.send(reply(setup.latest("ben"), f"notify via {receiver.url('ben/x')} only"))
    out = setup.send(reply(setup.latest("ann"), "say good luck, everyone"))
    ben = [m for m in out if m["X-Referee-Player"] == "ben"]
    assert len(ben) == 1 and "ann says: good luck, everyone" in body_text(ben[0])
    assert receiver.posts == []


def test_the_site_url_is_an_http_url(tmp_path: Path) -> None:
    setup = Watched(tmp_path)
    result = run("judge", setup.games, "--maildir", setup.inbox, "--outbox", setup.outbox,
                 "--from", "referee@example.org", "--site-url", "file:///srv/site")
    assert result.exit_code == 2 and "--site-url takes an http:// or https:// URL" in \
        result.output
    assert not setup.outbox.exists()
