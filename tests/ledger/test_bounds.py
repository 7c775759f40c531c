"""Nothing a player sends can brick a game: every field of a game file has a bound
(referee/ledger/schema.py, docs/file-format.md), checked on every read with a message naming the
JSON path and the bound; moves and entries refuse unknown fields; move notation refuses
numbers too long to be one; a sealed move's public part is bounded; and the one-pass
JSON reader gives the same data and the same refusals as the careful one. (Every game's
parsed moves within their declared bounds, and honest sealed games passing `check
--strict`, are the conformance suite's: tests/conformance/.)

Attacks are played as the cheater would: an entry appended to the file (as a pull request
or a hand edit would), then `referee check` through the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import get_game
from referee.errors import GameFileError, MalformedMove
from referee.ledger import fileformat, gamefile, schema, strictjson
from tests.conftest import ok, run
from tests.support.games import new_game

ROOT = Path(__file__).resolve().parents[2]
NOW = "2026-11-30T10:00:00Z"
MIB = 1024 * 1024


def refused(path: Path, *words: str, command: tuple[str, ...] = ("check",)) -> str:
    """`referee check FILE` fails with exit 1, names every word, changes nothing."""
    before = path.read_bytes()
    result = run(*command, path)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output
    assert path.read_bytes() == before
    return result.output


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An open 3-player Staufer game with names, addresses, logins and one move."""
    path = tmp_path_factory.mktemp("clean") / "g.json"
    new_game(path, "staufer", "--github", "ann=ann-gh",
             players="ann=Ann <ann@example.org>,ben=Ben <ben@example.org>,cat", seed="bounds")
    ok("move", path, "--as", "ann", "supply 2")
    data = json.loads(path.read_text())
    data["log"][0]["mail"] = "<m1@example.org>"
    return rechain(data)


def rechain(data: dict[str, Any]) -> dict[str, Any]:
    """Recompute the hash chain, as a cheater who has read the code would."""
    for i, entry in enumerate(data["log"]):
        entry["prev"] = gamefile.header_hash(data) if i == 0 else gamefile.entry_hash(
            data["log"][i - 1])
    return data


