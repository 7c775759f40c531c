"""GitHub's own event payloads (tests/data/github/: @octokit/webhooks-examples 7.6.1,
MIT), and events made from them for a test: only the fields a test needs changed, in
code; the vendored files are never edited."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "github"
REPO = "octo-org/games"


def payload(name: str) -> dict[str, Any]:
    """A vendored payload (``issues.opened``, ``issue_comment.created``, ...), as GitHub
    delivered it."""
    return dict(json.loads((DATA / f"{name}.payload.json").read_text(encoding="utf-8")))


def github_event(name: str, *, title: str, body: str, login: str, text_id: int,
                 sender_type: str = "User", repo: str = REPO, number: int | None = None
                 ) -> dict[str, Any]:
    """``name``'s payload with the fields a test needs changed: the issue's title (and
    number), the text's body, author and id, the sender and the repository."""
    found = copy.deepcopy(payload(name))
    text = found["comment"] if "comment" in found else found["issue"]
    found["issue"]["title"] = title
    if number is not None:
        found["issue"]["number"] = number
    text.update(body=body, id=text_id)
    text["user"]["login"] = found["sender"]["login"] = login
    found["sender"]["type"] = sender_type
    found["repository"].update(full_name=repo, default_branch="main")
    return found
