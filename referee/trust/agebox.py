"""Private views for players of sealed games in git, encrypted with age to SSH keys.

CI, holding the secret, writes each player's private view encrypted to that player's SSH
public keys (age format, through pyrage), and the public view in clear. The keys come
from the repository's allowed-signers file, the file git uses to verify SSH-signed
commits (``gpg.ssh.allowedSignersFile``): one key per line, ``PRINCIPALS [OPTIONS]
KEYTYPE BASE64 [COMMENT]``, where a principal is a player id.

age ciphertexts differ on every encryption, so "rewrite only when changed" cannot compare
files. A clear index (``STEM.views.json``) stores, per player, an HMAC-SHA256 of the
plaintext under a key derived from the game's secret seed, the fingerprints of the
keys it was encrypted to, and an HMAC of the encrypted file itself; a view is
re-encrypted when one of them changes, and so is a file somebody replaced (a forged
view: the referee cannot decrypt it, but its HMAC no longer matches, and nobody without
the seed can make one that does). The HMACs reveal nothing about the view to anyone
without the seed (a plain hash would: a hand can be guessed and hashed). What is inside a
view, and how a player verifies it: referee/trust/viewsign.py.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import GameFileError, UsageError
from referee.ledger import fileio
from referee.trust import publicview, signers, viewsign
from referee.trust.viewsign import ViewError

INDEX_FORMAT = "referee-views/1"
VIEW_FORMAT = viewsign.VIEW_FORMAT
AGE_KEY_TYPES = ("ssh-ed25519", "ssh-rsa")  # the SSH keys age can encrypt to
DEFAULT_IDENTITIES = ("~/.ssh/id_ed25519", "~/.ssh/id_rsa")
__all__ = ["ViewError"]


# --- the allowed-signers file ----------------------------------------------------------


@dataclass
class Signers:
    """Keys per principal from an allowed-signers file, in file order."""

    keys: dict[str, list[str]] = field(default_factory=dict)  # usable: "TYPE BASE64"
    unusable: dict[str, list[str]] = field(default_factory=dict)  # other key types


def parse_signers(text: str, where: str) -> Signers:
    """Read an allowed-signers file (lines as referee/trust/signers.py reads them). Lines
    marked ``cert-authority`` are skipped (a CA key is not a player's key). Raises
    UsageError naming the line of a malformed one."""
    found = Signers()
    for number, line in enumerate(text.splitlines(), 1):
        try:
            parsed = signers.parse_line(line)
        except ValueError as exc:
            raise signers.SignersError(f"{where} line {number}: {signers.reason(exc)}"
                                       ) from None
        if parsed is None:
            continue
        principals, options, key = parsed
        if "cert-authority" in options.lower().split(","):
            continue
        target = found.keys if key.split()[0] in AGE_KEY_TYPES else found.unusable
        for principal in principals:
            known = target.setdefault(principal, [])
            if key not in known:
                known.append(key)
    return found


def read_signers(path: Path) -> Signers:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"no allowed-signers file at {path}",
                         hints=["give --signers PATH, or create .referee/allowed_signers "
                                "at the repository root"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    return parse_signers(text, str(path))


fingerprint = signers.fingerprint


# --- writing the views -----------------------------------------------------------------


def views_key(seed: str) -> bytes:
    """The key of the index's HMACs, derived from the game's seed."""
    return hmac.new(seed.encode(), b"referee-views", hashlib.sha256).digest()


def open_views_key(operator_secret: bytes, seed: str) -> bytes:
    """The key of an open game's index when the run holds a secret of its operator
    (``REFEREE_SECRET``, a secret file): the game's seed is public, this key is not, so
    nobody without that secret writes an index that holds."""
    return hmac.new(operator_secret, b"referee-open-views\0" + seed.encode(),
                    hashlib.sha256).digest()


def write_atomic(path: Path, data: bytes, tidy: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (referee.ledger.fileio.write_atomic; ``tidy``
    False: the caller removed the folder's stale temporary files once, as `views` does
    for a folder of 40,000 files). Raises UsageError when it cannot be written."""
    try:
        fileio.write_atomic(path, data, what="view file", tidy=tidy)
    except GameFileError as exc:
        raise UsageError(exc.message, hints=exc.hints) from None


def file_mac(mac_key: bytes, ciphertext: bytes) -> str:
    """The index's HMAC of an encrypted view file as the referee wrote it."""
    return hmac.new(mac_key, b"referee-view-file\0" + hashlib.sha256(ciphertext).digest(),
                    hashlib.sha256).hexdigest()


def remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError as exc:
        raise UsageError(f"cannot remove {path}: {exc.strerror}") from None


def _encrypt(plaintext: bytes, keys: list[str]) -> bytes:
    import pyrage

    recipients = [pyrage.ssh.Recipient.from_str(k) for k in keys]
    return pyrage.encrypt(plaintext, recipients)


def read_index(path: Path) -> dict[str, Any]:
    """The index from an earlier run ({} if there is none or it is not one)."""
    try:  # (a regular file of at most 16 MiB: a FIFO or a huge file put there is none)
        data = json.loads(fileio.read_bytes(path, "views index"))
    except (GameFileError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
        return {}
    return data


@dataclass
class ViewsReport:
    """What ``write_views`` did, per player and for the public view."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    no_key: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # stale views of players now keyless
    replaced: list[str] = field(default_factory=list)  # files that were not the referee's
    public_written: bool = False
    files: dict[str, str] = field(default_factory=dict)  # player or "public" -> file name


def source_mac(mac_key: bytes, parts: Sequence[bytes]) -> str:
    """The index's HMAC of what the views were made from (the game file's bytes, its
    names, the language, the referee's code digest): while it and every file hold, the
    views are the ones an earlier run wrote and the game is not replayed."""
    mac = hmac.new(mac_key, b"referee-views-source/1", hashlib.sha256)
    for part in parts:  # (each prefixed by its length: no two lists give one stream)
        mac.update(len(part).to_bytes(8, "big") + part)
    return mac.hexdigest()


def public_mac(mac_key: bytes, public: bytes, signed: bytes | None = None) -> str:
    """The index's HMAC of the public view: its text, and in a sealed game the bytes of
    its signed document (STEM.public.signed: :mod:`referee.trust.publicview`)."""
    body = hashlib.sha256(public).digest()
    if signed is not None:
        body += hashlib.sha256(signed).digest()
    return hmac.new(mac_key, b"referee-view-public\0" + body, hashlib.sha256).hexdigest()


def views_hold(out: Path, stem: str, mac_key: bytes, source: str, players: Sequence[str],
               signers: Signers, signed: bool = False) -> ViewsReport | None:
    """The report of a run that changes nothing, when STEM's index in ``out`` says its
    views were made from ``source`` and every file is as the referee wrote it: each
    player with a key has a view encrypted to exactly those keys whose file HMAC holds,
    a player without one has no view, and the public view's HMAC holds. Else None (the
    game is replayed). Nobody without the seed can write an index that passes."""
    index = read_index(out / f"{stem}.views.json")
    recorded, views = index.get("source"), index.get("views")
    if not (isinstance(recorded, str) and hmac.compare_digest(recorded, source)
            and isinstance(views, dict)):
        return None
    report = ViewsReport()
    for player in players:
        name = f"{stem}.{player}.age"
        keys = signers.keys.get(player, [])
        entry = views.get(player)
        if not keys:
            if entry is not None or (out / name).exists():
                return None
            report.no_key.append(player)
            continue
        wanted = _view_entry(name, keys)
        if not (isinstance(entry, dict) and {k: entry.get(k) for k in wanted} == wanted
                and _file_ok(out / name, mac_key, entry.get("file_mac"))):
            return None
        report.unchanged.append(player)
        report.files[player] = name
    public = out / f"{stem}.public.txt"
    document = _bytes_or_none(out / publicview.file_name(stem)) if signed else None
    if (sorted(views) != sorted(report.files) or index.get("no_key") != report.no_key
            or (signed and document is None)
            or not _file_ok(public, mac_key, index.get("public_mac"),
                            lambda key, data: public_mac(key, data, document))):
        return None
    report.files["public"] = public.name
    return report


def write_views(out: Path, stem: str, game_id: str, mac_key: bytes,
                plaintexts: Mapping[str, bytes], public: str,
                signers: Signers, source: str = "", signed: bytes | None = None,
                secret_key: bool = True, tidy: bool = True) -> ViewsReport:
    """Write STEM.P.age for every player with a key, STEM.public.txt and the index
    STEM.views.json in ``out``; rewrite each only when its content changed. ``source``:
    what the views were made from (:func:`source_mac`), kept in the index; ``signed``:
    the signed public view of a sealed game (:mod:`referee.trust.publicview`), written
    to STEM.public.signed. ``secret_key`` False: ``mac_key`` is derived from a seed
    anyone can read (an open game), so the index's HMACs prove nothing and every view is
    encrypted again (the public view is compared byte for byte; with a key of
    :func:`open_views_key`, ``secret_key`` is True). ``tidy`` False: the
    caller removed ``out``'s stale temporary files."""
    index_path = out / f"{stem}.views.json"
    old = read_index(index_path).get("views", {}) if secret_key else {}
    report = ViewsReport()
    entries: dict[str, Any] = {}
    for player, plaintext in plaintexts.items():
        name = f"{stem}.{player}.age"
        target = out / name
        keys = signers.keys.get(player, [])
        if not keys:
            report.no_key.append(player)
            if target.exists():
                remove(target)
                report.removed.append(player)
            continue
        entry = {**_view_entry(name, keys),
                 "mac": hmac.new(mac_key, plaintext, hashlib.sha256).hexdigest()}
        report.files[player] = name
        before = old.get(player, {})
        same = {k: before.get(k) for k in entry} == entry if isinstance(before, dict) \
            else False
        if same and _file_ok(target, mac_key, before.get("file_mac")):
            entries[player] = before
            report.unchanged.append(player)
            continue
        if same and target.exists():
            report.replaced.append(player)  # the view is the same, the file is not ours
        ciphertext = _encrypt(plaintext, keys)
        write_atomic(target, ciphertext, tidy)
        entries[player] = {**entry, "file_mac": file_mac(mac_key, ciphertext)}
        report.written.append(player)
    public_path = out / f"{stem}.public.txt"
    report.files["public"] = public_path.name
    if _bytes_or_none(public_path) != public.encode():
        write_atomic(public_path, public.encode(), tidy)
        report.public_written = True
    signed_path = out / publicview.file_name(stem)
    if signed is not None and _bytes_or_none(signed_path) != signed:
        write_atomic(signed_path, signed, tidy)
        report.public_written = True
    index = {"format": INDEX_FORMAT, "game": game_id, "public": public_path.name,
             "public_mac": public_mac(mac_key, public.encode(), signed), "source": source,
             "views": entries, "no_key": report.no_key}
    text = json.dumps(index, indent=2, sort_keys=True) + "\n"
    if _bytes_or_none(index_path) != text.encode():
        write_atomic(index_path, text.encode(), tidy)
    return report


def _view_entry(name: str, keys: list[str]) -> dict[str, Any]:
    """What the index says of a view besides its HMACs: its file, the keys it is for."""
    return {"file": name, "keys": [fingerprint(k) for k in keys]}


def _bytes_or_none(path: Path) -> bytes | None:
    """The bytes of the regular file at ``path`` (at most 16 MiB), or None."""
    try:
        return fileio.read_bytes(path, "view file")
    except GameFileError:
        return None


def _file_ok(target: Path, mac_key: bytes, expected: object,
             mac: Callable[[bytes, bytes], str] = file_mac) -> bool:
    """Whether ``target`` is byte for byte the file the referee wrote (its HMAC)."""
    data = _bytes_or_none(target) if isinstance(expected, str) else None
    return data is not None and hmac.compare_digest(mac(mac_key, data), str(expected))


# --- reading a view --------------------------------------------------------------------


def find_identity(given: Path | None) -> Path:
    """The SSH private key to decrypt with: ``given``, else the first default key that
    exists. Raises UsageError when there is none."""
    if given is not None:
        return given
    for candidate in DEFAULT_IDENTITIES:
        path = Path(candidate).expanduser()
        if path.exists():
            return path
    raise UsageError("no SSH key to decrypt with",
                     hints=["give --identity ~/.ssh/YOUR_KEY (ed25519 or rsa)"])


def load_identity(path: Path) -> Any:
    """An age identity from an SSH private key file. Raises UsageError."""
    import pyrage

    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"no SSH key at {path}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return pyrage.ssh.Identity.from_buffer(raw)
    except pyrage.IdentityError as exc:
        reason = str(exc)
        if "decrypted" in reason:
            raise UsageError(f"{path} is protected by a passphrase, which this command "
                             "cannot ask for",
                             hints=[f"decrypt with age itself: age -d -i {path} FILE.age"]
                             ) from None
        raise UsageError(f"{path} is not an SSH private key age can use ({reason})",
                         hints=["age reads ssh-ed25519 and ssh-rsa keys"]) from None


def open_view(path: Path, identity: Path) -> viewsign.ViewDoc:
    """Decrypt and read a view file. Raises UsageError or ViewError."""
    import pyrage

    try:
        ciphertext = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"no view file at {path}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    key = load_identity(identity)
    if not ciphertext.startswith(b"age-encryption.org/v1\n"):
        raise ViewError(f"{path} is not an age-encrypted view")
    try:
        plaintext = pyrage.decrypt(ciphertext, [key])
    except pyrage.DecryptError as exc:
        if "no matching keys" in str(exc).lower():
            raise ViewError(f"{path} was not encrypted to the key {identity}",
                            hints=["each player can open only their own view"]) from None
        raise ViewError(f"{path} is damaged and cannot be decrypted ({exc})",
                        hints=["fetch it again, or ask for it to be rewritten by "
                               "`referee views`"]) from None
    return viewsign.parse(plaintext, str(path))
