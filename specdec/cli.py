"""The terminal face of specdec: ``python -m specdec step | speedup``.

``step`` prints one verify step draw by draw; ``speedup`` prints the best draft length for an
acceptance rate and a cost ratio. (The benchmarks live outside the package: ``python -m benchmarks``.)
"""

from __future__ import annotations

import argparse

from . import narrate as example_rows
from .core import expected_tokens
from .narrate import narrate_trace
from .validation import DEFAULT_MAX_GAMMA, LARGEST_MAX_GAMMA, MAX_GAMMA, MAX_VOCAB, CostRatio, Count, Probability
from .theory import optimal_gamma, speedup


#: Defaults of ``step``'s random rows; None in the parser, so that ``--example`` can tell them apart.
STEP_DEFAULTS = {"gamma": 3, "vocab": 6, "closeness": 0.5}


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2, never a traceback."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="python -m specdec",
        description="Speculative decoding, one random draw at a time (p = target, q = draft).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=OneLineParser)

    step = commands.add_parser(
        "step",
        help="print one verify step draw by draw",
        description="Run one verify step on seeded random rows (or the worked example) and print every draw.",
    )
    step.add_argument("--gamma", type=int, help=f"number of draft tokens γ, 0 … {MAX_GAMMA} (default: 3)")
    step.add_argument("--vocab", type=int, help="vocabulary size V, 2 … 1,000,000 (default: 6)")
    step.add_argument("--seed", type=int, default=0, help="seed of the rows, the draft and the step (default: 0)")
    step.add_argument(
        "--closeness", type=float,
        help="how close the draft rows are to the target rows, 0 … 1 (default: 0.5)",
    )
    step.add_argument(
        "--example", action="store_true",
        help="use the worked example (γ = 2, V = 4, draft tokens A B) instead of random rows; "
        "it fixes γ, V and the rows, so it takes none of --gamma, --vocab, --closeness",
    )

    speed = commands.add_parser(
        "speedup",
        help="print the best draft length γ for an acceptance rate and a cost ratio",
        description="Speedup = expected_tokens(α, γ) / (1 + γ/c), with c = target pass time / draft pass time.",
    )
    speed.add_argument("--alpha", type=float, required=True, help="acceptance rate α in [0, 1]")
    speed.add_argument("--c", type=float, required=True, help="cost ratio c = target time / draft time (> 0)")
    speed.add_argument(
        "--max-gamma", type=int, default=DEFAULT_MAX_GAMMA,
        help=f"largest γ to consider (default: {DEFAULT_MAX_GAMMA})",
    )

    return parser


def step_options(args) -> dict:
    """--gamma, --vocab and --closeness, checked under their own names, with defaults filled in."""
    given = [name for name in STEP_DEFAULTS if getattr(args, name) is not None]
    if args.example and given:
        raise ValueError("--example fixes γ = 2, V = 4 and the rows, so it takes none of "
                         + ", ".join(f"--{name}" for name in given) + "; drop them or drop --example")
    options = {name: default if getattr(args, name) is None else getattr(args, name)
               for name, default in STEP_DEFAULTS.items()}
    Count()(args.seed, "--seed")
    Count(0, MAX_GAMMA)(options["gamma"], "--gamma")
    Count(2, MAX_VOCAB)(options["vocab"], "--vocab")
    Probability()(options["closeness"], "--closeness")
    return options


def run_step(args) -> list[str]:
    options = step_options(args)
    if args.example:
        intro = f"the worked example: γ = 2, V = 4, draft tokens A B, seed {args.seed}"
    else:
        intro = (
            f"random rows: γ = {options['gamma']}, V = {options['vocab']}, closeness {options['closeness']}, "
            f"seed {args.seed} (rows, then draft tokens, then the step, all from default_rng({args.seed}))"
        )
    example_drafts = example_rows.SPEC_DRAFT_TOKENS if args.example else None
    trace = example_rows.seeded_step(args.seed, **options, example_drafts=example_drafts)
    labels = example_rows.token_labels(trace.target_probs.shape[1])
    drafted = " ".join(labels[token] for token in trace.draft_tokens) or "(none)"
    return [intro, *format_rows(trace.target_probs, trace.draft_probs, labels), f"draft proposed: {drafted}",
            *narrate_trace(trace, labels)]


def format_rows(target_probs, draft_probs, labels, widest=12) -> list[str]:
    """The rows as a small table, when the vocabulary is small enough to read."""
    if len(labels) > widest:
        return [f"(rows not printed: V = {len(labels)} > {widest})"]
    lines = ["      " + " ".join(f"{label:>5}" for label in labels)]
    for name, table in (("p", target_probs), ("q", draft_probs)):
        for i, row in enumerate(table):
            lines.append(f"{name}_{i:<3} " + " ".join(f"{value:5.3f}" for value in row))
    return lines


def run_speedup(args) -> list[str]:
    Probability()(args.alpha, "--alpha")
    CostRatio()(args.c, "--c")
    Count(1, LARGEST_MAX_GAMMA)(args.max_gamma, "--max-gamma")
    best, best_value = optimal_gamma(args.alpha, args.c, args.max_gamma)
    lines = [
        f"α = {args.alpha:g}, c = {args.c:g}: best γ = {best} (of 1 … {args.max_gamma}), "
        f"speedup {best_value:.2f}×" + ("" if best_value > 1 else ": no γ beats plain decoding (1×) here"),
        "",
        f"{'γ':>4}  {'E[tokens]':>9}  {'cost (target passes)':>20}  {'speedup':>7}",
    ]
    for gamma in range(max(1, best - 3), min(args.max_gamma, best + 3) + 1):
        marker = "  ← best" if gamma == best else ""
        lines.append(
            f"{gamma:>4}  {expected_tokens(args.alpha, gamma):>9.3f}  {1 + gamma / args.c:>20.3f}  "
            f"{speedup(args.alpha, gamma, args.c):>7.2f}{marker}"
        )
    return lines


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        lines = run_step(args) if args.command == "step" else run_speedup(args)
    except (ValueError, TypeError, OverflowError, MemoryError) as error:
        parser.exit(2, f"error: {' '.join(str(error).split())}\n")
    print("\n".join(lines))
    return 0
