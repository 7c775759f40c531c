"""notify: a player's chat or push channel (docs/notifications.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from referee.cli.common import PATH, command, emit_json, secret_option
from referee.errors import RefereeError, SealedError, UsageError
from referee.ledger import gamefile, secret
from referee.mail import notify

TEST_TITLE = "referee: test notification"


class TestFailed(RefereeError):
    """The test notification was not delivered (exit 1)."""


@command()
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "player", required=True, metavar="PLAYER", help="Whose channel.")
@click.argument("url", required=False, metavar="[URL]")
@click.option("--only", "only", is_flag=True,
              help="Notify on the channel instead of by mail (default: besides the mail).")
@click.option("--off", "off", is_flag=True, help="No channel any more.")
@click.option("--test", "test", is_flag=True,
              help="Send a test notification (to URL before storing it, or to the stored "
                   "channel, which needs the game's secret) and report the result.")
@click.option("--notify-private", "allow_private", is_flag=True,
              help="Let the channel reach this machine or a private network (refused by "
                   "default; the judge needs the same option to use it).")
@secret_option
def notify_command(path: Path, player: str, url: str | None, only: bool, off: bool,
                   test: bool, allow_private: bool, secret_path: Path | None,
                   as_json: bool) -> None:
    """Set PLAYER's notification channel: an apprise URL (discord://..., ntfys://TOPIC,
    json://HOST/PATH...) the judge notifies besides the mail, or instead of it with
    --only. URL `-` reads it from standard input (kept out of the shell's history). The
    URL is sealed to the referee in the game file: only a sealed game can hold one."""
    if off and (url is not None or only or test):
        raise UsageError("notify --off takes no URL, --only or --test")
    if url == "-":
        url = sys.stdin.readline().strip()
    if url is None and not off and not test:
        raise UsageError("give a channel URL, --off or --test",
                         hints=["referee notify FILE --as PLAYER discord://ID/TOKEN"])
    if url is None and test:
        _test_stored(path, player, secret_path, as_json, allow_private)
        return
    sent = None
    if test and url is not None:
        url = notify.check_channel(url, allow_private=allow_private)
        sent = _send_test(url, notify.masked(url), player, allow_private,
                          "; nothing was stored")
    via = "off" if off else "only" if only else "also"
    entry, _ = notify.set_channel(path, player, None if off else url, via,
                                  secret_path=secret_path, allow_private=allow_private)
    shown = None if off or url is None else notify.masked(url)
    if as_json:
        emit_json({"player": player, "n": entry["n"], "via": via, "channel": shown,
                   "test": None if sent is None else {"ok": sent.ok, "tries": sent.tries}})
        return
    if sent is not None:
        click.echo(f"test notification delivered to {shown} ({sent.tries} tries).")
    if off:
        click.echo(f"entry {entry['n']}: {player} has no notification channel now.")
        return
    how = "instead of the mail" if via == "only" else "besides the mail"
    click.echo(f"entry {entry['n']}: {player}'s channel is {shown}, {how}; the URL is "
               "sealed to the referee.")


def _send_test(url: str, shown: str, player: str, allow_private: bool,
               failed_note: str = "") -> notify.Sent:
    """A test notification to ``url`` (``shown``: masked), checked and guarded as the
    judge's notices are; raises TestFailed if it was not delivered after the retries."""
    sent = notify.send(url, TEST_TITLE, f"A test from the referee for {player}.",
                       allow_private=allow_private)
    if not sent.ok:
        raise TestFailed(f"the test notification to {shown} failed after {sent.tries} "
                         f"tries: {sent.error}{failed_note}")
    return sent


def _test_stored(path: Path, player: str, secret_path: Path | None, as_json: bool,
                 allow_private: bool) -> None:
    """--test without a URL: the channel in force, opened with the game's secret."""
    gf = gamefile.read(path)
    gf.player(player)
    seed = secret.find_seed(gf, secret_path, path)
    if seed is None:
        raise SealedError("the stored channel is sealed to the referee: testing it needs "
                          "the game's secret", hints=["give --secret FILE, or test a URL: "
                                                      "notify FILE --as P URL --test"])
    found = notify.from_log(gf, seed).get(player)
    if found is None or found.channel is None:
        raise UsageError(found.error if found is not None and found.error else
                         f"{player} has no notification channel in this game")
    sent = _send_test(found.channel.url, found.channel.shown, player, allow_private)
    if as_json:
        emit_json({"player": player, "channel": found.channel.shown, "ok": True,
                   "tries": sent.tries})
        return
    click.echo(f"test notification delivered to {found.channel.shown} ({sent.tries} tries).")
