"""Who may change the repository's allowed-signers file, and how.

``.referee/allowed_signers`` (git's allowed-signers format: ``PRINCIPALS [OPTIONS] KEYTYPE
KEY [COMMENT]``) says which SSH key signs for which player, and which keys the players'
views are encrypted to. A change to it is therefore a change of who is who. The rules,
checked for every commit of a change that touches the file (``check --since``, signed
mode or not), over the file's text before and after the commit and the principals the
commit's signing key has in the *anchor*, the file as it is at the revision checked
against:

* a player may add keys for themselves and remove their own keys as long as one is left
  (a rotation), in a commit signed with a key the anchor lists for them;
* a new player's first key, a key for somebody else, a gm key and any other removal need
  a game master's signature (a key the anchor lists for the principal ``gm``);
* the file may not be deleted, and may not lose its last gm key;
* every principal is a player id or ``gm``: no patterns (git reads ``*`` and ``?`` in a
  principal as wildcards that would match other players).

A commit that only reorders lines or edits comments changes no grant and passes. Merge
commits are judged by the result (:func:`net_problems`): the file at HEAD is the anchor's
with only the changes that allowed commits made.

Bootstrap: when the anchor has no file, the commit that creates it is trusted as the
repository owner's if it is pushed (not in a pull request), lists a gm key and is signed
by a gm key it lists itself.

Everything here is a pure function of texts and sets of principals; referee/git/history.py
asks git for the texts and the signatures.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from referee.errors import UsageError
from referee.ledger.fileformat import GAME_MASTER, PLAYER_ID

_PRINCIPAL = re.compile(PLAYER_ID)


@dataclass(frozen=True, order=True)
class Grant:
    """One key for one principal (a line with several principals gives several)."""

    principal: str
    key: str  # "KEYTYPE BASE64"
    options: str = ""  # as written, e.g. namespaces="git" (part of what is granted)


class SignersError(UsageError):
    """A line of an allowed-signers file cannot be read."""


def _is_key_type(word: str) -> bool:
    return word.startswith(("ssh-", "ecdsa-", "sk-"))


def parse_line(line: str) -> tuple[list[str], str, str] | None:
    """(principals, options, "KEYTYPE BASE64") of one line, None for a blank line or a
    comment. Raises ValueError saying what is wrong."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    words = shlex.split(line, comments=False)  # ValueError: unbalanced quotes
    at = next((i for i, w in enumerate(words) if i >= 1 and _is_key_type(w)), None)
    if at is None or at > 2 or at + 1 >= len(words):
        raise ValueError("expected PRINCIPALS [OPTIONS] KEYTYPE KEY [COMMENT]")
    try:
        base64.b64decode(words[at + 1], validate=True)
    except binascii.Error:
        raise ValueError("the key is not base64") from None
    options = words[1] if at == 2 else ""
    return words[0].split(","), options, f"{words[at]} {words[at + 1]}"


def reason(exc: ValueError) -> str:
    """What :func:`parse_line`'s error says, in the file's own terms."""
    return "unbalanced quotes" if "quotation" in str(exc) else str(exc)


def parse(text: str, where: str) -> set[Grant]:
    """Every grant of an allowed-signers file. Raises SignersError naming the line."""
    grants: set[Grant] = set()
    for number, line in enumerate(text.splitlines(), 1):
        try:
            parsed = parse_line(line)
        except ValueError as exc:
            raise SignersError(f"{where} line {number}: {reason(exc)}") from None
        if parsed is not None:
            principals, options, key = parsed
            grants |= {Grant(p, key, options) for p in principals}
    return grants


def fingerprint(key: str) -> str:
    """The key's fingerprint as ``ssh-keygen -l`` and git's %GK print it (SHA256:...)."""
    blob = base64.b64decode(key.split()[1])
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def principals_of(grants: Iterable[Grant], key_fingerprint: str) -> frozenset[str]:
    """The principals a key (by its fingerprint) signs for, certificate authorities
    excepted (a CA signs certificates, not commits)."""
    return frozenset(g.principal for g in grants if fingerprint(g.key) == key_fingerprint
                     and "cert-authority" not in g.options.lower())


def _keys_of(grants: Iterable[Grant], principal: str) -> set[Grant]:
    return {g for g in grants if g.principal == principal}


def _who(signer: frozenset[str]) -> str:
    return f"signed by {', '.join(sorted(signer))}" if signer else "not signed by a key " \
        "listed there"


def bad_principals(grants: Iterable[Grant]) -> list[str]:
    """The principals that are neither a player id nor gm (patterns, odd names)."""
    return sorted({g.principal for g in grants if not _PRINCIPAL.fullmatch(g.principal)})


