"""Issue 30, items 4 and 8.

The view signature (referee/trust/xeddsa.py) made and checked by libsodium: byte for byte the
signatures of the pure-Python code of 0.5 (tests/xeddsa_reference.py, and signatures that
code made, stored here), hostile signatures and keys refused. (The views themselves,
signed by the old code and read by `referee view`: tests/trust/test_age_views.py.)

The ratings (referee/reports/ratings.py) count games between people, once each: a cheater's
pull request of bot games and of copies of one game leaves their rating where it was.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.errors import UsageError
from referee.ledger import gamefile, vouch
from referee.trust import viewsign, xeddsa
from tests import xeddsa_reference
from tests.conftest import ok
from tests.support.games import new_game

ROOT = Path(__file__).resolve().parents[2]

# --- the signature ------------------------------------------------------------------------

VIEW_DOC = {"format": "referee-view/2", "game": "g1", "file": "games/g1.json",
            "player": "ann", "moves": 3, "head": "ab" * 32, "text": "ann: Königin, 3 Truhen",
            "status": {"to_move": ["ann"]}}
# Signed by referee 0.5 (commit d0cf34b, the pure-Python XEdDSA) over the view message of
# VIEW_DOC with the referee key of each seed: frozen-0's Edwards point has sign bit 1
# (the signer negates its scalar), frozen-1's sign bit 0.
SIGNED_BY_0_5 = {
    "frozen-0": "U+17JVfmo31+VdMa4ltRvvO5CY6BJNe5L2qabgWss8SPcXfeigXRCTz4QP8GKEfa6G+rS6YNPur7A+"
                "Ei8fiiCQ==",
    "frozen-1": "zcaopVbFuTuSHCOoFc1OCeyY1eG/bt2BJq1NDX4Av5VQTCzilARhU+ooJSg/hCUIbRpTBsT2Fa6pf3"
                "T1Jbg1AQ==",
}
L = 2**252 + 27742317777372353535851937790883648493


def key_of(seed: str) -> tuple[bytes, bytes]:
    """A game's referee key: the X25519 secret and the header recipient's u."""
    u = viewsign.recipient_u(vouch.recipient(seed))
    assert u is not None
    return vouch._derive(seed, b"age-identity"), u


def sign_bit(secret: bytes) -> int:
    point = xeddsa_reference._mul(xeddsa_reference._clamp(secret), xeddsa_reference.BASE)
    return xeddsa_reference.encode(point)[31] >> 7


@pytest.mark.parametrize("seed", sorted(SIGNED_BY_0_5))
def test_signatures_made_by_0_5_still_verify_and_are_made_again(seed: str) -> None:
    secret, u = key_of(seed)
    old = base64.b64decode(SIGNED_BY_0_5[seed])
    message = viewsign._message(VIEW_DOC)
    assert xeddsa.verify(u, message, old)
    assert xeddsa.sign(secret, message) == old  # the same nonce: the same bytes
    assert not xeddsa.verify(u, viewsign._message({**VIEW_DOC, "moves": 4}), old)
    assert sign_bit(secret) == (1 if seed == "frozen-0" else 0)  # both branches held


def test_the_same_signatures_as_the_pure_python_reference() -> None:
    """Keys of both sign bits, messages of many lengths: the libsodium signer makes the
    reference's bytes, and each side verifies the other's."""
    bits = set()
    for i in range(64):
        secret = hashlib.sha256(b"key %d" % i).digest()
        message = hashlib.sha512(b"message %d" % i).digest()[: i % 65] * (1 + i % 3)
        u = xeddsa_reference.montgomery_public(secret)
        new, old = xeddsa.sign(secret, message), xeddsa_reference.sign(secret, message)
        assert new == old
        assert xeddsa.verify(u, message, old) and xeddsa_reference.verify(u, message, new)
        assert not xeddsa.verify(u, message + b"\0", new)
        bits.add(sign_bit(secret))
    assert bits == {0, 1}


def test_hostile_signatures_and_keys_are_refused() -> None:
    """What a forger can hand `referee view`: a signature made malleable (s + L), an
    identity or small-order R, the signature of the key's other sign, truncated or
    padded bytes, and keys that are no key. The reference refuses the first too."""
    secret, u = key_of("frozen-0")
    message = viewsign._message(VIEW_DOC)
    sig = xeddsa.sign(secret, message)
    s = int.from_bytes(sig[32:], "little")
    malleable = sig[:32] + (s + L).to_bytes(32, "little")
    assert not xeddsa.verify(u, message, malleable)
    assert not xeddsa_reference.verify(u, message, malleable)
    identity = (1).to_bytes(32, "little")
    assert not xeddsa.verify(u, message, identity + sig[32:])
    assert not xeddsa.verify(u, message, identity + bytes(32))
    # an Ed25519 signature with the unnegated scalar: valid for the point of sign bit 1,
    # which is not the one the header's u names
    k = xeddsa_reference._clamp(secret) % L
    r = xeddsa_reference._h(b"some nonce", message)
    big_r = xeddsa_reference.encode(xeddsa_reference._mul(r, xeddsa_reference.BASE))
    public = xeddsa_reference.encode(xeddsa_reference._mul(k, xeddsa_reference.BASE))
    assert public[31] & 0x80
    unnegated = big_r + ((r + xeddsa_reference._h(big_r, public, message) * k) % L
                         ).to_bytes(32, "little")
    assert xeddsa.verify_ed25519(public, message, unnegated)
    assert not xeddsa.verify(u, message, unnegated)
    for bad in (sig[:63], sig + b"\0", b"", bytes(64)):
        assert not xeddsa.verify(u, message, bad)
    p = 2**255 - 19
    for key in (u[:31], u + b"\0", (p - 1).to_bytes(32, "little"), p.to_bytes(32, "little"),
                b"\xff" * 32):
        assert not xeddsa.verify(key, message, sig)
    other = viewsign.recipient_u(vouch.recipient("frozen-1"))
    assert other is not None and not xeddsa.verify(other, message, sig)


def test_without_pynacl_signing_and_checking_name_what_is_missing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    secret, u = key_of("frozen-1")
    sig = base64.b64decode(SIGNED_BY_0_5["frozen-1"])
    monkeypatch.setitem(sys.modules, "nacl", None)  # import nacl fails
    for name in ("nacl.bindings", "nacl.exceptions"):
        monkeypatch.setitem(sys.modules, name, None)
    for call in (lambda: xeddsa.sign(secret, b"m"),
                 lambda: xeddsa.verify(u, viewsign._message(VIEW_DOC), sig)):
        with pytest.raises(UsageError) as found:
            call()
        assert found.value.message == "signed views need the libsodium bindings PyNaCl"
        assert found.value.hints == ["pip install pynacl"]


# --- the ratings ------------------------------------------------------------------------

EVE, ANN, BEN = "eve=Eve <eve@example.org>", "ann=Ann <ann@example.org>", \
    "ben=Ben <ben@example.org>"
# honest toy games on a pile of 5 (the last taker wins): eve wins h1 and loses h2
HONEST = {
    "h1": ([EVE, ANN], [("eve", 3), ("ann", 1), ("eve", 1)]),
    "h2": ([ANN, EVE, BEN], [("ann", 1), ("eve", 1), ("ben", 3)]),
    "h3": ([ANN, BEN], [("ann", 2), ("ben", 2), ("ann", 1)]),
}


def toy_game(path: Path, players: list[str], moves: list[tuple[str, int]]) -> Path:
    new_game(path, "toy", "--option", "pile=5", players=",".join(players), seed=f"seed-{path.stem}",
             game_id=f"toy-{path.stem}")
    for player, n in moves:
        ok("move", path, "--as", player, f"take {n}")
    return path


def rechain(data: dict[str, Any]) -> dict[str, Any]:
    """What anybody can do to an open game: renumber the entries and recompute the hash
    chain after an edit."""
    prev = gamefile.header_hash(data)
    for n, entry in enumerate(data["log"], 1):
        entry["n"], entry["prev"] = n, prev
        prev = gamefile.entry_hash(entry)
    return data


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(rechain(data), indent=1))
    return path


def honest_folder(folder: Path) -> Path:
    folder.mkdir()
    for name, (players, moves) in HONEST.items():
        toy_game(folder / f"{name}.json", players, moves)
    return folder


def league(folder: Path, *extra: object) -> dict[str, Any]:
    return json.loads(ok("ratings", folder, "--json", *extra).output)


def bot_games(folder: Path, count: int) -> list[Path]:
    """The cheater's pull request: ``count`` finished games of eve against bots, each
    with its own seed, so each is another game: a bot seat from the header, a seat
    handed to a bot after eve's first move (given back after its move, in some), or a
    deadline's bot move for a seat."""
    made = []
    template = json.loads(toy_game(folder / "template.json", [EVE, "ben"], [
        ("eve", 3), ("ben", 1), ("eve", 1)]).read_text())
    (folder / "template.json").unlink()
    for i in range(count):
        data = json.loads(json.dumps(template))
        data["id"], data["rng"]["seed"] = f"eve-vs-bots-{i}", f"cheap-{i}"
        for entry in data["log"]:
            if entry["by"] == "ben":
                entry["bot"] = True
        if i % 3 == 0:
            data["players"][1]["bot"] = {"level": "random"}
        elif i % 3 == 1:
            data["log"].insert(1, {"n": 0, "by": "ben", "meta": {
                "kind": "bot", "player": "ben", "level": "random"}})
            if i % 2:
                data["log"].insert(3, {"n": 0, "by": "ben", "meta": {
                    "kind": "bot", "player": "ben", "level": None}})
        made.append(write(folder / f"bots-{i:02d}.json", data))
    return made


