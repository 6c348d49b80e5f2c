"""`string.format` as kube-apiserver's cel-go formats it (google/cel-go ext/formatting.go).

Cases from google/cel-go ext/strings_test.go TestStringFormat (the formatter of strings extension
version 2, which Kubernetes enables), in the default locale en_US.
"""

from __future__ import annotations

import pytest

from policyeditor.engine import cel

NNBSP = "\u202f"


def formatted(fmt: str, args: str, version: str = "1.37"):
    result = cel.evaluate_expression(f"{fmt!r}.format([{args}])", version=version)
    assert result.error is None, result.error
    return result.value


def format_error(fmt: str, args: str) -> str:
    """The error of a format call whose arguments the checker only knows as dyn."""
    dynamic = ", ".join(f"dyn({a.strip()})" for a in args.split(",")) if args else ""
    result = cel.evaluate_expression(f"{fmt!r}.format([{dynamic}])")
    if not isinstance(result, cel.EvalResult):  # a clause or count error: found when checking
        return result.error_text()
    assert result.error is not None, result.value
    return result.error.message


def check_errors(expr: str) -> list[tuple[str, int]]:
    result = cel.compile_expression(expr, version="1.37")
    return [(issue.message, issue.column) for issue in result.errors]


@pytest.mark.parametrize(
    ("fmt", "args", "expected"),
    [
        ("no substitution", "", "no substitution"),
        ("str is %s and some more", '"filler"', "str is filler and some more"),
        ("%% and also %%", "", "% and also %"),
        ("%%%s%%", '"text"', "%text%"),
        ("%d %d %d, %s %s %s", '1, 2, 3, "A", "B", "C"', "1 2 3, A B C"),
        ("%.3f", "1.2345", "1.234"),
        ("this is 5 in binary: %b", "5", "this is 5 in binary: 101"),
        ("unsigned 64 in binary: %b", "uint(64)", "unsigned 64 in binary: 1000000"),
        ("bit set from bool: %b", "true", "bit set from bool: 1"),
        ("%o", "11", "13"),
        ("this is an unsigned octal: %o", "uint(65535)", "this is an unsigned octal: 177777"),
        ("%x is 20 in hexadecimal", "30", "1e is 20 in hexadecimal"),
        ("%X is 20 in hexadecimal", "30", "1E is 20 in hexadecimal"),
        ("%X is 6000 in hexadecimal", "uint(6000)", "1770 is 6000 in hexadecimal"),
        ("%x", '"Hello world!"', "48656c6c6f20776f726c6421"),
        ("%X", '"Hello world!"', "48656C6C6F20776F726C6421"),
        ("%x", 'b"byte string"', "6279746520737472696e67"),
        ("%X", 'b"byte string"', "6279746520737472696E67"),
        ("%f", "2.71828", "2.718280"),
        ("%f", '"NaN"', "NaN"),
        ("%f", '"Infinity"', "∞"),
        ("%f", '"-Infinity"', "-∞"),
        ("%d", "uint(64)", "64"),
        ("null: %s", "null", "null: null"),
        ("some bytes: %s", 'b"xyz"', "some bytes: xyz"),
        ("type is %s", 'type("test string")', "type is string"),
        ("%s", 'timestamp("2023-02-03T23:31:20+00:00")', "2023-02-03T23:31:20Z"),
        ("%s", 'duration("1h45m47s")', "6347s"),
        (
            "%s",
            '["abc", 3.14, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]',
            '["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]',
        ),
        (
            "%s",
            '{"key1": b"xyz", "key5": null, "key2": duration("2h"), "key4": true, "key3": 2.71828}',
            '{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}',
        ),
        ("true bool: %s, false bool: %s", "true, false", "true bool: true, false bool: false"),
        (
            "dynIntStr: %s dynDoubleStr: %s",
            "dyn(32), dyn(56.8)",
            "dynIntStr: 32 dynDoubleStr: 56.8",
        ),
        ("dynamic double: %.3f", "dyn(4.5)", "dynamic double: 4.500"),
        ("dyntype list: %s", '[6, 4.2, "a string"]', 'dyntype list: [6, 4.200000, "a string"]'),
        ("%s", '{"strKey": "x", 6: duration("422s")}', '{"strKey":"x", 6:duration("422s")}'),
    ],
)
def test_each_clause_formats_as_cel_go(fmt, args, expected):
    assert formatted(fmt, args) == expected


