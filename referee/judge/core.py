"""The judge's core: finds the games of a directory, decides who is told what, keeps its state.

:class:`Judge` ties the pieces together: :mod:`referee.judge.store` (what the judge
remembers), :mod:`referee.judge.text` (what the messages say) and its doors
(:class:`referee.judge.door.Doors`), each of which turns a
:class:`~referee.judge.door.Notice` into a message of its transport and delivers it.
The core knows no transport: the doors (:mod:`referee.doors`) sit above it, and so does
the handling of what players type (:mod:`referee.judge.handling`). It knows nothing of
clocks or deadlines either: the sweep over them (:mod:`referee.judge.tend`) sits above
it too.

Notification rule per player (setting ``notify``, a meta entry; default ``turn``):

* ``turn``: a full mail when the player must decide (with everything since their last
  mail), a short confirmation when their own move was accepted and they owe nothing.
* ``every``: a full mail after every change.
* ``digest``: only the full mail when the player must decide.

Everybody gets the first mail (the thread root) and the game-over mail. Watchers get
the public view after every change, or with a digest once a round or every N decisions.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee import i18n
from referee.errors import RefereeError
from referee.judge import folderwatch, meta, text
from referee.judge.basics import WATCHER, Config, Loaded, plays
from referee.judge.door import Door, DoorDown, Doors, Notice
from referee.judge.failures import RetryLater, describe, environment_failure
from referee.judge.gmlines import gm_welcome
from referee.judge.looks import Looks
from referee.judge.store import Store
from referee.ledger import gamefile, identity, replay, roster, seats, secret
from referee.play.submit import BotMove, play_bots

_, N_, ngettext = i18n.domain("referee")
#: how many games a judge keeps replayed (each a few hundred KB at most)
LOADED_KEPT = 128


def _mark(stat: os.stat_result) -> tuple[int, int, int]:
    """What tells that a file changed: its inode (a write through a rename makes a new
    one), its mtime and its size."""
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


class Judge:
    """The judge of one games folder, over its doors (:class:`referee.judge.door.Door`)."""

    def __init__(self, config: Config, doors: Sequence[Door]) -> None:
        self.config = config
        self.store = Store(config.games_dir)
        self.doors = Doors(doors, config.log)
        self.doors.attach(self)
        self._ids: dict[Path, tuple[float, int, str, dict[str, str]]] = {}
        self._notified: dict[Path, tuple[int, int]] = {}
        self.marks: dict[Path, tuple[int, int, int]] = {}  # each file as last listed
        self.looks = Looks()  # the sweep's last look at each game (referee/judge/looks.py)
        # the games replayed, by file (kept while its inode, mtime and size are the same)
        self._loaded: OrderedDict[Path, tuple[tuple[int, int, int], Loaded]] = OrderedDict()
        self._twins: set[str] = set()  # the skipped files logged
        self._deadline_cache: dict[Path, tuple[tuple[int, int], roster.Settings]] = {}
        self._file_paths: dict[str, Path] = {}  # a game file's name -> its path
        self._paths_cache: tuple[Any, dict[str, Path]] | None = None
        self._names: set[str] = set()  # the game files of the last listing
        self._order: dict[Path, int] | None = None  # (paths_order)
        self._marked: set[Path] = set()  # files whose mark changed (take_marked)
        self._served: frozenset[str] | None = None  # the names the state serves
        self._watch: folderwatch.FolderWatch | None = None  # made at the first look
        self._positions = text.Positions()

    def close(self) -> None:
        """Let go of the state (its database closed: written through)."""
        self.store.close()

    def reset(self) -> None:
        """Forget everything not saved (after a failure in the middle of a mail or a
        game): the state as on disk, as after a restart."""
        self.store.close()
        self.store = Store(self.config.games_dir)
        self.doors.attach(self)
        self._served = None
        self._notified.clear()
        self.looks.clear()
        self._loaded.clear()
        self._positions = text.Positions()

    # ------------------------------------------------------------------ games

    def game_paths(self) -> dict[str, Path]:
        """Game id -> file, for every game file in the directory.
        Two files of one game (the same header, commitment or id: referee/ledger/identity.py):
        the one this judge has served before (else the first by name) is served, the
        other skipped with a log line. Asked at every look (twice or three times a mail):
        where the folder is watched (:mod:`referee.judge.folderwatch`: watchfiles)
        only the files named changed since the last look are read again (one stat each),
        and while none of them was added, removed or got another identity and no served
        name changed, the answer is the last one: a cost of what changed, not of the
        folder. Otherwise (and :data:`~referee.judge.folderwatch.RESCAN_SECONDS` after
        the last whole listing) one directory listing and one stat a file."""
        if self._paths_cache is not None:
            changed = self._watcher().changes()
            if changed is not None and self._same_games(changed):
                return dict(self._paths_cache[1])
        self._watcher().listing()  # (before it: what changes during it is named next time)
        games: list[tuple[Path, str, dict[str, str]]] = []
        for path in self._game_files():
            known = self._identity(path)
            if known is not None:
                games.append((path, *known))
        served = self._served_names()
        self._names = {p.name for p, _, _ in games}
        mark = ([(p.name, self._ids[p][:2]) for p, _, _ in games],
                sorted(s for s in served if isinstance(s, str)))
        if self._paths_cache is not None and self._paths_cache[0] == mark:
            return dict(self._paths_cache[1])
        games.sort(key=lambda g: g[0].name not in served)  # (stable: then by name)
        copies = identity.duplicates_of_keys([(str(p), keys, gid) for p, gid, keys in games])
        skipped = {d.file: d for d in copies}
        found: dict[str, Path] = {}
        for path, gid, _ in games:
            if str(path) in skipped:
                self._twin(path, Path(skipped[str(path)].other), skipped[str(path)].kind)
            else:
                found[gid] = path
        self._paths_cache = (mark, dict(found))
        self._order = None
        return found

    def paths_order(self) -> dict[Path, int]:
        """Each file of the last :meth:`game_paths` by its place in it."""
        if self._order is None:
            found = self._paths_cache[1] if self._paths_cache is not None else {}
            self._order = {path: i for i, path in enumerate(found.values())}
        return self._order

    def take_marked(self) -> set[Path]:
        """The game files whose mark (:attr:`marks`) changed since the last call."""
        found, self._marked = self._marked, set()
        return found

    def _watcher(self) -> folderwatch.FolderWatch:
        if self._watch is None:
            self._watch = folderwatch.FolderWatch(self.config.games_dir)
        return self._watch

    def _same_games(self, changed: set[str]) -> bool:
        """Whether the games of the folder are those of the last :meth:`game_paths`
        after the changes to ``changed`` (names): each changed game file read again
        (its mark kept for the sweep), none added or removed, none with another id or
        identity, no served name changed."""
        if self._served is None:
            return False
        folder = self.config.games_dir
        for name in sorted(changed):
            if not name.endswith(".json") or name.startswith("."):
                continue
            if name not in self._names:
                return False  # a new game file (or one readable again)
            path = self._file_paths.get(name) or self._file_paths.setdefault(name, folder / name)
            before = self._ids.get(path)
            known = self._identity(path)
            if known is None or before is None or known != (before[2], before[3]):
                return False
        return True

    def _served_names(self) -> frozenset[str]:
        """The game files this judge has served (the names in its state), kept until a
        look names another (:meth:`notify`) or the state is read again."""
        if self._served is None:
            self._served = self.store.served_files()
        return self._served

    def _game_files(self) -> list[Path]:
        """The game files of the folder (``[!.]*.json``), by name."""
        folder = self.config.games_dir
        try:
            names = sorted(n for n in os.listdir(folder)
                           if n.endswith(".json") and not n.startswith("."))
        except OSError:
            return []
        paths = self._file_paths
        if len(paths) > 4 * len(names) + 64:
            paths.clear()
        return [paths.get(n) or paths.setdefault(n, folder / n) for n in names]

    def _identity(self, path: Path) -> tuple[str, dict[str, str]] | None:
        """The game id and identity keys of the file at ``path`` (cached by mtime and
        size), or None (logged) if it cannot be read."""
        try:
            stat = os.stat(path)
        except OSError:
            self._ids.pop(path, None)
            self.marks.pop(path, None)
            return None
        mark = _mark(stat)
        if self.marks.get(path) != mark:
            self.marks[path] = mark
            self._marked.add(path)
        cached = self._ids.get(path)
        if cached is None or cached[:2] != (stat.st_mtime, stat.st_size):
            try:
                gf = gamefile.read(path)
            except Exception as exc:  # a damaged file (or a bug reading it): not served
                if environment_failure(exc):
                    raise
                self.config.log(f"skipping {path.name}: {describe(exc)}")
                return None
            cached = (stat.st_mtime, stat.st_size, gf.game_id, identity.keys(gf))
            self._ids[path] = cached
        return cached[2], cached[3]

    def _twin(self, skipped: Path, served: Path, kind: str) -> None:
        if skipped.name not in self._twins:
            self._twins.add(skipped.name)
            self.config.log(f"skipping {skipped.name}: it has {identity.REASONS[kind]} of "
                            f"{served.name}, which is the game served")

    def load(self, path: Path) -> Loaded | None:
        """The game at ``path`` replayed, or None (logged) if the judge cannot run it.
        Kept while the file is unchanged (callers must not change the match)."""
        try:
            stat = path.stat()
        except OSError:
            return None
        cached = self._loaded.get(path)
        if cached is not None and cached[0] == _mark(stat):
            self._loaded.move_to_end(path)
            return cached[1]
        found = self._load(path)
        if found is not None:
            self._keep(path, _mark(stat), found)
        return found

    def remember(self, game: Loaded) -> None:
        """Keep ``game`` (just written by this judge) as the loaded state of its file, and
        its identity and settings: no other read of the file until it changes again."""
        stat = game.path.stat()
        self._keep(game.path, _mark(stat), game)
        self._ids[game.path] = (stat.st_mtime, stat.st_size, game.gf.game_id,
                                identity.keys(game.gf))
        self._deadline_cache[game.path] = ((stat.st_mtime_ns, stat.st_size), roster.settings(
            game.gf.data, deadline_hours=self.config.deadline_hours,
            deadline_bot=self.config.deadline_bot))

    def _keep(self, path: Path, mark: tuple[int, int, int], game: Loaded) -> None:
        self._loaded[path] = (mark, game)
        self._loaded.move_to_end(path)
        while len(self._loaded) > LOADED_KEPT:
            self._loaded.popitem(last=False)

    def _load(self, path: Path) -> Loaded | None:
        try:
            gf = gamefile.read(path)
            seed = secret.find_seed(gf, None, path)
            if seed is None:
                self.config.log(f"skipping {path.name}: no secret beside it")
                return None
            match = replay.replay(gf, seed)
        except RefereeError as exc:
            self.config.log(f"skipping {path.name}: {exc.message}")
            return None
        return Loaded(path, gf, seed, secret.mail_key(seed), match, self.settings(gf))

    def settings(self, gf: gamefile.GameFile) -> roster.Settings:
        """The game's settings over this judge's defaults."""
        return roster.settings(gf.data, gm=self.config.gm,
                             deadline_hours=self.config.deadline_hours,
                             deadline_bot=self.config.deadline_bot)

    # ------------------------------------------------------------------ notices

    def message(self, game: Loaded, player: str, to: str | None, body: str,
                answers: str | None = None, *, board: bool = False,
                notice: bool = False) -> object:
        """The doors' messages of the game to ``player`` (or WATCHER / GM) at ``to``
        (None: the game's table), :class:`referee.judge.door.Notice`, made now; sent by
        :meth:`queue` and :meth:`flush`."""
        return self.doors.prepare(game, Notice(player, to, body, answers, board, notice))

    def queue(self, message: object) -> None:
        self.doors.queue(message)

    def flush(self) -> int:
        """Deliver every door's queue (a door that is down waits: its pass says so)."""
        return self.doors.flush()

    def settle(self) -> None:
        """Save what changed since the last save, if anything did (once a pass)."""
        if self.store.unsaved:
            self.store.save()

    # ------------------------------------------------------------------ notify

    def failed(self, exc: Exception) -> None:
        """After ``exc`` in the middle of a text or a game: forget what was not saved;
        re-raise a door that is down, or (as RetryLater, once) a failure of the disk."""
        self.reset()
        if isinstance(exc, DoorDown | RetryLater):
            raise exc
        if environment_failure(exc):
            raise RetryLater(f"{describe(exc)}; the mail stays in the inbox for the next "
                             "run") from exc

    def notify(self, path: Path, notes: Mapping[str, Sequence[str]] | None = None, *,
               bots: bool = True) -> None:
        """Tell whoever must hear about what changed in the game since the last run.
        ``notes``: lines for some players' messages (a player named there gets at least a
        short one, with the lines after its headline). First the bot seats play what
        they owe, unless ``bots`` is False (they just had their turn:
        referee/play/reply.py)."""
        try:
            stat = path.stat()
        except OSError:
            return
        if self._notified.get(path) == (stat.st_mtime_ns, stat.st_size):
            return  # the file has not changed since it was last looked at
        self._notified[path] = (stat.st_mtime_ns, stat.st_size)
        game = self.load(path)
        if game is None:
            return
        if bots and self._bots_owe(game):
            self.play_bots(path)
            game = self.load(path)
            if game is None:
                return
            stat = path.stat()
            self._notified[path] = (stat.st_mtime_ns, stat.st_size)
        gf, match = game.gf, game.match
        state = self.store.game(gf.game_id)
        if state.get("file") != path.name:
            state["file"] = path.name
            self._served = None
        rng = gf.data["rng"]
        mark = f"{len(gf.log)}/{len(rng.get('nonces') or {})}/" \
               f"{len(rng.get('nonce_commitments') or {})}"
        if state.get("mark") == mark:
            return
        start = state["seen"] is None
        new = gf.log[state["seen"] or 0:]
        personal = bool(new) and not start and all(
            e.get("meta", {}).get("kind") == "rematch" or text.is_personal(e) for e in new)
        # a player's setting the game master changed: that player is told, nobody else
        told_of = {str(e["meta"].get("player")) for e in new
                   if text.is_personal(e) and e["by"] == meta.GM} if personal else set()
        if personal and not told_of:
            # a rematch: the command told everyone; a player's own setting (language,
            # mail setting): the answer to the command tells them, and nobody else
            state["seen"], state["mark"] = len(gf.log), mark
            self.store.save()
            return
        authors = {e["by"] for e in new}
        if any(e.get("meta", {}).get("kind") == "deadline" for e in new):
            state["reminded"] = state["expired"] = None  # a new deadline: warn again
        phase = gamefile.nonce_phase(gf)
        if phase != state.get("phase"):  # a new nonce step: everyone asks anew
            state["waiting"] = []
        state["phase"] = phase
        waiting = gamefile.waiting(gf, match)
        over = match.game.finished(match.state)
        earliest = min([state["seen"] or 0, *state["last"].values()])
        timelines: dict[str, text.Timeline] = {}  # one per language, built when first read

        def timeline() -> text.Timeline:
            lang = i18n.current()
            if lang not in timelines:
                timelines[lang] = text.Timeline(gf, game.seed, earliest,
                                                start=self._positions.after(gf, earliest))
            return timelines[lang]

        for pid in gf.players:
            to = game.settings.to(pid)
            if to is None or (personal and pid not in told_of):
                continue  # a setting changed for someone else: only they hear of it
            moved = state.setdefault("to", {}).get(pid, to) != to  # a new address or person
            full, short = self._wants(game, state, pid, start, over, authors, waiting,
                                      self.doors.door_for(to))
            told = (notes or {}).get(pid)
            short = short or told is not None or pid in told_of
            if not (full or short or moved):
                continue
            last = None if moved else state["last"].get(pid)
            full = full or moved
            state["to"][pid] = to
            with i18n.language(game.settings.lang(pid)):  # the reader's language
                body = text.body(gf, match, game.seed, pid, last, game.settings, full=full,
                                 timeline=timeline(), note=told or (),
                                 words=self.doors.words_for(to))
                self.queue(self.message(game, pid, to, body, board=full, notice=True))
            state["last"][pid] = len(gf.log)
        with i18n.language(i18n.ENGLISH):  # watchers and the game master read English
            if not personal:
                self._watchers(game, state, timeline, over)
                # the game's table (a chat room), where a door keeps one, reads the public
                # view when the turn changes, with everything since its last post
                turned = start or over or sorted(waiting) != sorted(state["waiting"])
                if turned and any(d.keeps_table(game) for d in self.doors.doors):
                    self.queue(self.message(game, WATCHER, None, text.body(
                        gf, match, game.seed, None, state.get("table", state["seen"]),
                        game.settings, timeline=timeline(),
                        words=self.doors.words_for(None, game)), board=True, notice=True))
                    state["table"] = len(gf.log)
            if start and game.settings.gm:
                self.queue(self.message(game, meta.GM, game.settings.gm, gm_welcome(game)))
        if sorted(waiting) != sorted(state["waiting"]) or start:
            state["since"] = self.config.clock().isoformat()
        state["waiting"], state["seen"], state["mark"] = waiting, len(gf.log), mark
        self._positions.keep(gf, match)  # where the next mail's timeline starts
        self.store.save()
        self.flush()

    def _watchers(self, game: Loaded, state: dict[str, Any],
                  timeline: Callable[[], text.Timeline], over: bool) -> None:
        """The public mail to each watcher: after every change, or with a digest (the
        game master's ``watch ADDRESS digest [N]``) once a round or every N decisions,
        telling everything since that watcher's last mail."""
        gf = game.gf
        for watcher in game.settings.watchers:
            digest = game.settings.digests.get(watcher.lower())
            since = state["seen"]
            if digest is not None:
                since = self._digest_since(game, state, watcher, digest, over)
                if since is False:
                    continue
            body = text.body(gf, game.match, game.seed, None, since, game.settings,
                             timeline=timeline())
            self.queue(self.message(game, WATCHER, game.settings.watcher_to(watcher), body,
                                    board=True))

    @staticmethod
    def _digest_since(game: Loaded, state: dict[str, Any], watcher: str,
                      digest: int | str, over: bool) -> int | bool | None:
        """For a digest watcher: the log entry their mail starts from (None: their first
        mail), or False when no mail is due (fewer than N decisions since their last
        mail, or the same round; a game without rounds: each decision is one)."""
        done = state.setdefault("watched", {})
        last = done.get(watcher.lower())
        made = plays(game.gf)
        now = str(game.match.game.view(game.match.state, None).get("round", made))
        if last is not None and not over:
            if digest == "round" and last["round"] == now:
                return False
            if isinstance(digest, int) and made - last["plays"] < digest:
                return False
        done[watcher.lower()] = {"plays": made, "round": now, "log": len(game.gf.log)}
        return None if last is None else int(last["log"])

    @staticmethod
    def _bots_owe(game: Loaded) -> bool:
        """Whether a bot seat owes a decision now (referee/ledger/seats.py)."""
        bots = seats.seats_at(game.gf.data).bots
        return any(p in bots for p in gamefile.waiting(game.gf, game.match))

    def play_bots(self, path: Path, stand_in: dict[str, seats.SeatBot] | None = None
                  ) -> list[BotMove]:
        """Let the bots play what they owe (bot seats, and ``stand_in`` for players who
        missed a deadline) through the one move path; log what they played."""
        try:
            played = play_bots(path, stand_in=stand_in)
        except RefereeError as exc:
            self.bots_played(path, [], exc.message)
            return []
        self.bots_played(path, played, None)
        return played

    def bots_played(self, path: Path, played: Sequence[BotMove], problem: str | None
                    ) -> None:
        """Log what the bots of the game at ``path`` played, or (``problem``) why they
        could not move (then nothing else)."""
        if problem is not None:
            self.config.log(f"bots of {path.name} could not move: {problem}")
            return
        for b in played:
            self.config.log(f"bot: {path.name} {b.n}. {b.player}: {b.text} ({b.level})")

    def _wants(self, game: Loaded, state: dict[str, Any], pid: str, start: bool,
               over: bool, authors: set[str], waiting: list[str], door: Door | None
               ) -> tuple[bool, bool]:
        """(full message, short message) for ``pid`` after a change. Through a door
        that posts once per change of turn (:attr:`referee.judge.door.Door.quiet`), a
        player's own follow-up decision gets a short message (what they may do next),
        not the board again."""
        if start or over or pid not in state["last"]:
            return True, False
        mode = game.settings.notify.get(pid, "turn")
        decide = pid in waiting and (pid not in state["waiting"] or pid in authors)
        if decide and door is not None and door.quiet and authors == {pid} and \
                pid in state["waiting"]:
            return False, True
        if decide or mode == "every":
            return True, False
        return False, mode == "turn" and pid in authors