def outcome(game: dict[str, Any]) -> tuple[Any, ...]:
    return game["game"], game["finish"], game["places"], game["bot_seats"]


def copies_of(original: Path) -> list[Path]:
    """Copies of one finished game between people, as a copier can vary them: the same
    file under another name; another id; another id, creation time, names, entry times
    and a record added; other seat ids with the same addresses; the game played again
    under another id with a move taken back."""
    data = json.loads(original.read_text())
    folder = original.parent
    (folder / "c1.json").write_bytes(original.read_bytes())
    again = json.loads(json.dumps(data))
    again["id"] = "toy-h1-again"
    made = [folder / "c1.json", write(folder / "c2.json", again)]
    varied = json.loads(json.dumps(data))
    varied["id"], varied["created"] = "TOY-H1-varied", "2026-06-01T00:00:00Z"
    for player in varied["players"]:
        player["name"] = player["name"].upper()
    for k, entry in enumerate(varied["log"]):
        entry["at"] = f"2026-06-0{k + 2}T12:00:00Z"
    varied["log"].append({"n": 0, "by": "eve", "meta": {"kind": "lang", "player": "eve",
                                                        "lang": "de"},
                          "at": "2026-06-09T00:00:00Z"})
    made.append(write(folder / "c3.json", varied))
    renamed = json.loads(json.dumps(data).replace('"eve"', '"e2"').replace('"ann"', '"a2"'))
    renamed["id"] = "toy-h1-renamed"
    made.append(write(folder / "c4.json", renamed))
    replayed = folder / "c5.json"  # played again under another id, with a move undone
    new_game(replayed, "toy", "--option", "pile=5", players=f"{EVE},{ANN}", seed="seed-h1",
             game_id="toy-h1-replayed")
    ok("move", replayed, "--as", "eve", "take 3")
    ok("move", replayed, "--as", "ann", "take 2")
    ok("undo", replayed, "--as", "ann")
    ok("move", replayed, "--as", "ann", "take 1")
    ok("move", replayed, "--as", "eve", "take 1")
    return [*made, replayed]


