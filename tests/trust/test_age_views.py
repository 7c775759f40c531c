"""Private views of sealed games, encrypted with age to the players' SSH keys."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import Result

from referee.engine import get_game
from referee.engine.rng import Rng
from referee.errors import UsageError
from referee.ledger import gamefile, replay
from referee.trust import agebox, viewsign
from tests.ci import UNDER_CI
from tests.conftest import run
from tests.leaks import assert_shows, leaks, own_items, tokens_by_owner

SEED = "age-views-test-seed-0123456789"
GAME_IDS = {"staufer": "g1", "dynasties": "g2"}  # one id per game: views refuse twins


def seed_of(name: str) -> str:
    """Each game its own seed: two games with one seed would share a commitment, and
    views refuse such twins."""
    return SEED if name == "staufer" else f"{SEED}-{name}"


def need(tool: str) -> None:
    """Skip without ``tool`` on a laptop; under CI=true, where it is installed, fail."""
    if shutil.which(tool) is None:
        if UNDER_CI:
            pytest.fail(f"{tool} is required under CI=true and is not installed")
        pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SSH keys made by ssh-keygen: ann, ben, ann-rsa (a second key of ann's), locked
    (passphrase-protected) and ec (ecdsa, which age cannot use)."""
    need("ssh-keygen")
    folder = tmp_path_factory.mktemp("keys")
    for name, kind, passphrase in (("ann", "ed25519", ""), ("ben", "ed25519", ""),
                                   ("ann-rsa", "rsa", ""), ("locked", "ed25519", "pw"),
                                   ("ec", "ecdsa", "")):
        subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", passphrase, "-C", name,
                        "-f", str(folder / name)], check=True)
    return folder


