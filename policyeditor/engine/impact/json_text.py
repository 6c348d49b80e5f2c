"""JSON dumps read with the standard library's C decoder, one List item at a time.

`kubectl get -o json` prints one List whose `items` are the objects. The reader walks only the few
characters around them (the List's braces, its keys, the commas between items) and hands each
value whole to `json.JSONDecoder.raw_decode`, which builds it in C: ten times faster than building
it in Python from a streaming parser's events, which is what bounds a dump's reading rate.

Memory stays bounded: the text is decoded a block at a time and dropped once read past; a value
cut by the end of a block is decoded again once more text is in, up to MAX_VALUE_CHARS. The depth
and node limits are checked on the text first (its length and its brackets bound both) and on the
built value only when that bound is past them.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from policyeditor.engine.impact import limits
from policyeditor.engine.impact.limits import DumpError
from policyeditor.engine.manifests.jsontext import json_float, may_hold_surrogates

BLOCK_BYTES = 1 << 20
_SPACE = re.compile(r"[ \t\n\r]*")
# A value cut by the end of the text makes the decoder stop within a few characters of that end
# ("tru", "1e", '{"a"'), or at the start of a string it never saw close.
_CUT_MARGIN = 8
_NUMBERS = (int, float)
_TRUNCATED = "the dump ends in the middle of {} (is it truncated?)"

# What the dump reader does with a value: (value, odd, checked, weight) -> its objects and their
# weights. `odd`: it might hold a surrogate JSON cannot store; `checked`: the text showed it within
# the depth and node limits; `weight`: the characters of its text.
Accept = Callable[[Any, bool, bool, int], Iterable[tuple[dict[str, Any], int]]]


def _constant(name: str) -> float:
    raise ValueError(f"unsupported value {name}: not a finite number")


class JsonText:
    """A dump's JSON text, decoded a block at a time; `pos` is where the reader stands in `text`."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._decode = codecs.getincrementaldecoder("utf-8")().decode
        self._decoder = json.JSONDecoder(parse_float=json_float, parse_constant=_constant)
        self.text = ""
        self.pos = 0
        self.eof = False
        self._lines = 0  # newlines in the text dropped so far
        self._column = 0  # characters after the last of them
        self._started = False

    def _fill(self, wanted: int) -> None:
        """Drop the text read past, then read until `wanted` characters lie ahead (or the end)."""
        text, pos = self.text, self.pos
        newlines = text.count("\n", 0, pos)
        if newlines:
            self._lines += newlines
            self._column = pos - text.rfind("\n", 0, pos) - 1
        else:
            self._column += pos
        parts, ahead = [text[pos:]], len(text) - pos
        while ahead < wanted and not self.eof:
            data = self._stream.read(max(BLOCK_BYTES, wanted - ahead))
            self.eof = not data
            chunk = self._decode(data, final=self.eof)
            if not self._started and chunk:
                self._started = True
                chunk = chunk.removeprefix("\ufeff")
            parts.append(chunk)
            ahead += len(chunk)
        self.text, self.pos = "".join(parts), 0

    def where(self, pos: int) -> str:
        """Line and column of a place in `text`, counted from the start of the dump."""
        newlines = self.text.count("\n", 0, pos)
        column = pos - self.text.rfind("\n", 0, pos) if newlines else self._column + pos + 1
        return f"line {self._lines + newlines + 1}, column {column}"

    def peek(self) -> str:
        """The next character that is not white space ("" at the end), not consumed."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text):
                return self.text[self.pos]
            if self.eof:
                return ""
            self._fill(1)

    def take(self, allowed: str, what: str) -> str:
        """Consume the next character, one of `allowed`; a DumpError naming `what` otherwise."""
        char = self.peek()
        if not char:
            raise DumpError(_TRUNCATED.format(what))
        if char not in allowed:
            expected = " or ".join(repr(c) for c in allowed)
            raise DumpError(f"invalid JSON at {self.where(self.pos)}: expected {expected}")
        self.pos += 1
        return char

    def value(self) -> tuple[Any, bool, bool, int]:
        """The next value, whether it may hold a surrogate, whether its text shows it within the
        depth and node limits (else the value itself is to check), and its text's length."""
        self.peek()
        while True:
            text, start = self.text, self.pos
            try:
                value, end = self._decoder.raw_decode(text, start)
            except json.JSONDecodeError as error:
                unterminated = error.msg.startswith("Unterminated string")
                if self.eof and (unterminated or not text[error.pos :].strip()):
                    raise DumpError(_TRUNCATED.format("an object")) from None
                if self.eof or not (unterminated or error.pos >= len(text) - _CUT_MARGIN):
                    raise DumpError(
                        f"invalid JSON at {self.where(error.pos)}: {error.msg}"
                    ) from None
            except ValueError as error:  # a hook's refusal (1e400, NaN), or an int too long
                raise DumpError(
                    f"the dump holds a value JSON cannot store, near {self.where(start)}: {error}"
                ) from None
            except RecursionError:
                raise DumpError(
                    f"an object of the dump is nested deeper than {limits.MAX_DEPTH} levels"
                ) from None
            else:
                # A number may go on in the next block ("1" of "1.5e-3" cut after "1.", "1e-"):
                # decode it again with that block in.
                if self.eof or end < len(text) - (2 if value.__class__ in _NUMBERS else 0):
                    self.pos = end
                    odd = text.find("\\u", start, end) >= 0 and may_hold_surrogates(text[start:end])
                    # Brackets bound the depth (some may stand in strings: an over-count), and
                    # each value takes two characters or more with its comma.
                    within = (
                        end - start < 2 * limits.MAX_OBJECT_NODES
                        and text.count("{", start, end) + text.count("[", start, end)
                        < limits.MAX_DEPTH
                    )
                    return value, odd, within, end - start
            if len(text) - start > limits.MAX_VALUE_CHARS:
                raise DumpError(
                    f"an object of the dump is larger than {limits.MAX_VALUE_CHARS // 2**20} MiB"
                    f" (or its JSON is broken after {self.where(start)})"
                )
            # Twice as much text each time (decoding again stays linear), never far past the limit.
            self._fill(min(2 * (len(text) - start), limits.MAX_VALUE_CHARS + 1))

    def key(self) -> str:
        """A mapping key (the opening quote not yet consumed), and the colon after it."""
        if self.peek() != '"':
            raise DumpError(
                f"invalid JSON at {self.where(self.pos)}: expected a property name in double quotes"
            )
        key = self.value()[0]
        self.take(":", "an object")
        return str(key)


