"""The `policyeditor` command: validate, eval, test and cel, on the same engine as the web UI.

Exit status: 0 when all is well; 1 when validation errors were found, a test failed, an evaluated
request was not allowed or a CEL expression failed; 2 on usage or input errors (a missing file, bad
YAML, an unknown Kubernetes version), reported as one line on stderr.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from policyeditor import cli_impact
from policyeditor.cli_crds import crds_in_force
from policyeditor.cli_evaluate import cmd_cel, cmd_eval, cmd_test
from policyeditor.cli_parser import build_parser
from policyeditor.cli_status import EXIT_BROKEN_PIPE, EXIT_FAILED, EXIT_USAGE
from policyeditor.cli_validate import cmd_export_static, cmd_lint, cmd_validate
from policyeditor.engine.errors import InputError, MemoryExhausted


def main(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run the command; returns the exit status (the console script exits with it)."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    parser = build_parser()
    try:
        # argparse prints help, version and usage errors itself: send them to our streams
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parser.parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0) if isinstance(stop.code, int) else EXIT_USAGE
    handler = {
        "validate": cmd_validate,
        "eval": cmd_eval,
        "test": cmd_test,
        "cel": cmd_cel,
        "lint": cmd_lint,
        "export-static": cmd_export_static,
        "impact": cli_impact.cmd_impact,
    }[args.command]
    try:
        with crds_in_force(args):
            status = handler(args, out, err)
        out.flush()  # here, where a closed pipe is caught, not in the interpreter's exit
        return status
    except InputError as error:
        err.write(f"policyeditor {args.command}: error: {_one_line(error)}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except MemoryExhausted:
        from policyeditor.engine.isolation import memory_message

        # An evaluation ran out of memory: stopped, never a decision, so not allowed (fail closed).
        err.write(f"policyeditor {args.command}: {memory_message()}\n")
        return EXIT_FAILED
    except BrokenPipeError:
        # Whoever read the output stopped (`| head`): end quietly, with a Unix tool's status
        # for SIGPIPE, and with nothing left for the exit's own flush to fail on.
        _discard_further_output(out)
        return EXIT_BROKEN_PIPE
    except Exception as error:  # a bug must still be one clear line, not a traceback
        err.write(
            f"policyeditor {args.command}: internal error: {type(error).__name__}: {_one_line(error)}\n"
        )
        return EXIT_USAGE


def _discard_further_output(out: TextIO) -> None:
    """Point the stream's file descriptor at /dev/null (what Python's docs advise on SIGPIPE)."""
    try:
        descriptor = out.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a file (a test's StringIO): nothing is flushed to a pipe at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split("\n")[:1]) or type(error).__name__


if __name__ == "__main__":  # pragma: no cover - `python -m policyeditor.cli`
    sys.exit(main())
