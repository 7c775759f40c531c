"""Moves with one click by mail (referee/doors/mail/links.py, docs/mail.md): the judge's
mail to the player who must decide holds a ``mailto:`` link for each legal move (the
first :data:`LINKS_MAX`); a mail made from a link alone (no In-Reply-To, no token), from
the seat's registered address, is played; another player's address plays nothing; a
link used again or after its turn plays nothing and is answered once; a client that
breaks the subject loses nothing; no http link exists, and opening a link does nothing."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from referee.doors.mail.links import LINKS_MAX
from referee.engine import legal_strings
from referee.ledger import gamefile, replay, secret
from tests.judge.support import body_text
from tests.judge.test_maildir_loop import Setup


def links_of(msg: EmailMessage) -> dict[str, str]:
    """The one-click links of a mail's plain text: move -> mailto URL."""
    found = {}
    for line in body_text(msg).splitlines():
        move, sep, url = line.strip().partition(": mailto:")
        if sep:
            found[move] = "mailto:" + url
    return found


def link_mail(url: str, sender: str, *, subject: str | None = None,
              raw_subject: bytes | None = None, in_reply_to: str | None = None) -> bytes:
    """The mail a client makes of ``url`` (mailto: to, subject, body), sent by ``sender``;
    ``raw_subject``: the Subject header's bytes as a broken client writes them."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    to = unquote(parts.path)
    head = [f"From: {sender}", f"To: {to}", f"Message-ID: {make_msgid(domain='player.example')}",
            "Date: Mon, 07 Dec 2026 12:00:00 +0000", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8"]
    if in_reply_to:
        head.append(f"In-Reply-To: {in_reply_to}")
    lines = [line.encode() for line in head]
    if raw_subject is not None:
        lines.append(b"Subject: " + raw_subject)
    else:
        lines.append(f"Subject: {subject if subject is not None else query['subject'][0]}"
                     .encode())
    body = query["body"][0] + "\r\n\r\nSent from my phone\r\n"
    return b"\r\n".join(lines) + b"\r\n\r\n" + body.encode()


def entries(setup: Setup) -> int:
    return len(gamefile.read(setup.path).log)


def to_move(setup: Setup) -> tuple[str, list[str]]:
    gf = gamefile.read(setup.path)
    match = replay.replay(gf, secret.find_seed(gf, None, setup.path))
    who = match.game.to_move(match.state)[0]
    return who, legal_strings(match.game, match.state, who)


def test_a_mail_to_the_player_to_move_holds_a_link_for_each_legal_move(toy: Setup) -> None:
    who, legal = to_move(toy)
    mail = toy.latest(who)
    links = links_of(mail)
    assert list(links) == legal[:LINKS_MAX] and legal[0] in links
    url = links[legal[0]]
    assert url.startswith("mailto:referee+") and "@example.org?" in url
    assert parse_qs(urlsplit(url).query)["body"] == [legal[0]]
    html = next(p for p in mail.walk() if p.get_content_type() == "text/html") \
        if mail.is_multipart() else None
    if html is not None:  # (the pictures extra: the HTML part shows them as buttons)
        assert url.replace("&", "&amp;") in str(html.get_content())
    others = [m for m in toy.sent() if str(m["X-Referee-Player"]) not in (who, "watcher")]
    assert others and all(not links_of(m) for m in others)  # only who must decide
    assert "http://" not in body_text(mail) and "https://" not in body_text(mail)


def test_a_mail_made_from_a_link_alone_is_played(toy: Setup) -> None:
    who, legal = to_move(toy)
    url = links_of(toy.latest(who))[legal[0]]
    toy.new_mail()
    out = toy.send(link_mail(url, "Ann <ann@example.org>"))  # no In-Reply-To, no token
    entry = gamefile.read(toy.path).log[-1]
    assert entries(toy) == 1 and entry["by"] == who and entry["mail"].endswith(
        "@player.example>")
    assert any(str(m["X-Referee-Player"]) == "ben" and "Your turn" in body_text(m)
               for m in out)


def test_a_link_from_another_players_address_plays_nothing(toy: Setup) -> None:
    who, legal = to_move(toy)
    url = links_of(toy.latest(who))[legal[0]]
    toy.new_mail()
    out = toy.send(link_mail(url, "Ben <ben@example.org>"))
    assert entries(toy) == 0
    assert [str(m["To"]) for m in out] == ["ben@example.org"]  # told, as a stranger is
    assert "not registered for ann" in body_text(out[0])


def test_a_link_used_again_or_after_its_turn_plays_nothing(toy: Setup) -> None:
    who, legal = to_move(toy)
    url = links_of(toy.latest(who))[legal[0]]
    toy.send(link_mail(url, "Ann <ann@example.org>"))
    assert entries(toy) == 1
    toy.new_mail()
    # the same link again, or another move of the same mail: of an earlier turn now,
    # stale: refused, answered once, then passed over
    out = toy.send(link_mail(url, "Ann <ann@example.org>"))
    assert entries(toy) == 1 and len(out) == 1 and str(out[0]["To"]).endswith(
        "<ann@example.org>")
    assert "Not played" in body_text(out[0]) and "an old mail" in body_text(out[0])
    stale = next(u for m, u in links_of(parse_first(toy, "ann")).items() if m != legal[0])
    assert toy.send(link_mail(stale, "Ann <ann@example.org>")) == []
    assert toy.send(link_mail(url, "Ann <ann@example.org>")) == []
    assert entries(toy) == 1


def parse_first(setup: Setup, player: str) -> EmailMessage:
    """The first mail of ``player`` that held links."""
    return next(m for m in setup.sent() if str(m["X-Referee-Player"]) == player
                and links_of(m))


@pytest.mark.parametrize("subject", [
    b"=?utf-8?q?Re=3A_=FF=FE_broken?= \xff\xfe\xc3",  # raw 8-bit bytes in an encoded word
    b"", b"=?x-unknown?b?!!!?="])
def test_a_link_mail_whose_subject_a_client_broke_is_played(toy: Setup, subject: bytes
                                                            ) -> None:
    who, legal = to_move(toy)
    url = links_of(toy.latest(who))[legal[0]]
    toy.send(link_mail(url, "Ann <ann@example.org>", raw_subject=subject))
    assert entries(toy) == 1


def test_the_tag_can_go_in_the_subject_for_a_server_without_plus_addresses(
        tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.options = ("--mail-links", "subject")
    setup.judge()
    who, legal = to_move(setup)
    url = links_of(setup.latest(who))[legal[0]]
    assert url.startswith("mailto:referee@example.org?")  # the plain address
    setup.send(link_mail(url, "Ann <ann@example.org>"))
    assert entries(setup) == 1


def test_no_links_when_the_operator_says_so(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.options = ("--mail-links", "off")
    setup.judge()
    assert all(not links_of(m) for m in setup.sent())


def test_a_forged_tag_plays_nothing(toy: Setup) -> None:
    who, legal = to_move(toy)
    url = links_of(toy.latest(who))[legal[0]]
    forged = url.replace(url.split("@")[0][-4:], "aaaa")  # the MAC's end changed
    toy.new_mail()
    toy.send(link_mail(forged, "Ann <ann@example.org>"))
    assert entries(toy) == 0


def test_the_html_part_keeps_a_paragraph_that_quotes_a_link() -> None:
    """The one-click links go to the HTML part as buttons, given apart; a paragraph of
    the mail that merely quotes a player's ``mailto:`` (a refused line echoed) stays in
    the text the HTML shows."""
    from referee.doors.mail.html import blocks

    body = ("Round 1: ann to choose\n\nLine 1 `mailto:x@example.org` was not accepted.\n\n"
            "Legal moves for ann:\n  supply 2\n")
    found = blocks(body)
    assert "Line 1 `mailto:x@example.org` was not accepted." in [*found["before"],
                                                                  *found["after"]]