def test_a_pull_request_of_bot_games_and_copies_leaves_the_ratings_as_they_were(
        tmp_path: Path) -> None:
    honest = league(honest_folder(tmp_path / "honest"))
    attacked = honest_folder(tmp_path / "attacked")
    added = bot_games(attacked, 30) + copies_of(attacked / "h1.json")
    assert ok("check", *added).exit_code == 0  # each file of the pull request passes check
    out = league(attacked)
    assert out["tables"] == honest["tables"]
    # the same games rated in the same order (which file of h1 is the one rated is the
    # first in the order: a copier's id can win that tie, not a place or a count)
    assert [outcome(g) for g in out["games"]] == [outcome(g) for g in honest["games"]]
    eve = next(r for r in out["tables"]["toy"] if r["player"] == "Eve")
    assert (eve["games"], eve["provisional"]) == (2, True)
    assert out["counted"] == {"people": 3, "with_bots": 30, "bots_rated_apart": False,
                              "copies": 5, "skipped": 0}
    assert sorted(out["left_out"]) == [f"bots-{i:02d}.json" for i in range(30)]
    rated = {g["file"] for g in out["games"]} - {"h2.json", "h3.json"}
    assert {c["copy_of"] for c in out["copies"]} == rated
    assert sorted([*rated, *(c["file"] for c in out["copies"])]) == [
        "c1.json", "c2.json", "c3.json", "c4.json", "c5.json", "h1.json"]
    text = ok("ratings", attacked).output
    assert text.startswith("counted: 3 games between people; 30 games with bots left out "
                           "(--with-bots rates them apart); 5 copies counted once\n")
    assert "counted once: c3.json is a copy of " in text
    # asked for, the games with bots are rated apart; the people's tables stay
    apart = league(attacked, "--with-bots")
    assert apart["tables"] == honest["tables"]
    bots_eve = next(r for r in apart["bot_tables"]["toy"] if r["player"] == "Eve")
    assert (bots_eve["games"], bots_eve["provisional"]) == (30, False)
    assert "toy (games with bots, rated apart): 30 games rated" in ok(
        "ratings", attacked, "--with-bots").output