def written(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "g.json"
    path.write_text(gamefile.dumps(rechain(data)))
    return path


def copy(data: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(data))


def appended(data: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """``data`` with ``entry`` appended as a pull request would: numbered, chained."""
    out = copy(data)
    out["log"].append({"n": len(out["log"]) + 1, **entry, "prev": gamefile.next_prev(out),
                       "at": entry.get("at", NOW)})
    return out


def setter(*path: str | int) -> Callable[[dict[str, Any], Any], None]:
    def put(data: dict[str, Any], value: Any) -> None:
        node: Any = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return put


LONG_EMAIL = "a" * 64 + "@" + "b" * 185 + ".org"  # 254 characters
assert len(LONG_EMAIL) == fileformat.EMAIL_MAX

# (label, where, bad value, good value at the bound or None, words the refusal holds)
FIELDS = [
    ("name", ("players", 0, "name"), "n" * 101, "n" * 100,
     "$.players[0].name: expected `str` of length <= 100"),
    ("email length", ("players", 0, "email"), "x" + LONG_EMAIL, LONG_EMAIL,
     "$.players[0].email: expected `str` of length <= 254"),
    ("email shape", ("players", 0, "email"), "ann at example.org", "ann@example.org",
     "$.players[0].email: expected an e-mail address"),
    ("email control character", ("players", 0, "email"), "ann\x1b@example.org",
     "ann@example.org", "$.players[0].email: expected an e-mail address"),
    ("github", ("players", 0, "github"), "g" * 40, "g" * 39,
     "$.players[0].github: expected `str` of length <= 39"),
    ("created", ("created",), "30 Nov 2026", "2026-11-30T10:00:00.123456Z",
     "$.created: expected an RFC 3339 UTC time"),
    ("at offset", ("log", 0, "at"), "2026-11-30T10:00:00+01:00", "2026-11-30T09:00:00Z",
     "$.log[0].at: expected an RFC 3339 UTC time"),
    ("at line break", ("log", 0, "at"), NOW + "\n", NOW,
     "$.log[0].at: expected an RFC 3339 UTC time"),
    ("at 10 MB", ("log", 0, "at"), "9" * 10_000_000, None,
     "$.log[0].at: expected `str` of length <= 40"),
    ("mail length", ("log", 0, "mail"), "<" + "m" * 993 + "@x.y>",
     "<" + "m" * 992 + "@x.y>", "$.log[0].mail: expected `str` of length <= 998"),
    ("mail shape", ("log", 0, "mail"), "m1@example.org", "<m1@example.org>",
     "$.log[0].mail: expected a Message-ID"),
    ("mail space", ("log", 0, "mail"), "<m 1@example.org>", "<m1@example.org>",
     "$.log[0].mail: expected a Message-ID"),
    ("rules", ("rules",), "r" * 101, None, "$.rules: expected `str` of length <= 100"),
    ("seed", ("rng", "seed"), "s" * 257, None, "$.rng.seed: expected `str` of length <= 256"),
    ("option value", ("options", "start"), "x" * 201, None,
     "$.options[...]: expected `str` of length <= 200"),
    ("entry number", ("log", 0, "n"), 1_000_001, None, "$.log[0].n: expected `int` <= 1000000"),
]


@pytest.mark.parametrize(("label", "where", "bad", "good", "words"), FIELDS,
                         ids=[f[0] for f in FIELDS])
def test_each_field_bound_is_refused_on_read_and_the_bound_itself_passes(
        tmp_path: Path, clean: dict[str, Any], label: str, where: tuple[Any, ...], bad: Any,
        good: Any, words: str) -> None:
    data = copy(clean)
    setter(*where)(data, bad)
    refused(written(tmp_path, data), "breaks the schema", words)
    refused(tmp_path / "g.json", words, command=("status",))
    if good is not None:
        data = copy(clean)
        setter(*where)(data, good)
        assert "ok " in ok("check", written(tmp_path, data)).output


META = [
    ({"kind": "replace", "player": "ben", "email": "b2@example.org", "name": "n" * 101},
     {"name": "n" * 100}, "$.log[1].meta.name: expected `str` of length <= 100"),
    ({"kind": "address", "player": "ben", "emails": [f"b{i}@example.org" for i in range(9)]},
     {"emails": [f"b{i}@example.org" for i in range(8)]},
     "$.log[1].meta.emails: expected `array` of length <= 8"),
    ({"kind": "address", "player": "ben", "emails": ["<b@example.org>"]},
     {"emails": ["b@example.org"]}, "$.log[1].meta.emails[0]: expected an e-mail address"),
    ({"kind": "deadline", "hours": 8761}, {"hours": 8760},
     "$.log[1].meta.hours: expected `int` <= 8760"),
    ({"kind": "watcher", "email": "x" + LONG_EMAIL}, {"email": LONG_EMAIL},
     "$.log[1].meta.email: expected `str` of length <= 254"),
    ({"kind": "gm", "email": "gm at example.org"}, {"email": "gm@example.org"},
     "$.log[1].meta.email: expected an e-mail address"),
    ({"kind": "notify", "player": "ben", "mode": "x" * 1000}, {"mode": "digest"},
     "$.log[1].meta.mode: invalid enum value"),
    ({"kind": "bot", "player": "ben", "level": "mcts", "iterations": 5001},
     {"iterations": 5000}, "$.log[1].meta.iterations: expected `int` <= 5000"),
    ({"kind": "upgrade", "data": "u" * 101}, None,
     "$.log[1].meta.data: expected `str` of length <= 100"),
    ({"kind": "say", "text": "hello"}, None, "$.log[1].meta.kind: invalid value 'say'"),
    ({"kind": "gm", "email": "gm@example.org", "note": "x" * MIB}, {"note": None},
     "$.log[1].meta: object contains unknown field `note`"),
]


@pytest.mark.parametrize(("meta", "fix", "words"), META, ids=[m[0]["kind"] for m in META])
def test_each_meta_record_bound_is_refused_on_read(
        tmp_path: Path, clean: dict[str, Any], meta: dict[str, Any],
        fix: dict[str, Any] | None, words: str) -> None:
    refused(written(tmp_path, appended(clean, {"by": "gm", "meta": meta})), words)
    if fix is not None:
        good = {k: v for k, v in {**meta, **fix}.items() if v is not None}
        assert "ok " in ok("check", written(tmp_path, appended(
            clean, {"by": "gm", "meta": good}))).output


def test_an_unknown_field_in_a_move_is_refused(tmp_path: Path, clean: dict[str, Any]) -> None:
    data = copy(clean)
    data["log"][0]["move"]["colour"] = "red"
    refused(written(tmp_path, data), "$.log[0].move: object contains unknown field `colour`")


def test_an_unknown_field_in_an_entry_is_refused(tmp_path: Path, clean: dict[str, Any]) -> None:
    data = copy(clean)
    data["log"][0]["comment"] = "red"
    refused(written(tmp_path, data), "$.log[0]: object contains unknown field `comment`")


@pytest.mark.parametrize("field", ["pad", "at", "mail", "public", "by"])
def test_a_pull_request_entry_padded_to_15_mib_is_refused_by_check(
        tmp_path: Path, clean: dict[str, Any], field: str) -> None:
    """The attack of the review: a PR appends one entry with a huge field (under the 16 MiB
    cap, so it is the field's bound that refuses it); `check` names the field."""
    huge = "x" * (15 * MIB)
    entry: dict[str, Any] = {"by": "ben", "move": {"type": "supply", "space": 3}}
    if field == "pad":
        entry["move"]["pad"] = huge
    elif field == "mail":
        entry["mail"] = f"<{huge}@example.org>"
    else:
        entry[field] = huge
    path = written(tmp_path, appended(clean, entry))
    assert path.stat().st_size > 15 * MIB
    where = {"pad": "$.log[1].move: object contains unknown field `pad`",
             "by": "$.log[1].by: expected a player id"}.get(
        field, f"$.log[1].{field}: expected `str` of length <=")
    out = refused(path, where)
    assert len(out) < 2000  # the message never echoes the padding
    honest = written(tmp_path, appended(clean, {"by": "ben", "move": {"type": "supply",
                                                                      "space": 3}}))
    assert "ok " in ok("check", honest).output  # the same entry without the padding


def test_a_bounded_file_reads_the_same_as_before(clean: dict[str, Any]) -> None:
    """Every example (finished 3- and 5-player games of both games) passes both readers."""
    for path in sorted((ROOT / "examples").glob("*.json")):
        raw = path.read_bytes()
        assert gamefile.parse(raw).data == json.loads(raw)
        gamefile.validate_strict(json.loads(raw))


# --- move notation ----------------------------------------------------------------------


@pytest.mark.parametrize(("game", "text"), [
    ("staufer", "supply " + "1" * 5000),
    ("staufer", "deploy aachen " + "9" * 5000),
    ("staufer", "privilege 0000005"),
    ("dynasties", "trade 1 with " + "9" * 5000),
    ("dynasties", "pass 2 keep " + "7" * 5000),
    ("dynasties", "take k from ship " + "1" * 7),
])
def test_a_number_too_long_in_notation_is_malformed(game: str, text: str) -> None:
    with pytest.raises(MalformedMove, match="number too long"):
        get_game(game).parse_move(text, [])


def test_a_5000_digit_move_through_the_cli_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path, "staufer", players="ann,ben,cat", seed="digits")
    before = path.read_bytes()
    result = run("move", path, "--as", "ann", "supply " + "2" * 5000)
    assert result.exit_code == 1, result.output
    assert "malformed" in result.output.lower() or "cannot read" in result.output
    assert "number too long" in result.output and "Traceback" not in result.output
    assert path.read_bytes() == before


# --- sealed games and check --strict ----------------------------------------------------

SEED = "0123456789abcdef0123456789abcdef"


@pytest.fixture(scope="module")
def sealed_game(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, Path]]:
    """A finished sealed game of a game, played by random bot seats (they play as `new`
    writes the file), made once per module: (file, secret)."""
    made: dict[str, tuple[Path, Path]] = {}

    def get(name: str) -> tuple[Path, Path]:
        if name not in made:
            folder = tmp_path_factory.mktemp(name)
            path, key = folder / "g.json", folder / "g.secret"
            new_game(path, name, "--sealed", "--secret-out", key,
                     players="bot:ann=random,bot:ben=random,bot:cat=random", seed=SEED)
            assert json.loads(ok("status", path, "--json", "--secret", key).output)["finished"]
            made[name] = path, key
        return made[name]
    return get


