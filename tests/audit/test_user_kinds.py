"""The kinds without a reference (black_box, rl_algorithm): the user's code as written, the user's
inputs and relation, discrete and categorical outputs. Each example must say violated for its leaky
variant and not for the correct one."""

from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.kinds import CandidateMechanism, candidate_kind_for
from dpaudit.audit.candidates.outputs import category_code
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.candidates.user_inputs import _own_neighbours, user_pairs
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.errors import CandidateLoadError, InvalidArgument, SpecError
from dpaudit.mechanisms.catalogue import get_mechanism
from dpaudit.privacy.relations import parse_relation

EXAMPLES = builtin_spec_dir() / "examples"


def _audit(spec: Path, name: str, seed: int = 7, module: str = "generic_candidates", folder: Path = EXAMPLES):
    claim = load_spec(spec)
    return audit_candidate(
        claim,
        spec,
        parse_candidate(f"{module}:{name}", path=str(folder)),
        limits=CandidateLimits(),
        seed=seed,
        quick=True,
    )


def _privacy(report):
    (relation,) = report.claims[0].relations
    return {item.obligation.id: item.evidence for item in relation.obligations}["empirical-privacy"]


@pytest.mark.slow  # eight audits; the floors run makes the same library calls in the tests below
@pytest.mark.parametrize(
    ("spec", "correct", "leaky"),
    [
        ("black_box_randomized_response.toml", "randomized_response", "randomized_response_squared"),
        ("black_box_noisy_max.toml", "noisy_max", "noisy_max_small_noise"),
        # the RL examples' whole audits take a minute each: the main CI job runs them, not the floors one
        pytest.param("rl_action_counts.toml", "action_counts", "action_counts_unclipped", marks=pytest.mark.slow),
        pytest.param("rl_mc_values.toml", "mc_values", "mc_values_unit_bound", marks=pytest.mark.slow),
    ],
)
def test_examples_leaky_violated_correct_not(spec, correct, leaky, spec_obligations_only):
    assert _privacy(_audit(EXAMPLES / spec, leaky)).verdict.value == "violated"
    assert _privacy(_audit(EXAMPLES / spec, correct)).verdict.value == "consistent"


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_categorical_outputs_are_certified_by_outcome_events_and_named(spec_obligations_only):
    report = _audit(EXAMPLES / "black_box_noisy_max.toml", "noisy_max_small_noise")
    evidence = _privacy(report)
    assert "y in {" in evidence.counterexample["event"]
    names = set(evidence.counterexample["categories"].values())
    assert names and names <= {"alpha", "beta", "gamma", "delta"}
    shown = report.failure_text("violated")  # a reader is shown the names, not the codes
    assert "event: y in {" in shown and all(repr(name) in shown for name in names), shown
    assert not any(code in shown for code in evidence.counterexample["categories"])
    assert report.candidate["categories"][str(category_code("alpha"))] == "alpha"
    assert report.candidate["input_functions"]["neighbours"] == "generic_candidates:count_neighbours"


def _spec(tmp_path, text):
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


def _black_box_spec(tmp_path, *, relation=None, candidate=None, pairs=True):
    """The randomized-response example, with another relation, [candidate] lines, or no pairs."""
    text = (EXAMPLES / "black_box_randomized_response.toml").read_text()
    if relation is not None:
        text = text.replace('relations = ["user(flip_the_bit)"]', f'relations = ["{relation}"]')
    if candidate is not None:
        text = text.replace("params = { epsilon = 1.0 }", candidate)
    if not pairs:
        text = text.replace(', pairs = [{ first = 0, second = 1, label = "bit 0 vs bit 1" }]', "")
    return _spec(tmp_path, text)


def test_the_users_distance_function_refuses_pairs_that_are_not_neighbours(tmp_path):
    helpers = tmp_path / "far.py"
    helpers.write_text("def far(a, b):\n    return 2.0\n")
    text = (EXAMPLES / "black_box_noisy_max.toml").read_text()
    text = text.replace('distance = "generic_candidates:count_distance"', 'distance = "far:far"')
    spec = _spec(tmp_path, text)
    import shutil

    shutil.copy(EXAMPLES / "generic_candidates.py", tmp_path)
    with pytest.raises(
        SpecError, match=r"not neighbouring under user\(one_count_moves_by_one\): far:far says distance 2"
    ):
        _audit(spec, "noisy_max", folder=tmp_path)


