"""Reproduction of Gohari, Hale & Topcu 2020, Sec. VI: Examples 1 and 2 and Fig. 1.

For each k of a grid and each of 50 runs, Algorithm 1 privatises the transitions, plans on
the privatised MDP and evaluates π̄; the pessimistic and optimistic values of Theorem 1
bound the cost of privacy. The reproduction records, per k: the optimistic, pessimistic,
private (V̄^π̄, π̄ on P̄), true (V^π̄, π̄ on P) and non-private optimal (V*) values at s0;
the cost of privacy v̄ − v̲; how often [v̲, v̄] brackets V^π̄ against the fraction the
paper's statements imply; the per-row coverage ‖P̄ − P‖∞ <= α of Lemma 2; the time per k
of the cost-of-privacy computation next to the paper's 4.88 s; and, for Example 2, the
exact inner solution against cvxpy on the LP (P).

Assumptions the paper leaves open (stated in the summary): β = 0.1; Example 1 has T = 1,
γ = 1, R_T = (0, 1, 0) (dpaudit.rl.domains.investment); Example 2 draws rows from
Dirichlet(1), r and R_T from U[0, 1], γ = 1 (dpaudit.rl.domains.random_mdp).

Example 1 lies outside the Dirichlet mechanism's domain (its rows have zero entries:
P(s0, a, s0) = 0 and Hit, Miss are absorbing). The reproduction records the error the
paper's literal algorithm raises and runs the documented variant that privatises each
row on its support (zeros are public structure; point-mass rows stay as they are).

References:
    Gohari, Hale & Topcu 2020, Sec. VI, Examples 1-2, Fig. 1, Fig. 2; Algorithm 1;
    Lemma 2; Theorem 1; Sec. V-A (LP (P)).
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from dpaudit._validation import check_integer
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.synthesis import (
    CostOfPrivacy,
    SynthesisResult,
    concentration_radius,
    cost_of_privacy,
    privatize_transitions,
    synthesize,
)
from dpaudit.rl.domains.investment import investment_mdp
from dpaudit.rl.domains.random_mdp import random_mdp
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rng import spawn_seed_sequences

__all__ = ["PAPER_SECONDS_PER_K", "run"]

PAPER_SECONDS_PER_K = 4.88
"""Gohari et al. 2020, Sec. VI: time of the cost-of-privacy computation per k for Example 2."""

BETA = 0.1
RUNS = 50
K_GRID = (1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 40.0)
K_GRID_QUICK = (1.0, 5.0, 20.0, 40.0)
FIELDS = (
    "example",
    "k",
    "run",
    "optimistic",
    "pessimistic",
    "private",
    "true",
    "nonprivate",
    "cost",
    "bracketed",
    "rows_in_box",
    "rows",
    "seconds",
)


@dataclass(frozen=True)
class _Example:
    name: str
    mdp: FiniteMDP
    structural_zeros: str
    domain_note: str


def _examples(seed: np.random.SeedSequence) -> list[_Example]:
    investment = investment_mdp()
    try:
        privatize_transitions(investment.transitions, 1.0, rng=0)
        note = "inside the domain"
    except InvalidArgument as error:
        note = (
            f"outside the Dirichlet mechanism's domain: `{error}`; ran the documented variant "
            "(structural_zeros='keep': each row privatised on its support, point-mass rows unchanged)"
        )
    random = random_mdp(rng=seed)
    return [
        _Example("Example 1 (investment)", investment, "keep", note),
        _Example("Example 2 (random, 20 states, 5 actions, T = 10)", random, "reject", "inside the domain"),
    ]


def _synthesis(example: _Example, k: float, seed: np.random.SeedSequence) -> SynthesisResult:
    """One run of private policy synthesis on the example's MDP at concentration ``k``."""
    return synthesize(example.mdp, k, rng=seed, structural_zeros=example.structural_zeros)


def _timed_cost_of_privacy(
    example: _Example, result: SynthesisResult, k: float, inner: str = "exact"
) -> tuple[CostOfPrivacy, float]:
    """The cost-of-privacy bounds of a synthesis ``result`` (computed by ``inner``), and the seconds they took."""
    start = time.perf_counter()
    bounds = cost_of_privacy(example.mdp, result.policy, result.privatized.transitions, k, BETA, inner=inner)
    return bounds, time.perf_counter() - start


