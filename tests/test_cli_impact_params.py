"""`policyeditor impact` with param objects in the dump: found wherever they stand, as `eval` finds them."""

from __future__ import annotations

import io
import json

import yaml

from policyeditor.cli import main
from policyeditor.engine.impact import params as impact_params
from tests.engine.impact.helpers import (
    config_map,
    deployment,
    kubectl_json,
    params_binding,
    params_draft,
    params_policy,
)

TEAM_LIMIT = config_map("prod", "team-limit", "3", policy="replicas")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def write(tmp_path, name: str, documents: list[dict]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(documents))
    return str(path)


def impact(tmp_path, draft: list[dict], dump: list[dict], *options: str) -> tuple[int, str, str]:
    (tmp_path / "dump.json").write_bytes(kubectl_json(dump))
    policy = write(tmp_path, "policy.yaml", draft)
    return run("impact", policy, "--dump", str(tmp_path / "dump.json"), "-j", "1", *options)


def test_a_param_object_the_binding_selects_in_the_dump_denies_and_exits_one(tmp_path):
    code, out, _ = impact(tmp_path, params_draft(), [deployment("big", 4, "prod"), TEAM_LIMIT])
    assert code == 1
    assert "1 newly denied" in out
    assert "Deployment prod/big: CREATE allow -> deny, UPDATE allow -> deny" in out
    assert "at most 3" in out


def test_a_param_object_named_by_the_binding_is_found_in_the_dump(tmp_path):
    draft = [params_policy(), params_binding(name="team-limit", parameterNotFoundAction="Deny")]
    dump = [deployment("big", 4, "prod"), deployment("small", 2, "prod"), TEAM_LIMIT]
    code, out, _ = impact(tmp_path, draft, dump, "-o", "json")
    report = json.loads(out)
    assert code == 1
    assert report["counts"]["CREATE"]["deny"] == 1
    assert report["counts"]["CREATE"]["allow"] == 1
    assert report["counts"]["CREATE"]["error"] == 0  # not "no params found"


def test_param_objects_after_the_objects_of_many_batches_are_seen_by_every_batch(tmp_path):
    draft = [params_policy(), params_binding(name="limit")]
    objects = [deployment(f"d{i}", i % 5, f"team-{i % 3}") for i in range(450)]
    limits = [config_map(f"team-{n}", "limit", str(n + 1)) for n in range(3)]
    dump = tmp_path / "dump.yaml"
    dump.write_text(yaml.safe_dump_all([*objects, *limits]))
    policy = write(tmp_path, "policy.yaml", draft)
    code, out, _ = run("impact", policy, "--dump", str(dump), "-j", "2", "-o", "json")
    report = json.loads(out)
    denied = sum(1 for i in range(450) if i % 5 > i % 3 + 1)
    assert report["counts"]["CREATE"]["deny"] == denied
    assert report["counts"]["CREATE"]["allow"] == 450 - denied
    assert code == 1


def test_the_drafts_param_object_wins_over_the_same_object_in_the_dump(tmp_path):
    draft = [*params_draft(), config_map("prod", "team-limit", "10", policy="replicas")]
    code, out, _ = impact(tmp_path, draft, [deployment("big", 4, "prod"), TEAM_LIMIT])
    assert code == 0
    assert "0 newly denied" in out


def test_too_many_param_objects_are_an_input_error_naming_the_kind_and_the_limit(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(impact_params, "MAX_PARAM_OBJECTS", 2)
    dump = [deployment("big", 4, "prod"), *(config_map("prod", f"c{i}", "1") for i in range(3))]
    code, out, err = impact(tmp_path, params_draft(), dump)
    assert code == 2 and out == ""
    assert err == (
        "policyeditor impact: error: the dump holds more than 2 param objects (the paramKinds of "
        "the policies) with its ConfigMap (v1) objects; a run takes at most 2\n"
    )


def test_eval_with_the_param_object_as_a_file_and_impact_with_it_in_the_dump_agree(tmp_path):
    draft = params_draft()
    policy = write(tmp_path, "policy.yaml", draft)
    params = write(tmp_path, "params.yaml", [TEAM_LIMIT])
    for replicas, expected in ((4, "deny"), (2, "allow")):
        obj = write(tmp_path, "object.yaml", [deployment("web", replicas, "prod")])
        code, out, _ = run("eval", policy, params, "--object", obj, "-o", "json")
        assert json.loads(out)["result"] == expected
        _, report, _ = impact(
            tmp_path, draft, [deployment("web", replicas, "prod"), TEAM_LIMIT], "-o", "json"
        )
        assert json.loads(report)["counts"]["CREATE"][expected] == 1
        assert code == (1 if expected == "deny" else 0)
