"""Views of the authoring UI, split by area."""