def test_a_backdated_copy_is_rated_once_in_the_originals_place(tmp_path: Path) -> None:
    """What a copy of an open game can still do: its entry times are the copier's to
    write, so a copy dated before the original is the file rated, and the game moves in
    the order; it still counts once, for the same people at the same places."""
    folder = honest_folder(tmp_path / "g")
    data = json.loads((folder / "h1.json").read_text())
    data["id"] = "toy-h1-early"
    for entry in data["log"]:
        entry["at"] = "2025-01-01T00:00:00Z"
    write(folder / "early.json", data)
    out = league(folder)
    honest = league(honest_folder(tmp_path / "honest"))
    assert out["copies"] == [{"file": "h1.json", "copy_of": "early.json",
                              "why": "the same moves"}]
    assert out["games"][0]["file"] == "early.json"
    assert sorted((g["places"], g["game"]) for g in out["games"]) == sorted(
        (g["places"], g["game"]) for g in honest["games"])
    assert {r["player"]: r["games"] for r in out["tables"]["toy"]} == {
        r["player"]: r["games"] for r in honest["tables"]["toy"]}


def test_the_league_page_says_what_it_counts(tmp_path: Path) -> None:
    pytest.importorskip("jinja2")
    folder = honest_folder(tmp_path / "g")
    bot_games(folder, 3)
    copies_of(folder / "h1.json")
    ok("site", folder, "-o", tmp_path / "site")
    page = (tmp_path / "site" / "league.html").read_text()
    assert "<p>3 games between people; 3 games with bots left out; 5 copies counted once.</p>" \
        in page
    assert "<li>c3.json: a copy of " in page
    assert "(bot)" not in page
    ok("--lang", "de", "site", folder, "-o", tmp_path / "site-de")
    german = (tmp_path / "site-de" / "league.html").read_text()
    assert ("3 Partien zwischen Menschen; 3 Partien mit Bots nicht gewertet; 5 Kopien nur "
            "einmal gezählt.") in german