def public_key(keys: Path, name: str) -> str:
    """"TYPE BASE64" of a key."""
    return " ".join((keys / f"{name}.pub").read_text().split()[:2])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One sealed game of each kind, played once per module (folder per game)."""
    folders = {}
    for name in ("staufer", "dynasties"):
        folders[name] = tmp_path_factory.mktemp(name)
        play_sealed(folders[name], name)
    return folders


def sealed_game(tmp_path: Path, played: dict[str, Path], name: str) -> tuple[Path, Path]:
    """A copy of the played sealed game ``name`` in ``tmp_path``."""
    for file in ("g.json", "keep.secret"):
        shutil.copy(played[name] / file, tmp_path / file)
    return tmp_path / "g.json", tmp_path / "keep.secret"


def play_sealed(tmp_path: Path, name: str) -> None:
    """A sealed 3-player game of ``name`` well into play (hands and draws exist)."""
    path, secret = tmp_path / "g.json", tmp_path / "keep.secret"
    assert run("new", name, path, "--players", "ann,ben,cat", "--sealed", "--insecure-seed",
               "--seed", seed_of(name), "--secret-out", secret, "--id", GAME_IDS[name]
               ).exit_code == 0  # two games never share a seed (nor a commitment)
    chooser = Rng("age-choices")
    for _ in range(20):
        public = json.loads(run("status", path, "--json", "--secret", secret).output)
        player = public["to_move"][0]
        legal = json.loads(run("status", path, "--as", player, "--json", "--secret",
                               secret).output)["legal"]
        assert run("move", path, "--as", player, chooser.choice(legal, "m"), "--secret",
                   secret).exit_code == 0


@pytest.fixture
def game(tmp_path: Path, played: dict[str, Path]) -> tuple[Path, Path]:
    return sealed_game(tmp_path, played, "staufer")


def signers_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "allowed_signers"
    path.write_text(text)
    return path


@pytest.fixture
def signers(tmp_path: Path, keys: Path) -> Path:
    """ann and ben have keys (ben's line with git's namespaces option); cat has none."""
    return signers_file(tmp_path, f"# players\nann {public_key(keys, 'ann')} ann@laptop\n"
                                  f'ben namespaces="git" {public_key(keys, "ben")}\n')


def write_views(game: tuple[Path, Path], signers: Path, *extra: object) -> Result:
    path, secret = game
    return run("views", path, "--signers", signers, "--secret", secret, *extra)


def test_each_player_reads_their_own_view(game: tuple[Path, Path], signers: Path,
                                          keys: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    path, secret = game
    result = write_views(game, signers)
    assert result.exit_code == 0
    assert result.stdout == ("  ann: g.ann.age written\n  ben: g.ben.age written\n"
                             "  public: g.public.txt written\n"
                             f"views of g.json are in {path.parent}\n")
    monkeypatch.chdir(path.parent)  # views name the game by its file name, as here
    for player in ("ann", "ben"):
        shown = run("view", f"g.{player}.age", "--identity", keys / player)
        assert shown.exit_code == 0
        assert shown.output == run("status", "g.json", "--as", player, "--secret",
                                   secret).output
        as_json = run("view", f"g.{player}.age", "-i", keys / player, "--json")
        assert json.loads(as_json.output) == json.loads(
            run("status", "g.json", "--as", player, "--json", "--secret", secret).output)
    assert Path("g.public.txt").read_text() == run("status", "g.json", "--secret",
                                                   secret).output


def test_ben_cannot_read_anns_view(game: tuple[Path, Path], signers: Path,
                                   keys: Path) -> None:
    write_views(game, signers)
    view = game[0].parent / "g.ann.age"
    result = run("view", view, "--identity", keys / "ben")
    assert result.exit_code == 1
    assert result.stderr == (f"error: {view} was not encrypted to the key {keys / 'ben'}\n"
                             "  each player can open only their own view\n")


@pytest.mark.parametrize("name", ["staufer", "dynasties"])
def test_the_clear_files_hold_no_hidden_token(name: str, tmp_path: Path, signers: Path,
                                              keys: Path, played: dict[str, Path]) -> None:
    game = sealed_game(tmp_path, played, name)
    path, _ = game
    write_views(game, signers)
    state = replay.replay(gamefile.read(path), seed_of(name)).state
    game_ = get_game(name)
    tokens = tokens_by_owner(game_, state)
    assert tokens["ann"] and tokens["ben"]
    folder = path.parent
    clear = [(folder / name).read_text() for name in ("g.public.txt", "g.views.json")]
    clear.append(run("git-textconv", path).output)
    for text in clear:  # every form of every hidden item, as whole words
        assert seed_of(name) not in text
        assert leaks(text, game_.hidden_items(state, None)) == []
    for sealed in ("g.ann.age", "g.ben.age"):  # no clear id in the encrypted bytes
        text = (folder / sealed).read_bytes().decode("latin-1")
        assert seed_of(name) not in text
        for token in (t for ts in tokens.values() for t in ts):
            assert token not in text, f"{token!r} is readable without a key"
    own = run("view", folder / "g.ann.age", "-i", keys / "ann", "--json").output
    assert_shows(own, own_items(game_, state, "ann"))  # control: the forms are real
    assert leaks(own, game_.hidden_items(state, "ann")) == []


def test_the_index_holds_keyed_hashes(game: tuple[Path, Path], signers: Path,
                                      keys: Path) -> None:
    path, _ = game
    write_views(game, signers)
    index = json.loads((path.parent / "g.views.json").read_text())
    plain = run("view", path.parent / "g.ann.age", "-i", keys / "ann", "--json")
    assert plain.exit_code == 0
    ann = index["views"]["ann"]
    fingerprint = subprocess.run(["ssh-keygen", "-l", "-f", str(keys / "ann.pub")],
                                 capture_output=True, text=True, check=True).stdout.split()[1]
    assert ann["keys"] == [fingerprint]
    assert index["no_key"] == ["cat"]
    assert sorted(index["views"]) == ["ann", "ben"]
    # the HMAC is keyed with the seed: without it, a guessed view cannot be checked
    key = agebox.views_key(SEED)
    assert len(ann["mac"]) == 64
    assert ann["mac"] != index["views"]["ben"]["mac"]
    assert key != agebox.views_key(SEED + "x")
    assert ann["mac"] == hmac.new(key, _plaintext(path, "ann"), hashlib.sha256).hexdigest()
    assert ann["mac"] != hashlib.sha256(_plaintext(path, "ann")).hexdigest()


def _plaintext(path: Path, player: str) -> bytes:
    from referee.play.statusview import load, status_json, status_text

    gf, match = load(path, path.parent / "keep.secret")
    return viewsign.document(gf, SEED, path.name, player,
                             status_text(gf, match, player, path.name),
                             status_json(gf, match, player))


def test_files_are_rewritten_only_when_their_view_changes(
        game: tuple[Path, Path], signers: Path, keys: Path) -> None:
    path, secret = game
    write_views(game, signers)
    folder = path.parent
    names = ["g.ann.age", "g.ben.age", "g.public.txt", "g.views.json"]
    before = {n: (folder / n).read_bytes() for n in names}
    again = write_views(game, signers)
    assert again.stdout.splitlines()[:3] == ["  ann: g.ann.age unchanged",
                                             "  ben: g.ben.age unchanged",
                                             "  public: g.public.txt unchanged"]
    assert {n: (folder / n).read_bytes() for n in names} == before
    public = json.loads(run("status", path, "--json", "--secret", secret).output)
    player = public["to_move"][0]
    legal = json.loads(run("status", path, "--as", player, "--json", "--secret",
                           secret).output)["legal"]
    assert run("move", path, "--as", player, legal[0], "--secret", secret).exit_code == 0
    write_views(game, signers)
    after = {n: (folder / n).read_bytes() for n in names}
    assert after["g.public.txt"] != before["g.public.txt"]  # the move number changed
    assert after["g.ann.age"] != before["g.ann.age"]
    assert after["g.views.json"] != before["g.views.json"]


def test_a_new_key_re_encrypts_to_every_key(game: tuple[Path, Path], signers: Path,
                                            keys: Path, tmp_path: Path) -> None:
    path, _ = game
    write_views(game, signers)
    ben_before = (path.parent / "g.ben.age").read_bytes()
    signers.write_text(signers.read_text() + f"ann {public_key(keys, 'ann-rsa')}\n")
    result = write_views(game, signers)
    assert result.stdout.splitlines()[:2] == ["  ann: g.ann.age written",
                                              "  ben: g.ben.age unchanged"]
    assert (path.parent / "g.ben.age").read_bytes() == ben_before
    for key in ("ann", "ann-rsa"):
        assert run("view", path.parent / "g.ann.age", "-i", keys / key).exit_code == 0


def test_a_player_without_a_key_is_reported(game: tuple[Path, Path], signers: Path,
                                            keys: Path) -> None:
    path, _ = game
    result = write_views(game, signers)
    assert result.exit_code == 0
    assert result.stderr == (f"warning: cat has no ssh-ed25519 or ssh-rsa key in {signers}: "
                             "cat's view of g.json was not written\n")
    assert not (path.parent / "g.cat.age").exists()
    assert write_views(game, signers, "--require-all").exit_code == 1


def test_a_withdrawn_key_removes_the_old_view(game: tuple[Path, Path], signers: Path,
                                              keys: Path) -> None:
    path, _ = game
    write_views(game, signers)
    signers.write_text(f"ann {public_key(keys, 'ann')}\nben {public_key(keys, 'ec')}\n")
    result = write_views(game, signers)
    assert not (path.parent / "g.ben.age").exists()
    assert result.stderr == (
        f"warning: ben has no ssh-ed25519 or ssh-rsa key in {signers}: ben's view of g.json "
        "was not written\n  (the key there is of a type age cannot encrypt to)\n"
        "  (the old g.ben.age was removed)\n"
        f"warning: cat has no ssh-ed25519 or ssh-rsa key in {signers}: cat's view of g.json "
        "was not written\n")
    assert sorted(json.loads((path.parent / "g.views.json").read_text())["views"]) == ["ann"]


def test_views_go_to_out_and_default_signers_are_in_the_repository(
        game: tuple[Path, Path], keys: Path, tmp_path: Path) -> None:
    path, secret = game
    need("git")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".referee").mkdir()
    (tmp_path / ".referee" / "allowed_signers").write_text(
        f"ann,ben {public_key(keys, 'ann')}\n")
    out = tmp_path / "views" / "g1"
    result = run("views", path, "--secret", secret, "--out", out, "--json")
    assert result.exit_code == 0
    [report] = json.loads(result.stdout)
    assert report["signers"] == str(tmp_path / ".referee" / "allowed_signers")
    assert (report["written"], report["no_key"]) == (["ann", "ben"], ["cat"])
    assert sorted(p.name for p in out.iterdir()) == [
        "g.ann.age", "g.ben.age", "g.public.signed", "g.public.txt", "g.views.json"]


def test_views_of_several_games(tmp_path: Path, played: dict[str, Path], signers: Path
                                ) -> None:
    for name, stem in (("staufer", "s"), ("dynasties", "d")):
        shutil.copy(played[name] / "g.json", tmp_path / f"{stem}.json")
        shutil.copy(played[name] / "keep.secret", tmp_path / f"{stem}.json.secret")
    result = run("views", tmp_path / "s.json", tmp_path / "nope.json", tmp_path / "d.json",
                 "--signers", signers)
    assert result.exit_code == 1
    assert result.stdout == "".join(
        f"  ann: {stem}.ann.age written\n  ben: {stem}.ben.age written\n"
        f"  public: {stem}.public.txt written\nviews of {stem}.json are in {tmp_path}\n"
        for stem in ("s", "d"))
    errors = result.stderr.splitlines()
    assert errors[1] == f"error: {tmp_path / 'nope.json'}: no game file at {tmp_path / 'nope.json'}"
    assert [line.split(": ", 1)[1] for line in (errors[0], errors[-1])] == [
        f"cat has no ssh-ed25519 or ssh-rsa key in {signers}: cat's view of {stem}.json was "
        "not written" for stem in ("s", "d")]
    assert sorted(p.name for p in tmp_path.glob("*.age")) == [
        "d.ann.age", "d.ben.age", "s.ann.age", "s.ben.age"]


def test_views_of_two_games_with_one_name(game: tuple[Path, Path], signers: Path,
                                          tmp_path: Path) -> None:
    path, secret = game
    (tmp_path / "b").mkdir()
    shutil.copy(path, tmp_path / "b" / "g.json")
    result = run("views", path, tmp_path / "b" / "g.json", "--out", tmp_path / "v",
                 "--signers", signers, "--secret", secret)
    assert (result.exit_code, result.stderr) == (
        2, f"error: {path} and {tmp_path / 'b' / 'g.json'} would write the same view files "
           f"in {tmp_path / 'v'}\n  give them different names or run views once per game "
           "with its own --out\n")
    assert not (tmp_path / "v").exists()


def test_views_cannot_write_into_a_file(game: tuple[Path, Path], signers: Path) -> None:
    path, _ = game
    result = write_views(game, signers, "--out", path / "views")
    assert (result.exit_code, result.stderr) == (
        2, f"error: {path}: cannot create {path / 'views'}: Not a directory\n")


def test_views_outside_a_repository_need_signers(game: tuple[Path, Path], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path, secret = game
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # git looks no higher
    result = run("views", path, "--secret", secret)
    assert (result.exit_code, result.stderr) == (
        2, f"error: {path} is not in a git repository, so there is no default "
           "allowed-signers file\n  give --signers PATH\n")
    assert not (tmp_path / "g.public.txt").exists()


def test_a_repository_without_signers(game: tuple[Path, Path], tmp_path: Path) -> None:
    path, secret = game
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    result = run("views", path, "--secret", secret)
    assert (result.exit_code, result.stderr) == (
        2, f"error: no allowed-signers file at {tmp_path / '.referee' / 'allowed_signers'}\n"
           "  give --signers PATH, or create .referee/allowed_signers at the repository "
           "root\n")


def test_views_of_a_sealed_game_need_the_secret(game: tuple[Path, Path], signers: Path
                                                ) -> None:
    path, _ = game
    result = run("views", path, "--signers", signers)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {path}: this game is sealed")
    assert sorted(p.name for p in path.parent.iterdir()) == ["allowed_signers", "g.json",
                                                             "keep.secret"]


def one_move(path: Path, secret: Path) -> None:
    public = json.loads(run("status", path, "--json", "--secret", secret).output)
    player = public["to_move"][0]
    legal = json.loads(run("status", path, "--as", player, "--json", "--secret",
                           secret).output)["legal"]
    assert run("move", path, "--as", player, legal[0], "--secret", secret).exit_code == 0


def views_moved_on(game: tuple[Path, Path], signers: Path) -> bytes:
    """Views written, the game one move on and its views written again; returns ann's
    view of before the move (genuine, old)."""
    path, secret = game
    write_views(game, signers)
    old_ann = (path.parent / "g.ann.age").read_bytes()
    one_move(path, secret)
    write_views(game, signers)
    return old_ann


def test_an_old_view_is_refused_once_the_game_moved_on(game: tuple[Path, Path],
                                                        signers: Path, keys: Path,
                                                        tmp_path: Path) -> None:
    """An old view is genuine but misleading (a hand since played): refused, whether CI
    has not written the new one yet or somebody put the old file back."""
    path, secret = game
    write_views(game, signers)
    view = path.parent / "g.ann.age"
    old = view.read_bytes()
    assert run("view", view, "-i", keys / "ann").stderr == ""
    one_move(path, secret)
    moves = len(json.loads(path.read_text())["log"])
    result = run("view", view, "-i", keys / "ann")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (f"error: {view} is an old view: it shows move {moves - 1}, but "
                             f"{path} has {moves} entries (an old view put back, or the "
                             "publish job has not written the new one yet)\n"
                             "  pull again after the publish job has run\n")
    write_views(game, signers)
    assert run("view", view, "-i", keys / "ann").exit_code == 0
    view.write_bytes(old)  # the old view re-committed
    assert "is an old view" in run("view", view, "-i", keys / "ann").stderr
    again = write_views(game, signers)  # and the publish job puts the right one back
    assert "  ann: g.ann.age written (the file there was not the referee's)" in again.stdout
    assert run("view", view, "-i", keys / "ann").exit_code == 0
    (tmp_path / "elsewhere").mkdir()
    moved = tmp_path / "elsewhere" / "g.ann.age"
    shutil.copy(view, moved)
    lost = run("view", moved, "-i", keys / "ann")
    assert (lost.exit_code, lost.stderr) == (
        1, f"error: cannot verify {moved}: the game file it is of (g.json) is not at hand\n"
           "  give --game FILE (the game file from the repository)\n")
    assert run("view", moved, "-i", keys / "ann", "--game", path).exit_code == 0


def test_a_view_newer_than_the_game_file_is_shown_with_a_note(
        game: tuple[Path, Path], signers: Path, keys: Path, tmp_path: Path) -> None:
    path, secret = game
    behind = tmp_path / "behind.json"
    shutil.copy(path, behind)
    one_move(path, secret)
    write_views(game, signers)
    result = run("view", path.parent / "g.ann.age", "-i", keys / "ann", "--game", behind)
    moves = len(json.loads(path.read_text())["log"])
    assert result.exit_code == 0
    assert result.stderr == (f"note: this view is of move {moves}, but {behind} has only "
                             f"{moves - 1} entries: pull to see the moves since\n")


def test_view_with_another_game(written: Path, keys: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    assert run("new", "staufer", other, "--players", "ann,ben", "--id", "o1").exit_code == 0
    result = run("view", written, "-i", keys / "ann", "--game", other)
    assert (result.exit_code, result.stderr) == (
        1, f"error: {written} is a view of game g1, but {other} is game o1: it was swapped "
           "for another game's view\n")


# --- reading a view: errors ------------------------------------------------------------


@pytest.fixture
def written(game: tuple[Path, Path], signers: Path) -> Path:
    assert write_views(game, signers).exit_code == 0
    return game[0].parent / "g.ann.age"


def test_a_damaged_view(written: Path, keys: Path) -> None:
    damaged = written.with_name("damaged.ann.age")
    data = bytearray(written.read_bytes())
    data[-5] ^= 0xFF
    damaged.write_bytes(bytes(data))
    result = run("view", damaged, "-i", keys / "ann")
    assert result.exit_code == 1
    assert result.stderr == (f"error: {damaged} is damaged and cannot be decrypted "
                             "(decryption error)\n  fetch it again, or ask for it to be "
                             "rewritten by `referee views`\n")


def test_a_file_that_is_not_age(written: Path, keys: Path) -> None:
    result = run("view", written.with_name("g.public.txt"), "-i", keys / "ann", "--as", "ann")
    assert (result.exit_code, result.stderr) == (
        1, f"error: {written.with_name('g.public.txt')} is not an age-encrypted view\n")


def test_an_age_file_that_is_not_a_view(written: Path, keys: Path) -> None:
    other = written.with_name("other.ann.age")
    other.write_bytes(agebox._encrypt(b"hello", [public_key(keys, "ann")]))
    result = run("view", other, "-i", keys / "ann")
    assert (result.exit_code, result.stderr) == (
        1, f"error: {other} decrypts, but is not a referee view\n")


@pytest.mark.parametrize(("key", "message"), [
    ("missing", "error: no SSH key at {key}\n"),
    ("locked", "error: {key} is protected by a passphrase, which this command cannot ask "
               "for\n  decrypt with age itself: age -d -i {key} FILE.age\n"),
    ("ec", "error: {key} is not an SSH private key age can use (unsupported key: "
           'Type("ecdsa-sha2-nistp256"))\n  age reads ssh-ed25519 and ssh-rsa keys\n'),
    ("ann.pub", "error: {key} is not an SSH private key age can use (invalid SSH "
                "identity)\n  age reads ssh-ed25519 and ssh-rsa keys\n"),
])
def test_identity_errors(written: Path, keys: Path, key: str, message: str) -> None:
    result = run("view", written, "--identity", keys / key)
    assert (result.exit_code, result.stderr) == (2, message.format(key=keys / key))


def test_no_identity_at_all(written: Path, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "nohome"))
    result = run("view", written)
    assert (result.exit_code, result.stderr) == (
        2, "error: no SSH key to decrypt with\n  give --identity ~/.ssh/YOUR_KEY (ed25519 "
           "or rsa)\n")


def test_the_default_identity_is_the_users_ed25519_key(written: Path, keys: Path,
                                                       tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    shutil.copy(keys / "ann", home / ".ssh" / "id_ed25519")
    monkeypatch.setenv("HOME", str(home))
    assert run("view", written).exit_code == 0


def test_view_errors_as_json(written: Path, keys: Path) -> None:
    result = run("view", written, "-i", keys / "ben", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "error": "ViewError",
        "message": f"{written} was not encrypted to the key {keys / 'ben'}",
        "hints": ["each player can open only their own view"],
    }


# --- the allowed-signers file ----------------------------------------------------------


def test_parse_signers_reads_git_format(keys: Path) -> None:
    ann, ben, ec = (public_key(keys, n) for n in ("ann", "ben", "ec"))
    text = (f"# comment\n\nann,ben {ann} shared\n"
            f'ben namespaces="git,file",valid-after="20260101" {ben}\n'
            f"cat cert-authority {ben}\n"
            f"dan {ec}\n"
            f"ann {ann}\n")
    signers = agebox.parse_signers(text, "signers")
    assert signers.keys == {"ann": [ann], "ben": [ann, ben]}
    assert signers.unusable == {"dan": [ec]}


@pytest.mark.parametrize(("line", "message"), [
    ("ann", "signers line 1: expected PRINCIPALS [OPTIONS] KEYTYPE KEY [COMMENT]"),
    ("ann ssh-ed25519", "signers line 1: expected PRINCIPALS [OPTIONS] KEYTYPE KEY [COMMENT]"),
    ("ann ssh-ed25519 not*base64", "signers line 1: the key is not base64"),
    ('ann namespaces="git ssh-ed25519 AAAA', "signers line 1: unbalanced quotes"),
])
def test_parse_signers_names_a_bad_line(line: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        agebox.parse_signers(line + "\n", "signers")
    assert caught.value.message == message


def test_a_bad_signers_file_is_a_usage_error(game: tuple[Path, Path], tmp_path: Path) -> None:
    bad = signers_file(tmp_path, "\nann ssh-ed25519\n")
    result = write_views(game, bad)
    assert (result.exit_code, result.stderr) == (
        2, f"error: {bad} line 2: expected PRINCIPALS [OPTIONS] KEYTYPE KEY [COMMENT]\n")
    missing = write_views(game, tmp_path / "none")
    assert missing.exit_code == 2
    assert missing.stderr.startswith(f"error: no allowed-signers file at {tmp_path / 'none'}")


# --- views a player can trust: forged, swapped, other games', padded ----------------------

FORGED = "99 = FORGED CARD"


def decrypt(path: Path, keys: Path, name: str) -> dict:
    """What the holder of key ``name`` reads in ``path`` (the attacker's own view)."""
    import pyrage

    identity = pyrage.ssh.Identity.from_buffer((keys / name).read_bytes())
    return json.loads(pyrage.decrypt(path.read_bytes(), [identity]))


def encrypt_to(path: Path, keys: Path, name: str, doc: dict) -> None:
    """What anybody can do: encrypt a document to a player's public key."""
    path.write_bytes(agebox._encrypt(json.dumps(doc).encode(), [public_key(keys, name)]))


def forge(doc: dict) -> dict:
    forged = json.loads(json.dumps(doc))
    forged["text"] = forged["text"].replace("\n", f"\n{FORGED}\n", 2)
    return forged


def test_a_forged_view_is_refused_and_views_rewrites_it(written: Path, keys: Path,
                                                        game: tuple[Path, Path],
                                                        signers: Path) -> None:
    genuine = decrypt(written, keys, "ann")
    assert run("view", written, "-i", keys / "ann").exit_code == 0  # control
    unsigned = {k: v for k, v in forge(genuine).items() if k != "signature"}
    attacker = vouch_doc_signed_by_another_key(forge(genuine))
    for doc in (forge(genuine), unsigned, attacker):
        encrypt_to(written, keys, "ann", doc)
        result = run("view", written, "-i", keys / "ann")
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == (
            f"error: {written} is not signed by the referee of {game[0]}: it is forged or "
            "damaged, do not trust what it shows\n  the next run of `referee views` (the "
            "publish job) rewrites it; tell the game master\n")
        assert FORGED not in result.output
    index = game[0].parent / "g.views.json"
    data = json.loads(index.read_text())  # the forger also "fixes" the index
    data["views"]["ann"]["file_mac"] = hashlib.sha256(written.read_bytes()).hexdigest()
    index.write_text(json.dumps(data))
    again = write_views(game, signers)
    assert again.stdout.splitlines()[:2] == [
        "  ann: g.ann.age written (the file there was not the referee's)",
        "  ben: g.ben.age unchanged"]
    shown = run("view", written, "-i", keys / "ann")
    assert shown.exit_code == 0 and FORGED not in shown.output
    assert write_views(game, signers).stdout.startswith("  ann: g.ann.age unchanged\n")


def vouch_doc_signed_by_another_key(doc: dict) -> dict:
    """A correct XEdDSA signature, by a key of the forger's own."""
    import base64

    from referee.ledger import vouch
    from referee.trust import xeddsa

    forged = {k: v for k, v in doc.items() if k != "signature"}
    secret = vouch._derive("the forger's seed", b"age-identity")
    sig = xeddsa.sign(secret, viewsign._message(forged))
    forged["signature"] = {"alg": "xeddsa-25519", "key": vouch.recipient("the forger's seed"),
                           "sig": base64.b64encode(sig).decode()}
    return forged


def test_a_swapped_view_is_refused(written: Path, keys: Path) -> None:
    """ben decrypts his own genuine view and puts it, encrypted to ann, in g.ann.age."""
    bens = decrypt(written.with_name("g.ben.age"), keys, "ben")
    encrypt_to(written, keys, "ann", bens)
    result = run("view", written, "-i", keys / "ann")
    assert (result.exit_code, result.stderr) == (
        1, f"error: {written} is ben's view, not ann's: it was swapped for another player's "
           "view\n")
    renamed = written.with_name("g.ben.age")  # ann's own file, named as ben's
    renamed.write_bytes(written.read_bytes())
    assert run("view", renamed, "-i", keys / "ann", "--as", "ann").exit_code == 1


def test_a_view_of_another_game_is_refused(written: Path, keys: Path, signers: Path,
                                           played: dict[str, Path], tmp_path: Path) -> None:
    """ann's genuine view of another game (same players) copied over her view of g."""
    other = tmp_path / "o"
    other.mkdir()
    path, secret = sealed_game(other, played, "dynasties")
    assert run("views", path, "--signers", signers, "--secret", secret).exit_code == 0
    written.write_bytes((other / "g.ann.age").read_bytes())
    result = run("view", written, "-i", keys / "ann")
    # another game has another seed, hence another referee key: the signature fails first
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"error: {written} is not signed by the referee of {written.with_name('g.json')}: "
        "it is forged or damaged")
    assert run("view", other / "g.ann.age", "-i", keys / "ann").exit_code == 0  # genuine
    assert run("view", written, "-i", keys / "ann", "--game", path).exit_code == 0
    assert "not signed by the referee of" in run(
        "view", written, "-i", keys / "ann", "--game", written.with_name("g.json")).stderr


