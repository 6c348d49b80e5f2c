"""`policyeditor impact`: what policies would do to every object of a cluster dump, for CI.

Counts per operation and result, the objects whose outcome changes against a baseline (other
policy files; none means "no policy", which allows everything and does nothing), and exit status 1
when the policies do not allow a request the baseline allowed (`--no-fail-on-new-denials` turns that
off): a denial, or an error under failurePolicy Fail, as the API server answers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from policyeditor.cli_crds import crd_documents
from policyeditor.cli_policies import NO_POLICY, has_policy, refuse_invalid
from policyeditor.cli_status import EXIT_FAILED, EXIT_OK
from policyeditor.engine.errors import InputError

if TYPE_CHECKING:
    from policyeditor.engine.impact import Job, ParamCollector

COPY_CHUNK = 1 << 20
# Names of standard input: two options reading it would leave one of them nothing.
STDIN_NAMES = {"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"}
LISTED = 10_000  # changed objects listed in a report; the counts always cover every object


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `impact` (the version, defaulting and output options come from cli_parser.py)."""
    parser.add_argument("files", nargs="+", metavar="POLICY", help="policies, bindings, params")
    parser.add_argument(
        "--dump",
        required=True,
        metavar="FILE",
        help="objects: kubectl get ... -A -o yaml|json, multi-document YAML, gzip; - reads stdin",
    )
    parser.add_argument(
        "--namespaces",
        metavar="FILE",
        help="Namespace objects (kubectl get ns -o yaml); - reads stdin",
    )
    parser.add_argument(
        "--baseline",
        nargs="+",
        default=None,
        metavar="POLICY",
        help="the policies to compare with (default: none, which allows every object)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="evaluate in N isolated worker processes (default: one per CPU)",
    )
    parser.add_argument(
        "--no-fail-on-new-denials",
        dest="fail_on_new_denials",
        action="store_false",
        help="exit 0 even when an object the baseline allowed is denied",
    )


def _weighed(path: str) -> Iterator[tuple[dict[str, Any], int]]:
    """The objects of a dump (`-`: standard input) with their weights (what batches are bounded
    by)."""
    from policyeditor.engine import impact

    if path == "-":
        yield from impact.iter_weighed(impact.open_dump(sys.stdin.buffer))
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed when the generator ends
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None
    with handle:
        yield from impact.iter_weighed(impact.open_dump(handle))


@contextlib.contextmanager
def _rereadable(path: str) -> Iterator[str]:
    """A path the file can be read from twice: the file itself when it is a regular one, else a
    temporary copy of it (`-` is standard input; a pipe, /dev/stdin or <(...) reads only once)."""
    from policyeditor.engine.impact import MAX_DUMP_BYTES, DumpError

    if path != "-":
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)
        except OSError as error:
            raise InputError(f"{path}: {error.strerror or error}") from None
        if regular:
            yield path
            return
    with tempfile.TemporaryDirectory(prefix="policyeditor-impact-") as directory:
        copy = os.path.join(directory, "input")
        try:
            source = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
        except OSError as error:
            raise InputError(f"{path}: {error.strerror or error}") from None
        try:
            with open(copy, "wb") as target:
                copied = 0
                while chunk := source.read(COPY_CHUNK):
                    copied += len(chunk)
                    # The reader's own limit, met sooner: past it the copy would be refused anyway.
                    if copied > MAX_DUMP_BYTES:
                        raise DumpError(
                            f"the dump is larger than {MAX_DUMP_BYTES // (1024 * 1024)} MiB"
                        )
                    target.write(chunk)
        finally:
            if source is not sys.stdin.buffer:
                source.close()
        yield copy


