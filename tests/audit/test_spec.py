"""Spec loading: good specs parse; malformed ones name file, key and expected form."""

import json
import re

import numpy as np
import pytest

from dpaudit.audit.spec import builtin_spec_dir, builtin_specs, load_spec
from dpaudit.errors import SpecError
from dpaudit.privacy import ApproxDP, replace_one


def test_loads_a_good_spec(write_gaussian_spec):
    claim = load_spec(write_gaussian_spec())
    assert claim.guarantee == ApproxDP(4.38, 1e-5)
    assert claim.relations == (replace_one(),)
    assert [o.checker for o in claim.obligations] == ["gaussian_exact_profile"]


def test_every_builtin_spec_loads():
    paths = builtin_specs()
    assert paths
    for path in paths:
        load_spec(path)


@pytest.mark.parametrize(
    ("kwargs", "key", "fragment"),
    [
        ({"delta": "1.5"}, "claim.guarantee.delta", "delta=1.5"),
        ({"delta": "nan"}, "claim.guarantee.delta", "nan"),
        ({"epsilon": "inf"}, "claim.guarantee.epsilon", "inf"),
        ({"epsilon": '"big"'}, "claim.guarantee.epsilon", "expected a real number"),
        ({"epsilon": "true"}, "claim.guarantee.epsilon", "boolean"),
        ({"sigma": "-1.0"}, "claim.mechanism", "sigma=-1.0"),
        ({"extra": "params = { digits = 10 }"}, "obligations[0].params", "digits=10"),
        ({"extra": "params = { digits = 60, colour = 1 }"}, "obligations[0].params", "colour"),
    ],
)
def test_malformed_values(write_gaussian_spec, kwargs, key, fragment):
    path = write_gaussian_spec(**kwargs)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    message = str(info.value)
    assert str(path) in message
    assert f"key '{key}'" in message
    assert fragment in message


@pytest.mark.parametrize(
    ("old", "new", "key", "fragment"),
    [
        ('relations = ["replace_one"]', 'relations = ["swap_two"]', "claim.relations[0]", "expected 'replace_one'"),
        ('relations = ["replace_one"]', "relations = []", "claim.relations", "non-empty list"),
        ('kind = "approx_dp"', 'kind = "pure_dp"', "claim.guarantee.kind", "expected one of"),
        ("delta = 1e-5", "", "claim.guarantee.delta", "missing"),
        ('checker = "gaussian_exact_profile"', 'checker = "nope"', "obligations[0].checker", "unknown checker"),
        ('name = "gaussian"', 'name = "no_such_mechanism"', "claim.mechanism", "unknown mechanism"),
        ('[claim.source]\npaper = "Balle & Wang 2018"', "[claim.source]", "claim.source.paper", "missing"),
        ("schema = 1", "schema = 2", "schema", "newer than this dpaudit reads"),
        ('title = "Gaussian mechanism sigma=1, sensitivity=1"', "title = 5", "claim.title", "non-empty string"),
    ],
)
def test_malformed_structure(write_gaussian_spec, old, new, key, fragment):
    path = write_gaussian_spec()
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert f"key '{key}'" in str(info.value)
    assert fragment in str(info.value)