@pytest.mark.parametrize(
    ("fmt", "args", "expected"),
    [
        ("%a", "1", 'could not parse formatting clause: unrecognized formatting clause "a"'),
        ("%d %d %d", "0, 1", "index 2 out of range"),
        (
            "string is %b",
            '"abc"',
            "error during formatting: only integers and bools can be formatted as binary, "
            "was given string",
        ),
        (
            "%d",
            'duration("30m2s")',
            "error during formatting: decimal clause can only be used on integers, was given "
            "google.protobuf.Duration",
        ),
        (
            "octal: %o",
            '"a string"',
            "error during formatting: octal clause can only be used on integers, was given string",
        ),
        (
            "double is %x",
            "0.5",
            "error during formatting: only integers, byte buffers, and strings can be formatted "
            "as hex, was given double",
        ),
        (
            "double is %E",
            "0.5",
            'could not parse formatting clause: unrecognized formatting clause "E"',
        ),
        (
            "null: %e",
            "null",
            "error during formatting: scientific clause can only be used on doubles, was given "
            "null_type",
        ),
        (
            "null: %f",
            "null",
            "error during formatting: fixed-point clause can only be used on doubles, was given "
            "null_type",
        ),
    ],
)
def test_each_misuse_fails_with_cel_go_wording(fmt, args, expected):
    assert expected in format_error(fmt, args)


def test_scientific_notation_has_narrow_spaces_until_1_32_and_none_from_1_33():
    # cel-go ext/strings_test.go "default precision for scientific notation" (x/text of 1.30-1.32)
    for version in ("1.30", "1.31", "1.32"):
        assert formatted("%e", "2.71828", version) == f"2.718280{NNBSP}×{NNBSP}10⁰⁰"
    for version in ("1.33", "1.34", "1.37"):
        assert formatted("%e", "3.14", version) == "3.140000×10⁰⁰"


def test_a_scientific_precision_is_read_as_a_width():
    # cel-go builds "%%%de": "%.6e" of 1052.032911275 is "%6e", six fraction digits whatever n.
    assert formatted("%.6e", "1052.032911275", "1.30") == f"1.052033{NNBSP}×{NNBSP}10⁰³"
    assert formatted("%.2e", "0.00123") == "1.230000×10⁻⁰³"
    assert formatted("%.16e", "-3.14") == "  -3.140000×10⁰⁰"


def test_fixed_point_groups_digits_in_the_en_us_locale():
    assert formatted("%.2f", "1234567.891") == "1,234,567.89"
    assert formatted("%.0f", "-999.5") == "-1,000"


def test_string_clause_prints_doubles_as_cel_string_conversion():
    assert formatted("%s %s %s %s", "1e6, 123456.0, 0.00001, 1.0") == "1e+06 123456 1e-05 1"


def test_literal_format_calls_are_checked_after_type_checking():
    # google/cel-go ext/formatting.go, stringFormatValidator: reported at the bad argument.
    assert check_errors("'%d %s'.format(['x', 1])") == [
        (
            "error during formatting: decimal clause can only be used on integers, was given string",
            17,
        )
    ]
    assert check_errors("'%s'.format([[1, ip('1.2.3.4')]])") == [
        (
            "error during formatting: string clause can only be used on strings, bools, bytes, "
            "ints, doubles, maps, lists, types, durations, and timestamps, was given net.IP",
            20,
        )
    ]
    assert check_errors("'%d %d %d'.format([0, 1])") == [("index 2 out of range", 18)]
    assert check_errors("'%s %s'.format(['abc', 'def', 'ghi'])") == [
        ("too many arguments supplied to string.format (expected 2, got 3)", 15)
    ]
    assert check_errors("'filler %'.format([])") == [("unexpected end of string", 18)]
    assert check_errors("'%d'.format([dyn('x')])") == []
    assert check_errors("object.f.format(['x'])") == []