def _namespaces(
    dump: str, params: ParamCollector
) -> tuple[dict[str, dict[str, Any]], set[str], int]:
    """Namespace objects of the dump (a first pass over it), the namespaces its objects use, and
    how many objects it holds; its param objects go to `params`."""
    from policyeditor.engine import impact

    found: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    count = 0
    for obj, _ in _weighed(dump):
        count += 1
        found.update(impact.namespaces_of([obj]))
        # Every param object before any object is evaluated: one may come after the objects
        # that need it, wherever it stands in the dump.
        params.add(obj)
        namespace = impact.namespace_of(obj)
        if namespace:
            used.add(namespace)
    return found, used, count


def _namespaces_file(path: str) -> dict[str, dict[str, Any]]:
    """The Namespace objects of `--namespaces` (read once: a pipe will do), errors naming it."""
    from policyeditor.engine import impact

    found: dict[str, dict[str, Any]] = {}
    try:
        for obj, _ in _weighed(path):
            found.update(impact.namespaces_of([obj]))
    except InputError as error:
        # The reader's messages speak of "the dump"; one that names the path already says it.
        message = str(error).replace("the dump", "the file")
        raise InputError(
            message if message.startswith(f"{path}:") else f"--namespaces {path}: {message}"
        ) from None
    if not found:
        raise InputError(f"--namespaces {path}: {impact.NO_NAMESPACES}")
    return found


def _load_policies(paths: list[str]) -> list[dict[str, Any]]:
    from policyeditor.engine import manifests

    documents: list[dict[str, Any]] = []
    for path in paths:
        documents += manifests.load_file(path)
    return documents


