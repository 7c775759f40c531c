"""Git drivers for game files: a textconv diff driver and a merge driver.

``textconv`` turns a game file into stable text (a header summary and one line per log
entry in notation) so that ``git diff`` and ``git log -p`` show moves, not JSON. It reads
only what is stored: no replay, so it needs no secret and reveals nothing a sealed file
does not already show.

``merge`` resolves the one conflict two players cause when both append to the same game
from the same base: the entries already on the target branch (ours, or theirs when a
player merges the target branch into their own) are kept, the other side's diverging new
entries are dropped and reported, so that their author can redo them
on top of the merged game. Any other difference (an edited header, rewritten history)
is left as a conflict for a person.

Every log entry becomes text through :func:`entry_text`, and only there.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee.errors import GameFileError, RefereeError
from referee.git import history
from referee.ledger import gamefile, replay

if TYPE_CHECKING:
    from referee.ledger.records import Entry

# --- entry -> text ---------------------------------------------------------------------


def entry_text(gf: gamefile.GameFile, i: int) -> str:
    """Log entry ``i`` as other players may read it; needs no secret (a sealed move is
    shown by its public text)."""
    return replay.entry_text(gf, i)


def entry_line(gf: gamefile.GameFile, i: int) -> str:
    """``n. by: text`` of log entry ``i`` (the line textconv prints)."""
    entry = gf.log[i]
    bot = " (bot)" if entry.get("bot") is True else ""
    return f"{entry['n']:>4}. {entry['by']}{bot}: {entry_text(gf, i)}"


# --- textconv --------------------------------------------------------------------------


def _player_text(player: Mapping[str, Any]) -> str:
    text = player["id"]
    if "bot" in player:
        bot = player["bot"]
        text += f" (bot: {bot['level']}" + (f", {bot['iterations']} it.)" if "iterations" in bot
                                           else ")")
    if "name" in player and player["name"] != player["id"]:
        text += f" {json.dumps(player['name'], ensure_ascii=False)}"
    if "email" in player:
        text += f" <{player['email']}>"
    return text


def _pairs(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{p}={v}" for p, v in sorted(values.items())) or "none yet"


def _rng_text(rng: Mapping[str, Any]) -> str:
    parts = []
    if "commitment" in rng:
        parts.append(f"sealed, commitment {rng['commitment']}")
        if "seed" in rng:
            parts.append(f"seed revealed: {rng['seed']}")
    else:
        parts.append(f"open, seed {rng['seed']}")
    if "recipient" in rng:
        parts.append(f"referee recipient {rng['recipient']}")
    if "nonce_commitments" in rng:
        parts.append(f"nonce commitments: {_pairs(rng['nonce_commitments'])}")
    if "nonces" in rng:
        parts.append(f"nonces: {_pairs(rng['nonces'])}")
    return "; ".join(parts)


def header_lines(gf: gamefile.GameFile) -> list[str]:
    """Every header field as text (so that a header edit shows in a diff)."""
    data = gf.data
    lines = [
        f"game: {gf.game.title} ({data['game']}), id {gf.game_id}",
        f"rules: {data['rules']}",
    ]
    if "created" in data:
        lines.append(f"created: {data['created']}")
    lines.append("players: " + ", ".join(_player_text(p) for p in data["players"]))
    options = ", ".join(f"{k}={v}" for k, v in sorted(data["options"].items()))
    lines.append(f"options: {options or 'none'}")
    lines.append(f"rng: {_rng_text(data['rng'])}")
    return lines


def chain_marks(gf: gamefile.GameFile) -> list[str]:
    """Per entry: "" when its ``prev`` links to what precedes it, else a warning (an edit
    of history that would otherwise be invisible in the text)."""
    marks = []
    prev = gamefile.header_hash(gf.data)
    for entry in gf.log:
        marks.append("" if entry["prev"] == prev else "  [hash chain broken here]")
        prev = gamefile.entry_hash(entry)
    return marks


def textconv(raw: bytes, where: str = "game file") -> str:
    """The text git shows for a game file. A file that is not a valid game file (a
    half-edited one, a conflict) is shown as it is, after a line saying why."""
    try:
        gf = gamefile.parse(raw, where)
        lines = header_lines(gf)
        lines.append("log:")  # no count: appending a move adds one line, changes none
        for i, (entry, mark) in enumerate(zip(gf.log, chain_marks(gf), strict=True)):
            at = f"  ({entry['at']})" if "at" in entry else ""
            lines.append(entry_line(gf, i) + at + mark)
    except RefereeError as exc:
        text = raw.decode("utf-8", errors="replace")
        return f"(not a valid game file: {exc.message}; the raw text follows)\n{text}"
    return "\n".join(lines) + "\n"


# --- merge -----------------------------------------------------------------------------


class MergeConflict(RefereeError):
    """The versions differ in a way the driver must not resolve (header, history)."""


@dataclass
class MergeResult:
    """What the merge driver decided: the merged file data and what it dropped."""

    data: dict[str, Any]
    theirs: gamefile.GameFile
    kept: list[Entry] = field(default_factory=list)  # ours' new entries
    taken: list[Entry] = field(default_factory=list)  # theirs' entries added
    dropped_from: int | None = None  # theirs.log[dropped_from:] were dropped

    @property
    def dropped(self) -> list[Entry]:
        return [] if self.dropped_from is None else self.theirs.entries[self.dropped_from:]

    def redo_by(self) -> list[str]:
        """Authors of dropped entries, each once, in log order."""
        seen: list[str] = []
        for entry in self.dropped:
            if entry["by"] not in seen:
                seen.append(entry["by"])
        return seen


def _header(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "log"}


NONCE_KEYS = ("nonce_commitments", "nonces")  # rng dicts that grow before the first move


def _without_nonces(header: Mapping[str, Any]) -> dict[str, Any]:
    return dict(header, rng={k: v for k, v in header["rng"].items() if k not in NONCE_KEYS})


def _union_nonces(base: Mapping[str, Any], ours: Mapping[str, Any],
                  theirs: Mapping[str, Any]) -> dict[str, Any] | None:
    """Ours' header with theirs' nonce commitments and nonces added, when the two headers
    differ only in those and no player has two values; else None."""
    if not _without_nonces(base) == _without_nonces(ours) == _without_nonces(theirs):
        return None
    rng = dict(ours["rng"])
    order = [p["id"] for p in ours["players"]]
    for key in NONCE_KEYS:
        if key not in base["rng"]:
            continue
        merged = dict(ours["rng"].get(key, {}))
        for player, value in theirs["rng"].get(key, {}).items():
            if merged.setdefault(player, value) != value:
                return None
        rng[key] = {p: merged[p] for p in order if p in merged}
    return dict(ours, rng=rng)


def merge_header(base: Mapping[str, Any], ours: Mapping[str, Any],
                 theirs: Mapping[str, Any]) -> dict[str, Any]:
    """The merged header. Raises MergeConflict unless at most one side changed it, or
    both only added nonce commitments or nonces; each side's changes must be ones
    ``referee check --since`` allows (nonces before the first move, a revealed seed)."""
    hb, ho, ht = _header(base), _header(ours), _header(theirs)
    for side in (ho, ht):
        changed = history.header_changes(dict(base), {**side, "log": []}, None)
        if changed:
            raise MergeConflict(f"the header was edited: {', '.join(changed)}")
    if ho == ht or ht == hb:
        return ho
    if ho == hb:
        return ht
    union = _union_nonces(hb, ho, ht)
    if union is None:
        raise MergeConflict("both sides changed the game's header differently")
    return union


def _new_entries(base_log: Sequence[Entry], log: Sequence[Entry], side: str) -> list[Entry]:
    if list(log[:len(base_log)]) != list(base_log):
        raise MergeConflict(f"{side} rewrote or deleted history of the common version")
    return list(log[len(base_log):])


def merge(base: gamefile.GameFile | None, ours: gamefile.GameFile,
          theirs: gamefile.GameFile, keep: str = "ours") -> MergeResult:
    """Merge two versions of a game that grew from ``base`` (None: added on both sides).

    Entries both sides appended identically are kept once; when the sides' new entries
    diverge, the ``keep`` side's are kept ("ours" or "theirs": the side already on the
    target branch, see :func:`target_side`) and the other side's from the first
    difference on are dropped; ``MergeResult.theirs`` is then the dropped side. Raises
    MergeConflict for a changed header or rewritten history, or when the result is not
    a well-formed game (numbering, hash chain, authorship).
    """
    if keep == "theirs":
        return merge(base, theirs, ours)
    if ours.data["game"] != theirs.data["game"]:
        raise MergeConflict("the two versions are different games")
    base_data = base.data if base is not None else {**_header(ours.data), "log": []}
    header = merge_header(base_data, ours.data, theirs.data)
    a = _new_entries(base_data["log"], ours.entries, "our side")
    b = _new_entries(base_data["log"], theirs.entries, "their side")
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    result = MergeResult(data={}, theirs=theirs, kept=a[common:])
    if common == len(a):
        result.taken = b[common:]
    elif common < len(b):
        result.dropped_from = len(base_data["log"]) + common
    result.data = {**header, "log": [*base_data["log"], *a, *result.taken]}
    try:  # what `referee check` verifies without the secret, and nothing else
        replay.check_structure(gamefile.GameFile(result.data, ours.game))
    except RefereeError as exc:
        raise MergeConflict(f"the merged game would be invalid: {exc.message}") from None
    return result


# The branches a group plays on, in the order tried, when ``git config referee.target``
# names none: the moves on them have been accepted (by CI) and are never the ones dropped.
TARGET_BRANCHES = ("refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master")


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=False)


def _contains(target: str, commit: str) -> bool:
    """Whether ``commit`` is ``target`` or one of its ancestors."""
    return _git("merge-base", "--is-ancestor", commit, target).returncode == 0


def _their_commit() -> str | None:
    """The commit being merged in, as git tells a merge driver: ``git merge`` sets
    ``GITHEAD_<sha>=<name>`` for it (MERGE_HEAD is written only after the drivers ran);
    None in a rebase, cherry-pick or am, where "ours" is the branch rebased onto."""
    action = os.environ.get("GIT_REFLOG_ACTION", "")
    if (action and not action.startswith(("merge", "pull"))) or "--rebase" in action:
        return None
    found = sorted(k[len("GITHEAD_"):] for k in os.environ if k.startswith("GITHEAD_"))
    return found[0] if len(found) == 1 else None


def target_side() -> str:
    """Which side of the merge git is running now (in the current directory) holds the
    moves already on the target branch: "theirs" when a player merges the target branch
    into their own (``git merge main`` on a player's branch: the moves on main were
    recorded first and stand), else "ours" (merging a player's branch into main, or a
    rebase, where "ours" is the branch rebased onto)."""
    theirs = _their_commit()
    if theirs is None:
        return "ours"
    configured = _git("config", "referee.target").stdout.strip()
    for ref in ((configured,) if configured else TARGET_BRANCHES):
        if _git("rev-parse", "-q", "--verify", f"{ref}^{{commit}}").returncode != 0:
            continue
        if _contains(ref, "HEAD"):
            return "ours"
        return "theirs" if _contains(ref, theirs) else "ours"
    return "ours"


def parse_version(raw: bytes, where: str) -> gamefile.GameFile:
    """Our or their version as git hands it to the merge driver. Raises MergeConflict
    for a version that is not a valid game file."""
    try:
        return gamefile.parse(raw, where)
    except GameFileError as exc:
        raise MergeConflict(exc.message) from None


def parse_base(raw: bytes, where: str) -> gamefile.GameFile | None:
    """The common ancestor; None when it is empty (the file was added on both sides).
    Raises MergeConflict."""
    return parse_version(raw, where) if raw.strip() else None


def merge_files(base: bytes, ours: bytes, theirs: bytes, name: str
                ) -> tuple[MergeResult, bytes | None]:
    """The merge driver's work on the three versions' bytes: the merge (:func:`merge`,
    the side kept by :func:`target_side`) and the bytes to write over ours, or None when
    the result is ours. A result equal to one side keeps that side's bytes, so that the
    merge commit writes the file exactly as one of its parents does. Raises
    MergeConflict."""
    mine = parse_version(ours, f"{name} (ours)")
    other = parse_version(theirs, f"{name} (theirs)")
    common = parse_base(base, f"{name} (common ancestor)")
    result = merge(common, mine, other, target_side())
    if result.data == other.data and result.data != mine.data:
        return result, theirs
    if result.data != mine.data:
        return result, gamefile.dumps(result.data).encode()
    return result, None


def _entries(n: int) -> str:
    return f"{n} new entry" if n == 1 else f"{n} new entries"


def dropped_report(result: MergeResult, path: str) -> list[str]:
    """What to tell the players whose new moves were dropped: what was dropped, what of
    theirs stands, and whether it is their turn in the merged game (when this process
    can replay it: an open game, or a sealed one whose secret is at hand)."""
    lines = [f"referee git-merge: {path}: both sides added moves; kept the target "
             f"branch's {_entries(len(result.kept))} and dropped the other side's "
             f"{_entries(len(result.dropped))}:"]
    assert result.dropped_from is not None
    for i in range(result.dropped_from, len(result.theirs.log)):
        lines.append("  dropped " + entry_line(result.theirs, i).strip())
    merged = gamefile.GameFile(result.data, result.theirs.game)
    waiting = waiting_after(merged, path)
    for player in result.redo_by():
        lines.append(_redo_line(result, merged, player, path, waiting))
    return lines


def waiting_after(gf: gamefile.GameFile, path: str) -> list[str] | None:
    """Who owes a decision in the merged game ([] once it is over), or None when it cannot
    be replayed here (a sealed game without its secret, a log that does not replay)."""
    from pathlib import Path

    from referee.ledger import secret

    try:
        seed = secret.find_seed(gf, None, Path(path))
        if seed is None and gf.sealed:
            return None
        match = replay.replay(gf, seed)
    except RefereeError:
        return None
    return [] if match.game.finished(match.state) else gamefile.waiting(gf, match)


def _redo_line(result: MergeResult, merged: gamefile.GameFile, player: str, path: str,
               waiting: list[str] | None) -> str:
    """One player's line: their dropped moves, their moves that stand, and what to do."""
    n = sum(1 for entry in result.dropped if entry["by"] == player)
    line = f"{player}: " + ("your move was" if n == 1 else f"your {n} moves were") + \
        " not recorded"
    stand = [entry_line(merged, i).strip() for i, entry in enumerate(merged.log)
             if entry["by"] == player and "move" in entry
             and any(entry is kept for kept in result.kept)]
    if stand:
        line += "; on the target branch " + ("your move stands: " if len(stand) == 1 else
                                             "your moves stand: ") + "; ".join(stand)
    status = f"`referee status {path} --as {player}`"
    if waiting is None:
        return f"{line}. Look at the merged game ({status}) and move again if it is your turn."
    if not waiting:
        return f"{line}. The merged game is over."
    if player in waiting:
        return f"{line}. It is your turn: look at the merged game ({status}) and move again."
    return f"{line}. It is {', '.join(waiting)}'s turn now, not yours: nothing to move again."
