"""`manage.py restore FILE [--replace]`: load a backup in one transaction (all or nothing)."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser

from policyeditor.core import backup


class Command(BaseCommand):
    help = (
        "Restore a file written by `manage.py backup` (use - for standard input). The restore "
        "is one transaction: on any error nothing changes. A database that already holds data "
        "is refused unless --replace is given, which replaces all of it with the backup."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="the backup file, or - for stdin")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="delete the current drafts, users, teams and review data first (same transaction)",
        )

    def handle(self, *args, file: str, replace: bool = False, **options) -> None:
        try:
            if file == "-":
                text = sys.stdin.buffer.read()
            else:
                with open(file, "rb") as handle:
                    text = handle.read()
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror or exc}") from exc
        try:
            counts = backup.restore(backup.parse(text), replace=replace)
        except backup.BackupError as exc:
            raise CommandError(f"{file}: {exc}") from exc
        total = sum(counts.values())
        summary = ", ".join(f"{n} {name}" for name, n in counts.items())
        self.stderr.write(f"Restored {total} rows from {file} ({summary or 'empty backup'}).")
