"""The REST API over the engine and the drafts."""