def _one_run(example: _Example, k: float, seed: np.random.SeedSequence) -> dict[str, Any]:
    mdp = example.mdp
    result = _synthesis(example, k, seed)
    bounds, seconds = _timed_cost_of_privacy(example, result, k)
    low, high = bounds.at_start(mdp.initial)
    true_value = float(mdp.initial @ result.true_values[0])
    mask = result.privatized.privatized_rows
    deviation = np.max(np.abs(result.privatized.transitions - mdp.transitions), axis=2)[mask]
    return {
        "k": k,
        "optimistic": high,
        "pessimistic": low,
        "private": float(mdp.initial @ result.private_values[0]),
        "true": true_value,
        "nonprivate": float(mdp.initial @ result.optimal_values[0]),
        "cost": high - low,
        "bracketed": int(low - 1e-12 <= true_value <= high + 1e-12),
        "rows_in_box": int(np.count_nonzero(deviation <= bounds.alpha)),
        "rows": int(mask.sum()),
        "seconds": seconds,
    }


def _clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    alpha = 1.0 - confidence
    low = 0.0 if successes == 0 else float(stats.beta.ppf(alpha / 2, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(stats.beta.isf(alpha / 2, successes + 1, trials - successes))
    return low, high


def _summarise(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    table = []
    for k in sorted({record["k"] for record in records}):
        group = [record for record in records if record["k"] == k]
        rows = group[0]["rows"]
        bracketed = sum(record["bracketed"] for record in group)
        in_box = sum(record["rows_in_box"] for record in group)
        entry: dict[str, Any] = {"k": k, "runs": len(group), "rows": rows}
        for key in ("optimistic", "pessimistic", "private", "true", "nonprivate", "cost", "seconds"):
            values = np.array([record[key] for record in group])
            entry[f"{key}_mean"] = float(values.mean())
            entry[f"{key}_sd"] = float(values.std(ddof=1)) if values.size > 1 else 0.0
        entry["bracketed"] = bracketed
        entry["bracket_interval"] = _clopper_pearson(bracketed, len(group))
        entry["implied_fraction"] = (1.0 - BETA) ** rows
        entry["row_coverage"] = in_box / (rows * len(group))
        entry["row_coverage_interval"] = _clopper_pearson(in_box, rows * len(group))
        entry["alpha"] = concentration_radius(k, BETA)
        table.append(entry)
    return table


def _cvxpy_comparison(example: _Example, k: float, seed: np.random.SeedSequence) -> dict[str, float]:
    result = _synthesis(example, k, seed)
    exact, exact_seconds = _timed_cost_of_privacy(example, result, k)
    lp, lp_seconds = _timed_cost_of_privacy(example, result, k, inner="cvxpy")
    difference = max(float(np.max(np.abs(exact.lower - lp.lower))), float(np.max(np.abs(exact.upper - lp.upper))))
    return {
        "k": k,
        "exact_seconds": exact_seconds,
        "cvxpy_seconds": lp_seconds,
        "speedup": lp_seconds / exact_seconds,
        "max_difference": difference,
    }


def _figures(out_dir: Path, summaries: dict[str, list[dict[str, Any]]]) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    labels = {
        "optimistic": "optimistic v̄_0(s0)",
        "pessimistic": "pessimistic v̲_0(s0)",
        "private": "private V̄_0^π̄(s0)",
        "true": "π̄ on true P, V_0^π̄(s0)",
        "nonprivate": "non-private V*_0(s0)",
    }
    for index, (name, table) in enumerate(summaries.items()):
        figure, axes = plt.subplots(figsize=(5.5, 4))
        ks = [entry["k"] for entry in table]
        for key, label in labels.items():
            axes.errorbar(
                ks,
                [e[f"{key}_mean"] for e in table],
                yerr=[e[f"{key}_sd"] for e in table],
                label=label,
                marker="o",
                capsize=3,
            )
        axes.set_xlabel("k")
        axes.set_ylabel("value at s0")
        axes.set_title(f"Fig. 1{'ab'[index]}: {name}")
        axes.legend(fontsize=7)
        path = out_dir / f"gohari2020_fig1{'ab'[index]}.svg"
        figure.tight_layout()
        figure.savefig(path, metadata={"Date": None})
        plt.close(figure)
        paths.append(path)
    figure, axes = plt.subplots(figsize=(5.5, 4))
    for name, table in summaries.items():
        axes.errorbar(
            [e["k"] for e in table],
            [e["cost_mean"] for e in table],
            yerr=[e["cost_sd"] for e in table],
            label=name,
            marker="o",
            capsize=3,
        )
    axes.set_xlabel("k")
    axes.set_ylabel("cost of privacy v̄_0(s0) − v̲_0(s0)")
    axes.set_title("Fig. 1c: cost of privacy")
    axes.legend(fontsize=7)
    path = out_dir / "gohari2020_fig1c.svg"
    figure.tight_layout()
    figure.savefig(path, metadata={"Date": None})
    plt.close(figure)
    paths.append(path)
    return paths


def _example_section(example: _Example, table: list[dict[str, Any]]) -> list[str]:
    """The summary's section of one example: its table per k and where the bracketing or the row
    coverage falls short of what the paper's statements imply."""
    lines = [
        f"## {example.name}",
        "",
        f"Domain: {example.domain_note}.",
        "",
        "| k | alpha | optimistic | pessimistic | private | true | non-private | cost of privacy | "
        "bracketed (95% CI) | implied >= | row coverage (95% CI) | s per k (bounds) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for e in table:

        def cell(key: str, e: dict = e) -> str:
            return f"{e[key + '_mean']:.4f} ± {e[key + '_sd']:.4f}"

        low, high = e["bracket_interval"]
        cov_low, cov_high = e["row_coverage_interval"]
        lines.append(
            f"| {e['k']:g} | {e['alpha']:.4f} | {cell('optimistic')} | {cell('pessimistic')} | {cell('private')} | "
            f"{cell('true')} | {cell('nonprivate')} | {cell('cost')} | {e['bracketed']}/{e['runs']} "
            f"[{low:.3f}, {high:.3f}] | {e['implied_fraction']:.3g} | {e['row_coverage']:.4f} "
            f"[{cov_low:.4f}, {cov_high:.4f}] | {e['seconds_mean'] * e['runs']:.4f} |"
        )
    shortfall = [e for e in table if e["bracket_interval"][1] < e["implied_fraction"]]
    coverage_short = [e for e in table if e["row_coverage_interval"][1] < 1.0 - BETA]
    lines += [
        "",
        "Bracketing below the implied fraction (upper CI end < implied) at k = "
        + (", ".join(f"{e['k']:g}" for e in shortfall) or "none")
        + ".",
        "Row coverage below Lemma 2's 1 - beta (upper CI end < 1 - beta) at k = "
        + (", ".join(f"{e['k']:g}" for e in coverage_short) or "none")
        + ".",
        "",
    ]
    return lines


def _markdown(
    examples: list[_Example],
    summaries: dict[str, list[dict[str, Any]]],
    comparisons: list[dict[str, float]],
    figures: list[Path],
    quick: bool,
    seed: int,
) -> str:
    lines = [
        "# Gohari, Hale & Topcu 2020 — Examples 1 and 2 (Fig. 1)",
        "",
        f"Seed {seed}; {'quick' if quick else 'full'} run; {RUNS} runs per k; beta = {BETA} "
        "(the paper does not state its beta).",
        "",
        "Assumptions the paper leaves open: Example 1 has T = 1, gamma = 1, Hit/Miss absorbing, R_T = (0, 1, 0); "
        "Example 2 draws every row from Dirichlet(1), r and R_T from U[0, 1], gamma = 1, start in state 0.",
        "",
        "Columns: optimistic/pessimistic = Theorem 1's v̄_0(s0), v̲_0(s0); private = V̄_0^π̄(s0) (π̄ on the "
        "privatised transitions); true = V_0^π̄(s0) (π̄ on the true transitions, the utility); non-private = V*_0(s0). "
        "Mean ± standard deviation over the runs.",
        "",
        "Bracketing: the fraction of runs with v̲ <= V^π̄(s0) <= v̄ (95% Clopper-Pearson interval) next to the "
        "fraction the paper's statements imply: if Lemma 2 holds, every privatised row lies in its alpha-box "
        "with probability >= 1 - beta independently, so the true transitions lie in P̂ and the bounds bracket "
        "V^π̄ with probability >= (1 - beta)^m (m privatised rows). Row coverage is the observed fraction of "
        "rows with ||P̄ - P||_inf <= alpha, to compare with Lemma 2's 1 - beta.",
        "",
    ]
    for example in examples:
        lines += _example_section(example, summaries[example.name])
    lines += [
        "## Time per k of the cost-of-privacy computation (Example 2)",
        "",
        f"The paper reports {PAPER_SECONDS_PER_K} s per k (3.5 GHz desktop, LP per inner problem). The column "
        "'s per k (bounds)' above is the total time of the bounds over the runs of one k with the exact greedy "
        "inner solution. One run per k below, exact inner solution vs cvxpy (CLARABEL) on the LP (P) for every "
        "inner problem (each LP re-checked by its dual before use):",
        "",
        "| k | exact s | cvxpy s | speed-up | max abs difference | paper s / exact s |",
        "|---|---|---|---|---|---|",
    ]
    for c in comparisons:
        lines.append(
            f"| {c['k']:g} | {c['exact_seconds']:.4f} | {c['cvxpy_seconds']:.3f} | {c['speedup']:.0f}x | "
            f"{c['max_difference']:.2e} | {PAPER_SECONDS_PER_K / c['exact_seconds']:.0f}x |"
        )
    lines += ["", "## Figures", ""] + [f"![{path.stem}]({path.name})" for path in figures] + [""]
    return "\n".join(lines)


#: The columns of gohari2020_summary.csv after ``example``: (header, key of a summary entry).
_SUMMARY_COLUMNS = (
    ("k", "k"),
    ("alpha", "alpha"),
    ("optimistic", "optimistic_mean"),
    ("pessimistic", "pessimistic_mean"),
    ("private", "private_mean"),
    ("true", "true_mean"),
    ("nonprivate", "nonprivate_mean"),
    ("cost", "cost_mean"),
    ("bracketed", "bracketed"),
    ("runs", "runs"),
    ("implied_fraction", "implied_fraction"),
    ("row_coverage", "row_coverage"),
)


def _write_tables(out_dir: Path, records: list[dict[str, Any]], summaries: dict[str, list[dict[str, Any]]]) -> None:
    """Write every run (gohari2020_runs.csv) and the per-(example, k) summary (gohari2020_summary.csv)."""
    with open(out_dir / "gohari2020_runs.csv", "w", newline="", encoding="utf-8") as handle:
        runs = csv.DictWriter(handle, fieldnames=FIELDS)
        runs.writeheader()
        for record in records:
            runs.writerow({key: record[key] for key in FIELDS})
    with open(out_dir / "gohari2020_summary.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["example", *(header for header, _ in _SUMMARY_COLUMNS)])
        for name, table in summaries.items():
            for entry in table:
                writer.writerow([name, *(entry[key] for _, key in _SUMMARY_COLUMNS)])


def run(out_dir: Path, *, quick: bool, seed: int) -> Path:
    """Run the reproduction and write SVG figures, CSV tables and a Markdown summary to ``out_dir``.

    Args:
        out_dir: output folder (created if missing).
        quick: a smaller k grid and one cvxpy comparison (a few seconds on 2 cores).
        seed: the root seed of every random draw.

    Returns:
        The path of the Markdown summary.

    References:
        Gohari et al. 2020, Sec. VI and Fig. 1.
    """
    seed = check_integer("seed", seed, low=0)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    mdp_seed, run_seed, lp_seed = spawn_seed_sequences(seed, 3)
    examples = _examples(mdp_seed)
    ks = K_GRID_QUICK if quick else K_GRID
    records: list[dict[str, Any]] = []
    summaries: dict[str, list[dict[str, Any]]] = {}
    example_seeds = spawn_seed_sequences(run_seed, len(examples))
    for example, example_seed in zip(examples, example_seeds, strict=False):
        own = []
        for k, k_seed in zip(ks, spawn_seed_sequences(example_seed, len(ks)), strict=False):
            for index, one_seed in enumerate(spawn_seed_sequences(k_seed, RUNS)):
                record = {"example": example.name, "run": index, **_one_run(example, k, one_seed)}
                own.append(record)
        records += own
        summaries[example.name] = _summarise(own)
    comparison_ks = (ks[len(ks) // 2],) if quick else ks
    comparisons = [
        _cvxpy_comparison(examples[1], k, s)
        for k, s in zip(comparison_ks, spawn_seed_sequences(lp_seed, len(comparison_ks)), strict=False)
    ]
    _write_tables(out_dir, records, summaries)
    figures = _figures(out_dir, summaries)
    summary = out_dir / "gohari2020_summary.md"
    summary.write_text(_markdown(examples, summaries, comparisons, figures, quick, seed), encoding="utf-8")
    return summary
