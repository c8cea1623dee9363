"""The audit's scheduler: obligations run as parallel tasks and give the bytes of a serial run."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace

from dpaudit.audit.runner import run_audit
from dpaudit.audit.scheduling import audit_tasks, claim_tasks, merges, task_cost, tasks_fill_the_workers
from dpaudit.audit.spec import builtin_spec_dir, builtin_specs, load_specs
from dpaudit.kernel.checkers import register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence
from dpaudit.kernel.verdicts import Verdict
from dpaudit.report.json_report import strip_timing


def _claims(*names: str):
    return [(claim, str(path)) for claim, path in load_specs([builtin_spec_dir() / name for name in names])]


def test_every_cell_is_one_task_and_a_shared_sweep_stays_together():
    ((claim, _),) = _claims("balle2016_dp_lsl_sensitivity.toml")
    tasks = claim_tasks(claim)
    cells = [cell for task in tasks for cell in task]
    grid = {(r, o) for r in range(len(claim.relations)) for o in range(len(claim.obligations))}
    assert sorted(cells) == sorted(grid)  # each (relation, obligation) once
    sweeps = [o for o, item in enumerate(claim.obligations) if item.checker == "balle_exhaustive_sensitivity"]
    assert len(sweeps) > 1
    for r in range(len(claim.relations)):
        together = [task for task in tasks if (r, sweeps[0]) in task]
        assert together == [tuple((r, o) for o in sweeps)]  # one task, in the spec's order
    others = [o for o in range(len(claim.obligations)) if o not in sweeps]
    for o in others:  # any other obligation: one task with all its relations
        assert tuple((r, o) for r in range(len(claim.relations))) in tasks


def test_a_pool_of_tasks_gives_the_serial_report():
    claims = _claims(
        "balle2016_dp_lsl_sensitivity.toml",
        "xie2019_section7.toml",
        "gaussian_mechanism.toml",
        "balle2016_smooth_bounds.toml",
        "xie2019_lemma1.toml",
    )  # tasks that fill two workers (the pool runs them: the hook below hears each claim)
    heard: dict[str, list] = {"serial": [], "pool": []}
    serial = run_audit(claims, seed=11, quick=True, while_in_pool=heard["serial"].append)
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = run_audit(claims, seed=11, quick=True, executor=pool, while_in_pool=heard["pool"].append)
    assert [result.claim.id for result in pooled.claims] == [claim.id for claim, _ in claims]
    assert sorted(map(id, heard["pool"])) == sorted(map(id, pooled.claims))  # each claim's result once, as it finished
    assert heard["serial"] == []  # this process runs the obligations: nothing else is done meanwhile
    assert json.dumps(strip_timing(pooled.to_json()), sort_keys=True) == json.dumps(
        strip_timing(serial.to_json()), sort_keys=True
    )


@register_checker("test_scheduler_local", description="a checker only this process knows")
def _local(obligation, context):
    return Evidence(verdict=Verdict.INCONCLUSIVE, summary="local", domain="none", method="test")


def test_a_checker_registered_in_this_process_runs_here_not_in_a_worker():
    (claim, path), second = _claims("gaussian_mechanism.toml", "laplace_mechanism.toml")
    local = Obligation(id="local", statement="only here", checker="test_scheduler_local")
    claims = [(replace(claim, obligations=(*claim.obligations, local)), path), second]
    # spawned workers know only what importing dpaudit registers (forked ones would inherit this registry)
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        report = run_audit(claims, seed=3, quick=True, executor=pool)
    verdicts = [item.evidence.verdict for item in report.claims[0].relations[0].obligations]
    assert verdicts[-1] is Verdict.INCONCLUSIVE  # a worker would not know the checker: error


def test_tasks_run_side_by_side_only_when_they_keep_every_worker_busy():
    assert tasks_fill_the_workers([1.0, 1.0], 2)
    assert tasks_fill_the_workers([3.0, 1.0, 1.0, 1.0], 2)
    assert not tasks_fill_the_workers([1.0], 2)  # one task: its Monte Carlo spreads over the pool
    assert not tasks_fill_the_workers([8.0, 0.1, 0.1], 2)  # one long task would hold one core alone
    assert not tasks_fill_the_workers([1.0, 1.0], 3)


def test_a_claims_obligations_of_one_checker_share_a_task_when_it_keeps_the_longest_task_and_the_workers():
    claims = [claim for claim, _ in load_specs(builtin_specs())]
    for quick in (True, False):
        tasks = audit_tasks(claims, quick, 2)
        cells = sorted((c, cell) for c, task, _ in tasks for cell in task)
        every = sorted(
            (c, (r, o))
            for c, claim in enumerate(claims)
            for r in range(len(claim.relations))
            for o in range(len(claim.obligations))
        )
        assert cells == every  # each (claim, relation, obligation) once
        assert [cost for *_, cost in tasks] == sorted((cost for *_, cost in tasks), reverse=True)
        for c, task, _ in tasks:
            assert list(task) == sorted(task)  # run_claim's order: relation, then obligation
            assert len({claims[c].obligations[o].checker for _, o in task}) == 1
        finest = [task_cost(claim, cells, quick) for claim in claims for cells in claim_tasks(claim)]
        assert len(tasks) < len(finest) and max(cost for *_, cost in tasks) == max(finest)
        assert tasks_fill_the_workers([cost for *_, cost in tasks], 2)
    (peer,) = [c for c, claim in enumerate(claims) if claim.id == "peer-dp-accounting"]  # two obligations, one checker
    assert [len(task) for c, task, _ in audit_tasks(claims, True, 2) if c == peer] == [2]


def test_tasks_are_merged_only_below_the_longest_task_and_while_each_worker_keeps_one():
    assert merges([[0.1, 0.1, 0.1], [1.0], [1.0]], 2) == [True, False, False]
    # 2 + 2 would be longer than the longest task: merged, the schedule would take 6 instead of 5
    assert merges([[2.0, 2.0], [3.0], [3.0]], 2) == [False, False, False]
    assert merges([[1.0, 1.0]], 2) == [False]  # one task could not fill two workers
    assert merges([[0.5, 0.5], [1.0]], 1) == [True, False]
    assert merges([[0.5, 0.5], [0.5, 0.5], [1.0]], 2) == [True, True, False]
    assert merges([[0.5, 0.5], [0.5, 0.5], [1.0]], 4) == [True, False, False]  # the second would leave 3 tasks
    assert merges([[0.5, 0.5], [0.5, 0.5], [1.0]], 5) == [False, False, False]


def test_an_unknown_checker_is_an_error_in_the_report_not_an_exception():
    ((claim, path),) = _claims("gaussian_mechanism.toml")
    unknown = Obligation(id="unknown", statement="no such checker", checker="no_such_checker")
    claims = [(replace(claim, obligations=(*claim.obligations, unknown)), path)]
    with ProcessPoolExecutor(max_workers=2) as pool:
        report = run_audit(claims, seed=3, quick=True, executor=pool)
    last = report.claims[0].relations[0].obligations[-1].evidence
    assert last.verdict is Verdict.ERROR
    assert "no_such_checker" in last.summary


class _PoolWhoseWorkersDie(ProcessPoolExecutor):
    """Every task fails as when the system kills its worker (no process is started)."""

    def submit(self, fn, /, *args, **kwargs):
        future: Future = Future()
        future.set_exception(BrokenProcessPool("a process in the pool was terminated abruptly"))
        return future


def test_a_worker_that_dies_leaves_errors_in_a_complete_report():
    claims = _claims("gaussian_mechanism.toml", "xie2019_lemma1.toml")
    pool = _PoolWhoseWorkersDie(max_workers=2)
    report = run_audit(claims, seed=3, quick=True, executor=pool)
    pool.shutdown()
    assert [result.claim.id for result in report.claims] == [claim.id for claim, _ in claims]
    items = [item for result in report.claims for relation in result.relations for item in relation.obligations]
    assert items and all(item.evidence.verdict is Verdict.ERROR for item in items)
    assert report.internal_errors == len(items)
    assert "terminated abruptly" in items[0].evidence.summary
    json.dumps(report.to_json())
