"""The judge's Message-IDs: each carries a MAC, so a reply proves which mail it answers.

The one definition lives in :mod:`referee.mail.tokens` (``make_id`` and friends), shared
with `referee mail`; this module keeps the judge's names for it.
"""

from __future__ import annotations

from referee.mail.tokens import MailId as JudgeId
from referee.mail.tokens import check_id as check
from referee.mail.tokens import find_ids as find
from referee.mail.tokens import make_id as make
from referee.mail.tokens import parse_id as parse

__all__ = ["JudgeId", "check", "find", "make", "parse"]