@pytest.mark.slow  # two candidate audits end to end: the main CI job runs them, not the floors one
def test_code_that_seeds_its_own_generator_is_audited_as_written_with_an_integer_seed(tmp_path):
    """`randomness = "seed"`: the function gets an integer seed, a new one per call, for `random.Random(seed)`;
    the randomness contract holds it to the seed, and the privacy verdict follows its epsilon."""
    (tmp_path / "seeded.py").write_text(  # one call with random.Random; a batch with numpy, as fast code would
        "import math, random\n"
        "import numpy as np\n"
        "def rr(bit, *, epsilon, seed=None):\n"
        "    keep = random.Random(seed).random() < math.exp(epsilon) / (1 + math.exp(epsilon))\n"
        "    return bit if keep else 1 - bit\n"
        "def _many(bit, n, *, epsilon, seed=None):\n"
        "    keep = np.random.default_rng(seed).random(n) < math.exp(epsilon) / (1 + math.exp(epsilon))\n"
        "    return np.where(keep, bit, 1 - bit)\n"
        "rr.sample = _many\n"
        "def rr_tripled(bit, *, epsilon, seed=None):\n"
        "    return rr(bit, epsilon=3 * epsilon, seed=seed)\n"
        "rr_tripled.sample = lambda bit, n, *, epsilon, seed=None: _many(bit, n, epsilon=3 * epsilon, seed=seed)\n"
    )
    call = 'params = { epsilon = 1.0 }\nrandomness = "seed"\nrename = { rng = "seed" }'
    spec = _black_box_spec(tmp_path, candidate=call)
    correct = _audit(spec, "rr", module="seeded", folder=tmp_path)
    (relation,) = correct.claims[0].relations
    assert {item.obligation.id: item.evidence.verdict.value for item in relation.obligations} == {
        "empirical-privacy": "consistent",
        "implied-randomness-contract": "consistent",
    }
    assert _privacy(_audit(spec, "rr_tripled", module="seeded", folder=tmp_path)).verdict.value == "violated"


def test_a_pair_of_equal_inputs_is_refused_before_any_run(tmp_path):
    """X = X' can show no leak: under a user relation without a distance function, a spec giving only such a
    pair made a leaky candidate consistent."""
    text = _black_box_spec(tmp_path).read_text().replace("second = 1", "second = 0")
    with pytest.raises(SpecError, match="pair 'bit 0 vs bit 1': its two inputs are equal"):
        _audit(_spec(tmp_path, text), "randomized_response")


def test_a_failing_generator_stops_the_check_with_its_reason(tmp_path):
    (tmp_path / "broken.py").write_text("def make(rng):\n    raise RuntimeError('no data today')\n")
    import shutil

    shutil.copy(EXAMPLES / "generic_candidates.py", tmp_path)
    text = (EXAMPLES / "black_box_noisy_max.toml").read_text()
    spec = _spec(tmp_path, text.replace('datasets = "generic_candidates:make_counts"', 'datasets = "broken:make"'))
    with pytest.raises(CandidateLoadError, match=r"(?s)dataset generator broken:make failed.*no data today"):
        _audit(spec, "noisy_max", folder=tmp_path)


def test_a_generator_whose_module_is_not_there_is_named_with_the_folder_searched(tmp_path):
    import shutil

    shutil.copy(EXAMPLES / "generic_candidates.py", tmp_path)
    text = (EXAMPLES / "black_box_noisy_max.toml").read_text()
    spec = _spec(tmp_path, text.replace('datasets = "generic_candidates:make_counts"', 'datasets = "nowhere:make"'))
    with pytest.raises(CandidateLoadError) as failure:
        _audit(spec, "noisy_max", folder=tmp_path)
    assert f"could not load nowhere:make: no module named 'nowhere' (searched from {tmp_path}" in str(failure.value)
    assert "raised" not in str(failure.value)  # not the candidate's error, nor a traceback


def test_a_user_relation_needs_pairs_or_a_neighbour_function(tmp_path):
    with pytest.raises(SpecError, match=r"pairs: missing; mechanism 'black_box' proposes no neighbouring pairs"):
        _audit(_black_box_spec(tmp_path, pairs=False), "randomized_response")  # refused at load, before any run


