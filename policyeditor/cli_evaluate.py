"""`policyeditor eval`, `test` and `cel`: a request, test suites or one expression evaluated."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from policyeditor.cli_crds import cel_crd_notes, crd_documents
from policyeditor.cli_inputs import kubernetes_version, load_file, load_one
from policyeditor.cli_output import cel_result_to_dict, dump, format_evaluation
from policyeditor.cli_policies import NO_POLICY, refuse_invalid
from policyeditor.cli_status import EXIT_FAILED, EXIT_OK
from policyeditor.engine.errors import InputError

# ---------------------------------------------------------------- eval


def cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Evaluate the policies in FILE... against the request described by the options."""
    from policyeditor.engine.suites.files import split_documents

    version = kubernetes_version(args)
    documents, resources = split_documents([doc for path in args.files for doc in load_file(path)])
    obj = load_one(args.object, "object")
    old = load_one(args.old_object, "old object")
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
        inputs.params = load_one(args.params, "param object")
    if args.namespace_object:
        inputs.namespace_object = load_one(args.namespace_object, "Namespace")
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

    version = kubernetes_version(args) if args.k8s_version else None
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
    version = kubernetes_version(args)
    obj = load_one(args.object, "object")
    old = load_one(args.old_object, "old object")
    params = load_one(args.params, "param object")
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
