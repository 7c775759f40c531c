"""Who gets the secret in a GitHub Actions workflow, read from the workflow file: which
jobs may run on each event (their `if:` evaluated the way GitHub evaluates it, where the
file can tell, and their `needs`), and every place a job could hand a secret to code that
a pull request controls. tests/git/test_workflow_attacks.py runs it on
examples/github-workflow.yml and on broken copies of it, to show it finds each one.

GitHub runs a `pull_request` job (and `merge_group`, `pull_request_review*`) as the pull
request changed the workflow, so a pull request can print whatever such a job is given;
a `pull_request_target` job runs the default branch's workflow, with the secrets, so it
must read the pull request as data only: no step of the pull request's, no token left in
the checkout, no write permission. A job on `issues` or `issue_comment` (the job `play`:
moves through issues) runs the default branch's workflow too, for anyone who can open an
issue: given a secret, it must run only the default branch's checkout and the pinned
referee action, which reads the event as data (no script of its own, no other action, no
ref taken from the event).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# Events whose run is the workflow file as the pull request wrote it.
PR_CONTROLLED = ("pull_request", "merge_group", "pull_request_review",
                 "pull_request_review_comment")
# Events anyone who may open an issue starts; their run is the default branch's workflow.
ISSUE_EVENTS = ("issues", "issue_comment")
SECRET_ENVIRONMENT = "referee"  # limited to the default branch (docs/git-and-ci.md)
CHECKOUT = re.compile(r"actions/checkout@[A-Za-z0-9_.-]+")
REFEREE_ACTION = re.compile(r"[A-Za-z0-9_.-]+/referee@[A-Za-z0-9_.-]+")
# any use of the secrets context but the job's own token (names are case-insensitive)
SECRET_USE = re.compile(r"\bsecrets\b(?!\s*\.\s*github_token\b)", re.IGNORECASE)


class Unknown:
    """A value the file cannot tell: a job's result, whether a pull request is a fork's."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()
TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)"
                   r"|(?P<op>==|!=|&&|\|\||[!(),])|(?P<name>[A-Za-z_][A-Za-z0-9_.*-]*))")


def _tokens(text: str) -> list[tuple[str, str]]:
    found, at = [], 0
    text = text.strip()
    while at < len(text):
        m = TOKEN.match(text, at)
        assert m and m.end() > at, f"cannot read the expression {text!r} at {at}"
        kind = m.lastgroup or ""
        found.append((kind, m.group(kind)))
        at = m.end()
    return found


def _truth(value: Any) -> bool | Unknown:
    if isinstance(value, Unknown):
        return UNKNOWN
    return value not in (False, None, 0, "")


def _equal(a: Any, b: Any) -> bool | Unknown:
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()  # GitHub compares strings ignoring case
    return bool(a == b)


class _Parser:
    """GitHub's expression syntax as far as `if:` uses it: ||, &&, !, ==, !=, calls,
    property names, strings, numbers, true/false/null. Unknown names and status
    functions are UNKNOWN; && and || are three-valued."""

    def __init__(self, text: str, context: dict[str, Any]) -> None:
        self.tokens, self.at, self.context = _tokens(text), 0, context

    def peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        self.at += 1
        return self.tokens[self.at - 1]

    def either(self) -> Any:
        value = self.both()
        while self.peek() == "||":
            self.take()
            other = self.both()
            t, u = _truth(value), _truth(other)
            value = True if True in (t, u) else (UNKNOWN if UNKNOWN in (t, u) else False)
        return value

    def both(self) -> Any:
        value = self.compare()
        while self.peek() == "&&":
            self.take()
            other = self.compare()
            t, u = _truth(value), _truth(other)
            value = False if False in (t, u) else (UNKNOWN if UNKNOWN in (t, u) else True)
        return value

    def compare(self) -> Any:
        value = self.unary()
        while self.peek() in ("==", "!="):
            op = self.take()[1]
            same = _equal(value, self.unary())
            value = same if op == "==" or isinstance(same, Unknown) else not same
        return value

    def unary(self) -> Any:
        if self.peek() == "!":
            self.take()
            t = _truth(self.unary())
            return t if isinstance(t, Unknown) else not t
        return self.atom()

    def atom(self) -> Any:
        kind, text = self.take()
        if text == "(":
            value = self.either()
            assert self.take()[1] == ")"
            return value
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "num":
            return float(text)
        if self.peek() == "(":
            self.take()
            args = []
            while self.peek() != ")":
                args.append(self.either())
                if self.peek() == ",":
                    self.take()
            self.take()
            return self.call(text.lower(), args)
        literal = {"true": True, "false": False, "null": None}
        if text in literal:
            return literal[text]
        return self.context.get(text.lower(), UNKNOWN)

    def call(self, name: str, args: list[Any]) -> Any:
        if name == "always":
            return True
        if any(isinstance(a, Unknown) for a in args) or name not in (
                "contains", "startswith", "endswith"):
            return UNKNOWN  # success(), failure(), cancelled(), ...: the run decides
        a, b = (str(x).casefold() for x in args[:2])
        return {"contains": b in a, "startswith": a.startswith(b),
                "endswith": a.endswith(b)}[name]


def evaluate(condition: str, context: dict[str, Any]) -> Any:
    text = condition.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    parser = _Parser(text, {k.lower(): v for k, v in context.items()})
    value = parser.either()
    assert parser.peek() is None, f"cannot read the expression {condition!r}"
    return value


