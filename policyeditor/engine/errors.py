"""Error values shared by validation, the forms, the API and the CLI."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class FieldError:
    """One API-server style error: a field path and the message the API server gives."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def to_dict(self) -> dict[str, str]:
        """JSON form used by the API and `validate -o json`."""
        return asdict(self)


class InputError(ValueError):
    """Input that cannot be read at all (bad YAML, too large, wrong shape); the message says why."""


class MemoryExhausted(BaseException):
    """An allocation failed during an evaluation: the whole call stops, as at the deadline."""

    # A BaseException, as KeyboardInterrupt is: the engine's `except Exception` guards (meant for
    # bugs and odd input) must not turn it into an expression error that a failurePolicy Ignore
    # would then admit. The worker loop, in-process callers and the CLI catch it by name.