SealedGame = Callable[[str], tuple[Path, Path]]


@pytest.mark.parametrize(("field", "value", "words"), [
    ("sealed", "A" * 4097, "expected `str` of length <= 4096"),
    ("sealed", "not base64!", "expected base64 text"),
    ("public", "p" * 201, "expected `str` of length <= 200"),
])
def test_sealed_and_public_are_bounded(sealed_game: SealedGame, tmp_path: Path, field: str,
                                       value: str, words: str) -> None:
    path, _ = sealed_game("dynasties")  # (Staufer has no hidden choice: the test above)
    data = json.loads(path.read_text())
    i = next(i for i, e in enumerate(data["log"]) if "sealed" in e)
    data["log"][i][field] = value
    forged = tmp_path / "g.json"
    forged.write_text(gamefile.dumps(data))
    refused(forged, f"$.log[{i}].{field}: {words}")


# --- one parse ----------------------------------------------------------------------------


def test_an_honest_file_is_read_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """The careful (standard-library) pass never runs for a file the referee wrote."""
    def careful(raw: bytes) -> None:
        raise AssertionError("the careful pass ran for an honest file")
    monkeypatch.setattr(strictjson, "_careful_json", careful)
    for path in sorted((ROOT / "examples").glob("*.json")):
        assert strictjson.strict_json(path.read_bytes()) == json.loads(path.read_bytes())


