"""Git (referee/git/): the drivers, `check --since`, the action and the workflow, and the
attacks on a players' repository."""
