"""The game-file format's constants (docs/file-format.md): the bound of every field, the
patterns its strings must match, and the format's fixed names. No types: the msgspec
Structs that check a file are in :mod:`referee.ledger.schema`, the JSON Schemas made from them
in :mod:`referee.ledger.schemagen`; a module that needs only a bound or a name imports it from
here."""

import re

FORMAT = "referee/1"
# How every game file the referee writes starts: what :func:`claims_game_file` and
# :func:`other_json` look for first, before they decode a file that starts otherwise.
GAME_FILE_HEAD = b'{\n  "format": "referee/1",'
# The same with any white space (a game file written by another tool, indented
# otherwise): its first key names the format, so it is no other JSON (a site or a report
# over 10,000 such files decoded each one to learn that: a third of a rebuild).
_GAME_FILE_START = re.compile(rb'\{\s*"format"\s*:\s*"referee/1"\s*[,}]')
PLAYER_ID = r"^[a-z][a-z0-9_-]{0,23}$"
GAME_ID = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$"

# --- bounds: every field of a game file has one (docs/file-format.md lists them) --------
# A game file is read, whole, by every command; a field without a bound would let one
# player's entry (a mail's Message-ID, a padded move) make the file unreadable for all.
NAME_MAX = 100  # a player's display name, in characters
EMAIL_MAX = 254  # an e-mail address (RFC 5321: a forward-path is at most 256 octets)
MSG_ID_MAX = 998  # a Message-ID (RFC 5322: a line is at most 998 octets)
GITHUB_MAX = 39  # a GitHub login
GITHUB_TEXT_MAX = 40  # what made a log entry in a GitHub issue: ``issue:ID`` or ``comment:ID``
MATRIX_ID_MAX = 255  # a Matrix user id (the spec's bound) and an event id
GAME_NAME_MAX = 32  # a game's name ("staufer")
RULES_MAX = 100  # a rules and data pin ("staufer-2+data.581a799773eb")
SEED_MAX = 256  # an open or revealed seed
NONCE_MAX = 128  # a player's nonce
OPTION_KEY_MAX = 32
OPTION_VALUE_MAX = 200
OPTIONS_MAX = 32  # options in a header
PLAYERS_MAX = 16  # players in a header (each game has its own, smaller, limit)
ADDRESSES_MAX = 8  # accepted addresses of one player (meta ``address``)
SEALED_MAX = 4096  # a sealed move's ciphertext, base64 characters
PUBLIC_MAX = 200  # a sealed move's public text
ENTRY_MAX = 1_000_000  # entry numbers (``n``, ``undo``, ``void``)
DEADLINE_HOURS_MAX = 8760  # a deadline: at most a year a decision
ITERATIONS_MAX = 5_000  # an mcts bot seat's iterations per decision
DIGEST_MAX = 1000  # a watcher's digest: one mail per at most this many decisions
SAY_MAX = 500  # a judge ``say`` text, after joining its lines (mailed, never stored)
# digits of a number in move notation ("number too long"): the engine's bound
from referee.engine import NUMBER_DIGITS_MAX  # noqa: E402,F401

# --- plans (referee/ledger/plans.py): a player's conditional moves and standing answers ---
PLAN_LINES_MAX = 8  # lines of one player's plan (a new plan replaces the old one)
PLAN_LINE_MAX = 120  # characters of one plan line
PLAN_SEALED_MAX = SEALED_MAX  # a sealed plan's ciphertext, base64 characters
PLAN_LINE = r"[^\x00-\x1f\x7f-\x9f]+"  # printable: no control character or line break
# --- notification channels (referee/mail/notify.py): a URL, only ever sealed to the referee ---
CHANNEL_URL_MAX = 512  # characters of a channel URL (checked before it is sealed)
CHANNEL_SEALED_MAX = 2048  # a sealed channel's ciphertext, base64 characters
# --- time control bounds (referee/clocks/clock.py) ---
CLOCK_SECONDS_MIN = 60  # a bank or cap: at least a minute
CLOCK_SECONDS_MAX = 365 * 86400  # a bank, increment or cap: at most a year
VACATION_DAYS_MAX = 365  # vacation days a player has for a game

