"""The argument parser of the `policyeditor` command: its subcommands and their options."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from policyeditor import __version__, cli_impact, cli_lint
from policyeditor.cli_crds import add_crd_option
from policyeditor.cli_status import EXIT_USAGE

OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with one line on stderr (its default) but never prints a traceback."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command and its four subcommands."""
    parser = _Parser(
        prog="policyeditor",
        description="Validate, evaluate and test Kubernetes ValidatingAdmissionPolicy and "
        "MutatingAdmissionPolicy objects exactly as kube-apiserver would.",
        epilog="Exit status: 0 ok, 1 validation errors / failed tests / request not allowed, 2 usage or input errors.",
    )
    parser.add_argument("--version", action="version", version=f"policyeditor {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    validate = sub.add_parser(
        "validate", help="API-server validation and CEL compilation of every document"
    )
    validate.add_argument("files", nargs="+", metavar="FILE", help="YAML or JSON manifests")
    _version_option(validate)
    _output_option(validate, ("text", "json", "yaml"))
    cli_lint.add_static_option(validate)
    add_crd_option(validate)

    evaluate = sub.add_parser("eval", help="evaluate policies against an admission request")
    evaluate.add_argument(
        "files", nargs="+", metavar="FILE", help="policies, bindings and param objects"
    )
    evaluate.add_argument("--object", metavar="F", help="the object of the request")
    evaluate.add_argument("--old-object", metavar="F", help="the old object (UPDATE, DELETE)")
    evaluate.add_argument(
        "--operation", choices=OPERATIONS, type=str.upper, help="default: inferred from the objects"
    )
    evaluate.add_argument(
        "--params", metavar="F", help="a param object (overrides the binding's paramRef)"
    )
    evaluate.add_argument("--namespace-object", metavar="F", help="the Namespace of the request")
    evaluate.add_argument("--user", metavar="NAME", help="request.userInfo.username")
    evaluate.add_argument(
        "--group",
        metavar="G",
        action="append",
        default=[],
        help="request.userInfo.groups (repeatable)",
    )
    evaluate.add_argument(
        "--authorizer",
        metavar="F",
        help="YAML list of mocked authorization decisions (default: NoOpinion for every check)",
    )
    evaluate.add_argument("--policy", metavar="NAME", help="evaluate only this policy")
    evaluate.add_argument("--binding", metavar="NAME", help="evaluate only through this binding")
    _defaulting_option(evaluate)
    _version_option(evaluate)
    _output_option(evaluate, ("text", "json", "yaml"))
    add_crd_option(evaluate)

    test = sub.add_parser(
        "test", help="run test suites found under PATH (our format, kat, kaptest)"
    )
    test.add_argument(
        "paths", nargs="+", metavar="PATH", help="suite files or directories to search for suites"
    )
    test.add_argument(
        "-run", "--run", dest="run", metavar="REGEX", help="run only cases whose suite/name matches"
    )
    test.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="run suites in N worker processes; auto (the default) starts one per CPU when the "
        "suites hold 256 KiB or more, else runs them in this process",
    )
    test.add_argument(
        "--coverage",
        action="store_true",
        help="report which expressions of each policy the cases evaluated, and with what outcome",
    )
    test.add_argument(
        "--strict",
        action="store_true",
        help="fail cases that pass vacuously (allowed with no policy matched, denied by an error)",
    )
    _defaulting_option(test)
    _version_option(test, help_text="Kubernetes version for suites that do not name one")
    _output_option(test, ("text", "json"))
    add_crd_option(test)

    cli_lint.add_parsers(sub, _version_option)

    impact = sub.add_parser(
        "impact", help="evaluate every object of a cluster dump, compared with a baseline"
    )
    cli_impact.add_arguments(impact)
    _defaulting_option(impact)
    _version_option(impact)
    _output_option(impact, ("text", "json"))
    add_crd_option(impact)

    cel = sub.add_parser("cel", help="compile and evaluate one CEL expression")
    cel.add_argument("expression", metavar="EXPR", help="a CEL expression, as in a validation")
    cel.add_argument("--object", metavar="F")
    cel.add_argument("--old-object", metavar="F")
    cel.add_argument("--params", metavar="F")
    _version_option(cel)
    _output_option(cel, ("text", "json"))
    add_crd_option(cel)
    return parser


def _defaulting_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-defaulting",
        dest="defaulting",
        action="store_false",
        help="evaluate objects as given, without the API server's defaulting of built-in kinds",
    )


def _version_option(
    parser: argparse.ArgumentParser, help_text: str = "target Kubernetes version (default: newest)"
) -> None:
    parser.add_argument("--k8s-version", metavar="V", help=help_text)


def _jobs(text: str) -> int | None:
    """`-j`: a number of worker processes (1 or more), or auto (None)."""
    if text.strip().lower() == "auto":
        return None
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or auto, got {text!r}") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected 1 or more, got {jobs}")
    return jobs


def _output_option(parser: argparse.ArgumentParser, choices: tuple[str, ...]) -> None:
    parser.add_argument("-o", "--output", choices=choices, default="text", help="output format")
