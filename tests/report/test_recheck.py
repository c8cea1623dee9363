"""dpaudit recheck: every certified fact is replayed by an independent route; edits are caught."""

import json
from decimal import Decimal

import pytest

from dpaudit.audit.spec import builtin_spec_dir
from dpaudit.cli import main
from dpaudit.report.json_report import with_digest
from dpaudit.report.recheck import recheck_report

SPECS = [builtin_spec_dir() / name for name in ("gaussian_mechanism.toml", "gohari2020_dirichlet_mechanism.toml")]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("audit")
    assert main(["audit", *map(str, SPECS), "--quick", "--quiet", "--out", str(out)]) == 0
    return out / "audit.json"


def _certified(document):
    for claim in document["claims"]:
        for relation in claim["relations"]:
            for item in relation["obligations"]:
                if "certificate" in item["evidence"]:
                    yield item["evidence"]


def _write(tmp_path, document, *, digest=True):
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(with_digest(document) if digest else document))
    return path


def test_a_fresh_audit_rechecks(report):
    result = recheck_report(report)
    assert result.ok, result.failures
    assert len(result.replayed) == 4 and not result.uncertified  # 3 facts and the Dirichlet search run again
    assert main(["recheck", str(report)]) == 0


def test_an_edited_verdict_fails(report, tmp_path):
    document = json.loads(report.read_text())
    document["claims"][0]["relations"][0]["obligations"][-1]["evidence"]["verdict"] = "verified"
    assert main(["recheck", str(_write(tmp_path, document, digest=False))]) == 1
    # with a recomputed digest the chain still follows (another obligation keeps the relation
    # consistent), but the new `verified` has no certificate, which dpaudit gives every verified of a reference
    path = _write(tmp_path, document)
    assert any(
        "privacy-loss-histogram: verified without a certificate" in line for line in recheck_report(path).failures
    )
    assert main(["recheck", str(path)]) == 1
    # an edit that breaks the verdict chain is refused even with a fresh digest
    document["claims"][0]["relations"][0]["obligations"][0]["evidence"]["verdict"] = "violated"
    assert any("integrity" in line for line in recheck_report(_write(tmp_path, document)).failures)


def test_a_verdict_edited_to_proven_is_run_again_and_refused(report, tmp_path):
    """A symbolic proof has no certificate: recheck runs a ``proven`` obligation again from its spec. One edited
    from ``verified`` to ``proven`` (its certificate dropped, the relation's verdict still following) fails."""
    document = json.loads(report.read_text())
    relation = document["claims"][0]["relations"][0]
    evidence = next(item["evidence"] for item in relation["obligations"] if item["evidence"]["verdict"] == "verified")
    evidence["verdict"] = "proven"
    del evidence["certificate"]
    result = recheck_report(_write(tmp_path, document))
    assert not any("integrity" in line for line in result.failures)
    refused = "run again, the check says verified (the report: proven)"
    assert any(refused in line for line in result.failures), result.failures
    assert any(
        "rerun skipped: proven" in line for line in recheck_report(_write(tmp_path, document), rerun=False).no_route
    )


@pytest.mark.parametrize("where", ["low", "high"])
def test_an_enclosure_changed_in_its_sixth_digit_fails_even_with_a_fresh_digest(report, tmp_path, where):
    document = json.loads(report.read_text())
    fact = next(_certified(document))["certificate"]["facts"][0]
    index = 0 if where == "low" else 1
    digits = fact["enclosure"][index]
    fact["enclosure"][index] = digits[:5] + str((int(digits[5]) + 1) % 10) + digits[6:]
    result = recheck_report(_write(tmp_path, document))
    assert not result.ok
    assert any(word in line for line in result.failures for word in ("route gives", "empty", "wider"))


def _upper_bounded_fact(document):
    """The first certified fact that bounds a quantity from above, with its claim."""
    for claim in document["claims"]:
        for relation in claim["relations"]:
            for item in relation["obligations"]:
                for fact in item["evidence"].get("certificate", {}).get("facts", []):
                    if fact["relation"] == "<=" and fact["route"] != "rerun":
                        return claim["claim"], fact
    raise AssertionError("no certified upper bound in the report")


def test_an_enclosure_moved_whole_away_from_the_independent_route_fails(report, tmp_path):
    """Both ends moved down by a millionth: the width and the bound still hold, only the replay sees it."""
    document = json.loads(report.read_text())
    _, fact = _upper_bounded_fact(document)
    low, high = (Decimal(end) for end in fact["enclosure"])
    shift = high * Decimal("1e-6")
    fact["enclosure"] = [str(low - shift), str(high - shift)]
    failures = recheck_report(_write(tmp_path, document)).failures
    assert any("the independent route gives" in line for line in failures), failures


