"""Play by e-mail: player tokens, outgoing mail, delivery, and parsing players' replies.

A library only (the CLI wires it in); standard library only.

Design of tokens and replies
----------------------------
* A *token* is ``player_token(key, game_id, player)``: an HMAC of the game and the player
  under the referee's secret key, 16 base32 characters shown as ``abcd-efgh-ijkl-mnop``.
  It is a bearer secret that proves the sender received the referee's mail for that
  player; the From line proves nothing (it is trivially forged).
* ``compose(..., key=KEY)`` puts the token into the **Subject** as a tag
  ``[#abcd-efgh-ijkl-mnop]``. Every mail program keeps the subject when replying
  ("Re: ..."), so a plain reply carries the token without the player doing anything.
* ``parse_reply`` takes the token from an unquoted line of the player's own text that
  starts with ``token:`` (for players whose mail program loses the subject), else from the
  Subject tag. A mail marked as a forward (Subject "Fwd:"/"Fw:"/"WG:"..., or a forwarded
  message block in the body) gets no token from its Subject: forwarding the referee's
  mail must not let the receiver of the forward move for the player.
* Quoted text (lines starting with ``>``, HTML ``<blockquote>``), attributions
  ("On ... wrote:"), signatures ("-- ", "--", "Sent from my ...") and everything below an
  "-----Original Message-----" / forwarded-message marker never give a token or a move.
  Quoted text is only used to *identify* game and player, which the token then confirms.
* Every header of an incoming mail is read by :mod:`referee.mail.headers` (decoded with
  replacement, cleaned, bounded; addresses and Message-IDs from the raw value), and no
  answer copies one into its own headers (:mod:`referee.mail.rejections`).
* Game and player come from, in order: the X-Referee-* headers of an attached original
  (message/rfc822), the Message-IDs in In-Reply-To/References that ``compose`` made,
  ``game:``/``player:`` lines anywhere in the text: hints only.
* Every mail the referee sends with a key has a MAC'd Message-ID (``make_id``: game,
  seat, play number, counter). :mod:`referee.mail.intake` is the check a caller must
  make before acting on a reply, shared by the judge and `move --from-email`: it answers
  such an ID (MAC right, written at the current play number), comes from the seat's
  registered address, carries the seat's token, and its own Message-ID is in no log
  entry.

Moves: every own line ``move: X`` is one move, in order (a bare ``move:`` line takes the
next non-empty line). Without any ``move:`` line the move is the first own line that is
not a greeting ("Hi Ann,"), a ``token:``/``game:``/``player:`` line, or an attribution.

Output formats
--------------
``write_stdout`` writes an mbox stream (mboxo): each message starts with a line
``From referee@referee.invalid <asctime of its Date>``, body lines beginning "From " are
written as ">From ", and a blank line ends each message. ``mailbox.mbox`` and mail
programs (``mutt -f``) read it. ``write_maildir`` adds the messages to a Maildir.
"""


from __future__ import annotations

from referee.mail.delivery import send_smtp, write_maildir, write_stdout
from referee.mail.outgoing import (
    Outgoing,
    compose,
    message_id,
    set_text,
    subject,
    thread_id,
)
from referee.mail.rejections import reference, rejection, stranger_answer
from referee.mail.replies import Reply, html_to_text, parse_reply
from referee.mail.tokens import (
    DOMAIN,
    ENVELOPE_SENDER,
    MailError,
    MailId,
    check_id,
    check_token,
    find_ids,
    make_id,
    normalize_token,
    parse_id,
    player_token,
    quote_id_part,
    unquote_id_part,
)

__all__ = [
    "DOMAIN",
    "ENVELOPE_SENDER",
    "MailError",
    "MailId",
    "Outgoing",
    "Reply",
    "check_id",
    "check_token",
    "compose",
    "find_ids",
    "html_to_text",
    "make_id",
    "message_id",
    "normalize_token",
    "parse_id",
    "parse_reply",
    "player_token",
    "quote_id_part",
    "reference",
    "rejection",
    "send_smtp",
    "set_text",
    "stranger_answer",
    "subject",
    "thread_id",
    "unquote_id_part",
    "write_maildir",
    "write_stdout",
]
