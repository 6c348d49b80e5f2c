"""The `policyeditor` command: validate, eval, test and cel, on the same engine as the web UI.

Exit status: 0 when all is well; 1 when validation errors were found, a test failed, an evaluated
request was not allowed or a CEL expression failed; 2 on usage or input errors (a missing file, bad
YAML, an unknown Kubernetes version), reported as one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from policyeditor import __version__, cli_impact, cli_lint
from policyeditor.cli_crds import add_crd_option, cel_crd_notes, crd_documents, crds_in_force
from policyeditor.cli_output import cel_result_to_dict, dump, format_evaluation
from policyeditor.cli_policies import NO_POLICY, refuse_invalid
from policyeditor.engine.errors import InputError, MemoryExhausted
from policyeditor.engine.objects import name_of

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_BROKEN_PIPE = 128 + 13  # as a shell reports a process SIGPIPE stopped
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


def _version(args: argparse.Namespace) -> str:
    from policyeditor.engine import versions

    try:
        return versions.normalize_version(args.k8s_version)
    except ValueError as error:
        raise InputError(str(error)) from None


def _load(path: str) -> list[dict]:
    from policyeditor.engine import manifests

    return manifests.load_file(path)


def _load_one(path: str | None, what: str) -> dict | None:
    if path is None:
        return None
    docs = _load(path)
    if len(docs) != 1:
        raise InputError(f"{path}: expected exactly one {what}, found {len(docs)} documents")
    return docs[0]


# ---------------------------------------------------------------- validate


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Validate every document of every file; one line (or record) per error."""
    from policyeditor.engine import validation

    version = _version(args)
    loaded = [(path, _load(path)) for path in args.files]  # all input errors before any output
    records: list[dict[str, str]] = []
    places: list[str] = []  # "file:line:column" of each record, for the text output
    warnings: list[str] = []
    static = cli_lint.static_errors(loaded, version) if args.static else None
    for number, (path, docs) in enumerate(loaded):
        positions = _positions(path)
        found = (
            static[number]
            if static is not None
            else validation.validate_documents(docs, version=version)
        )
        for index, error in found:
            doc = docs[index] if 0 <= index < len(docs) else {}
            places.append(_place(path, positions, index, error.path))
            records.append(
                {
                    "file": path,
                    "kind": str(doc.get("kind", "")),
                    "name": name_of(doc),
                    "path": error.path,
                    "message": error.message,
                }
            )
        for doc in docs:
            warnings += [
                f"{path}: {doc.get('kind', '')} {name_of(doc)!r}: warning: {w}"
                for w in _warnings(validation, doc, version)
            ]
    if args.static:
        warnings += [f"warning: {w}" for w in validation.feature_problems(version)[1]]
    if args.output != "text":
        dump(records, args.output, out)
    else:
        for place, record in zip(places, records, strict=True):
            where = f"{record['path']}: " if record["path"] else ""
            out.write(f"{place}: {record['kind']} {record['name']!r}: {where}{record['message']}\n")
        for warning in warnings:
            err.write(warning + "\n")
        if not records:
            count = sum(len(docs) for _, docs in loaded)
            out.write(
                f"{count} document{'s' if count != 1 else ''} valid for Kubernetes {version}\n"
            )
    return EXIT_FAILED if records else EXIT_OK


def _positions(path: str) -> list:
    """Where each field of the file is written (empty when that cannot be worked out)."""
    from policyeditor.engine.manifests.positions import field_positions

    try:
        with open(path, "rb") as handle:
            return field_positions(handle.read(), source=path)
    except Exception:  # positions only decorate the output
        return []


def _place(path: str, positions: list, index: int, field_path: str) -> str:
    """`file:line:column` of a field, or just the file when its line is not known."""
    from policyeditor.engine.manifests.positions import locate

    found = locate(positions, index, field_path) if positions else None
    return f"{path}:{found[0]}:{found[1]}" if found else path


def _warnings(validation: Any, doc: dict, version: str) -> list[str]:
    warnings_for = getattr(validation, "warnings_for", None)
    if warnings_for is None:
        return []
    try:
        return [str(w) for w in warnings_for(doc, version=version)]
    except Exception:  # warnings are advisory: never fail validation because of them
        return []


