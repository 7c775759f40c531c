"""Signed commits (`referee check --since REV --signed`) and changes to the
allowed-signers file, checked against git.

Every commit in REV..HEAD that changes a game is signed with an SSH key listed for a
player in the allowed-signers file *as it is at REV* (a change cannot add its own key),
verified by git, and the entries each commit adds are all its signer's (or bot-seat moves,
which `history.compare` replays). The allowed-signers file itself changes only as its
owners allow (referee/trust/signers.py). The rest of a change is checked in referee/git/history.py.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

from referee.errors import UsageError
from referee.git.history import SIGNERS, Repo, is_game_file
from referee.ledger import seats
from referee.trust import signers


@dataclass
class Signed:
    commit: str
    signer: str | None  # the principals of a good signature (", "-joined), else None
    status: str  # git's %G?: G good, B bad, U unknown validity, N none, E cannot check, ...
    parents: list[str]
    principals: frozenset[str] = frozenset()  # what the anchor lists the signing key for


def _verify(repo: Repo, anchor: bytes, revs: Sequence[str]) -> list[Signed]:
    """Each commit of ``revs`` (git log arguments) with its signature as git verifies it
    against the allowed-signers text ``anchor``, oldest first. The principals come from
    the anchor's lines for the signing key's fingerprint (referee/trust/signers.py), so a key
    listed for several principals signs for each of them."""
    try:
        grants = signers.parse(anchor.decode("utf-8"), SIGNERS)
    except UnicodeDecodeError:
        raise UsageError(f"{SIGNERS} is not UTF-8 text") from None
    with tempfile.NamedTemporaryFile("wb", suffix=".signers") as f:
        f.write(anchor)
        f.flush()
        out = repo.git("-c", f"gpg.ssh.allowedSignersFile={f.name}", "log",
                       "--format=%H%x00%G?%x00%GK%x00%P", *revs)
    commits = []
    for line in out.decode().splitlines():
        sha, status, key, parents = line.split("\0")
        found = signers.principals_of(grants, key) if status == "G" and key else frozenset()
        commits.append(Signed(sha, ", ".join(sorted(found)) or None, status,
                              parents.split(), found))
    return list(reversed(commits))


def signed_commits(repo: Repo, signers_rel: str) -> list[Signed]:
    """Every commit in REV..HEAD with its signature as git verifies it against the
    allowed-signers file as it is at REV. Raises UsageError if that file is missing."""
    if repo.rev is None:
        raise UsageError("--signed needs a revision to take the allowed signers from")
    allowed = repo.show(repo.rev, signers_rel)
    if allowed is None:
        raise UsageError(f"--signed: no {signers_rel} at {repo.rev[:12]}",
                         hints=["commit the allowed-signers file (git's format: "
                                "PLAYER KEYTYPE KEY) before signed moves are checked"])
    return _verify(repo, allowed, [f"{repo.rev}..HEAD"])


def check_signed(repo: Repo, signers_rel: str, paths: Sequence[str]) -> list[str]:
    """Each commit's new entries in each game file are its signer's; a merge commit
    adds no entry of its own. Returns the problems found."""
    problems: list[str] = []
    for c in signed_commits(repo, signers_rel):
        changed = _changed_games(repo, c, paths)
        if not changed:
            continue
        if len(c.parents) > 1:
            problems += _merge_problems(repo, c, changed)
            continue
        if c.signer is None:
            problems.append(f"commit {c.commit[:12]} changes {', '.join(changed)} but is not "
                            f"signed by a key in {signers_rel} (git says {c.status!r})")
            continue
        for rel in changed:
            problems += _commit_entries(repo, c, rel)
    return problems


def _changed_games(repo: Repo, c: Signed, paths: Sequence[str]) -> list[str]:
    out = repo.git("diff-tree", "--no-commit-id", "-r", "-z", "--name-only", "-m",
                   "--root", c.commit).split(b"\0")
    touched = {n.decode() for n in out if n}
    return [p for p in paths if p in touched]


def _merge_problems(repo: Repo, c: Signed, changed: list[str]) -> list[str]:
    problems = []
    for rel in changed:
        mine = repo.show(c.commit, rel)
        if all(repo.show(p, rel) != mine for p in c.parents):
            problems.append(f"merge commit {c.commit[:12]} writes {rel} differently from "
                            "both parents: make moves in commits of their own")
    return problems


def _commit_entries(repo: Repo, c: Signed, rel: str) -> list[str]:
    before_raw = repo.show(c.parents[0], rel) if c.parents else None
    after_raw = repo.show(c.commit, rel)
    if after_raw is None:
        return [f"commit {c.commit[:12]} deletes {rel}"]
    try:
        after = json.loads(after_raw)["log"]
        before = (json.loads(before_raw)["log"]
                  if before_raw is not None and is_game_file(before_raw) else [])
    except (ValueError, KeyError, TypeError, RecursionError):
        return [f"commit {c.commit[:12]}: {rel} is not a readable game file"]
    if after[:len(before)] != before:
        return [f"commit {c.commit[:12]} rewrites the history of {rel}"]
    bots = _bot_entries(after_raw)
    strangers = [e for e in after[len(before):]
                 if not isinstance(e, dict) or (e.get("by") not in c.principals
                                                and e.get("n") not in bots)]
    if strangers:
        return [f"commit {c.commit[:12]} signed by {c.signer} adds entry "
                f"{strangers[0].get('n') if isinstance(strangers[0], dict) else '?'} of "
                f"{rel} by {strangers[0].get('by') if isinstance(strangers[0], dict) else '?'}"]
    return []


def _bot_entries(raw: bytes) -> set[int]:
    """The numbers of the entries of the game file ``raw`` that are moves marked
    ``"bot": true`` by a seat a bot plays at that point. Those may be in anybody's
    commit: `compare` replays each new one and refuses it unless it is exactly the bot's
    move."""
    try:
        data = json.loads(raw)
        now = seats.seats_at({"players": data["players"], "log": []})
        players = [p["id"] for p in data["players"]]
        found: set[int] = set()
        for entry in data["log"]:
            meta = entry.get("meta")
            if isinstance(meta, dict) and meta.get("kind") == "bot":
                try:
                    now.apply(entry["by"], seats.validate_meta(meta, players))
                except UsageError:
                    continue
            elif "move" in entry and entry.get("bot") is True and entry["by"] in now.bots:
                found.add(entry["n"])
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return set()
    return found


# --- changes to the allowed-signers file ----------------------------------------------


def check_signers_file(repo: Repo, signers_rel: str, may_create: bool) -> list[str]:
    """Every commit in REV..HEAD that changes the allowed-signers file does so as its
    owners allow (referee/trust/signers.py), its signer taken from the file as it is at REV
    (the anchor). When REV has no file, the commit that creates it is the bootstrap and
    its file the anchor of the later commits; ``may_create`` is False for a pull request,
    which may not create it. Merge commits are judged by the result: the file at HEAD
    must be REV's with only the changes allowed commits made. Returns the problems."""
    base = repo.show(repo.rev, signers_rel) if repo.rev is not None else None
    touching = _touching(repo, signers_rel)
    if not touching:
        return []
    anchor, problems = base, []
    added: set[signers.Grant] = set()
    removed: set[signers.Grant] = set()
    try:
        for sha, parents in touching:
            if len(parents) > 1:
                continue  # a merge: judged by the result at HEAD, below
            old = repo.show(parents[0], signers_rel) if parents else None
            new = repo.show(sha, signers_rel)
            found, anchor = _signers_commit(repo, sha, old, new, anchor, signers_rel,
                                            may_create)
            problems += found
            if not found and new is not None:
                before = signers.parse(_text(old or b""), signers_rel)
                after = signers.parse(_text(new), signers_rel)
                added |= after - before
                removed |= before - after
        if not problems:
            head = repo.show("HEAD", signers_rel)
            problems += signers.net_problems(
                None if base is None else _text(base), None if head is None else _text(head),
                added, removed, signers_rel, (repo.rev or "the first commit")[:12])
    except signers.SignersError as exc:
        problems.append(exc.message)
    return problems


