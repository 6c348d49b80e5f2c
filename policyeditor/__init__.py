"""policyeditor: a visual editor for Kubernetes admission policies."""

__version__ = "0.1.0"