@pytest.mark.slow  # a whole audit end to end: the main CI job runs it, not the floors one
def test_own_neighbours_of_generated_lists_under_add_remove_one(tmp_path, spec_obligations_only):
    (tmp_path / "mean.py").write_text(
        "import numpy as np\n"
        "def make(rng):\n    return [float(v) for v in rng.uniform(0, 1, 5)]\n"
        "def noisy_sum(data, *, scale, rng):\n    return float(np.clip(data, 0, 1).sum() + rng.laplace(0, scale))\n"
    )
    spec = _black_box_spec(
        tmp_path, relation="add_remove_one", candidate='params = { scale = 0.25 }\ndatasets = "mean:make"', pairs=False
    )
    # a fifth of the quick draws: the leak is four times the claim, and the searched lists are the point
    text = spec.read_text()
    assert "quick = { samples = 100000 }" in text
    spec.write_text(text.replace("quick = { samples = 100000 }", "quick = { samples = 20000 }"))
    report = _audit(spec, "noisy_sum", module="mean", folder=tmp_path)
    evidence = _privacy(report)
    assert evidence.verdict.value == "violated"  # a clipped sum with Laplace(0.25) is 4-DP, not 1-DP
    assert "record 0 duplicated" in evidence.domain or "added" in evidence.domain


def test_black_box_inputs_are_json_and_lists_of_records_are_neighbours_by_one_record():
    kind = get_mechanism("black_box")
    replace, add_remove = parse_relation("replace_one"), parse_relation("add_remove_one")
    assert kind.check_neighbours([1, {"a": 2}], [1, {"a": 3}], replace, {}) == 1.0
    assert kind.check_neighbours([1, 2], [2, 1, 3], add_remove, {}) == 1.0
    with pytest.raises(InvalidArgument, match="not neighbours"):
        kind.check_neighbours([1, 2], [3, 4], replace, {})
    with pytest.raises(InvalidArgument, match="not neighbours"):
        kind.check_neighbours(3, 4, replace, {})  # not lists: use user(name)
    assert kind.check_neighbours(3, 4, parse_relation("user(any)"), {}) == 0.0
    with pytest.raises(InvalidArgument, match="finite"):
        kind.input_domain.from_plain([1.0, float("nan")])
    assert kind.input_domain.from_plain(np.arange(3)) == [0, 1, 2]
    with pytest.raises(InvalidArgument, match="no reference implementation"):
        kind.build({}).release(1, rng=np.random.default_rng(0))


@pytest.mark.parametrize("relation", ["replace_one", "add_remove_one"])
def test_rl_datasets_are_neighbours_and_reach_the_extremes(relation):
    kind = get_mechanism("rl_algorithm")
    reference = kind.build({"mdp": "chain", "n_states": 4, "trajectories": [1, 5]})
    pairs = reference.audit_pairs(parse_relation(relation))
    assert len(pairs) >= 8
    for first, second, label, _ in pairs:
        assert kind.check_neighbours(first, second, parse_relation(relation), {}) == 1.0, label
    labels = " ".join(label for _, _, label, _ in pairs)
    assert [pilot for *_, pilot in pairs][:3] == [None, None, 2000]  # the pilot ranks the rest on fewer draws
    assert "upper reward bound" in labels and "m = 1" in labels and "m = 5" in labels


def test_rl_inline_mdp_and_bad_parameters():
    kind = get_mechanism("rl_algorithm")
    mdp = {
        "transitions": [[[0.5, 0.5], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]],
        "rewards": [[0.0, 1.0], [0.0, 0.0]],
        "horizon": 3,
        "policy": [[0.5, 0.5], [1.0, 0.0]],
    }
    reference = kind.build({"mdp": mdp, "trajectories": 3})
    assert reference.audit_pairs(parse_relation("add_remove_one"))
    with pytest.raises(InvalidArgument, match="unknown parameters"):
        kind.build({"mdp": "chain", "n_state": 4})
    with pytest.raises(InvalidArgument, match="expected one of"):
        kind.build({"mdp": "cartpole"})
    with pytest.raises(InvalidArgument, match=r"\['bins', 'p'\] are not options of mdp='investment'; the investment"):
        kind.build({"mdp": "investment", "p": 0.5, "bins": 3})  # another domain's: the report would echo them
    with pytest.raises(InvalidArgument, match="missing"):
        kind.build({"mdp": {"rewards": [[0.0]]}})


