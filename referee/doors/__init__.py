"""The judge's doors: each a package over the one judge core (:mod:`referee.judge`).

A door turns its transport's events into authenticated player texts, delivers the
core's notices, and keeps its transport's own bookkeeping; everything else (the command
table, the reading of a text, rejections, rates, freshness, "handled once", bots,
deadlines, clocks) is the core's, the same for every door. The protocol is
:mod:`referee.judge.door`. The doors:

* :mod:`referee.doors.mail`: IMAP or a Maildir in, SMTP or a Maildir out
  (docs/judge.md);
* :mod:`referee.doors.chat`: Matrix rooms, a direct room per seat (docs/chat.md);
* :mod:`referee.doors.github`: one issue or comment of a players' repository, run by a
  GitHub workflow, answered in Markdown (docs/git-and-ci.md).

No door imports another; a new door is one more package here.
"""
