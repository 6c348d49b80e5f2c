"""Kubernetes versions: canonical forms and served API versions, remembered per text."""

from __future__ import annotations

import pytest

from policyeditor.engine.versions import (
    DEFAULT_VERSION,
    normalize_version,
    parse_version,
    served_api_versions,
)


def test_a_version_normalizes_the_same_every_time_it_is_asked():
    assert normalize_version("v1.33") == normalize_version("v1.33") == "1.33"
    assert normalize_version(None) == normalize_version("") == DEFAULT_VERSION


def test_an_unsupported_version_is_refused_every_time():
    for _ in range(2):
        with pytest.raises(ValueError, match="not supported"):
            normalize_version("1.2")


def test_a_version_that_is_no_string_is_read_as_its_text():
    assert normalize_version(1.31) == "1.31"


def test_served_versions_are_a_fresh_list_each_time():
    served = served_api_versions("MutatingAdmissionPolicy", "1.36")
    assert served == ["v1alpha1", "v1beta1", "v1"]
    served.append("changed")
    assert served_api_versions("MutatingAdmissionPolicy", "1.36") == ["v1alpha1", "v1beta1", "v1"]
    assert served_api_versions("ConfigMap", "1.36") == []


@pytest.mark.parametrize("version", ["1.\u00b2", "\u00b2.30", "1." + "9" * 5000])
def test_a_version_with_digits_int_refuses_is_not_a_version(version):
    with pytest.raises(ValueError, match="not a Kubernetes version"):
        parse_version(version)