def test_rl_continuous_domains_are_discretised_into_grid_cells():
    kind = get_mechanism("rl_algorithm")
    reference = kind.build({"mdp": "mountain_car", "bins": 4, "trajectories": [2], "reward_bounds": [-1.0, 0.0]})
    assert reference.n_states == 16
    pairs = reference.audit_pairs(parse_relation("replace_one"))
    assert pairs
    for first, second, label, _ in pairs:
        assert kind.check_neighbours(first, second, parse_relation("replace_one"), {}) == 1.0, label
        assert all(0 <= state < 16 for trajectory in first for state in trajectory.states)
    with pytest.raises(InvalidArgument, match="uniform policy"):
        kind.build({"mdp": "mountain_car", "policy": [[1.0, 0.0, 0.0]]})


def test_candidate_params_must_be_json_data(tmp_path):
    spec = _black_box_spec(tmp_path, candidate="params = { epsilon = 1.0, when = 1979-05-27 }")
    with pytest.raises(SpecError, match=r"candidate.params.*date.*expected JSON data"):
        load_spec(spec)


def test_a_neighbour_under_no_relation_of_the_claim_is_refused(tmp_path):
    (tmp_path / "lists.py").write_text(
        "def make(rng):\n    return [1, 2, 3]\n"
        "def far(data):\n    return [[9, 9, 9]]\n"
        "def mech(data, *, rng):\n    return float(rng.normal())\n"
    )
    spec = _black_box_spec(
        tmp_path,
        relation="replace_one",
        candidate='params = {}\ndatasets = "lists:make"\nneighbours = "lists:far"',
        pairs=False,
    )
    with pytest.raises(SpecError, match="dataset 0, neighbour 0' is not neighbouring under any relation"):
        _audit(spec, "mech", module="lists", folder=tmp_path)


def test_a_declared_integer_input_domain_keeps_the_search_and_the_pairs_inside(tmp_path):
    (tmp_path / "geo.py").write_text(
        "import numpy as np\n"
        "def _many(count, n, *, epsilon, rng):\n"
        "    c = np.asarray(count)\n"
        "    if not np.all(c == np.round(c)) or np.any(c < 0) or np.any(c > 1000):\n"
        "        raise ValueError('counts are integers in [0, 1000]')\n"
        "    p = 1 - np.exp(-epsilon)\n"
        "    return c + rng.geometric(p, (n, *c.shape)) - rng.geometric(p, (n, *c.shape))\n"
        "def geometric(count, *, epsilon, rng):\n"
        "    return _many(count, 1, epsilon=epsilon, rng=rng)[0]\n"
        "geometric.sample = _many\n"
    )
    text = (EXAMPLES / "laplace_epsilon_candidate.toml").read_text()
    text = text.replace(
        "params = { epsilon = 0.5, sensitivity = 1.0 }",
        "params = { epsilon = 0.5 }\ninputs = { integer = true, low = 0, high = 1000 }",
    )
    inside = text.replace("first = [1000.0], second = [1001.0]", "first = [999.0], second = [1000.0]")
    report = _audit(_spec(tmp_path, inside), "geometric", module="geo", folder=tmp_path)
    (relation,) = report.claims[0].relations
    verdicts = {item.obligation.id: item.evidence.verdict.value for item in relation.obligations}
    assert "error" not in verdicts.values()  # the search never fed it 0.5 or 10^6
    assert verdicts["empirical-privacy"] == "consistent"
    assert verdicts["laplace-fit"] == "inconclusive" and relation.verdict.value == "consistent"  # model-free first
    with pytest.raises(SpecError, match="outside \\[candidate\\] inputs"):
        load_spec(_spec(tmp_path, text))  # the example's pair 1000 vs 1001 leaves [0, 1000]


def test_own_add_remove_neighbours_add_every_record_the_inputs_hold_the_inputs_own_first():
    """A record in the middle of an input is added (and, the pair audited both ways, removed): a slip that
    counts some records twice must meet one of them, wherever the generator put it."""
    inputs = [[{"a": 1}, {"a": 2}, {"a": 1}, {"a": 3}], [{"a": 4}, {"a": 2}]]
    add_remove, replace = parse_relation("add_remove_one"), parse_relation("replace_one")
    assert [label for _, label in _own_neighbours(0, inputs, add_remove)] == [
        "record 0 duplicated",
        "the last record removed",
        "record 1 of dataset 0 added",
        "record 3 of dataset 0 added",
        "record 0 of dataset 1 added",
    ]
    assert [value for value, _ in _own_neighbours(1, inputs, add_remove)][2:] == [
        [{"a": 4}, {"a": 2}, {"a": 2}],
        [{"a": 4}, {"a": 2}, {"a": 1}],
        [{"a": 4}, {"a": 2}, {"a": 3}],
    ]
    assert [label for _, label in _own_neighbours(1, inputs, replace)] == [
        "record 0 replaced by record 1 of dataset 1",
        "record 0 replaced by record 0 of dataset 0",
        "record 0 replaced by record 3 of dataset 0",
    ]