def events(flow: dict[Any, Any]) -> list[str]:
    """The events that start the workflow (PyYAML reads the key `on` as True)."""
    on = flow.get("on", flow.get(True))
    if isinstance(on, str):
        return [on]
    return list(on)


def may_run(flow: dict[Any, Any], event: str) -> set[str]:
    """The jobs that may run on ``event``: its `if:` is not false for it, and the jobs it
    needs may run too (unless the condition asks for always(), failure() or cancelled())."""
    if event not in events(flow):
        return set()
    jobs = flow["jobs"]
    found: dict[str, bool] = {}

    def runs(name: str) -> bool:
        if name not in found:
            job = jobs[name]
            condition = str(job.get("if", "success()"))
            ok = evaluate(condition, {"github.event_name": event}) is not False
            needs = job.get("needs", [])
            needs = [needs] if isinstance(needs, str) else needs
            if not re.search(r"\b(always|failure|cancelled)\s*\(", condition):
                ok = ok and all(runs(n) for n in needs)
            found[name] = ok
        return found[name]

    return {name for name in jobs if runs(name)}


def strings(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(where, text) of every key and string in ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield f"{path}.{key}", str(key)
            yield from strings(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from strings(value, f"{path}[{i}]")
    elif node is not None:
        yield path, str(node)


def secret_uses(node: Any, path: str) -> list[str]:
    """Where ``node`` hands over a secret: an expression using `secrets` (but the job's
    own GITHUB_TOKEN) in any env, with, run or input, or `secrets:` for a reusable
    workflow (`inherit` or a mapping)."""
    return [where for where, text in strings(node, path)
            if SECRET_USE.search(text) or where.endswith(".secrets")]


def _environment(job: dict[str, Any]) -> str | None:
    env = job.get("environment")
    return str(env.get("name")) if isinstance(env, dict) else (None if env is None
                                                                 else str(env))


def _data_only(name: str, job: dict[str, Any], flow: dict[Any, Any]) -> list[str]:
    """Why a pull_request_target job might run a pull request's code or write with its
    token: any step but a checkout that keeps no token and the pinned referee action."""
    problems = []
    if job.get("uses"):
        problems.append(f"job {name} on pull_request_target calls the workflow "
                        f"{job['uses']}")
    for i, step in enumerate(job.get("steps", [])):
        uses = str(step.get("uses", ""))
        where = f"job {name} on pull_request_target, step {i + 1}"
        if CHECKOUT.fullmatch(uses):
            keep = (step.get("with") or {}).get("persist-credentials", True)
            if str(keep).lower() != "false":
                problems.append(f"{where}: the checkout keeps the token in .git/config")
        elif not REFEREE_ACTION.fullmatch(uses):
            what = f"run: {str(step['run'])[:40]}" if "run" in step else uses
            problems.append(f"{where}: {what} may run the pull request's code")
    granted = job.get("permissions", flow.get("permissions"))
    if not isinstance(granted, dict) or any(v not in ("read", "none")
                                            for v in granted.values()):
        problems.append(f"job {name} on pull_request_target may write with its token "
                        f"(permissions: {granted!r})")
    return problems


def _issue_job(name: str, job: dict[str, Any]) -> list[str]:
    """Why a job with a secret on an issue event might run something an issue's author
    controls: any step but a checkout of the default branch and the pinned referee
    action (whose steps read the event from its file, never from an expression)."""
    problems = []
    if job.get("uses"):
        problems.append(f"job {name} on an issue event calls the workflow {job['uses']}")
    for i, step in enumerate(job.get("steps", [])):
        uses = str(step.get("uses", ""))
        where = f"job {name} on an issue event, step {i + 1}"
        if CHECKOUT.fullmatch(uses):
            ref = str((step.get("with") or {}).get("ref",
                                                   "${{ github.event.repository.default_branch }}"))
            if ref != "${{ github.event.repository.default_branch }}":
                problems.append(f"{where}: the checkout takes the ref {ref!r}, not the "
                                "default branch")
        elif not REFEREE_ACTION.fullmatch(uses):
            what = f"run: {str(step['run'])[:40]}" if "run" in step else uses
            problems.append(f"{where}: {what} may run what an issue's author wrote")
    return problems


def exposures(flow: dict[Any, Any]) -> list[str]:
    """Every way the workflow could give a secret to code a pull request controls, or a
    secret outside the environment limited to the default branch; [] for none."""
    found = [f"the workflow's env gives every job a secret ({w})"
             for w in secret_uses(flow.get("env"), "env")]
    jobs = flow["jobs"]
    for event in events(flow):
        for name in sorted(may_run(flow, event)):
            if event in PR_CONTROLLED:
                found += [f"job {name} runs on {event}, as the pull request wrote it, and "
                          f"is given a secret ({w})"
                          for w in secret_uses(jobs[name], f"jobs.{name}")]
                if _environment(jobs[name]) is not None:
                    found.append(f"job {name} runs on {event} in the environment "
                                 f"{_environment(jobs[name])}")
            elif event == "pull_request_target":
                found += _data_only(name, jobs[name], flow)
            elif event in ISSUE_EVENTS and secret_uses(jobs[name], f"jobs.{name}"):
                found += _issue_job(name, jobs[name])
    for name, job in jobs.items():
        if secret_uses(job, f"jobs.{name}") and _environment(job) != SECRET_ENVIRONMENT:
            found.append(f"job {name} is given a secret outside the environment "
                         f"{SECRET_ENVIRONMENT}")
    return found