def change_problems(old: str | None, new: str | None, signer: frozenset[str], what: str,
                    rel: str) -> list[str]:
    """Why the change of the file ``rel`` from ``old`` to ``new`` (None: no file) made by
    ``what`` (e.g. "commit 0123abcd") is not allowed for a commit whose signing key the
    anchor lists for the principals ``signer`` (empty: unsigned, or a key not listed).
    Raises SignersError for a line that cannot be read."""
    if new is None:
        return [] if old is None else [
            f"{what} deletes {rel}: the allowed-signers file may not be deleted "
            f"(a game master ({GAME_MASTER}) removes keys line by line, in a signed commit)"]
    before = parse(old or "", f"{rel} before {what}")
    after = parse(new, f"{rel} at {what}")
    problems = [f"{what}: {rel} names {p!r}: a principal must be a player id or "
                f"{GAME_MASTER} (git would read * and ? as patterns matching other "
                "principals)" for p in bad_principals(after - before)]
    added, removed = after - before, before - after
    if _keys_of(before, GAME_MASTER) and not _keys_of(after, GAME_MASTER):
        problems.append(f"{what} removes the last {GAME_MASTER} key from {rel}: the file "
                        f"must keep a game master's key")
    if GAME_MASTER in signer:
        return problems
    why = _who(signer)
    for principal in sorted({g.principal for g in added}):
        problems += _addition(principal, before, signer, why, what, rel)
    for principal in sorted({g.principal for g in removed}):
        if principal not in signer:
            problems.append(f"{what} removes a key of {principal} from {rel}: only a game "
                            f"master ({GAME_MASTER}) may, signing with a key {rel} lists for "
                            f"{GAME_MASTER}; it is {why}")
        elif not _keys_of(after, principal):
            problems.append(f"{what} removes {principal}'s last key from {rel}: that needs "
                            f"a game master's ({GAME_MASTER}) signature; it is {why}")
    return problems


def _addition(principal: str, before: set[Grant], signer: frozenset[str], why: str,
              what: str, rel: str) -> list[str]:
    if principal == GAME_MASTER:
        return [f"{what} adds a {GAME_MASTER} key to {rel}: only a game master may, "
                f"signing with a key {rel} lists for {GAME_MASTER}; it is {why}"]
    if not _keys_of(before, principal):
        return [f"{what} adds the first key of {principal} to {rel}: a new player's first "
                f"key needs a game master's ({GAME_MASTER}) signature; it is {why}"]
    if principal not in signer:
        return [f"{what} adds a key for {principal} to {rel}: only {principal} (signing "
                f"with a key {rel} lists for {principal}) or a game master "
                f"({GAME_MASTER}) may; it is {why}"]
    return []


def creation_problems(new: str, signer_in_new: frozenset[str], may_create: bool,
                      what: str, rel: str) -> list[str]:
    """Why ``what`` may not create the first allowed-signers file ``rel`` (the anchor has
    none): only outside a pull request (``may_create``), listing a gm key, signed by a gm
    key it lists (``signer_in_new``: the principals the new file gives the signing key).
    Raises SignersError for a line that cannot be read."""
    grants = parse(new, f"{rel} at {what}")
    bad = bad_principals(grants)
    problems = [f"{what}: {rel} names {p!r}: a principal must be a player id or "
                f"{GAME_MASTER}" for p in bad]
    if not may_create:
        problems.append(f"{what} creates {rel} in a pull request: the first allowed-signers "
                        "file is created by the repository's owner, pushed to the main "
                        f"branch in a commit signed by a {GAME_MASTER} key it lists")
        return problems
    if not _keys_of(grants, GAME_MASTER):
        problems.append(f"{what} creates {rel} without a {GAME_MASTER} key: the first "
                        f"allowed-signers file must list a game master's key")
    elif GAME_MASTER not in signer_in_new:
        problems.append(f"{what} creates {rel} but is not signed by a {GAME_MASTER} key it "
                        f"lists: the first file must be signed by its game master")
    return problems


def net_problems(base: str | None, head: str | None, added: set[Grant],
                 removed: set[Grant], rel: str, since: str) -> list[str]:
    """Why the file at HEAD (``head``) is not the one at the revision (``base``) with
    only the changes that commits allowed by the rules made (``added``, ``removed``): a
    merge may combine allowed changes, but not bring in a line (or drop one) that no
    checked commit added (or removed), e.g. a version from before a game master removed
    a key. Raises SignersError for a line that cannot be read."""
    if head is None:
        return [] if base is None else [f"{rel} is gone since {since}: the allowed-signers "
                                        "file may not be deleted"]
    before = parse(base or "", f"{rel} at {since}")
    after = parse(head, f"{rel} at HEAD")
    problems = [f"{rel} at HEAD grants {g.principal} the key {g.key[:40]}..., which no "
                f"commit since {since} added as the rules allow (brought in by a merge?)"
                for g in sorted(after - before - added)]
    problems += [f"{rel} at HEAD lacks {g.principal}'s key {g.key[:40]}..., which no "
                 f"commit since {since} removed as the rules allow (a merge undid the "
                 "removal or brought back an older version?)"
                 for g in sorted(before - after - removed)]
    return problems