TIME_UTC = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z"
_VISIBLE = r"[^@<>\s\x00-\x1f\x7f-\x9f]"  # no space, control character, "@", "<" or ">"
EMAIL = rf"{_VISIBLE}+@{_VISIBLE}+"
MSG_ID = r"<[^<>\s\x00-\x1f\x7f-\x9f]+>"  # RFC 5322 msg-id: <id-left@id-right>, loosely
RULES = r"[^\s\x00-\x1f\x7f-\x9f]+"  # (referee/ledger/dataversions.py reads the pin)
# a GitHub login: letters, digits and single hyphens inside (no leading, trailing or
# double hyphen); compared without case. What made an entry in an issue: the or
# the comment's id, GitHub's global (never the number in its repository)
GITHUB = r"[A-Za-z0-9](?:-?[A-Za-z0-9])*"
GITHUB_TEXT = r"(?:issue|comment):[1-9][0-9]{0,19}"
# a Matrix user id @localpart:server (the spec's localpart characters; a server name
# with an optional port), and an event id ($ then the server's opaque id, URL-safe)
MATRIX_USER = r"@[a-z0-9._=/+-]+:[A-Za-z0-9.-]+(?::[0-9]{1,5})?"
MATRIX_EVENT = r"\$[A-Za-z0-9._~+/=:-]+"
OPTION_KEY = r"[a-z][a-z0-9_-]*"
BASE64 = r"[A-Za-z0-9+/]+={0,2}"


def full(body: str) -> str:
    """A pattern the whole string must match, in Python and in ECMA-262 (JSON Schema):
    ``(?!\\n)`` after ``$`` refuses the trailing line break Python's ``$`` lets through."""
    return rf"^(?:{body})$(?!\n)"


CLOCK_KINDS = ("clock", "stamp", "vacation", "timeout")  # the time records (docs/clocks.md)
ENTRY_KINDS = ("move", "undo", "void", "meta")
GAME_MASTER = "gm"  # the ``by`` of entries made by the game master (never a player id)


# What a pattern means, for messages ("expected an RFC 3339 UTC time" rather than a regex)
PATTERN_TEXT = {
    full(TIME_UTC): "an RFC 3339 UTC time like 2026-11-30T10:00:00Z",
    full(EMAIL): "an e-mail address local@domain (no space, control character or <>)",
    full(MSG_ID): "a Message-ID <id@host> (no space, control character or <> inside)",
    full(RULES): "a rules pin like staufer-2+data.581a799773eb (no space or control character)",
    full(GITHUB): "a GitHub login (letters, digits and single hyphens inside)",
    full(GITHUB_TEXT): "a GitHub issue or comment like issue:1234 or comment:5678",
    full(MATRIX_USER): "a Matrix user id like @ann:example.org",
    full(MATRIX_EVENT): "a Matrix event id like $abc123",
    full(OPTION_KEY): "an option name (lower-case letters, digits, _ and -)",
    full(BASE64): "base64 text",
    full(PLAN_LINE): "a plan line (printable text, no line break)",
    full(PLAYER_ID[1:-1]): "a player id (a lower-case letter, then up to 23 more letters, "
                           "digits, _ or -)",
}


def claims_game_file(raw: bytes | None) -> bool:
    """Whether ``raw`` claims to be a game file: a JSON object whose ``format`` is
    :data:`FORMAT` (it may still be invalid), or text too broken to decode that names the
    format near its start (a damaged game file): what `check --since` counts as a game
    file."""
    if not raw:
        return False
    if raw.startswith(GAME_FILE_HEAD):
        return True
    import json

    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return f'"{FORMAT}"'.encode() in raw[:4096]
    return isinstance(data, dict) and data.get("format") == FORMAT


def other_json(raw: bytes) -> bool:
    """Whether ``raw`` is well-formed JSON that is no game file (the index of the views,
    a clock view, notes): what a folder of games holds besides, passed over there. A file
    that does not decode, or an object that names this format or has a log without
    naming any, is not: it may be a damaged game file, and is reported."""
    if raw.startswith(GAME_FILE_HEAD) or _GAME_FILE_START.match(raw):
        return False
    import json

    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    if not isinstance(data, dict):
        return True
    return data.get("format", FORMAT if "log" in data else None) != FORMAT
