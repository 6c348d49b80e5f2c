"""The exit statuses of the `policyeditor` command, which CI scripts rely on (docs/cli.md)."""

EXIT_OK = 0
EXIT_FAILED = 1  # validation errors, failed tests, a request not allowed, new denials
EXIT_USAGE = 2  # argparse's status for usage errors, which main() also gives bad input
EXIT_BROKEN_PIPE = 128 + 13  # as a shell reports a process SIGPIPE stopped
