"""Team review of drafts: workflow, comments, saved test cases, impact runs, audit log."""