def test_an_enclosure_past_its_bound_fails_though_the_route_agrees(report, tmp_path):
    """The claim's delta and the fact's bound lowered together under the certified value: the replay agrees
    with the enclosure, which no longer supports the claim."""
    document = json.loads(report.read_text())
    claim, fact = _upper_bounded_fact(document)
    lowered = float(Decimal(fact["enclosure"][0]) * Decimal("0.9"))
    claim["guarantee"]["delta"] = lowered
    fact["bound"] = str(Decimal(lowered))
    failures = recheck_report(_write(tmp_path, document)).failures
    assert any("exceeds the bound" in line for line in failures), failures


def test_a_fact_moved_to_another_claim_or_bound_fails(report, tmp_path):
    document = json.loads(report.read_text())
    fact = next(_certified(document))["certificate"]["facts"][0]
    fact["inputs"]["epsilon"] = "5"
    assert any("epsilon" in line for line in recheck_report(_write(tmp_path, document)).failures)
    document = json.loads(report.read_text())
    next(_certified(document))["certificate"]["facts"][0]["bound"] = "0.001"
    assert any("bound" in line for line in recheck_report(_write(tmp_path, document)).failures)


def test_a_verified_obligation_of_a_reference_without_its_certificate_fails(report, tmp_path):
    document = json.loads(report.read_text())
    del next(_certified(document))["certificate"]
    result = recheck_report(_write(tmp_path, document))
    assert not result.ok and not result.uncertified
    assert any("verified without a certificate" in line for line in result.failures)


@pytest.mark.parametrize("edit", ["drop an obligation", "add an obligation", "drop a relation"])
def test_a_report_re_signed_without_the_obligations_its_spec_states_fails(report, tmp_path, edit):
    """The digest binds the content but anyone can compute it: a report whose obligations are not those of its
    spec (a violated one deleted, say) is refused, whatever the digest."""
    document = json.loads(report.read_text())
    claim = document["claims"][0]
    relation = claim["relations"][0]
    if edit == "drop an obligation":
        del relation["obligations"][-1]
    elif edit == "add an obligation":
        extra = json.loads(json.dumps(relation["obligations"][-1]))
        extra["obligation"]["id"] = "forged"
        relation["obligations"].append(extra)
    else:
        del claim["relations"][-1]
    result = recheck_report(_write(tmp_path, document))
    assert any("its spec states" in line or "are not the spec's" in line for line in result.failures), result.failures


def test_a_certificate_on_a_verdict_other_than_verified_fails(report, tmp_path):
    document = json.loads(report.read_text())
    evidence = next(_certified(document))
    other = document["claims"][0]["relations"][0]["obligations"][-1]["evidence"]
    assert other["verdict"] != "verified"
    other["certificate"] = evidence["certificate"]
    assert any("certificate on a" in line for line in recheck_report(_write(tmp_path, document)).failures)


