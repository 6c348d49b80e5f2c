"""`manage.py backup [-o FILE]`: the whole database as one JSON file (see policyeditor.core.backup)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from policyeditor.core import backup


class Command(BaseCommand):
    help = (
        "Write every draft, revision, user, team, review, comment, test case and API token "
        "(hashed) to one JSON file that `manage.py restore` reads back. Without -o the JSON "
        "goes to standard output."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "-o",
            "--output",
            metavar="FILE",
            help="write here (atomically: the file is either the old one or the whole backup)",
        )

    def handle(self, *args, output: str | None = None, **options) -> None:
        data = backup.collect()
        try:
            backup.verify(data)
        except backup.BackupError as exc:
            raise CommandError(f"the backup is not usable, nothing was written: {exc}") from exc
        if not output or output == "-":
            self.stdout.write(backup.dumps(data), ending="")
            return
        try:
            backup.write_file(output, data)
            # Read back what was written: success is reported only for a file that restores.
            with open(output, encoding="utf-8") as handle:
                backup.verify(backup.parse(handle.read()))
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc.strerror or exc}") from exc
        except backup.BackupError as exc:
            raise CommandError(f"the backup written to {output} is not usable: {exc}") from exc
        total = sum(data["counts"].values())
        summary = ", ".join(f"{n} {name}" for name, n in data["counts"].items() if n)
        self.stderr.write(f"Backed up {total} rows to {output} ({summary or 'empty database'}).")