@pytest.mark.parametrize(("text", "problem"), [
    ('{"a": 1, "a": 1}', "duplicate key 'a'"),  # the same value twice: only a count differs
    ('{"a": [{"b": {"c": 1, "c": 1}}]}', "duplicate key 'c'"),
    ('{"a": 9223372036854775808}', "an integer outside the signed 64-bit range"),
    ('{"a": 18446744073709551616}', "an integer outside the signed 64-bit range"),
    ('{"a": -9223372036854775809}', "an integer outside the signed 64-bit range"),
    ('{"a": 1E400}', "a number with a fraction or exponent"),
    ('{"a": -0.0}', "a number with a fraction or exponent"),
])
def test_the_fast_pass_sends_every_breach_to_the_careful_one(text: str, problem: str) -> None:
    with pytest.raises(strictjson.JsonProblem, match=problem):
        strictjson.strict_json(text.encode())


@pytest.mark.parametrize("text", [
    '{"a": 9223372036854775807, "b": -9223372036854775808, "c": 4294967296}',
    '{"a": "\\u0041\\/", "b": "\\u00e9"}',  # escapes written otherwise than msgspec does
    '{"\\u0041": 1, "A ": 2}',
    '{"\\u0041": 1, "A": 2}',  # the same key, once escaped: a duplicate
])
def test_what_the_fast_pass_cannot_clear_the_careful_one_decides(text: str) -> None:
    try:
        expected: Any = json.loads(text, object_pairs_hook=_no_duplicates)
    except ValueError:
        with pytest.raises(strictjson.JsonProblem, match="duplicate key"):
            strictjson.strict_json(text.encode())
        return
    assert strictjson.strict_json(text.encode()) == expected


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError("duplicate")
    return dict(pairs)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=20)


@settings(max_examples=80, deadline=None)
@given(JSON_VALUES, st.booleans())
def test_strict_json_agrees_with_the_standard_library(value: Any, pretty: bool) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=2 if pretty else None)
    assert strictjson.strict_json(text.encode()) == json.loads(text)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=4), JSON_VALUES, min_size=1, max_size=4),
       st.integers(0, 3))
def test_a_duplicate_key_anywhere_is_refused(value: dict[str, Any], which: int) -> None:
    key = sorted(value)[which % len(value)]
    body = json.dumps(value, ensure_ascii=False)
    text = body[:-1] + f", {json.dumps(key)}: {json.dumps(value[key])}}}"
    for wrapped in (text, f'{{"log": [{text}]}}'):
        with pytest.raises(strictjson.JsonProblem, match="duplicate key"):
            strictjson.strict_json(wrapped.encode())


# --- the writers never write what the reader refuses --------------------------------------

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300) | \
    st.from_regex(r"[a-z\x00-\x7f\u0080-\u00ff]{1,10}@[a-z.\u0080-\u00ff]{1,250}\.[a-z]{2,3}",
                  fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["replace", "address", "watcher", "gm"]), TEXT, TEXT)
def test_what_meta_validate_accepts_every_read_accepts(kind: str, name: str,
                                                       email: str) -> None:
    from referee.errors import UsageError
    from referee.judge import meta

    record = {"replace": {"player": "ann", "email": email, "name": name},
              "address": {"player": "ann", "emails": [email, f"{name}@example.org"]},
              "watcher": {"email": email, "on": True}, "gm": {"email": email}}[kind]
    try:
        checked = meta.validate({"kind": kind, **record}, ["ann", "ben"])
    except UsageError:
        return
    msgspec_convert(checked, schema.MetaRecord)


@settings(max_examples=150, deadline=None)
@given(TEXT, TEXT)
def test_what_parse_players_accepts_every_read_accepts(name: str, email: str) -> None:
    from referee.errors import UsageError

    try:
        players = gamefile.parse_players(f"ann={name} <{email}>,ben={name}")
    except UsageError:
        return
    for player in players:
        msgspec_convert(player, schema.FilePlayer)


def msgspec_convert(obj: Any, type_: Any) -> None:
    import msgspec

    try:
        msgspec.convert(obj, type_)
    except msgspec.ValidationError as exc:
        raise AssertionError(f"written but refused on read: {obj!r}: {exc}") from None


