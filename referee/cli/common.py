"""Helpers shared by the commands: the ``command`` decorator (error handling and
``--json``), JSON output, escaping, the shared options and reading input. What the
commands show of a game is the library's (:mod:`referee.play.statusview`)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from referee import i18n
from referee.cli.clicktext import recorded_language
from referee.errors import GameFileError, RefereeError, UsageError, internal_error
from referee.ledger import fileio

F = TypeVar("F", bound=Callable[..., Any])
_, N_, ngettext = i18n.domain("referee")

class _Path(click.ParamType):
    """A path as given, not looked at: the command says what is wrong with it. (click's
    Path stats each one, 10,000 game files named to `views` a tenth of a run after one
    move, and builds its name through gettext each time it is made.)"""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Path:
        return value if isinstance(value, Path) else Path(value)

    def shell_complete(self, ctx: click.Context, param: click.Parameter,
                       incomplete: str) -> list[Any]:
        from click.shell_completion import CompletionItem

        return [CompletionItem(incomplete, type="file")]


PATH = _Path()  # the one parameter type of a path argument or option


JSON_HELP = "Output JSON."


LANG_HELP = ("The language to read this in: en or de (else REFEREE_LANG, else the "
             "language --as PLAYER recorded with `referee lang`).")
LANG_META = "referee.lang"  # the group's --lang, kept in the root context's meta


def command(name: str | None = None, *, json_help: str | None = JSON_HELP,
            lang: bool = False) -> Callable[[Callable[..., Any]], click.Command]:
    """The one way to declare a command: registers it on ``main`` with the error
    handling of :func:`handles_errors` and, unless ``json_help`` is None, the option
    ``--json`` (passed as ``as_json``, listed after the command's own options). With
    ``lang`` (the commands a player runs) the command takes ``--lang`` itself too, as
    well as after ``referee`` (the group's option, which every command obeys).

    ``json_help=None`` is for the commands whose output has one fixed form: `schema`
    (JSON already), the git drivers (what git reads) and the judge (a mail robot)."""
    from referee.cli import main

    def register(func: Callable[..., Any]) -> click.Command:
        cmd = main.command(name)(handles_errors(func))
        if lang:
            cmd.params.append(click.Option(["--lang", "lang_option"], metavar="LANG",
                                           help=LANG_HELP))
        if json_help is not None:
            cmd.params.append(click.Option(["--json", "as_json"], is_flag=True,
                                           help=json_help))
        return cmd

    return register


def chosen_language(kwargs: dict[str, Any]) -> str:
    """The language a command speaks: its own ``--lang`` (taken out of ``kwargs``), else
    the group's, else ``REFEREE_LANG``, else the language the player of ``--as`` recorded
    in the game file, else English. Raises UsageError for a language without a catalog."""
    ctx = click.get_current_context(silent=True)
    group = ctx.find_root().meta.get(LANG_META) if ctx is not None else None
    for choice in (kwargs.pop("lang_option", None), group, os.environ.get("REFEREE_LANG")):
        if choice:
            return i18n.normalize(choice)
    return recorded_language(kwargs)


def emit_json(obj: Any) -> None:
    """``obj`` as indented JSON on stdout; records (msgspec Structs, dataclasses) inside
    it as their fields (msgspec.to_builtins)."""
    import msgspec

    click.echo(json.dumps(msgspec.to_builtins(obj), indent=2, ensure_ascii=False))


def handles_errors(func: F) -> F:
    """Turn library errors into a message on stderr (or JSON on stdout) and an exit code.

    While the command runs, stdout and stderr escape control characters (see
    :class:`EscapingStream`). Any other exception is a bug: it becomes one message naming
    the game file ("internal error ... please report") and exit 1, never a traceback.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with escaped_output():
            try:
                lang = chosen_language(kwargs)
            except RefereeError as exc:
                report_error(exc, bool(kwargs.get("as_json")))
                sys.exit(exc.exit_code)
            with i18n.language(lang):
                return _guarded(func, args, kwargs)

    return wrapper  # type: ignore[return-value]


def _guarded(func: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """Run the command; a library error becomes its message and exit code, a bug one
    message (never a traceback)."""
    try:
        return func(*args, **kwargs)
    except RefereeError as exc:
        report_error(exc, bool(kwargs.get("as_json")))
        sys.exit(exc.exit_code)
    except (SystemExit, KeyboardInterrupt, click.exceptions.Exit,
            click.ClickException, click.exceptions.Abort):
        raise
    except BrokenPipeError:  # `referee data staufer | head`: the reader is gone
        _quiet_stdout()
        sys.exit(0)
    except RecursionError:
        report_error(GameFileError(f"{_files(kwargs)} is nested too deeply to "
                                   "process"), bool(kwargs.get("as_json")))
        sys.exit(1)
    except Exception as exc:  # the last line of defence: a bug, not bad input
        report_error(internal_error(exc, *_step(func, kwargs)), bool(kwargs.get("as_json")))
        sys.exit(1)


def _quiet_stdout() -> None:
    """After a broken pipe: send what is left of stdout nowhere (Python's advice), so that
    flushing at exit does not raise again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        if sys.__stdout__ is not None:
            os.dup2(devnull, sys.__stdout__.fileno())


def _step(func: Callable[..., Any], kwargs: dict[str, Any]) -> tuple[str, str]:
    """(where, doing) of an internal error: replaying the game file(s) the command was
    given, else running the command on its folder (the judge's, a site's)."""
    files = _files(kwargs)
    if files != "the game file":
        return files, "replaying"
    folder = next((str(v) for k, v in kwargs.items()
                   if k in ("games_dir", "folder", "games", "directory") and v is not None), "")
    name = func.__name__.removesuffix("_command").replace("_", "-")
    return (f"on {folder}" if folder else "", f"running `referee {name}`")


def _files(kwargs: dict[str, Any]) -> str:
    if kwargs.get("path") is not None:
        return str(kwargs["path"])
    many = kwargs.get("paths") or kwargs.get("targets")
    return ", ".join(map(str, many)) if many else "the game file"


def report_error(exc: RefereeError, as_json: bool) -> None:
    if as_json:
        emit_json(exc.to_json())
        return
    click.echo(_("error: {message}").format(message=exc.message), err=True)
    for hint in exc.hints:
        click.echo(f"  {hint}", err=True)
    legal = getattr(exc, "legal", None)
    if legal:
        click.echo(_("closest legal moves:"), err=True)
        for text in legal:
            click.echo(f"  {text}", err=True)


# --- escaping control characters ------------------------------------------------------

_KEEP = frozenset("\n\t")
_UNSAFE = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs"))
_JOINERS = frozenset("\u200c\u200d")  # (zero-width non-)joiner: part of emoji and scripts


@functools.lru_cache(maxsize=4096)
def _escape_char(c: str) -> str:
    if c in _KEEP or c in _JOINERS or unicodedata.category(c) not in _UNSAFE:
        return c
    units = c.encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{int.from_bytes(units[i:i + 2]):04x}"
                   for i in range(0, len(units), 2))


def escape_text(text: str) -> str:
    """``text`` with control and format characters (terminal escapes, bidi overrides,
    line separators, lone surrogates) written as \\uXXXX; newlines and tabs kept."""
    if text.replace("\n", "").replace("\t", "").isprintable():  # (one pass in C)
        return text
    return "".join(_escape_char(c) for c in text)


class EscapingStream:
    """A text stream that escapes what it writes with :func:`escape_text`. Inside a JSON
    string \\uXXXX is the same character, so JSON output stays valid."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if isinstance(text, str):
            text = escape_text(text)
        return int(self._stream.write(text) or 0)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def escaped_output() -> Iterator[None]:
    """Escape control characters in everything written to stdout and stderr."""
    if isinstance(sys.stdout, EscapingStream):
        yield
        return
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapingStream(sys.stdout), EscapingStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def secret_option(func: F) -> F:
    return click.option(
        "--secret", "secret_path", type=PATH, metavar="FILE",
        help="Secret file of a sealed game (or REFEREE_SECRET_FILE / REFEREE_SECRET; "
             "default FILE.secret beside the game).",
    )(func)



def count(n: int, one: str, many: str) -> str:
    """``1 move``, ``2 moves``: a number and its noun, for the commands' English-only
    lines (a player's texts use ``ngettext``)."""
    return f"{n} {one if n == 1 else many}"


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--option takes NAME=VALUE, got {pair!r}")
        out[name.strip()] = value.strip()
    return out



def read_stdin() -> bytes:
    """Standard input, at most the game-file size cap. Raises UsageError."""
    data = sys.stdin.buffer.read(fileio.MAX_GAME_FILE_BYTES + 1)
    if len(data) > fileio.MAX_GAME_FILE_BYTES:
        raise UsageError(f"standard input is larger than "
                         f"{fileio.MAX_GAME_FILE_BYTES // (1024 * 1024)} MiB")
    return data


def read_bytes(path: Path) -> bytes:
    try:
        return fileio.read_bytes(path, "file")
    except GameFileError as exc:
        raise UsageError(exc.message) from None