def test_an_unsigned_old_format_view_is_refused(written: Path, keys: Path) -> None:
    doc = decrypt(written, keys, "ann")
    doc["format"] = "referee-view/1"
    encrypt_to(written, keys, "ann", doc)
    result = run("view", written, "-i", keys / "ann")
    assert (result.exit_code, result.stderr) == (
        1, f"error: {written} was written by an older referee and carries no signature, so "
           "it cannot be trusted\n  `referee views` (the publish job) rewrites it\n")


@pytest.mark.parametrize("name", ["staufer", "dynasties"])
def test_views_are_padded_so_sizes_tell_nothing(name: str, tmp_path: Path,
                                                played: dict[str, Path], keys: Path,
                                                signers: Path) -> None:
    path, secret = sealed_game(tmp_path, played, name)
    sizes = []
    for _ in range(3):
        assert run("views", path, "--signers", signers, "--secret", secret).exit_code == 0
        hands = [decrypt(path.with_name(f"g.{p}.age"), keys, p)["status"]["view"]
                 for p in ("ann", "ben")]
        assert hands[0] != hands[1]  # different hands...
        sizes.append({p: payload_size(path.with_name(f"g.{p}.age")) for p in ("ann", "ben")})
        one_move(path, secret)
    for size in sizes:
        assert size["ann"] == size["ben"]  # ...the same size
    assert len({s["ann"] for s in sizes}) == 1  # and the same after moves
    from referee.play.statusview import load, status_json, status_text

    gf, match = load(path, secret)
    plain = viewsign.document(gf, SEED, "g.json", "ann", status_text(gf, match, "ann", "g"),
                              status_json(gf, match, "ann"))
    assert len(plain) >= 4096 and len(plain) & (len(plain) - 1) == 0