def test_new_refuses_what_every_read_would_refuse(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    for players, words in [
        (f"ann={'n' * 101},ben,cat", "a name has at most 100 characters"),
        (f"ann=Ann <{'a' * 250}@b.org>,ben,cat", "at most 254 characters"),
        ("ann=Ann <a@b@c>,ben,cat", "is not an e-mail address"),
    ]:
        result = run("new", "staufer", path, "--players", players)
        assert result.exit_code == 2, result.output
        assert words in result.output and not path.exists()
    result = run("new", "staufer", path, "--players", "ann,ben,cat", "--seed", "s" * 257)
    assert result.exit_code == 2, result.output
    assert "$.rng.seed: expected `str` of length <= 256" in result.output
    assert not path.exists()
    new_game(path, "staufer", players=f"ann={'n' * 100} <{LONG_EMAIL}>,ben,cat", seed="s" * 256)
    assert "ok " in ok("check", path).output


# --- the quick format check agrees with the full types -------------------------------------

ENTRY_STRINGS = st.sampled_from(["by", "prev", "at", "mail", "mac", "sealed", "public"])
NEAR_VALID = st.sampled_from([
    "ann", "gm", "Ann", "ann\n", "", "a" * 24, "a" * 25, "0" * 64, "0" * 64 + "\n", "0" * 63,
    "A" * 64, NOW, NOW + "\n", "2026-11-30T10:00:00.5Z", "<m@x>", "<m@x>\n<n@y>", "<m x>",
    "c2VhbGVk", "c2VhbGVk\nc2VhbGVk", "x\ny", "\n",
]) | st.text(max_size=70)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), ENTRY_STRINGS, NEAR_VALID), min_size=1,
                max_size=4))
def test_the_quick_format_check_agrees_with_the_full_types(
        changes: list[tuple[int, str, str]]) -> None:
    import msgspec

    data = {"format": "referee/1", "game": "staufer", "rules": "r", "players": [{"id": "ann"}],
            "options": {}, "rng": {"seed": "s"},
            "log": [{"n": 1, "by": "ann", "move": {"type": "done"}, "prev": "0" * 64},
                    {"n": 2, "by": "gm", "void": 1, "prev": "1" * 64}]}
    for i, field, value in changes:
        data["log"][i][field] = value
    try:
        msgspec.convert(data, schema.GameFileDoc)
        full_ok = True
    except msgspec.ValidationError:
        full_ok = False
    quick = schema._quick_checked(data)
    assert (quick is not None) == full_ok, (changes, quick)


def test_check_strict_names_the_unknown_field_of_a_sealed_and_a_clear_move(
        sealed_game: SealedGame) -> None:
    path, _ = sealed_game("dynasties")
    data = json.loads(path.read_text())
    i = next(i for i, e in enumerate(data["log"]) if "sealed" in e)
    j = next(j for j, e in enumerate(data["log"]) if "move" in e and "sealed" not in e)
    for k, field in ((i, "hand"), (j, "note")):
        forged = copy(data)
        forged["log"][k]["move"][field] = 3
        with pytest.raises(GameFileError, match=rf"breaks the published schema at "
                           rf"\$\.log\[{k}\]\.move: Additional properties are not allowed "
                           rf"\('{field}' was unexpected\)"):
            gamefile.validate_strict(forged)


def test_the_resolver_refuses_a_parsed_move_past_its_bounds_for_every_game() -> None:
    """The one resolver checks what any parser returns against the game's move type: a
    parser that reads a number past its bound (a new game's bug) gives a malformed move,
    never an illegal one, and the honest move still resolves."""
    from referee import engine
    from referee.engine.rng import Rng
    from referee.errors import IllegalMove, MalformedMove
    from tests import toygame

    class Sloppy(toygame.ToyGame):  # reads any number, whatever its bound
        def parse_move(self, text: str, legal: object) -> toygame.Take:
            return toygame.Take(int(text.split()[-1]))

    game = Sloppy()
    state = game.setup(["ann", "ben"], {"pile": "20"}, Rng(b"bounds"))
    with pytest.raises(MalformedMove, match=r"cannot read 'take 0'.*>= 1"):
        engine.resolve_move(game, state, "ann", "take 0")
    with pytest.raises(MalformedMove, match=r"cannot read 'take 100'.*<= 99"):
        engine.resolve_move(game, state, "ann", "take 100")
    legal = game.legal_moves(state, "ann")
    assert engine.resolve_move(game, state, "ann", f"take {legal[0].n}") == legal[0]
    with pytest.raises(IllegalMove):  # within bounds but not legal: still illegal
        engine.resolve_move(game, state, "ann", "take 98")
