"""The one Jinja2 environment of the package's templates (the site's pages and the
judge's HTML mails), made once per process so that templates compile once."""

from __future__ import annotations

from typing import Any

from referee.errors import UsageError

_ENVIRONMENT: list[Any] = []


def environment(needed_for: str = "HTML output") -> Any:
    """The environment (autoescape, strict undefined). Raises UsageError without jinja2,
    naming what needed it."""
    if _ENVIRONMENT:
        return _ENVIRONMENT[0]
    try:
        import jinja2
    except ImportError:
        raise UsageError(f"{needed_for} needs the jinja2 package",
                         hints=["pip install 'referee[pictures]'"]) from None
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("referee.pages", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
        lstrip_blocks=True,
    )
    _ENVIRONMENT.append(env)
    return env
