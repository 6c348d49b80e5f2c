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
