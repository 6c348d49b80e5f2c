"""Views of team review, split by area."""