def test_a_copy_that_names_other_people_counts_for_nobody(tmp_path: Path) -> None:
    """eve lost h2 to ben; her copy puts her address at ben's seat and his at hers. The
    two files dispute the game: neither counts, both are named, and eve's win is not."""
    folder = honest_folder(tmp_path / "g")
    data = json.loads((folder / "h2.json").read_text())
    seats = {p["id"]: p for p in data["players"]}
    seats["eve"]["email"], seats["ben"]["email"] = seats["ben"]["email"], seats["eve"]["email"]
    seats["eve"]["name"], seats["ben"]["name"] = "Ben", "Eve"
    data["id"] = "toy-h2-mine"
    write(folder / "mine.json", data)
    out = league(folder)
    skipped = {s["file"]: s["reason"] for s in out["skipped"]}
    assert sorted(skipped) == ["h2.json", "mine.json"]
    assert skipped["mine.json"] == ("one game in several files (h2.json) that do not agree on "
                                    "who played it or how it ended: none of them is rated")
    assert [g["id"] for g in out["games"]] == ["toy-h1", "toy-h3"]
    eve = next(r for r in out["tables"]["toy"] if r["player"] == "Eve")
    assert eve["games"] == 1  # h1 only: the forged win is not counted


def test_a_game_against_oneself_is_not_rated(tmp_path: Path) -> None:
    """eve at two seats: one address (in another case), or one GitHub login."""
    folder = honest_folder(tmp_path / "g")
    toy_game(folder / "self.json", [EVE, "sock=Sock <EVE@Example.org>"],
             [("eve", 3), ("sock", 1), ("eve", 1)])
    data = json.loads(toy_game(folder / "gh.json", ["eve", "sock"], [
        ("eve", 3), ("sock", 1), ("eve", 1)]).read_text())
    for player in data["players"]:
        player["github"] = "eve-gh" if player["id"] == "eve" else "EVE-GH"
    write(folder / "gh.json", data)
    assert ok("check", folder / "self.json", folder / "gh.json").exit_code == 0
    out = league(folder)
    skipped = {s["file"]: s["reason"] for s in out["skipped"]}
    assert skipped == {
        "self.json": "one person at two seats: eve and sock have the same e-mail address; "
                     "a game against oneself is not rated",
        "gh.json": "one person at two seats: eve and sock have the same GitHub login; a "
                   "game against oneself is not rated"}
    assert "example.org" not in json.dumps(out) and "eve-gh" not in json.dumps(out)
    assert out["tables"] == league(honest_folder(tmp_path / "honest"))["tables"]


def test_a_copy_under_another_seed_or_a_rechained_sealed_copy_does_not_count(
        tmp_path: Path) -> None:
    """What a copier cannot vary: the deal (another seed deals other cards, and the
    moves stop replaying) and, in a sealed game, the referee's MACs over the chain."""
    folder = tmp_path / "g"
    folder.mkdir()
    examples = ["staufer-3p", "staufer-5p", "dynasties-3p", "dynasties-5p"]
    for name in examples:
        example = ROOT / "examples" / f"{name}.json"
        (folder / f"{name}.json").write_bytes(example.read_bytes())
        reseeded = json.loads(example.read_text())
        reseeded["id"], reseeded["rng"]["seed"] = f"mine-{name}", f"another seed {name}"
        write(folder / f"reseeded-{name}.json", reseeded)
    sealed = folder / "s.json"
    new_game(sealed, "toy", "--option", "pile=5", "--sealed", players=f"{EVE},{ANN}")
    for player, n in HONEST["h1"][1]:
        ok("move", sealed, "--as", player, f"take {n}")
    (folder / "s2.json").write_bytes(sealed.read_bytes())  # with its secret: one game
    (folder / "s2.json.secret").write_bytes((folder / "s.json.secret").read_bytes())
    moved = json.loads(sealed.read_text())
    moved["log"].insert(0, moved["log"].pop(0) | {"at": "2025-01-01T00:00:00Z"})
    write(folder / "s3.json", moved)
    (folder / "s3.json.secret").write_bytes((folder / "s.json.secret").read_bytes())
    out = league(folder)
    skipped = {s["file"]: s["reason"] for s in out["skipped"]}
    assert sorted(skipped) == [*(f"reseeded-{n}.json" for n in sorted(examples)), "s3.json"]
    assert all("is not legal" in skipped[f"reseeded-{n}.json"] for n in examples)
    assert "MAC" in skipped["s3.json"]
    assert [c["file"] for c in out["copies"]] == ["s2.json"]
    assert sorted(g["file"] for g in out["games"]) == sorted(
        ["s.json", *(f"{n}.json" for n in examples)])
