"""Safe, limited YAML/JSON loading and dumping of Kubernetes manifests, with field positions."""

from policyeditor.engine.manifests.loading import *  # noqa: F403 - the package's API is loading's
from policyeditor.engine.manifests.loading import __all__ as __all__