def cmd_impact(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Evaluate every object of the dump; print the report; 1 on new denials."""
    from policyeditor.engine import impact, versions

    try:
        version = versions.normalize_version(args.k8s_version)
    except ValueError as error:
        raise InputError(str(error)) from None
    if args.jobs < 1:
        raise InputError(f"-j: expected 1 or more, got {args.jobs}")
    documents = _load_policies(args.files)
    if not has_policy(documents):
        raise InputError(NO_POLICY)
    baseline = _load_policies(args.baseline) if args.baseline else None
    if baseline is not None and not has_policy(baseline):
        # What a baseline without policies does: allow everything, as no baseline does.
        baseline = None
    # As `eval` does: a policy the API server would refuse has no outcome to report.
    if refuse_invalid(documents, version, err) or (
        baseline is not None and refuse_invalid(baseline, version, err, what="--baseline")
    ):
        return EXIT_FAILED
    if {args.dump, args.namespaces} <= STDIN_NAMES:
        raise InputError("--dump and --namespaces cannot both read standard input")
    extra = _namespaces_file(args.namespaces) if args.namespaces else {}
    with _rereadable(args.dump) as dump:
        params = impact.ParamCollector(impact.param_kinds(documents, baseline))
        namespaces, used, count = _namespaces(dump, params)
        namespaces.update(extra)
        if not count:
            # An empty dump is most often a failed `kubectl get > dump.json`: not a pass.
            raise InputError("The dump holds no objects.")
        # The workers get the CRDs with the job: the ones main() put in force are this process's.
        job = impact.Job(
            documents,
            version,
            baseline,
            None,
            args.defaulting,
            namespaces,
            crd_documents(args),
            params.objects,
        )
        return _run(args, out, job, dump, used)


def _run(args: argparse.Namespace, out: TextIO, job: Job, dump: str, used: set[str]) -> int:
    """Evaluate every object of the dump (read a second time); print the report."""
    from policyeditor.engine import impact
    from policyeditor.engine.isolation import WorkerPool

    summary = impact.Summary()
    listed: list[dict[str, Any]] = []
    new_denials = 0
    pool = WorkerPool(size=args.jobs)
    try:
        batches = impact.pack_batches(_weighed(dump), impact.BATCH)
        for row in impact.evaluate_packed_stream(job, batches, pool=pool, parallel=args.jobs):
            summary.add(row)
            # The listing is what `changed` counts: every new denial is a change too.
            new_denials += impact.denied_newly(row)
            if impact.compared(row) and len(listed) < LISTED:
                listed.append(row)
    finally:
        pool.close()
    missing = sorted(used - set(job.namespaces))
    report = {
        "objects": summary.total,
        "version": job.version,
        "counts": summary.to_dict(),
        "changed": summary.changed,
        "newDenials": new_denials,
        "namespacesMissing": missing,
        # Policies no binding references: the cluster ignores them, and so did the evaluation.
        "unboundPolicies": {
            "revision": impact.unbound_policies(job.documents, job.version),
            "baseline": (
                impact.unbound_policies(job.baseline, job.baseline_version or job.version)
                if job.baseline
                else []
            ),
        },
        "listed": listed,
    }
    if args.output == "json":
        json.dump(report, out, indent=2)
        out.write("\n")
    else:
        out.write(to_text(report, job.baseline is not None))
    return EXIT_FAILED if new_denials and args.fail_on_new_denials else EXIT_OK


def to_text(report: dict[str, Any], has_baseline: bool) -> str:
    """The human report: a count table, then one line per changed or newly denied object."""
    from policyeditor.engine import impact

    counts = report["counts"]
    columns = (*impact.RESULTS, "mutated", "annotations")
    lines = [f"{report['objects']} objects evaluated (Kubernetes {report['version']})", ""]
    lines.append("operation  " + "  ".join(f"{c:>11}" for c in columns))
    for op in impact.OPERATIONS:
        lines.append(f"{op:<9}  " + "  ".join(f"{counts[op][c]:>11}" for c in columns))
    if report["namespacesMissing"]:
        names = ", ".join(report["namespacesMissing"][:10])
        more = len(report["namespacesMissing"]) - 10
        lines += [
            "",
            f"warning: {len(report['namespacesMissing'])} namespaces used by objects are not in "
            f"the input ({names}{f', and {more} more' if more > 0 else ''}): namespaceSelectors "
            "see them without labels (pass --namespaces)",
        ]
    for side, where in (("revision", "the policy files"), ("baseline", "the baseline")):
        warning = impact.unbound_warning(report["unboundPolicies"][side], where)
        if warning:
            lines += ["", f"warning: {warning}"]
    what = "changed against the baseline" if has_baseline else "the policies affect"
    lines += ["", f"{report['newDenials']} newly denied; {report['changed']} objects {what}:"]
    for row in report["listed"]:
        where = f"{row['namespace']}/{row['name']}" if row["namespace"] else row["name"]
        message = row["CREATE"]["message"] or row["UPDATE"]["message"]
        lines.append(
            f"  {row['kind']} {where}: {', '.join(_changes(row))}"
            + (f": {message}" if message else "")
        )
    hidden = report["changed"] - len(report["listed"])
    if hidden > 0:
        lines.append(f"  ... and {hidden} more")
    return "\n".join(lines) + "\n"


def _changes(row: dict[str, Any]) -> list[str]:
    """What the policies did to a listed object, per operation: `CREATE allow -> deny`, ..."""
    from policyeditor.engine import impact

    parts = []
    for op in impact.OPERATIONS:
        after = row[op]
        before = row.get(f"{op}_before")
        if before is None:
            if not impact.acts(after):
                continue
            before = {"result": "allow"}  # no baseline: "no policy", which allows
        elif not impact.differs(before, after):
            continue
        part = f"{op} {_label(before)} -> {_label(after)}"
        if after.get("mutated"):
            part += " (mutated)"
        elif before.get("mutated"):
            part += " (no longer mutated)"
        audit, was = int(after.get("audit", 0)), int(before.get("audit", 0))
        if audit != was and was:
            part += f" ({audit} audit annotations, {was} before)"
        elif audit:
            part += f" ({audit} audit annotations)"
        parts.append(part)
    return parts


def _label(outcome: dict[str, Any]) -> str:
    """The result, and for an error whether the request is rejected, as the web pages say it."""
    from policyeditor.engine import impact

    return impact.label(str(outcome["result"]), impact.allowed(outcome))
