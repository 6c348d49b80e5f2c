"""A linter for Kubernetes CEL pitfalls in admission policies: findings with a code, a place and a fix."""

from policyeditor.engine.lint.linter import RULES, lint_document, lint_documents
from policyeditor.engine.lint.model import Finding, Rule

__all__ = ["RULES", "Finding", "Rule", "lint_document", "lint_documents"]
