"""The one decoding pass of a game file's bytes: JSON that refuses duplicate keys,
floats and integers beyond 64 bits, and says where the first problem is (docs/file-format.md).
The format's types are :mod:`referee.ledger.schema`."""

import functools
import json
from typing import Any

import msgspec

INT_LIMIT = 2**63  # integers in a game file fit in a signed 64-bit integer


class _Marked:
    """Base of the values the decoder hooks put where a game file breaks the rules."""


class _DuplicateKeys(dict, _Marked):  # type: ignore[type-arg]
    def __init__(self, pairs: list[tuple[str, Any]], key: str) -> None:
        super().__init__(pairs)
        self.problem = f"duplicate key {key!r}"


class _Float(float, _Marked):
    problem = "a number with a fraction or exponent (numbers in a game file are integers)"


class _BigInt(int, _Marked):
    problem = "an integer outside the signed 64-bit range"


class JsonProblem(ValueError):
    """Why bytes are not a game file's JSON; ``path`` is the JSON path when known."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


def strict_json(raw: bytes) -> Any:
    """Decode a game file's JSON strictly: UTF-8, no duplicate keys anywhere, no NaN or
    Infinity, no lone surrogates, integers only (signed 64-bit), limited nesting.
    Raises JsonProblem.

    One decoding pass (msgspec) settles an honest file: a float stops it at once, and two
    byte-level checks in C prove the rest. The file without its whitespace must equal the
    decoded data encoded again (a duplicate key is lost in decoding, so the two differ),
    and the data packed as MessagePack must hold no 64-bit integer (an integer of 2**32
    or more, which a game file never needs, is packed with the marker byte 0xcf; one
    beyond 64 bits cannot be packed). Only a file those checks cannot clear (a duplicate
    key, a float, a huge integer, or merely escapes written differently) is decoded again,
    with the standard library, to name the path of what is wrong."""
    try:
        data = _FAST.decode(raw)  # strict JSON and UTF-8; catches lone surrogates
    except _NeedsCare:
        return _careful_json(raw)  # a number with a fraction or exponent
    except msgspec.ValidationError:
        return _careful_json(raw)  # a number out of range: the careful pass names its path
    except msgspec.DecodeError as exc:
        raise JsonProblem(_with_position(str(exc), raw)) from None
    except RecursionError:
        raise JsonProblem("arrays or objects nested too deeply") from None
    if _PLAIN.encode(data) != msgspec.json.format(raw, indent=-1) or _has_wide_int(data):
        return _careful_json(raw)
    return data


class _NeedsCare(Exception):
    """Raised by the fast decoder at a number with a fraction or exponent."""


def _no_float(text: str) -> float:
    raise _NeedsCare(text)


_FAST = msgspec.json.Decoder(float_hook=_no_float)
_PLAIN = msgspec.json.Encoder()  # keys in the file's order
_PACK = msgspec.msgpack.Encoder()


def _has_wide_int(data: Any) -> bool:
    """Whether ``data`` may hold an integer of 2**32 or more (or too big to pack)."""
    try:
        return b"\xcf" in _PACK.encode(data)  # (also a byte of some UTF-8 text: harmless)
    except OverflowError:
        return True


def _careful_json(raw: bytes) -> Any:
    """The standard library's decoder, with hooks that mark what breaks the rules and a
    walk that names the path of the first. Raises JsonProblem."""
    marked: list[bool] = []
    try:
        data = json.loads(raw, object_pairs_hook=functools.partial(_pairs, marked),
                          parse_float=functools.partial(_float, marked),
                          parse_int=functools.partial(_int, marked))
    except RecursionError:
        raise JsonProblem("arrays or objects nested too deeply") from None
    except ValueError as exc:  # beyond what msgspec accepts, e.g. int digit limits
        raise JsonProblem(str(exc)) from None
    if marked:
        path, problem = _find_marked(data, "$")
        raise JsonProblem(problem, path)
    return data


def _pairs(marked: list[bool], pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    marked.append(True)
    return _DuplicateKeys(pairs, key)


def _float(marked: list[bool], text: str) -> float:
    marked.append(True)
    return _Float(text)


def _int(marked: list[bool], text: str) -> int:
    if len(text) > 20 or (len(text) > 18 and not -INT_LIMIT <= int(text) < INT_LIMIT):
        marked.append(True)
        return _BigInt(0)
    return int(text)


def _find_marked(data: Any, path: str) -> tuple[str, str]:
    """The first (path, problem) of a marked value in ``data``, depth first."""
    if isinstance(data, _Marked):
        return path, data.problem  # type: ignore[attr-defined]
    children = (
        ((f"{path}.{k}" if k.isidentifier() else f"{path}[{json.dumps(k)}]", v)
         for k, v in data.items()) if isinstance(data, dict)
        else ((f"{path}[{i}]", v) for i, v in enumerate(data)) if isinstance(data, list)
        else ()
    )
    for child_path, child in children:
        found = _find_marked(child, child_path)
        if found[0]:
            return found
    return "", ""


def _with_position(message: str, raw: bytes) -> str:
    """msgspec's "... (byte 123)" as "... at line L column C"."""
    text = message if message[1:2].isupper() else message[:1].lower() + message[1:]
    head, sep, tail = text.rpartition(" (byte ")
    if sep and tail.rstrip(")").isdigit():
        offset = int(tail.rstrip(")"))
    elif "truncated" in text:
        head, offset = "it ends too early", len(raw)
    else:
        return text
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    return f"{head} at line {line} column {column}"