def cmd_lint(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Find Kubernetes CEL pitfalls in every policy of every file (cli_lint)."""
    version = _version(args)
    loaded = [(path, _load(path)) for path in args.files]
    positions = {path: _positions(path) for path, _ in loaded}

    def place(path: str, index: int, field_path: str) -> str:
        return _place(path, positions[path], index, field_path)

    return cli_lint.cmd_lint(args, out, loaded, version, place)


def cmd_export_static(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Write the staticManifestsDir layout of the files (cli_lint)."""
    _version(args)
    return cli_lint.cmd_export_static(args, out, [(path, _load(path)) for path in args.files])


# ---------------------------------------------------------------- eval


def cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Evaluate the policies in FILE... against the request described by the options."""
    from policyeditor.engine.suites.files import split_documents

    version = _version(args)
    documents, resources = split_documents([doc for path in args.files for doc in _load(path)])
    obj = _load_one(args.object, "object")
    old = _load_one(args.old_object, "old object")
    if obj is None and old is None and args.operation != "CONNECT":
        raise InputError("give --object, --old-object or both")
    if not documents:
        raise InputError(NO_POLICY)
    from policyeditor.engine.admission.inputs import EvaluationInputs, evaluate_inputs

    if refuse_invalid(documents, version, err):
        return EXIT_FAILED
    user_info = {"username": args.user} if args.user else {}
    if args.group:
        user_info["groups"] = list(args.group)
    inputs = EvaluationInputs(
        documents,
        version,
        object=obj,
        old_object=old,
        operation=args.operation,
        user_info=user_info or None,
        resources=resources,
        policy=args.policy,
        binding=args.binding,
        defaulting=args.defaulting,
    )
    if args.params:
        inputs.params = _load_one(args.params, "param object")
    if args.namespace_object:
        inputs.namespace_object = _load_one(args.namespace_object, "Namespace")
    inputs.authorizer = _authorizer(args.authorizer)
    result = evaluate_inputs(inputs)
    if args.output == "text":
        out.write(format_evaluation(result))
    else:
        dump(result.to_dict(), args.output, out)
    return EXIT_OK if result.allowed else EXIT_FAILED


def _authorizer(path: str | None) -> Any:
    from policyeditor.engine.admission.inputs import mock_authorizer
    from policyeditor.engine.suites.files import load_list
    from policyeditor.engine.suites.model import SuiteError

    try:
        entries = load_list(Path(path), what="authorizer mocks") if path else []
        return mock_authorizer(entries)
    except SuiteError as error:
        raise InputError(str(error)) from None
    except ValueError as error:
        raise InputError(f"{path}: {error}") from None


# ---------------------------------------------------------------- test


def cmd_test(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run every suite under the paths; a line per case and `N passed, N failed`."""
    import os
    import re

    from policyeditor.engine import suites

    version = _version(args) if args.k8s_version else None
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        raise InputError(f"{missing[0]}: no such file or directory")
    if args.run:
        try:
            re.compile(args.run)
        except re.error as error:
            raise InputError(f"-run: invalid regular expression {args.run!r}: {error}") from None
    report = suites.run(
        args.paths,
        run_regex=args.run,
        version=version,
        jobs=args.jobs,
        defaulting=args.defaulting,
        coverage=args.coverage,
        strict=args.strict,
        crds=crd_documents(args),
    )
    if args.output == "json":
        dump(report.to_dict(), "json", out)
    else:
        out.write(report.to_text())
    return EXIT_OK if report.ok else EXIT_FAILED


# ---------------------------------------------------------------- cel


def cmd_cel(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Compile and evaluate one expression with object/oldObject/params from files."""
    version = _version(args)
    obj = _load_one(args.object, "object")
    old = _load_one(args.old_object, "old object")
    params = _load_one(args.params, "param object")
    from policyeditor.engine import cel
    from policyeditor.engine.admission.request import AdmissionRequest

    request = None
    if obj is not None or old is not None:
        # the `request` variable a policy would see for these objects
        request = AdmissionRequest.build(object=obj, old_object=old, version=version).to_cel()
    result = cel.evaluate_expression(
        args.expression, object=obj, old_object=old, params=params, request=request, version=version
    )
    data = cel_result_to_dict(result)
    if args.crds:
        data["warnings"] = [
            *data["warnings"],
            *cel_crd_notes(args.expression, obj, params, version),
        ]
    if args.output == "json":
        dump(data, "json", out)
    elif data["errors"]:
        for issue in data["errors"]:
            err.write(issue["text"] + "\n")
    else:
        out.write(json.dumps(data["value"], default=str) + "\n")
    for warning in data["warnings"] if args.output == "text" else []:
        err.write(f"warning: {warning}\n")
    return EXIT_FAILED if data["errors"] else EXIT_OK


if __name__ == "__main__":  # pragma: no cover - `python -m policyeditor.cli`
    sys.exit(main())
