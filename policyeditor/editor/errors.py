"""Why a draft could not be stored: the errors the write services raise."""

from __future__ import annotations


class DraftInputError(ValueError):
    """Documents or settings that cannot be stored as a draft; the message says why."""
