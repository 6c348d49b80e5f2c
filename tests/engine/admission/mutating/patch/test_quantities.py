"""Canonical quantities and untyped scalars after a mutation, as kube-apiserver decodes them."""

from __future__ import annotations

import pytest

from policyeditor.engine.admission.mutating.patch.applyconfig import ApplyError, apply_configuration
from policyeditor.engine.admission.mutating.patch.quantities import (
    QuantityError,
    canonical_quantity,
)
from policyeditor.engine.admission.mutating.patch.typedobject import DecodeError, strict_decode

QUANTITY_FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        # k8s.io/apimachinery pkg/api/resource quantity_test.go, TestQuantityParse/TestQuantityString
        ("0.5", "500m"),
        ("128M", "128M"),
        ("1000", "1k"),
        ("1000m", "1"),
        ("1024Mi", "1Gi"),
        ("1.5Gi", "1536Mi"),
        ("0.5Gi", "512Mi"),
        ("1023Ki", "1023Ki"),
        ("1e3", "1e3"),
        ("1.5e3", "1500"),
        ("12e6", "12e6"),
        ("1e-10", "1e-9"),
        ("-0.5", "-500m"),
        ("0", "0"),
        (" 2 ", "2"),
        (1, "1"),
        (0.5, "500m"),
        (2.0, "2"),
    ],
)
def test_quantities_are_written_in_their_canonical_form(given, canonical):
    assert canonical_quantity(given) == canonical


def test_a_string_that_is_not_a_quantity_is_refused_with_apimachinerys_message():
    with pytest.raises(QuantityError) as caught:
        canonical_quantity("lots")
    assert str(caught.value) == QUANTITY_FORMAT_ERROR


def deployment(spec=None):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {}, "spec": spec or {}}


def with_limits(limits):
    container = {"name": "c", "resources": {"limits": limits}}
    return {"spec": {"template": {"spec": {"containers": [container]}}}}


def limits_of(obj):
    return obj["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]


def test_a_string_quantity_in_an_apply_configuration_is_accepted():
    out = apply_configuration(deployment(), with_limits({"cpu": "128M", "memory": "1Gi"}))
    assert limits_of(out) == {"cpu": "128M", "memory": "1Gi"}


def test_an_applied_quantity_comes_out_canonical():
    out = apply_configuration(deployment(), with_limits({"cpu": "0.5", "memory": 1024}))
    assert limits_of(out) == {"cpu": "500m", "memory": "1024"}


def test_an_int_or_string_field_takes_a_percentage_or_a_number():
    patch = {"spec": {"strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}}}}
    out = apply_configuration(deployment(), patch)
    assert out["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": "25%", "maxUnavailable": 1}


def test_a_string_port_of_a_service_is_accepted():
    live = {"apiVersion": "v1", "kind": "Service", "metadata": {}, "spec": {}}
    patch = {"spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": "http"}]}}
    out = apply_configuration(live, patch)
    assert out["spec"]["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": "http"}]


def test_a_pvc_size_and_a_quota_value_are_accepted():
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {}, "spec": {}}
    patch = {"spec": {"resources": {"requests": {"storage": "10Gi"}}}}
    out = apply_configuration(pvc, patch)
    assert out["spec"]["resources"]["requests"] == {"storage": "10Gi"}
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {}, "spec": {}}
    out = apply_configuration(quota, {"spec": {"hard": {"pods": "10", "requests.cpu": "2000m"}}})
    assert out["spec"]["hard"] == {"pods": "10", "requests.cpu": "2"}


def test_a_date_time_string_field_accepts_any_scalar_but_not_a_map():
    # schemaconv convertPrimitive: a string with format date-time is an untyped scalar.
    live = {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {}}
    out = apply_configuration(live, {"metadata": {"deletionTimestamp": 5}})
    assert out["metadata"]["deletionTimestamp"] == 5
    with pytest.raises(ApplyError) as caught:
        apply_configuration(live, {"metadata": {"deletionTimestamp": {"a": "b"}}})
    assert str(caught.value).endswith(
        ".metadata.deletionTimestamp: expected any scalar, got &{map[a:b]}"
    )


def test_a_map_where_a_quantity_belongs_is_refused_as_structured_merge_diff_does():
    with pytest.raises(ApplyError) as caught:
        apply_configuration(deployment(), with_limits({"cpu": {"value": 1}}))
    assert str(caught.value) == (
        "error applying patch: failed to convert patch object to typed object: "
        '.spec.template.spec.containers[name="c"].resources.limits.cpu: '
        "expected any scalar, got &{map[value:1]}"
    )


def test_an_invalid_quantity_fails_when_the_result_is_decoded():
    with pytest.raises(ApplyError) as caught:
        apply_configuration(deployment(), with_limits({"cpu": "lots"}))
    assert str(caught.value) == QUANTITY_FORMAT_ERROR


def test_a_fractional_int_or_string_fails_when_the_result_is_decoded():
    patch = {"spec": {"strategy": {"rollingUpdate": {"maxSurge": 1.5}}}}
    with pytest.raises(ApplyError) as caught:
        apply_configuration(deployment(), patch)
    assert str(caught.value) == "json: cannot unmarshal number 1.5 into Go value of type int32"


def test_numeric_fields_still_refuse_strings():
    with pytest.raises(ApplyError) as caught:
        apply_configuration(deployment(), {"spec": {"replicas": "3"}})
    assert str(caught.value).endswith(".spec.replicas: expected numeric (int or float), got string")


def test_custom_resources_keep_their_quantities_as_written():
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"size": {"type": "string"}}}},
    }
    live = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {}, "spec": {}}
    out = apply_configuration(live, {"spec": {"size": "0.5"}}, schema=schema)
    assert out["spec"]["size"] == "0.5"


def test_a_json_patched_quantity_comes_out_canonical():
    obj = deployment(with_limits({"cpu": "0.5", "memory": "2048Mi"})["spec"])
    decoded = strict_decode(obj)
    assert limits_of(decoded) == {"cpu": "500m", "memory": "2Gi"}


def test_a_json_patched_invalid_quantity_is_a_decoding_error():
    with pytest.raises(DecodeError) as caught:
        strict_decode(deployment(with_limits({"cpu": "1.2.3"})["spec"]))
    assert str(caught.value) == QUANTITY_FORMAT_ERROR
