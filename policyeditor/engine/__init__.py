"""Kubernetes admission and CEL, in pure Python: nothing here imports Django."""
