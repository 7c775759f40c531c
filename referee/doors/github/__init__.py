"""The GitHub door: a judge's games played through the issues of a players' repository
(docs/git-and-ci.md, "Moving through issues"). A door with no server: GitHub Actions runs
it once per event, one repository per group.

:mod:`referee.doors.github.event` reads the event GitHub delivers (bounded, as data);
:class:`~referee.doors.github.door.GitHubDoor` hands its text to the core as a seat's,
said at the game's table, and collects the core's answer;
:mod:`referee.doors.github.answer` makes that answer Markdown, bounded;
:mod:`referee.doors.github.run` is one pass: ``referee judge GAMES --github-event FILE
--answer-out ANSWER``. The links that open an issue for a move are
:mod:`referee.git.issues`' (the site and ``referee show`` draw them too). It imports no
other door and reads no mail.
"""
