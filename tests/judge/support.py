"""Scripted players for the judge tests: they read the mails a judge sent them and
answer the latest one as people do, in eight mail-client styles. No tests here."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import hashlib
import os
import random
import weakref
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from referee.engine import legal_strings
from referee.ledger import gamefile, replay, secret
from referee.mail import tokens

STYLES = ("top", "bottom", "html", "outlook", "mobile", "token-line", "german", "plain")


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def wrapped(text: str, width: int = 78) -> bool:
    """Whether every line of a mail's text is at most ``width`` columns but a one-click
    link's (a URL cannot be wrapped: docs/mail.md, "Moves with one click")."""
    return all(len(line) <= width for line in text.splitlines() if "mailto:" not in line)


def body_text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")


def reply(to_msg: EmailMessage, text: str, style: str = "top", *, sender: str | None = None,
          msgid: str | None = None, subject: str | None = None,
          headers: dict[str, str] | None = None) -> bytes:
    """A reply to ``to_msg`` with ``text`` as the player's own lines, in ``style``."""
    original = body_text(to_msg)
    quoted = "\n".join("> " + line for line in original.splitlines())
    out = EmailMessage(policy=email.policy.default)
    out["From"] = sender or str(to_msg["To"])
    out["To"] = str(to_msg["From"])
    subj = subject if subject is not None else str(to_msg["Subject"])
    if style == "german":
        out["Subject"] = "AW: " + subj
    else:
        out["Subject"] = "Re: " + subj
    out["Message-ID"] = msgid or make_msgid(domain="player.example")
    out["In-Reply-To"] = str(to_msg["Message-ID"])
    refs = str(to_msg.get("References", "") or "")
    out["References"] = f"{refs} {to_msg['Message-ID']}".strip()
    for name, value in (headers or {}).items():
        out[name] = value
    if style == "token-line":
        token = subj.rsplit("[#", 1)[-1].rstrip("]")
        out.replace_header("Subject", "my move")
        del out["References"]
        out.set_content(f"{text}\ntoken: {token}\n\nBest\n")
        out.replace_header("Subject", "my move")
        return bytes(out)
    if style == "bottom":
        out.set_content(f"On Mon, 6 Jan 2025, Referee wrote:\n{quoted}\n\n{text}\n\n-- \nAnn\n")
    elif style == "html":
        html = text.replace("\n", "<br>")
        out.set_content(f"{text}\n\nThanks!\n")
        out.add_alternative(
            f"<html><body><div>{html}</div><div>Thanks!</div><div class=\"gmail_quote\">"
            f"<blockquote>{original.replace(chr(10), '<br>')}</blockquote></div>"
            "</body></html>", subtype="html")
    elif style == "outlook":
        out.set_content(f"{text}\r\n\r\n________________________________\nFrom: Referee\n"
                        f"Sent: Monday\nTo: you\nSubject: {subj}\n\n{original}\n")
    elif style == "mobile":
        out.set_content(f"{text}\n\nSent from my iPhone\n\n> On 6 Jan 2025, at 10:00, "
                        f"Referee wrote:\n{quoted}\n")
    elif style == "german":
        out.set_content(f"Hallo,\n\n{text}\n\nGruß\n\nAm 06.01.2025 schrieb Referee:\n{quoted}\n")
    elif style == "plain":
        out.set_content(f"{text}\n")
    else:
        out.set_content(f"{text}\n\nCheers\n-- \nsent by a player\n\nOn Jan 1, Referee "
                        f"wrote:\n{quoted}\n")
    return bytes(out)


def counter(msgid: str) -> int:
    jid = tokens.parse_id(msgid)
    assert jid is not None, msgid
    return jid.counter


def deliver(maildir: Path, raw: bytes) -> None:
    """Put a message into a Maildir's new/ atomically."""
    name = hashlib.sha256(raw).hexdigest()[:24] + f".{os.getpid()}.test"
    tmp = maildir / "tmp" / name
    tmp.write_bytes(raw)
    os.replace(tmp, maildir / "new" / name)


_PARSED: dict[tuple[str, int], EmailMessage] = {}


def outbox_messages(outbox: Path) -> list[EmailMessage]:
    """Every message in a Maildir (new and cur), in the order the judge wrote them. A
    folder not made yet holds none (a judge killed while it made the Maildir makes the
    rest when it starts again)."""
    paths = [p for sub in ("new", "cur") if (outbox / sub).is_dir()
             for p in (outbox / sub).iterdir()]
    stats = sorted(((p.stat().st_mtime_ns, p.name), p) for p in paths)
    out = []
    for (mtime, _), p in stats:
        key = (str(p), mtime)
        if key not in _PARSED:
            _PARSED[key] = parse(p.read_bytes())
        out.append(_PARSED[key])
    return out


# Summaries by message object, forgotten with the message: an id() key could be reused by
# a later message once the first is gone, and hand back another mail's summary.
_SUMMARY: weakref.WeakKeyDictionary[EmailMessage, tuple[str, str, int, str, str]] = (
    weakref.WeakKeyDictionary())


def summary(msg: EmailMessage) -> tuple[str, str, int, str, str]:
    """(player, To, ID counter, first body line, game) of a judge mail, computed once."""
    if msg not in _SUMMARY:
        _SUMMARY[msg] = (str(msg["X-Referee-Player"]), str(msg["To"]),
                         counter(str(msg["Message-ID"])), body_text(msg).splitlines()[0],
                         str(msg["X-Referee-Game"]))
    return _SUMMARY[msg]


@dataclass
class Player:
    """A scripted player: answers the latest mail that asks them to decide."""

    pid: str
    address: str
    style: str
    rng: random.Random
    game: str | None = None  # only this game's mails (None: any)
    answered: set[str] = field(default_factory=set)

    def turn_mail(self, messages: list[EmailMessage]) -> EmailMessage | None:
        """The newest mail to this player, if it asks them to decide and is unanswered."""
        mine = [m for m in messages if summary(m)[0] == self.pid
                and self.address in summary(m)[1]
                and self.game in (None, summary(m)[4])]
        if not mine:
            return None
        latest = max(mine, key=lambda m: summary(m)[2])
        first = summary(latest)[3]
        if not first.startswith(f"Your turn, {self.pid}") or str(latest["Message-ID"]) in \
                self.answered:
            return None
        return latest

    def choose(self, path: Path) -> str:
        gf = gamefile.read(path)
        if gamefile.missing_nonces(gf):
            return f"nonce {self.rng.getrandbits(64):x}"
        match = replay.replay(gf, secret.find_seed(gf, None, path))
        legal = legal_strings(match.game, match.state, self.pid)
        return self.rng.choice(legal)

    def act(self, messages: list[EmailMessage], path: Path) -> bytes | None:
        mail = self.turn_mail(messages)
        if mail is None:
            return None
        self.answered.add(str(mail["Message-ID"]))
        return reply(mail, self.choose(path), self.style)


class Clock:
    """The judge's clock in a test: a time that stands until the test moves ``now``."""

    def __init__(self) -> None:
        self.now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.now