def test_not_a_report_is_a_usage_error(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[1, 2]")
    assert main(["recheck", str(path)]) == 2


def test_reports_show_the_assumption_and_the_certificate(report, tmp_path):
    markdown = tmp_path / "audit.md"
    assert main(["report", str(report), "--output", str(markdown)]) == 0
    text = markdown.read_text()
    assert "verified under assumption: the worst neighbouring pair" in text
    assert "dpaudit recheck replays them" in text
    html = tmp_path / "audit.html"
    assert main(["report", str(report), "--format", "html", "--output", str(html)]) == 0
    assert "verified under assumption" in html.read_text()


def test_a_folder_whose_files_come_from_different_runs_is_refused(report, tmp_path):
    import shutil

    folder = tmp_path / "folder"
    shutil.copytree(report.parent, folder)
    assert recheck_report(folder).ok
    run = json.loads((folder / "audit.json").read_text())["digest"]
    for name in ("audit.md", "audit.html", "junit.xml"):
        assert run in (folder / name).read_text()
    other = tmp_path / "other"
    assert main(["audit", str(SPECS[0]), "--quick", "--quiet", "--seed", "7", "--out", str(other)]) == 0
    shutil.copy(other / "audit.md", folder / "audit.md")  # a stale file of another run
    result = recheck_report(folder)
    assert any("files of different runs" in line for line in result.failures)
    assert main(["recheck", str(folder)]) == 1


def test_on_a_pool_the_lines_keep_the_reports_order_and_progress_names_each_obligation(report):
    serial = recheck_report(report)
    lines: list[str] = []
    pooled = recheck_report(report, workers=2, progress=lines.append)
    assert pooled.lines() == serial.lines()
    finished = [line for line in lines if line.startswith("[")]
    assert len(finished) == len({line.split("] ", 1)[1].rsplit(":", 1)[0] for line in finished}) >= 2
    assert all(line.endswith(": ok") and (", fact" in line or ", its search run again" in line) for line in finished)


def test_one_claim_is_rechecked_alone_and_an_unknown_claim_is_a_usage_error(report, capsys):
    document = json.loads(report.read_text())
    claim_id = document["claims"][0]["claim"]["id"]
    result = recheck_report(report, claim_id=claim_id)
    assert result.ok and result.replayed
    assert all(line.startswith(f"{claim_id}/") for line in result.replayed)
    assert main(["recheck", str(report), "--claim", "no-such-claim"]) == 2
    assert main(["recheck", str(report), "--claim", claim_id, "--jobs", "1"]) == 0


def test_a_report_re_signed_with_another_seed_than_its_obligations_ran_from_fails(report, tmp_path):
    document = json.loads(report.read_text())
    document["seed"] += 1  # the seed a reader would re-run with: it must be the one every obligation ran from
    result = recheck_report(_write(tmp_path, document))
    assert any("its obligations ran from seed" in line for line in result.failures), result.failures


def _dirichlet(document):
    return next(
        evidence
        for evidence in _certified(document)
        if evidence["certificate"]["facts"][0]["route"] == "beta_pair_delta"
    )


def test_a_dirichlet_fact_about_a_pair_the_claim_does_not_admit_fails(report, tmp_path):
    """A reviewer's forgery: a violated Dirichlet report turned verified with a certificate about a pair of equal
    inputs (its delta is 0 for any claim). The pair must be the Beta reduction of b-adjacent inputs of the claim's
    k, every component at least its eta."""
    for edit, fragment in [
        ({"a_p": "5", "b_p": "15", "a_q": "5", "b_q": "15"}, "shift"),  # equal inputs
        ({"a_p": "1", "b_p": "19", "a_q": "3", "b_q": "17"}, "below k eta"),  # a component under eta
        ({"a_p": "20", "b_p": "80", "a_q": "22", "b_q": "78"}, "mass"),  # another k
    ]:
        document = json.loads(report.read_text())
        _dirichlet(document)["certificate"]["facts"][0]["inputs"].update(edit)
        failures = recheck_report(_write(tmp_path, document)).failures
        assert any(fragment in line for line in failures), (edit, failures)


def test_a_verified_obligation_whose_own_measurement_exceeds_the_claim_fails(report, tmp_path):
    """The same forgery kept the measurement that refutes the claim (0.226 against 1e-10) under the edited verdict."""
    document = json.loads(report.read_text())
    measurement = _dirichlet(document)["measurements"][0]
    measurement["measured"] = measurement["interval"][1] = "0.5"
    failures = recheck_report(_write(tmp_path, document)).failures
    assert any("reaches 0.5, above the claimed 0.015273" in line for line in failures), failures


def test_a_dirichlet_fact_about_an_admissible_pair_that_is_not_the_worst_fails(report, tmp_path):
    """The review of the binding: a pair in the middle of the simplex is one the claim admits and its fact replays,
    but it is not the worst pair; recheck runs the search again and finds a worse one."""
    from dpaudit.checks.certificates.facts import certified_fact
    from dpaudit.privacy.dirichlet_pair import BetaPair, beta_pair_delta

    document = json.loads(report.read_text())
    evidence = _dirichlet(document)
    fact = evidence["certificate"]["facts"][0]
    middle = BetaPair(9.0, 11.0, 11.0, 9.0)  # p = (0.45, 0.55), q = (0.55, 0.45): k b / 2 = 2
    delta = beta_pair_delta(float(fact["inputs"]["epsilon"]), middle)
    inputs = {"a_p": 9.0, "b_p": 11.0, "a_q": 11.0, "b_q": 9.0, "epsilon": float(fact["inputs"]["epsilon"])}
    forged = certified_fact("beta_pair_delta", fact["quantity"], inputs, (delta.lower, delta.upper), 0.015273)
    evidence["certificate"]["facts"][0] = forged.to_json()
    failures = recheck_report(_write(tmp_path, document)).failures
    assert any("the search finds a worse case" in line for line in failures), failures


def test_a_verified_dirichlet_report_with_a_shift_far_below_its_coordinates_rechecks(tmp_path):
    """The review of the binding: with b = 1e-8 beside coordinates of 0.4 the float64 shift k (x + b/2) - k x is off by
    1e-8 of itself, and a relative tolerance of 1e-9 failed a genuine report; the rounding is absolute."""
    spec = tmp_path / "small_b.toml"
    spec.write_text(
        'schema = 1\n[claim]\nid = "small-b"\ntitle = "t"\nrelations = ["simplex_adjacent(1e-08)"]\n'
        '[claim.source]\npaper = "p"\nlocation = "l"\n[claim.mechanism]\nname = "dirichlet"\n'
        'params = { k = 100.0, eta = 0.4 }\n[claim.guarantee]\nkind = "approx_dp"\nepsilon = 0.0001\ndelta = 0.001\n'
        '[[obligations]]\nid = "exact"\nstatement = "s"\nchecker = "dirichlet_exact_profile"\n'
        "params = { n = 2, grid = 40 }\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert main(["audit", str(spec), "--quiet", "--executor", "serial", "--out", str(out)]) == 0
    result = recheck_report(out / "audit.json")
    assert result.ok and len(result.replayed) == 2, result.failures  # the fact, and the search run again


@pytest.fixture(scope="module")
def searched_report(tmp_path_factory):
    """A quick audit with Lemma 1's grid of searched worst pairs and the tail bound's re-run margins."""
    out = tmp_path_factory.mktemp("searched")
    specs = [
        builtin_spec_dir() / name for name in ("balle2016_lemma1_supplementary.toml", "xie2019_theorem4_abadi.toml")
    ]
    assert main(["audit", *map(str, specs), "--quick", "--quiet", "--out", str(out)]) == 0
    return out / "audit.json"


def _obligation(document, obligation_id):
    return next(
        item
        for claim in document["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
        if item["obligation"]["id"] == obligation_id
    )


def test_a_fact_of_another_checkers_route_fails(report, tmp_path):
    """A reviewer's forgery: the Gaussian exact profile's fact swapped for a Laplace fact of delta 0 (the margin grew
    to the whole bound); any obligation could be certified so. A route replays the checkers it is written for."""
    document = json.loads(report.read_text())
    evidence = next(e for e in _certified(document) if e["certificate"]["facts"][0]["route"] == "gaussian_shift_delta")
    fact = evidence["certificate"]["facts"][0]
    fact["route"], fact["inputs"] = "laplace_shift_delta", {**fact["inputs"], "scale": "1000"}
    failures = recheck_report(_write(tmp_path, document)).failures
    assert any("certifies no gaussian_exact_profile obligation" in line for line in failures), failures


def test_a_set_aside_flag_on_a_checker_that_sets_nothing_aside_counts(report, tmp_path):
    """A reviewer's forgery: details.assumption_rejected on an obligation that is not a parametric fit took it out of
    its relation's verdict, so a violated (or inconclusive) obligation left its relation and claim verified."""
    document = json.loads(report.read_text())
    relation = document["claims"][0]["relations"][0]
    item = relation["obligations"][-1]
    item["evidence"]["verdict"] = "violated"
    item["evidence"]["details"] = {**(item["evidence"].get("details") or {}), "assumption_rejected": True}
    failures = recheck_report(_write(tmp_path, document)).failures
    assert any("does not follow from its obligations" in line for line in failures), failures


@pytest.mark.parametrize("edit", ["favourable_pair", "points_dropped"])
def test_lemma1_facts_are_the_worst_pairs_the_search_finds_again_at_every_point(searched_report, tmp_path, edit):
    """A reviewer's forgeries: a Lemma 1 fact with a more favourable pair (its delta from 7.5e-19 to 3e-546), or
    points of the grid deleted; each fact replayed by its route, so both passed."""
    document = json.loads(searched_report.read_text())
    facts = _obligation(document, "exact-worst-case-grid")["evidence"]["certificate"]["facts"]
    if edit == "favourable_pair":
        facts[0]["inputs"]["shift"] = "0.0001"
        facts[0]["enclosure"] = ["0", "1e-300"]
    else:
        del facts[1:3]
    failures = recheck_report(_write(tmp_path, document)).failures
    fragment = "finds a worse case" if edit == "favourable_pair" else "certifies other points"
    assert any(fragment in line for line in failures), failures


def test_a_re_run_margin_widened_upward_fails(searched_report, tmp_path):
    """A reviewer's forgery: a re-run fact's margin [1.94e-7, 1.94e-7] widened to [1.94e-7, 0.5] still met the re-run's
    enclosure. The recorded enclosure may not reach far above the re-run's."""
    document = json.loads(searched_report.read_text())
    fact = _obligation(document, "tail-bound-poisson")["evidence"]["certificate"]["facts"][0]
    fact["enclosure"][1] = "0.5"
    failures = recheck_report(_write(tmp_path, document)).failures
    assert any("the certified upper end 0.5 is above it" in line for line in failures), failures


def test_a_fresh_audit_with_searched_worst_pairs_and_re_run_margins_rechecks(searched_report):
    result = recheck_report(searched_report)
    assert result.ok, result.failures
    assert any("the search run again from its spec finds no worse case" in line for line in result.replayed)
