"""Private views of sealed games, encrypted with age to the players' SSH keys."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from referee import agebox, gamefile, viewsign
from referee.cli import main
from referee.engine import get_game
from referee.errors import UsageError
from referee.rng import Rng
from tests.ci import UNDER_CI

SEED = "age-views-test-seed-0123456789"
GAME_IDS = {"staufer": "g1", "dynasties": "g2"}  # one id per game: views refuse twins


def need(tool: str) -> None:
    """Skip without ``tool`` on a laptop; under CI=true, where it is installed, fail."""
    if shutil.which(tool) is None:
        if UNDER_CI:
            pytest.fail(f"{tool} is required under CI=true and is not installed")
        pytest.skip(f"{tool} is not installed")


def run(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


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
               "--seed", SEED, "--secret-out", secret, "--id", GAME_IDS[name]).exit_code == 0
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
    tokens = get_game(name).hidden_tokens(
        gamefile.replay(gamefile.read(path), SEED).state)
    assert tokens["ann"] and tokens["ben"]
    folder = path.parent
    clear = [(folder / name).read_text() for name in ("g.public.txt", "g.views.json")]
    clear += [(folder / name).read_bytes().decode("latin-1")
              for name in ("g.ann.age", "g.ben.age")]
    clear.append(run("git-textconv", path).output)
    for text in clear:
        assert SEED not in text
        for token in (t for ts in tokens.values() for t in ts):
            assert token not in text, f"{token!r} is readable without a key"
    own = run("view", folder / "g.ann.age", "-i", keys / "ann", "--json").output
    assert all(token in own for token in tokens["ann"])  # control: the tokens are real
    assert not any(token in own for token in tokens["ben"])


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
    from referee.cli.common import load, status_json, status_text

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
    assert sorted(p.name for p in out.iterdir()) == ["g.ann.age", "g.ben.age",
                                                     "g.public.txt", "g.views.json"]


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
