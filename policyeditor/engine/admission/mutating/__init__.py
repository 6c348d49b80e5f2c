"""MutatingAdmissionPolicy evaluation: mutations, reinvocation, patch application."""
