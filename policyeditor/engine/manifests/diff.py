"""The one unified diff of two YAML texts, for every place that shows how a document changed."""

from __future__ import annotations

from policyeditor.engine.manifests.linediff import line_opcodes, unified

CONTEXT = 3  # unchanged lines around each change, as `diff -u` and `kubectl diff` show


def unified_lines(
    old_text: str, new_text: str, *, fromfile: str, tofile: str, context: int = CONTEXT
) -> list[str]:
    """The unified diff of two texts, as lines without line ends ([] when they are equal).

    The line matching is linediff's (linear in practice, bounded: DiffTooLarge past its budget).
    """
    old, new = old_text.splitlines(), new_text.splitlines()
    return unified(
        old, new, line_opcodes(old, new), fromfile=fromfile, tofile=tofile, context=context
    )


def unified_text(
    old_text: str, new_text: str, *, fromfile: str, tofile: str, context: int = CONTEXT
) -> str:
    """The unified diff of two texts, every line ended by a newline ("" when they are equal)."""
    lines = unified_lines(old_text, new_text, fromfile=fromfile, tofile=tofile, context=context)
    return "\n".join(lines) + "\n" if lines else ""


def line_class(line: str) -> str:
    """What a unified diff line is: head, hunk, add, del or ctx (for colouring it)."""
    if line.startswith(("+++", "---")):
        return "head"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    if line.startswith("@@"):
        return "hunk"
    return "ctx"