def payload_size(path: Path) -> int:
    """The length of an age file after its header (whose size varies at random: rage
    adds "grease" stanzas of random length, which tell nothing)."""
    data = path.read_bytes()
    end = data.index(b"\n---")
    return len(data) - data.index(b"\n", end + 1) - 1


def test_two_files_with_one_game_id_get_no_views(game: tuple[Path, Path], signers: Path
                                                 ) -> None:
    path, secret = game
    twin = path.with_name("twin.json")
    data = json.loads(path.read_text())
    data["created"] = "2026-01-02T00:00:00Z"  # another header under the same seed and id
    twin.write_text(json.dumps(data))
    result = run("views", path, twin, "--signers", signers, "--secret", secret)
    assert result.exit_code == 1
    same = (f"{twin} is the same game as {path}: the same rng commitment (a copy of that "
            "game's seed) ('g1'); a game's "
            "identity cannot be copied: no views are written for either")
    assert result.stderr.splitlines() == [
        f"error: {path}: {same}",
        "  one game, one file: remove the copy (`check --since` tells which is new)",
        f"error: {twin}: {same}",
        "  one game, one file: remove the copy (`check --since` tells which is new)"]
    assert not list(path.parent.glob("*.age"))


def test_a_plain_copy_gets_the_views_of_its_game(game: tuple[Path, Path], signers: Path
                                                 ) -> None:
    """`cp g.json backup.json`: the game's views are written, the copy is named."""
    path, secret = game
    backup = path.with_name("backup.json")
    shutil.copy(path, backup)
    os.utime(backup, ns=(path.stat().st_mtime_ns + 10**9,) * 2)  # the copy is newer
    result = run("views", backup, path, "--signers", signers, "--secret", secret)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        f"{backup} is a copy of {path}: its views are those of {path}")
    assert sorted(p.name for p in path.parent.glob("*.age")) == ["g.ann.age", "g.ben.age"]