def test_syntax_error_and_missing_file(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("schema = = 1")
    with pytest.raises(SpecError, match="not valid TOML"):
        load_spec(broken)
    with pytest.raises(SpecError, match="no such file"):
        load_spec(tmp_path / "absent.toml")


def test_an_inline_table_left_open_at_a_line_end_gets_a_hint(tmp_path):
    # TOML forbids a newline inside { ... } (its arrays may span lines): say so, not only "invalid key"
    spec = tmp_path / "spec.toml"
    spec.write_text("schema = 1\n[[obligations]]\nparams = { samples = 1000,\n  confidence = 0.95 }\n")
    with pytest.raises(SpecError, match=r"not valid TOML: .*inline table \{ \.\.\. \} must close on the line"):
        load_spec(spec)
    spec.write_text("schema = 1\n[[obligations]]\nparams = { pairs = [1,\n  2] }\nx = = 1\n")
    with pytest.raises(SpecError, match="not valid TOML") as info:
        load_spec(spec)
    assert "inline table" not in str(info.value)  # an array spanning lines is valid TOML; the slip is elsewhere


def test_a_spec_written_as_json_is_told_a_spec_is_toml(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text('{"schema": 1, "claim": {"epsilon": 1.0}}')
    with pytest.raises(SpecError, match=r"not valid TOML: .*; this is JSON: a spec is TOML"):
        load_spec(spec)
    spec.write_text('{"schema": 1,')  # neither TOML nor JSON: no JSON hint
    with pytest.raises(SpecError, match="not valid TOML") as info:
        load_spec(spec)
    assert "JSON" not in str(info.value)


PIN = '\npin = { quantity = "delta at epsilon", measured = [0.0, 1.0] }'


def test_known_findings_must_name_a_claim_relation(write_gaussian_spec):
    path = write_gaussian_spec()
    for finding, fragment in [
        (
            'relation = "add_remove_one"\nobligations = ["exact-profile"]\nfinding = "x"' + PIN,
            "not among the claim's relations",
        ),
        ('relation = "replace_one"\nobligations = ["nope"]\nfinding = "x"' + PIN, "not obligations of the claim"),
        ('relation = "replace_one"\nobligations = []\nfinding = "x"', "non-empty list of obligation ids"),
        ('relation = "replace_one"\nobligations = ["exact-profile"]', "claim.known_findings[0].finding"),
    ]:
        text = (
            write_gaussian_spec()
            .read_text()
            .replace("[claim.source]", f"[[claim.known_findings]]\n{finding}\n\n[claim.source]")
        )
        path.write_text(text)
        with pytest.raises(SpecError, match=re.escape(fragment)):
            load_spec(path)


EMPIRICAL_WITH_PAIRS = """
[[obligations]]
id = "empirical"
statement = "no event certifies a larger epsilon on the given pairs"
checker = "empirical_epsilon_lower_bound"
params = {{ samples = 2000, {pairs} }}
"""


def test_user_pairs_must_be_neighbours(write_gaussian_spec):
    path = write_gaussian_spec(extra=EMPIRICAL_WITH_PAIRS.format(pairs="pairs = [{first = [0.0], second = [10.0]}]"))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    message = str(info.value)
    assert "obligations[1].params.pairs[0]" in message
    assert "not neighbours under replace_one: distance 10 > 1" in message


def test_neighbouring_user_pairs_load(write_gaussian_spec):
    pairs = 'pairs = [{first = [0.0, 0.0], second = [0.6, 0.8], label = "on the unit sphere"}]'
    claim = load_spec(write_gaussian_spec(extra=EMPIRICAL_WITH_PAIRS.format(pairs=pairs)))
    assert claim.obligations[1].params["pairs"][0]["label"] == "on the unit sphere"


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_pairs_from_a_file(write_gaussian_spec, tmp_path, suffix):
    first, second = np.array([[0.0], [2.0]]), np.array([[1.0], [2.5]])
    if suffix == ".json":
        (tmp_path / "pairs.json").write_text(
            json.dumps([{"first": a.tolist(), "second": b.tolist()} for a, b in zip(first, second, strict=True)])
        )
    else:
        np.savez(tmp_path / "pairs.npz", first=first, second=second)
    claim = load_spec(write_gaussian_spec(extra=EMPIRICAL_WITH_PAIRS.format(pairs=f'pairs_file = "pairs{suffix}"')))
    assert [pair["second"] for pair in claim.obligations[1].params["pairs"]] == [[1.0], [2.5]]
    np.savez(tmp_path / "pairs.npz", first=first, second=second + 5.0)
    if suffix == ".npz":
        with pytest.raises(SpecError, match="not neighbours"):
            load_spec(write_gaussian_spec(extra=EMPIRICAL_WITH_PAIRS.format(pairs='pairs_file = "pairs.npz"')))


def test_a_pickled_pairs_file_is_refused(write_gaussian_spec, tmp_path):
    np.savez(tmp_path / "pairs.npz", first=np.array([object()], dtype=object), second=np.zeros(1))
    with pytest.raises(SpecError, match="cannot read pairs"):
        load_spec(write_gaussian_spec(extra=EMPIRICAL_WITH_PAIRS.format(pairs='pairs_file = "pairs.npz"')))


def test_duplicate_obligation_ids_are_refused(write_gaussian_spec):
    duplicate = '\n[[obligations]]\nid = "exact-profile"\nstatement = "again"\nchecker = "gaussian_exact_profile"\n'
    with pytest.raises(SpecError, match=r"obligations\[1\]\.id.*also the id of obligations\[0\]"):
        load_spec(write_gaussian_spec(extra=duplicate))


@pytest.mark.parametrize("bad", ["a/b", "a\\\\b", "..", "x..y", "line\\nbreak", "tab\\there", "-lead", "", "é"])
def test_ids_are_slugs(write_gaussian_spec, bad):
    with pytest.raises(SpecError, match=r"claim\.id"):
        load_spec(write_gaussian_spec(claim_id=bad))


def test_future_schema_says_upgrade(write_gaussian_spec):
    path = write_gaussian_spec()
    path.write_text(path.read_text().replace("schema = 1", "schema = 7"))
    with pytest.raises(SpecError, match="newer than this dpaudit reads"):
        load_spec(path)


def test_same_file_twice_and_repeated_claim_ids_are_refused(write_gaussian_spec):
    from dpaudit.audit.spec import load_specs

    first = write_gaussian_spec(name="a.toml")
    with pytest.raises(SpecError, match="given twice"):
        load_specs([first, first.parent / "." / "a.toml"])
    second = write_gaussian_spec(name="b.toml")
    with pytest.raises(SpecError, match="also the id of"):
        load_specs([first, second])


def test_the_kernel_refuses_duplicate_obligation_ids_too(write_gaussian_spec):
    from dataclasses import replace

    from dpaudit.errors import InvalidArgument

    claim = load_spec(write_gaussian_spec())
    with pytest.raises(InvalidArgument, match="obligation ids must be unique"):
        replace(claim, obligations=(claim.obligations[0], claim.obligations[0]))


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ("{ samples = 1000000000000 }", "samples"),
        ("{ samples = 20000, thresholds = 100000000 }", "thresholds"),
    ],
)
def test_budgets_above_their_ceilings_are_refused_before_any_work(write_gaussian_spec, params, key):
    extra = (
        '\n[[obligations]]\nid = "empirical"\nstatement = "s"\nchecker = "empirical_epsilon_lower_bound"\n'
        f"params = {params}\n"
    )
    with pytest.raises(SpecError, match=key):
        load_spec(write_gaussian_spec(extra=extra))


