"""AdmissionRequest.build infers what kube-apiserver would put in the request."""

from __future__ import annotations

import pytest

from policyeditor.engine.admission.request import AdmissionRequest
from policyeditor.engine.errors import InputError

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "prod"},
}


def test_create_infers_kind_plural_name_and_namespace():
    request = AdmissionRequest.build(object=DEPLOYMENT)
    assert request.operation == "CREATE"
    assert request.kind == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert request.resource == {"group": "apps", "version": "v1", "resource": "deployments"}
    assert (request.name, request.namespace) == ("web", "prod")
    assert request.request_kind == request.kind and request.request_resource == request.resource
    assert request.options == {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}


def test_both_objects_is_an_update_and_only_the_old_one_a_delete():
    assert AdmissionRequest.build(object=DEPLOYMENT, old_object=DEPLOYMENT).operation == "UPDATE"
    delete = AdmissionRequest.build(old_object=DEPLOYMENT)
    assert delete.operation == "DELETE" and delete.object is None
    assert delete.name == "web"
    assert delete.options["kind"] == "DeleteOptions"


def test_a_namespaced_object_without_namespace_lands_in_default():
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    assert AdmissionRequest.build(object=obj).namespace == "default"


def test_cluster_scoped_objects_have_no_namespace():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "namespace": "ignored"}}
    assert AdmissionRequest.build(object=node).namespace == ""


def test_a_namespace_update_carries_its_own_name_as_namespace_but_a_create_does_not():
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
    assert AdmissionRequest.build(object=ns).namespace == ""
    assert AdmissionRequest.build(object=ns, old_object=ns).namespace == "team"


def test_unknown_kinds_get_a_guessed_plural():
    obj = {"apiVersion": "projectcontour.io/v1", "kind": "HTTPProxy", "metadata": {"name": "x"}}
    request = AdmissionRequest.build(object=obj)
    assert request.resource == {
        "group": "projectcontour.io",
        "version": "v1",
        "resource": "httpproxies",
    }


def test_generate_name_creates_have_an_empty_name():
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-"}}
    assert AdmissionRequest.build(object=obj).name == ""


def test_overrides_replace_inferred_fields_in_camel_case():
    request = AdmissionRequest.build(
        object=DEPLOYMENT,
        overrides={"subResource": "status", "namespace": "other", "dryRun": True, "name": "n"},
    )
    assert (request.sub_resource, request.request_sub_resource) == ("status", "status")
    assert (request.namespace, request.dry_run, request.name) == ("other", True, "n")


def test_a_scale_subresource_carries_an_autoscaling_scale_kind():
    request = AdmissionRequest.build(object=DEPLOYMENT, overrides={"subResource": "scale"})
    assert request.kind == {"group": "autoscaling", "version": "v1", "kind": "Scale"}
    assert request.resource["resource"] == "deployments"


def test_connect_options_objects_name_their_subresource():
    options = {"apiVersion": "v1", "kind": "PodExecOptions", "command": ["sh"]}
    request = AdmissionRequest.build(
        object=options, operation="connect", overrides={"name": "web-0"}
    )
    assert request.operation == "CONNECT"
    assert request.resource == {"group": "", "version": "v1", "resource": "pods"}
    assert request.sub_resource == "exec"
    assert request.kind["kind"] == "PodExecOptions"
    assert request.options is None


def test_user_info_is_completed_for_cel():
    request = AdmissionRequest.build(object=DEPLOYMENT, user_info={"username": "ann"})
    assert request.to_cel()["userInfo"] == {"username": "ann", "uid": "", "groups": [], "extra": {}}


def test_to_cel_leaves_out_the_objects():
    cel = AdmissionRequest.build(object=DEPLOYMENT).to_cel()
    assert "object" not in cel and "oldObject" not in cel and "uid" not in cel
    assert cel["operation"] == "CREATE"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"overrides": {"bogus": 1}}, "unknown request field(s): bogus"),
        ({"operation": "PATCH"}, 'operation: Unsupported value: "PATCH"'),
        ({"overrides": {"kind": "Deployment"}}, "kind must be a mapping"),
        ({"overrides": {"userInfo": "ann"}}, "userInfo must be a mapping"),
    ],
)
def test_bad_input_is_a_clear_input_error(kwargs, message):
    with pytest.raises(InputError) as info:
        AdmissionRequest.build(object=DEPLOYMENT, **kwargs)
    assert message in str(info.value)


def test_a_non_mapping_object_is_refused():
    with pytest.raises(InputError):
        AdmissionRequest.build(object=["not", "an", "object"])  # type: ignore[arg-type]