def _signers_commit(repo: Repo, sha: str, old: bytes | None, new: bytes | None,
                    anchor: bytes | None, rel: str, may_create: bool
                    ) -> tuple[list[str], bytes | None]:
    """(the problems of one non-merge commit's change, the anchor after it)."""
    what = f"commit {sha[:12]}"
    if anchor is None:
        if new is None:
            return [], None
        [c] = _verify(repo, new, ["--no-walk", sha])
        return signers.creation_problems(_text(new), c.principals, may_create, what,
                                         rel), new
    [c] = _verify(repo, anchor, ["--no-walk", sha])
    return signers.change_problems(None if old is None else _text(old),
                                   None if new is None else _text(new), c.principals,
                                   what, rel), anchor


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _touching(repo: Repo, rel: str) -> list[tuple[str, list[str]]]:
    """(commit, parents) of every commit in REV..HEAD, oldest first, whose version of
    ``rel`` differs from one of its parents' (or that adds it, as a root commit)."""
    revs = [f"{repo.rev}..HEAD"] if repo.rev is not None else ["HEAD"]
    listed = repo.git("rev-list", "--reverse", "--topo-order", "--parents", *revs).decode()
    commits = [(line.split()[0], line.split()[1:]) for line in listed.splitlines() if line]
    names = sorted({c for c, _ in commits} | {p for _, ps in commits for p in ps})
    blob = _blobs(repo, names, rel)
    return [(c, ps) for c, ps in commits
            if (any(blob[p] != blob[c] for p in ps) if ps else blob[c] is not None)]


def _blobs(repo: Repo, commits: Sequence[str], rel: str) -> dict[str, str | None]:
    """The blob id of ``rel`` in each commit (None where it has none), in one git call."""
    done = subprocess.run(["git", "cat-file", "--batch-check"], cwd=repo.root,
                          input="".join(f"{c}:{rel}\n" for c in commits).encode(),
                          capture_output=True, check=False)
    lines = done.stdout.decode().splitlines()
    words = [line.split() for line in lines]
    return {c: (w[0] if len(w) == 3 and w[1] == "blob" else None)
            for c, w in zip(commits, words, strict=False)}