def _list_items(text: JsonText, accept: Accept, what: str) -> Iterator[tuple[dict[str, Any], int]]:
    """The objects of a list's elements, the opening bracket consumed; up to its closing one."""
    if text.peek() == "]":
        text.pos += 1
        return
    while True:
        yield from accept(*text.value())
        # kubectl writes the comma right after an item: no need to look past white space.
        if text.pos < len(text.text) and text.text[text.pos] == ",":
            text.pos += 1
        elif text.take(",]", what) == "]":
            return


def json_objects(stream: IO[bytes], accept: Accept) -> Iterator[tuple[dict[str, Any], int]]:
    """Every object of a JSON dump: Lists (streamed item by item), arrays, concatenated values."""
    text = JsonText(stream)
    while char := text.peek():
        if char == "[":
            text.pos += 1
            yield from _list_items(text, accept, "a list")
        elif char == "{":
            text.pos += 1
            yield from _document(text, accept)
        else:
            value = text.value()[0]
            if value is not None:
                raise DumpError(f"expected Kubernetes objects, found {type(value).__name__}")


def _document(text: JsonText, accept: Accept) -> Iterator[tuple[dict[str, Any], int]]:
    """One top-level mapping, its brace consumed: an object, or a List whose items stream out."""
    head: dict[str, Any] = {}
    streamed = odd = False
    weight = 0
    if text.peek() == "}":
        text.pos += 1
    else:
        while True:
            key = text.key()
            odd = odd or not key.isascii()
            if key == "items" and text.peek() == "[":
                text.pos += 1
                streamed = True
                yield from _list_items(text, accept, "a List")
            else:
                head[key], value_odd, _, length = text.value()
                odd, weight = odd or value_odd, weight + len(key) + length
            if text.take(",}", "an object") == "}":
                break
    kind = head.get("kind")
    if streamed and not (isinstance(kind, str) and kind.endswith("List")):
        raise DumpError(f"a document with items is not a List (kind {kind!r})")
    if not streamed:
        # Its values were read one by one: the limits are checked on the object itself.
        yield from accept(head, odd, False, weight)
