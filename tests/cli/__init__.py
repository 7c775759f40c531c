"""The command line (referee/cli/): commands, the core through the CLI, start-up, hostile input."""