def test_digits_above_the_ceiling_are_refused(write_gaussian_spec):
    path = write_gaussian_spec()
    path.write_text(
        path.read_text().replace(
            'checker = "gaussian_exact_profile"', 'checker = "gaussian_exact_profile"\nparams = { digits = 1000000 }'
        )
    )
    with pytest.raises(SpecError, match="digits"):
        load_spec(path)


def test_an_empty_pair_input_and_inputs_of_different_shapes_are_refused_at_load(tmp_path):
    """Hostile-review findings 3 and 10: an empty input was an internal error when sampled, and two inputs of
    different lengths were refused as 'distance inf' without saying why."""
    import tomllib

    from dpaudit.audit.spec import parse_spec

    base = tomllib.loads((builtin_spec_dir() / "examples" / "gaussian_candidate.toml").read_text(encoding="utf-8"))
    obligation = next(o for o in base["obligations"] if o["checker"] == "empirical_epsilon_lower_bound")
    for first, second, fragment in (([], [], "non-empty input"), ([0.0], [1.0, 2.0], "different shapes")):
        obligation["params"]["pairs"] = [{"first": first, "second": second}]
        with pytest.raises(SpecError, match=fragment):
            parse_spec(base, str(tmp_path / "spec.toml"))


def test_a_spec_with_a_byte_order_mark_loads(tmp_path):
    text = (builtin_spec_dir() / "laplace_mechanism.toml").read_text(encoding="utf-8")
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load_spec(path).id == "laplace-mechanism"


