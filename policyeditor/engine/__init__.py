"""Kubernetes admission and CEL, in pure Python: nothing here imports Django."""

# The CEL package installs the compiler of CRD validation rules into schemas.crds (a lower layer
# that cannot import it): loading it with the engine means no CRD is ever read unchecked.
import policyeditor.engine.cel  # noqa: E402, F401