def test_each_relation_keeps_its_own_neighbours_of_varied_records(tmp_path):
    """Inputs of ten different records have more replace-one neighbours than are kept: the add/remove ones
    of the same inputs must still be made (not crowded out by the first relation's)."""
    (tmp_path / "people.py").write_text(
        "def make(rng):\n    return [{'age': int(age)} for age in rng.integers(18, 90, 10)]\n"
        "def count(people, *, rng):\n    return len(people) + float(rng.laplace(0, 1))\n"
    )
    spec = _black_box_spec(
        tmp_path,
        relation='replace_one", "add_remove_one',
        candidate='params = {}\ndatasets = "people:make"\ndatasets_count = 2',
        pairs=False,
    )
    claim = load_spec(spec)
    ref = parse_candidate("people:count", path=str(tmp_path))
    with CandidateMechanism(ref, CandidateLimits(), candidate_kind_for("black_box"), {}) as mechanism:
        mechanism.start()
        pairs = user_pairs(claim, mechanism, [], seed=1)
    assert [len(pairs[name]) for name in ("replace_one", "add_remove_one")] == [16, 16]


def test_a_neighbour_function_giving_more_than_are_kept_is_told_how_many_are_audited(tmp_path, caplog):
    (tmp_path / "nb.py").write_text(
        "def make(rng):\n    return [0] * 10\n"
        "def up(counts):\n    return [counts[:i] + [1] + counts[i + 1:] for i in range(len(counts))]\n"
        "def count(counts, *, rng):\n    return sum(counts) + float(rng.laplace(0, 1))\n"
    )
    spec = _black_box_spec(
        tmp_path, candidate='params = {}\ndatasets = "nb:make"\nneighbours = "nb:up"\ndatasets_count = 1', pairs=False
    )
    claim = load_spec(spec)
    with CandidateMechanism(
        parse_candidate("nb:count", path=str(tmp_path)), CandidateLimits(), candidate_kind_for("black_box"), {}
    ) as mechanism:
        mechanism.start()
        pairs = user_pairs(claim, mechanism, [], seed=1)
    assert len(next(iter(pairs.values()))) == 8
    assert "gave 10 neighbours of dataset 0; the first 8 are audited" in caplog.text


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_own_replace_one_neighbours_when_every_input_starts_alike(tmp_path, spec_obligations_only):
    """Inputs that all start with the same record still get neighbours: record 0 is replaced by
    any other record the generated inputs hold (the corpus's randomized response on bits)."""
    (tmp_path / "bits.py").write_text(
        "import math\n"
        "import numpy as np\n"
        "def make(rng):\n    return [0, 1, 1]\n"
        "def _many(bits, n, *, rng):\n"
        "    keep = rng.random((n, len(bits))) < math.exp(1.0) / (1 + math.exp(1.0))\n"
        "    return np.where(keep, np.asarray(bits), 1 - np.asarray(bits))\n"
        "def rr(bits, *, rng):\n    return _many(bits, 1, rng=rng)[0]\n"
        "rr.sample = _many\n"
    )
    spec = _black_box_spec(
        tmp_path,
        relation="replace_one",
        candidate='params = {}\ndatasets = "bits:make"\ndatasets_count = 2',
        pairs=False,
    )
    evidence = _privacy(_audit(spec, "rr", module="bits", folder=tmp_path))
    assert evidence.verdict.value == "consistent"
    assert "record 0 replaced by record 1 of dataset 0" in evidence.domain


@pytest.mark.slow  # a whole audit end to end: the main CI job runs it, not the floors one
def test_a_hypothesis_strategy_generates_the_inputs_reproducibly(tmp_path, spec_obligations_only):
    (tmp_path / "strat.py").write_text(
        "import numpy as np\n"
        "from hypothesis import strategies as st\n"
        "bits = st.lists(st.integers(0, 1), min_size=3, max_size=3)\n"
        "def _many(data, n, *, rng):\n"
        "    return np.asarray(data).sum() + rng.laplace(0.0, 0.25, (n, 1))\n"
        "def noisy_count(data, *, rng):\n    return _many(data, 1, rng=rng)[0]\n"
        "noisy_count.sample = _many\n"
    )
    spec = _black_box_spec(
        tmp_path,
        relation="replace_one",
        candidate='params = {}\ndatasets = "strat:bits"\ndatasets_count = 6',
        pairs=False,
    )
    first = _privacy(_audit(spec, "noisy_count", module="strat", folder=tmp_path))
    again = _privacy(_audit(spec, "noisy_count", module="strat", folder=tmp_path))
    assert first.verdict.value == "violated"  # a count with Laplace(0.25) is 4-DP, not 1-DP
    assert first.domain == again.domain and first.counterexample["pair_json"] == again.counterexample["pair_json"]