def test_views_refuse_a_header_with_a_forged_referee_key(tmp_path: Path, signers: Path
                                                         ) -> None:
    from referee.ledger import vouch

    path, secret = tmp_path / "f.json", tmp_path / "f.secret"
    assert run("new", "staufer", path, "--players", "ann,ben", "--sealed", "--seed",
               SEED + "-f", "--insecure-seed", "--secret-out", secret, "--id", "f1"
               ).exit_code == 0
    data = json.loads(path.read_text())
    data["rng"]["recipient"] = vouch.recipient("the forger's seed")
    path.write_text(gamefile.dumps(data))
    result = run("views", path, "--signers", signers, "--secret", secret)
    assert (result.exit_code, result.stderr) == (
        1, f"error: {path}: the header's referee key ($.rng.recipient) is not the one this "
           "game's secret gives: the header was forged\n")


def test_an_open_games_view_is_checked_by_replaying_it(tmp_path: Path, signers: Path,
                                                       keys: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """In an open game anyone could sign (the seed is public): `view` replays instead."""
    monkeypatch.chdir(tmp_path)
    path = Path("o.json")
    assert run("new", "staufer", path, "--players", "ann,ben", "--seed", "open",
               "--id", "o1").exit_code == 0
    assert run("views", path, "--signers", signers).exit_code == 0
    view = Path("o.ann.age")
    assert run("view", view, "-i", keys / "ann", "--game", path).output == run(
        "status", path, "--as", "ann").output
    encrypt_to(view, keys, "ann", forge(decrypt(view, keys, "ann")))
    result = run("view", view, "-i", keys / "ann", "--game", path)
    assert (result.exit_code, result.stderr) == (
        1, f"error: {view} does not show what {path} shows ann at move 0: it is forged, do "
           "not trust it\n  `referee status --as YOU` shows the real view of an open game\n")


# --- the signature scheme ----------------------------------------------------------------


RFC_8032 = [  # RFC 8032, 7.1: TEST 1, TEST 2 (secret, public, message, signature)
    ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc6"
     "1e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e45"
     "8f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
]


@pytest.mark.parametrize(("secret", "public", "message", "signature"), RFC_8032)
def test_ed25519_verification_matches_rfc_8032(secret: str, public: str, message: str,
                                               signature: str) -> None:
    """The verifier (libsodium's crypto_sign_open) accepts RFC 8032's vectors, which
    libsodium's own signer and the 0.5 reference make too, and refuses them changed."""
    from nacl.signing import SigningKey

    from referee.trust import xeddsa
    from tests import xeddsa_reference

    sig, pub, msg = (bytes.fromhex(x) for x in (signature, public, message))
    key = SigningKey(bytes.fromhex(secret))
    assert bytes(key.verify_key) == pub and key.sign(msg).signature == sig
    assert xeddsa_reference.sign_ed25519(bytes.fromhex(secret), msg) == sig
    assert xeddsa.verify_ed25519(pub, msg, sig)
    assert not xeddsa.verify_ed25519(pub, msg + b"x", sig)
    for i in (0, 31, 40, 63):  # R and s, low and high bytes
        bad = bytearray(sig)
        bad[i] ^= 1
        assert not xeddsa.verify_ed25519(pub, msg, bytes(bad))
    assert not xeddsa.verify_ed25519(pub, msg, sig[:63])
    assert not xeddsa.verify_ed25519(pub[:31], msg, sig)


def test_xeddsa_verifies_with_the_headers_age_recipient() -> None:
    """The key that signs is the one pyrage derives the header's recipient from
    (libsodium's X25519 of the secret gives the recipient's u)."""
    from nacl.bindings import crypto_scalarmult_base

    from referee.ledger import vouch
    from referee.trust import xeddsa

    for seed in ("one", "two", "three", "four", "five"):
        u = viewsign.recipient_u(vouch.recipient(seed))
        secret = vouch._derive(seed, b"age-identity")
        assert u is not None and crypto_scalarmult_base(secret) == u
        sig = xeddsa.sign(secret, b"a view")
        assert xeddsa.verify(u, b"a view", sig)
        assert not xeddsa.verify(u, b"a viev", sig)
        other = viewsign.recipient_u(vouch.recipient(seed + "x"))
        assert other is not None and not xeddsa.verify(other, b"a view", sig)


def test_a_view_signed_by_the_old_pure_python_code_still_verifies(
        game: tuple[Path, Path], signers: Path, keys: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The publish job of 0.5 signed with the pure-Python XEdDSA (kept in
    tests/xeddsa_reference.py); its views are read by `referee view` of this release,
    and this release writes the very same bytes."""
    from referee.trust import xeddsa
    from tests import xeddsa_reference

    path, secret = game
    with monkeypatch.context() as patched:
        patched.setattr(xeddsa, "sign", xeddsa_reference.sign)
        assert write_views(game, signers).exit_code == 0
    old = decrypt(path.with_name("g.ann.age"), keys, "ann")
    monkeypatch.chdir(path.parent)  # views name the game by its file name, as here
    shown = run("view", "g.ann.age", "-i", keys / "ann")
    assert shown.exit_code == 0, shown.output
    assert shown.output == run("status", "g.json", "--as", "ann", "--secret", secret).output
    for name in ("g.ann.age", "g.ben.age", "g.views.json"):  # written anew: the new signer
        path.with_name(name).unlink()
    assert write_views(game, signers).exit_code == 0
    assert decrypt(path.with_name("g.ann.age"), keys, "ann") == old


def test_a_fake_open_game_beside_the_views_does_not_vouch(game: tuple[Path, Path],
                                                         signers: Path, keys: Path,
                                                         tmp_path: Path) -> None:
    """The views are in views/, the game in games/. A pull request adds views/g.json, an
    open game of its own (anybody may add a valid new game), and its genuine-looking
    view as views/g.ann.age: an open game's view is checked only against a game file the
    player names, and then the ids differ."""
    path, secret = game
    (tmp_path / "games").mkdir()
    real = tmp_path / "games" / "g.json"
    shutil.copy(path, real)
    views = tmp_path / "views"
    assert run("views", real, "--signers", signers, "--secret", secret, "--out", views
               ).exit_code == 0
    fake = views / "g.json"
    assert run("new", "staufer", fake, "--players", "ann,ben,cat", "--seed", "mine",
               "--id", "fake").exit_code == 0
    assert run("views", fake, "--signers", signers, "--out", tmp_path / "made").exit_code == 0
    (views / "g.ann.age").write_bytes((tmp_path / "made" / "g.ann.age").read_bytes())
    result = run("view", views / "g.ann.age", "-i", keys / "ann")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: {fake} is an open game (its seed is public, so anyone could write a view "
        f"that matches it): {views / 'g.ann.age'} is checked only against a game file you "
        "name\n  give --game FILE, or simply `referee status FILE --as ann`\n")
    named = run("view", views / "g.ann.age", "-i", keys / "ann", "--game", real)
    assert named.exit_code == 1 and "is not signed by the referee of" in named.stderr


@pytest.mark.parametrize("field", ["moves", "player", "status", "head"])
def test_a_view_with_fields_of_the_wrong_type(written: Path, keys: Path, field: str,
                                              game: tuple[Path, Path]) -> None:
    doc = decrypt(written, keys, "ann")
    doc[field] = ["not", "this"]
    encrypt_to(written, keys, "ann", doc)
    result = run("view", written, "-i", keys / "ann", "--game", game[0])
    assert (result.exit_code, result.stderr) == (
        1, f"error: {written} decrypts, but is not a referee view\n")


# --- a game whose views are already written is not replayed ------------------------------


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The games `views` replays (each replay's game id)."""
    seen: list[str] = []
    real = replay.replay

    def counting(gf: gamefile.GameFile, *args: object, **kwargs: object) -> object:
        seen.append(gf.game_id)
        return real(gf, *args, **kwargs)

    monkeypatch.setattr(replay, "replay", counting)
    return seen


UNCHANGED = ["  ann: g.ann.age unchanged", "  ben: g.ben.age unchanged",
             "  public: g.public.txt unchanged"]


def test_views_made_from_these_bytes_are_kept_without_a_replay(
        game: tuple[Path, Path], signers: Path, keys: Path, replays: list[str]) -> None:
    """The index names what the views were made from (an HMAC under the seed's key of
    the game's bytes, its names, the language and the referee's code): while it and
    every file hold, the game is not replayed; a move replays it once."""
    path, secret = game
    write_views(game, signers)
    assert replays == ["g1"]
    again = write_views(game, signers)
    assert again.stdout.splitlines()[:3] == UNCHANGED and replays == ["g1"]
    index = json.loads((path.parent / "g.views.json").read_text())
    assert len(index["source"]) == 64 and len(index["public_mac"]) == 64
    one_move(path, secret)
    replays.clear()
    moved = write_views(game, signers)
    assert moved.stdout.splitlines()[:3] == ["  ann: g.ann.age written",
                                             "  ben: g.ben.age written",
                                             "  public: g.public.txt written"]
    assert replays == ["g1"]
    assert run("view", path.parent / "g.ann.age", "-i", keys / "ann").exit_code == 0
    german = run("--lang", "de", "views", path, "--signers", signers, "--secret", secret)
    assert german.exit_code == 0 and replays == ["g1", "g1"]  # another language: replayed


def test_an_old_set_of_views_put_back_is_rewritten(game: tuple[Path, Path], signers: Path,
                                                   keys: Path, replays: list[str]) -> None:
    """The views, the public view and the index of before a move, all put back (each
    genuine, each the referee's): their index names other bytes, so the game is
    replayed and every view written anew."""
    path, secret = game
    write_views(game, signers)
    folder = path.parent
    names = ["g.ann.age", "g.ben.age", "g.public.txt", "g.views.json"]
    old = {n: (folder / n).read_bytes() for n in names}
    one_move(path, secret)
    write_views(game, signers)
    for name, data in old.items():
        (folder / name).write_bytes(data)
    replays.clear()
    result = write_views(game, signers)
    assert replays == ["g1"]
    assert result.stdout.splitlines()[:3] == ["  ann: g.ann.age written",
                                              "  ben: g.ben.age written",
                                              "  public: g.public.txt written"]
    assert run("view", folder / "g.ann.age", "-i", keys / "ann").stderr == ""


@pytest.mark.parametrize("change", ["source", "old ann file", "public", "no key", "keys",
                                    "code"])
def test_a_view_set_that_does_not_hold_is_replayed(
        game: tuple[Path, Path], signers: Path, keys: Path, replays: list[str],
        monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    """Any part of the set not as the referee wrote it for these bytes: the index's
    source forged, the current index beside an old view, the public view edited, the
    index's keyless players edited, a key added, another referee: replayed, and what
    is not the referee's written again."""
    path, _ = game
    folder = path.parent
    old_ann = views_moved_on(game, signers)
    index_path = folder / "g.views.json"
    index = json.loads(index_path.read_text())
    if change == "source":
        index["source"] = hashlib.sha256(b"forged").hexdigest()
    elif change == "old ann file":
        (folder / "g.ann.age").write_bytes(old_ann)
    elif change == "public":
        (folder / "g.public.txt").write_text("all is well\n")
    elif change == "no key":
        index["no_key"] = []
    elif change == "keys":
        signers.write_text(signers.read_text() + f"ann {public_key(keys, 'ann-rsa')}\n")
    else:
        from referee.git import views
        from referee.ledger import cachedb

        # (looked up in both: the cache's rows and the index's source name the code)
        monkeypatch.setattr(cachedb, "code_digest", lambda: "another referee")
        monkeypatch.setattr(views, "code_digest", lambda: "another referee")
    index_path.write_text(json.dumps(index))
    replays.clear()
    result = write_views(game, signers)
    assert result.exit_code == 0 and replays == ["g1"]
    lines = result.stdout.splitlines()
    if change == "old ann file":
        assert lines[0] == "  ann: g.ann.age written (the file there was not the referee's)"
    if change == "keys":
        assert lines[0] == "  ann: g.ann.age written"
    if change == "public":
        assert lines[2] == "  public: g.public.txt written"
    shown = run("view", folder / "g.ann.age", "-i", keys / "ann")
    assert shown.exit_code == 0 and shown.stderr == ""
    replays.clear()
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED
    assert replays == []


def test_the_views_bench_runs(tmp_path: Path) -> None:
    """scripts/bench_views_scale.py at two tiny sizes: every run after one move keeps
    the unchanged games' views (the figures themselves go in docs/speed.md)."""
    import sys

    need("ssh-keygen")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "scripts.bench_views_scale", "--sizes",
                           "3,6", "--repeats", "1"], cwd=root, capture_output=True,
                          text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["3", "6"]
    assert lines[2].startswith("fitted exponent of `views` after one move, 3 to 6: ")


@pytest.mark.parametrize("planted", ["fifo public", "fifo index", "huge index"])
def test_views_over_a_planted_fifo_or_huge_index(game: tuple[Path, Path], signers: Path,
                                                 keys: Path, planted: str) -> None:
    """What a push put in the views folder is read with the game files' bounds: a FIFO
    (which would block a plain read) or an index past 16 MiB is not the referee's, and
    is replaced, never read to its end."""
    import os

    path, _ = game
    write_views(game, signers)
    target = path.parent / ("g.public.txt" if planted == "fifo public" else "g.views.json")
    target.unlink()
    if planted.startswith("fifo"):
        os.mkfifo(target)
    else:
        with target.open("wb") as handle:
            handle.truncate(17 * 1024 * 1024)
    result = write_views(game, signers)
    assert result.exit_code == 0, result.output
    assert target.is_file() and target.stat().st_size < 1024 * 1024
    assert run("view", path.parent / "g.ann.age", "-i", keys / "ann").exit_code == 0
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED


# --- open games, the cache and the cost of a run ----------------------------------------


def open_game(tmp_path: Path) -> Path:
    path = tmp_path / "o.json"
    assert run("new", "staufer", path, "--players", "ann,ben,cat", "--seed", "open",
               "--id", "o1").exit_code == 0
    return path


@pytest.mark.parametrize("cache", ["warm", "off"])
def test_an_open_games_forged_views_are_never_kept(tmp_path: Path, signers: Path,
                                                   keys: Path, replays: list[str],
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   cache: str) -> None:
    """An open game's index is keyed from its public seed: anyone can write one that
    holds. A pull request's forged public view and forged view, each with the HMACs
    recomputed, are replaced by the trusted run, cache or no cache (in CI: none)."""
    if cache == "off":
        monkeypatch.setenv("REFEREE_CACHE_DIR", "off")
    path = open_game(tmp_path)
    assert run("views", path, "--signers", signers).exit_code == 0
    genuine_public = (tmp_path / "o.public.txt").read_bytes()
    key = agebox.views_key(json.loads(path.read_text())["rng"]["seed"])  # (public)
    forged_public = genuine_public.replace(b"ann", b"mallory", 1)
    (tmp_path / "o.public.txt").write_bytes(forged_public)
    encrypt_to(tmp_path / "o.ann.age", keys, "ann",
               forge(decrypt(tmp_path / "o.ann.age", keys, "ann")))
    index_path = tmp_path / "o.views.json"
    index = json.loads(index_path.read_text())
    index["public_mac"] = agebox.public_mac(key, forged_public)
    index["views"]["ann"]["file_mac"] = agebox.file_mac(
        key, (tmp_path / "o.ann.age").read_bytes())
    index_path.write_text(json.dumps(index))
    replays.clear()
    result = run("views", path, "--signers", signers)
    assert result.exit_code == 0 and replays == ["o1"]
    assert result.stdout.splitlines()[0] == "  ann: o.ann.age written"
    assert result.stdout.splitlines()[2] == "  public: o.public.txt written"
    assert (tmp_path / "o.public.txt").read_bytes() == genuine_public
    shown = run("view", tmp_path / "o.ann.age", "-i", keys / "ann", "--game", path)
    assert shown.exit_code == 0 and FORGED not in shown.output


def test_an_open_game_is_replayed_without_a_cache_and_kept_with_one(
        tmp_path: Path, signers: Path, replays: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The keep-without-replay path of the index is for sealed games only; an open
    game's views are kept only on the cache's word that every file is, byte for byte,
    what the referee wrote."""
    path = open_game(tmp_path)
    assert run("views", path, "--signers", signers).exit_code == 0
    replays.clear()
    again = run("views", path, "--signers", signers)
    assert again.stdout.splitlines()[:3] == [
        "  ann: o.ann.age unchanged", "  ben: o.ben.age unchanged",
        "  public: o.public.txt unchanged"] and replays == []
    monkeypatch.setenv("REFEREE_CACHE_DIR", "off")
    cold = run("views", path, "--signers", signers)
    assert replays == ["o1"]
    assert cold.stdout.splitlines()[:3] == ["  ann: o.ann.age written",
                                            "  ben: o.ben.age written",
                                            "  public: o.public.txt unchanged"]


REPOSITORY_SECRET = "7a3e51c0" * 8  # (a token_hex(32), as the action's secret input)


def test_with_the_repository_secret_an_open_games_views_survive_a_fresh_runner(
        tmp_path: Path, signers: Path, keys: Path, replays: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The action's publish job runs `views` with the repository secret and no cache: an
    open game is replayed every run and its public view compared byte for byte, but its
    private views are kept by an index keyed from that secret (no new bytes, no commit
    of views on every push). A pull request that knows only the public seed forges the
    index in vain: the forged view is replaced; a secret file put beside the open game
    (anyone may add one to the repository) is not a key."""
    monkeypatch.setenv("REFEREE_CACHE_DIR", "off")
    monkeypatch.setenv("REFEREE_SECRET", REPOSITORY_SECRET)
    path = open_game(tmp_path)
    assert run("views", path, "--signers", signers).exit_code == 0
    written = {n: (tmp_path / n).read_bytes() for n in ("o.ann.age", "o.ben.age")}
    replays.clear()
    again = run("views", path, "--signers", signers)
    assert replays == ["o1"] and again.stdout.splitlines()[:3] == [
        "  ann: o.ann.age unchanged", "  ben: o.ben.age unchanged",
        "  public: o.public.txt unchanged"]
    assert {n: (tmp_path / n).read_bytes() for n in written} == written
    # the attack: a forged view with the index's HMACs recomputed under the public seed
    encrypt_to(tmp_path / "o.ann.age", keys, "ann",
               forge(decrypt(tmp_path / "o.ann.age", keys, "ann")))
    public_key_of_index = agebox.views_key(json.loads(path.read_text())["rng"]["seed"])
    index_path = tmp_path / "o.views.json"
    index = json.loads(index_path.read_text())
    index["views"]["ann"]["file_mac"] = agebox.file_mac(
        public_key_of_index, (tmp_path / "o.ann.age").read_bytes())
    index_path.write_text(json.dumps(index))
    forged = run("views", path, "--signers", signers)
    assert forged.stdout.splitlines()[0] == (
        "  ann: o.ann.age written (the file there was not the referee's)")
    shown = run("view", tmp_path / "o.ann.age", "-i", keys / "ann", "--game", path)
    assert shown.exit_code == 0 and FORGED not in shown.output
    # a secret file beside the open game is the repository's, not the operator's
    monkeypatch.delenv("REFEREE_SECRET")
    (tmp_path / "o.json.secret").write_text("anyone's\n")
    assert run("views", path, "--signers", signers).stdout.splitlines()[:2] == [
        "  ann: o.ann.age written", "  ben: o.ben.age written"]


def test_a_sealed_game_is_kept_by_its_index_without_a_cache(
        game: tuple[Path, Path], signers: Path, replays: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a fresh CI runner: no cache, and the sealed game's index (keyed from its
    secret seed) keeps its views without a replay."""
    monkeypatch.setenv("REFEREE_CACHE_DIR", "off")
    write_views(game, signers)
    replays.clear()
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED
    assert replays == []


def test_a_warm_run_parses_nothing_and_reads_every_file_it_wrote(
        game: tuple[Path, Path], signers: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cache, an unchanged game is neither parsed nor replayed; each of its
    files is opened and looked at (a view by its size and its age header, any other file
    hashed: a file put back, even of the same size, is seen)."""
    write_views(game, signers)  # (the first run: every view written)
    parsed: list[str] = []
    real = gamefile.parse
    monkeypatch.setattr(gamefile, "parse", lambda raw, name, *a, **k: parsed.append(name)
                        or real(raw, name, *a, **k))
    opened: list[str] = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda p, *a, **k: opened.append(str(p))
                        or real_open(p, *a, **k))
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED
    assert parsed == []
    names = [Path(p).name for p in opened]  # (the views by name in their open folder)
    assert sorted(n for n in names if n.startswith("g.") or n == "keep.secret") == [
        "g.ann.age", "g.ben.age", "g.json", "g.public.signed", "g.public.txt",
        "g.views.json", "keep.secret"]  # (which secret: part of the row's key)


@pytest.mark.parametrize("change", ["code", "language", "secret"])
def test_a_cache_row_is_for_one_referee_language_and_secret(
        game: tuple[Path, Path], signers: Path, monkeypatch: pytest.MonkeyPatch,
        change: str) -> None:
    """The row's key holds the referee's code digest, the language and the secret used
    (its bytes): another of any is a miss (the game file parsed again), never the old
    row; also while the row would tell the game unchanged by its first part (every file
    settled)."""
    from referee.git import viewfiles
    from referee.ledger import cachedb

    monkeypatch.setattr(viewfiles, "RACY_NS", 0)
    path, secret = game
    # the same seed, other bytes, in a folder made first: the folder of views stays as
    # the runs before the change leave it
    (secret.parent / "elsewhere").mkdir()
    other = secret.parent / "elsewhere" / "copy.secret"
    other.write_text(json.dumps(json.loads(secret.read_text()), indent=4) + "\n")
    write_views(game, signers)
    parsed: list[str] = []
    real = gamefile.parse
    monkeypatch.setattr(gamefile, "parse", lambda raw, name, *a, **k: parsed.append(name)
                        or real(raw, name, *a, **k))
    assert write_views(game, signers).exit_code == 0 and parsed == []  # (the row)
    extra: tuple[object, ...] = ()
    if change == "code":
        monkeypatch.setattr(cachedb, "code_digest", lambda: "another referee")
    elif change == "language":
        extra = ("--lang", "de")
    else:
        secret = other
    result = run(*extra, "views", path, "--signers", signers, "--secret", secret)
    assert result.exit_code == 0, result.output
    assert parsed == [str(path)]


def test_files_old_enough_are_told_by_the_one_listing_and_a_change_is_seen(
        game: tuple[Path, Path], signers: Path, keys: Path, replays: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a file is older than the racy window (here none), a run after one move tells
    an unchanged game's files of views by the folder's one listing (name and inode),
    opening and stat'ing none, and its game file by its stat identity. A view moved over
    by another file (a new inode) or removed is seen and written again; one removed and
    made anew, as git writes a file, moves the folder's ctime: every file is then told
    by its own stat identity, and it is seen. A game file rewritten to other bytes of
    the same size with its mtime restored moves the ctime: read again. A view rewritten
    in place keeps its inode and leaves the folder as it was: the player's `view`
    refuses it, and `views --full`, which looks at every file's bytes, writes it
    again."""
    from referee.git import viewfiles

    monkeypatch.setattr(viewfiles, "RACY_NS", 0)
    path, _ = game
    folder = path.parent
    old_ann = views_moved_on(game, signers)
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED  # (stats kept)
    opened: list[str] = []
    real_open, real_stat = os.open, os.stat
    monkeypatch.setattr(os, "open", lambda p, *a, **k: opened.append(str(p))
                        or real_open(p, *a, **k))
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: opened.append(str(p))
                        or real_stat(p, *a, **k))
    replays.clear()
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED
    assert replays == []
    assert [Path(p).name for p in opened if Path(p).name.startswith("g.")] == ["g.json"]
    monkeypatch.setattr(os, "open", real_open)
    monkeypatch.setattr(os, "stat", real_stat)
    ann = folder / "g.ann.age"
    # an old (genuine) view moved over the current one: another inode, seen
    (folder / "old.tmp").write_bytes(old_ann)
    os.replace(folder / "old.tmp", ann)
    result = write_views(game, signers)
    assert result.stdout.splitlines()[0] == (
        "  ann: g.ann.age written (the file there was not the referee's)")
    assert run("view", ann, "-i", keys / "ann").exit_code == 0
    # a view removed: written again
    (folder / "g.ben.age").unlink()
    assert "  ben: g.ben.age written" in write_views(game, signers).stdout.splitlines()
    # as git writes a file: removed and made anew, and the inode number freed may come
    # back (ext4 hands it out again); here the same inode for certain, and the folder
    # changed as the removal and the making change it: its ctime moves, so each file is
    # told by its own stat identity
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED
    inode = ann.stat().st_ino
    ann.write_bytes(old_ann)
    (folder / "git-index.lock").touch()
    (folder / "git-index.lock").unlink()
    assert ann.stat().st_ino == inode
    result = write_views(game, signers)
    assert result.stdout.splitlines()[0] == (
        "  ann: g.ann.age written (the file there was not the referee's)")
    assert ann.read_bytes() != old_ann
    # the old view rewritten in place, its mtime set back: the inode stays
    before = ann.stat()
    ann.write_bytes(old_ann)
    os.utime(ann, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert ann.stat().st_ino == before.st_ino
    refused = run("view", ann, "-i", keys / "ann")
    assert refused.exit_code == 1 and "is an old view" in refused.stderr
    full = write_views(game, signers, "--full")
    assert full.stdout.splitlines()[0] == (
        "  ann: g.ann.age written (the file there was not the referee's)")
    shown = run("view", ann, "-i", keys / "ann")
    assert shown.exit_code == 0 and shown.stderr == ""
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED
    # the game file rewritten in place: other bytes, the same size and mtime
    raw = path.read_bytes()
    st = path.stat()
    path.write_bytes(raw)  # (the same bytes written again: kept)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    replays.clear()
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED
    assert replays == []  # (its stat moved: read and hashed again, the same bytes)
    other = raw.replace(b"\n", b" ", 1)  # (other bytes of the same size, the same game)
    assert other != raw and len(other) == len(raw)
    path.write_bytes(other)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    replays.clear()
    assert write_views(game, signers).exit_code == 0
    assert replays == ["g1"]  # (read again, other bytes: never the old row)


def test_the_first_run_lists_the_views_folder_once(tmp_path: Path, signers: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 42: the folder of views was listed before every file written (40,000 at
    10,000 games: the first run grew with the square of the archive). At most once a run
    now: the first run's listing finds the stale temporary files; a later run, OUT as
    the last run left it, lists it not at all, not even to write a changed game's views
    (no temporary file can be there); OUT changed by another hand, once again when a
    file is written."""
    monkeypatch.setenv("REFEREE_SECRET", "5f1c0e9a" * 8)  # (a token_hex(32))
    games = tmp_path / "games"
    games.mkdir()
    paths = [games / f"g{i}.json" for i in range(5)]
    for i, path in enumerate(paths):  # (seeds derived from the repository secret)
        assert run("new", "staufer", path, "--players", "ann,ben,cat", "--sealed",
                   "--id", f"g{i}").exit_code == 0
    out = tmp_path / "views"
    listed: list[str] = []
    real, real_scan = os.listdir, os.scandir
    monkeypatch.setattr(os, "listdir", lambda p=".": listed.append(str(p)) or real(p))
    monkeypatch.setattr(os, "scandir", lambda p=".": listed.append(str(p))
                        or real_scan(p))  # type: ignore[call-overload]

    def views() -> int:
        listed.clear()
        result = run("views", *paths, "--signers", signers, "--out", out)
        assert result.exit_code == 0, result.output
        return listed.count(str(out))

    assert views() == 1
    assert len(list(out.glob("*.age"))) == 10
    assert views() == 0
    (games / "g2.json").write_bytes((games / "g2.json").read_bytes() + b"\n")  # (changed)
    assert views() == 0
    (out / "stray.txt").write_text("another hand\n")
    assert views() == 0  # (each file told by its stat: nothing to write)
    (out / "stray.txt").write_text("another hand, again\n")  # (in place: OUT as it was)
    (out / "g3.public.txt").unlink()
    assert views() == 1  # (written again, OUT rid of stale temporary files first)


def test_a_twin_is_found_while_the_other_games_are_told_unchanged(
        tmp_path: Path, signers: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy check of a run after one move looks only at the games read again, while
    the games are the last run's and keep their keys. An attacker's game file that
    becomes another game's twin (its bytes replaced by that game's header under another
    history), or a twin added beside the archive, is read again with other keys or is
    new: every game is looked at, and both sides get no views."""
    from referee.git import viewfiles

    monkeypatch.setattr(viewfiles, "RACY_NS", 0)
    monkeypatch.setenv("REFEREE_SECRET", "5f1c0e9a" * 8)  # (a token_hex(32))
    games = tmp_path / "games"
    games.mkdir()
    paths = [games / f"g{i}.json" for i in range(4)]
    for i, path in enumerate(paths):
        assert run("new", "staufer", path, "--players", "ann,ben,cat", "--sealed",
                   "--id", f"g{i}").exit_code == 0
    out = tmp_path / "views"

    def views(*files: Path) -> Result:
        return run("views", *files, "--signers", signers, "--out", out)

    assert views(*paths).exit_code == 0
    assert views(*paths).stdout.count("unchanged") == 12  # (told by their rows)
    data = json.loads(paths[0].read_text())
    data["created"] = "2026-01-02T00:00:00Z"  # g0's seed and id under another header
    paths[3].write_text(json.dumps(data))
    result = views(*paths)
    assert result.exit_code == 1
    assert [line.split(": ")[1] for line in result.stderr.splitlines()
            if line.startswith("error")] == [str(paths[0]), str(paths[3])], result.stderr
    assert "  ann: g1.ann.age unchanged" in result.stdout.splitlines()
    twin = games / "twin.json"
    data["created"] = "2026-01-03T00:00:00Z"
    twin.write_text(json.dumps(data))
    paths[3].unlink()
    result = views(*paths[:3], twin)
    assert result.exit_code == 1
    assert [line.split(": ")[1] for line in result.stderr.splitlines()
            if line.startswith("error")] == [str(paths[0]), str(twin)], result.stderr


def test_a_damaged_row_is_read_as_none(game: tuple[Path, Path], signers: Path,
                                       replays: list[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A row's first part that does not match its CRC-32 (damaged on disk, yet still a
    row that decodes: another player named) tells nothing: the game is looked at through
    the rest of its row, and the report is the true one."""
    import msgspec

    from referee.git import viewcache, viewfiles
    from referee.ledger import cachedb

    monkeypatch.setattr(viewfiles, "RACY_NS", 0)  # (every row settled: told by its first part)
    write_views(game, signers)
    assert write_views(game, signers).stdout.splitlines()[:3] == UNCHANGED
    database = cachedb.cache_dir() / cachedb.FILE_NAME  # type: ignore[operator]
    with contextlib.closing(sqlite3.connect(database)) as conn, conn:
        for key, file, hot in conn.execute("SELECT out, file, hot FROM views_games"):
            row = msgspec.msgpack.decode(hot, type=viewcache.Hot)
            forged = msgspec.structs.replace(row, keyed=["zed", "ben"],
                                             files={**row.files, "zed": "g.zed.age"})
            conn.execute("UPDATE views_games SET hot = ? WHERE out = ? AND file = ?",
                         (msgspec.msgpack.encode(forged), key, file))
    replays.clear()
    again = write_views(game, signers)
    assert again.exit_code == 0 and again.stdout.splitlines()[:3] == UNCHANGED
    assert "zed" not in again.stdout and replays == []