def test_a_black_box_check_without_pairs_for_a_mechanism_that_proposes_none_is_refused_at_load(tmp_path):
    example = builtin_spec_dir() / "examples" / "smooth_gaussian_candidate.toml"
    text = re.sub(r", pairs = \[\{.*?\}\] \}", " }", example.read_text(encoding="utf-8"))
    assert "pairs = [" not in text
    path = tmp_path / "no_pairs.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match=r"obligations\[0\]\.params.*pairs: missing; mechanism 'smooth_gaussian'"):
        load_spec(path)
    assert load_spec(example).id == "smooth-gaussian-candidate"  # with its pairs it loads


def test_a_relation_the_kind_is_not_audited_under_is_refused_at_load_even_without_pairs(tmp_path):
    """Without pairs nothing would check the relation: the reference's replace-one pair was audited under the
    name of the claimed relation."""
    text = (builtin_spec_dir() / "examples" / "gaussian_candidate.toml").read_text()
    assert 'relations = ["replace_one"]' in text
    spec = tmp_path / "spec.toml"
    spec.write_text(text.replace('relations = ["replace_one"]', 'relations = ["simplex_adjacent(0.5)"]', 1))
    said = r"claim.relations\[0\].*'simplex_adjacent\(0.5\)': mechanism 'gaussian' is audited under \['replace_one'"
    with pytest.raises(SpecError, match=said):
        load_spec(spec)


@pytest.mark.parametrize(
    ("example", "params", "said"),
    [
        ("black_box_randomized_response.toml", "inputs = [0, 1]", "the black_box kind has no reference implementation"),
        ("dirichlet_candidate.toml", "samples = 100", "inputs: missing; mechanism 'dirichlet' proposes no datasets"),
    ],
)
def test_a_conformance_check_that_cannot_apply_is_refused_at_load(tmp_path, example, params, said):
    """Nothing to compare with (a kind without a reference) or nothing to compare on: a spec error naming the
    obligation, not an error once the candidate ran."""
    text = (builtin_spec_dir() / "examples" / example).read_text()
    spec = tmp_path / "spec.toml"
    spec.write_text(
        text + f'\n[[obligations]]\nid = "law"\nstatement = "s"\nchecker = "candidate_matches_reference"\n'
        f"params = {{ {params} }}\n"
    )
    with pytest.raises(SpecError, match=r"obligations\[\d+\]\.params.*" + re.escape(said)):
        load_spec(spec)


def test_a_renyi_claim_without_delta_is_told_to_give_claim_guarantee_delta(tmp_path):
    text = (builtin_spec_dir() / "examples" / "gaussian_candidate.toml").read_text()
    guarantee = 'kind = "approx_dp"\nepsilon = 4.38\ndelta = 1e-5'
    assert guarantee in text
    spec = tmp_path / "spec.toml"
    spec.write_text(text.replace(guarantee, 'kind = "renyi_dp"\norders = [2, 8]\nepsilons = [1.0, 4.0]'))
    with pytest.raises(SpecError, match=r"a renyi_dp claim without delta: .*give claim\.guarantee\.delta"):
        load_spec(spec)