def _first_visit_returns(trajectory, gamma):
    """The discounted return from each state's first visit in a plain trajectory [[s, a, r], ...]."""
    returns, tail = {}, 0.0
    for state, _, reward in reversed(trajectory):
        tail = reward + gamma * tail
        returns[state] = tail
    return returns


def test_rl_search_reaches_the_worst_occupancy_counts_and_the_longest_returns():
    # an unknown DP-RL algorithm: the search must reach each statistic's own worst case from the public
    # parameters alone: visit counts that move by T in two states at once (a T-step stay in one state vs
    # another), and first-visit returns at R_max/(1 - gamma) (a long episode at the reward bound)
    kind = get_mechanism("rl_algorithm")
    params = {"mdp": "chain", "n_states": 5, "gamma": 0.8, "trajectories": [10], "max_steps": 40}
    relation = parse_relation("replace_one")
    proposed = kind.neighbourhood.explore([], params, relation)
    assert proposed
    for first, second, label in proposed:
        assert kind.check_neighbours(first, second, relation, params) == 1.0, label
        assert all(len(trajectory) <= 40 for trajectory in first + second), label

    def counts(dataset):
        return np.bincount([int(step[0]) for trajectory in dataset for step in trajectory], minlength=5)

    shifts = [np.linalg.norm(counts(first) - counts(second)) for first, second, _ in proposed]
    assert max(shifts) == pytest.approx(np.sqrt(2) * 40)
    bound = 1.0 / (1.0 - 0.8)
    reached = max(
        min(_first_visit_returns(trajectory, 0.8).get(state, 0.0) for state in range(5))
        for first, second, _ in proposed
        for trajectory in first + second
    )
    assert 0.99 * bound <= reached <= bound


def test_reward_bounds_that_leave_out_the_mdps_rewards_are_refused():
    # the chain's rollouts carry rewards 0 and 1: a claim for rewards in [0.5, 1] does not cover its datasets
    with pytest.raises(InvalidArgument, match=r"carry rewards in \[0, 1\], outside them"):
        get_mechanism("rl_algorithm").build({"mdp": "chain", "trajectories": [5], "reward_bounds": [0.5, 1.0]})


@pytest.mark.parametrize("bounds", [[-1.0, 0.5], [-1.0, 0.0], [0.0, 2.0], [0.5, 1.0]])
def test_rl_search_keeps_every_reward_inside_the_declared_reward_bounds(bounds):
    # a claim for rewards in [low, high] is not judged on rewards outside them (before: covering trajectories
    # carried max(|low|, |high|), 1 > 0.5 for [-1, 0.5]; the given pairs' variants set rewards to 0 < 0.5)
    kind = get_mechanism("rl_algorithm")
    low, high = bounds
    # a four-state chain (action 0 moves right, action 1 stays) rewarded high at its end, low elsewhere
    params = {
        "mdp": {
            "transitions": [
                [[float(t == min(s + 1, 3)) for t in range(4)], [float(t == s) for t in range(4)]] for s in range(4)
            ],
            "rewards": [[high if s == 3 else low] * 2 for s in range(4)],
            "gamma": 0.9,
        },
        "trajectories": [5],
        "max_steps": 30,
        "reward_bounds": bounds,
    }
    kept = [[0, 0, high], [1, 0, low]]
    given = {
        "replace_one": ([kept, [[2, 0, high]]], [kept, [[3, 0, low], [1, 0, high]]]),
        "add_remove_one": ([kept, [[2, 0, high]]], [kept]),
    }
    for relation in ("replace_one", "add_remove_one"):
        proposed = kind.neighbourhood.explore([given[relation]], params, parse_relation(relation))
        assert proposed
        rewards = [
            step[2] for first, second, _ in proposed for dataset in (first, second) for t in dataset for step in t
        ]
        assert bounds[0] <= min(rewards) and max(rewards) <= bounds[1]
