"""The terminal face: python -m specdec step | speedup, and python -m benchmarks --help."""

import subprocess
import sys

import numpy as np
import pytest

import specdec
from specdec import cli
from specdec.narrate import random_rows


def run(*arguments):
    return subprocess.run([sys.executable, "-m", "specdec", *arguments], capture_output=True, text=True)


def test_step_prints_the_trace_of_the_documented_seeding(capsys):
    assert cli.main(["step", "--gamma", "3", "--vocab", "6", "--seed", "0"]) == 0
    printed = capsys.readouterr().out
    rng = np.random.default_rng(0)
    target, draft = random_rows(3, 6, 0.5, rng)
    tokens = specdec.sample_draft(draft, rng)
    emitted = specdec.speculative_step(target, draft, tokens, rng)
    labels = "ABCDEF"
    assert "draft proposed: " + " ".join(labels[t] for t in tokens) in printed
    assert "output: " + " ".join(labels[t] for t in emitted) + " (" in printed
    assert "p_0" in printed and "q_2" in printed


def test_step_example_reproduces_spec(capsys):
    cli.main(["step", "--example"])
    assert "output: A B A (3 tokens: 2 accepted, 1 bonus)" in capsys.readouterr().out


def test_speedup_prints_the_best_gamma_and_a_table_around_it(capsys):
    cli.main(["speedup", "--alpha", "0.8", "--c", "20"])
    printed = capsys.readouterr().out
    assert "best γ = 8" in printed and "speedup 3.09×" in printed
    best_row = next(line for line in printed.splitlines() if "← best" in line)
    assert best_row.split()[0] == "8" and best_row.split()[3] == "3.09"
    assert len([line for line in printed.splitlines() if line.strip()[:1].isdigit()]) == 7


def test_speedup_says_when_no_draft_length_helps(capsys):
    cli.main(["speedup", "--alpha", "0", "--c", "2"])
    assert capsys.readouterr().out.splitlines()[0].endswith("speedup 0.67×: no γ beats plain decoding (1×) here")
    cli.main(["speedup", "--alpha", "0.8", "--c", "20"])
    assert "no γ beats" not in capsys.readouterr().out


def test_bad_values_give_a_clear_error_and_exit_2():
    result = run("speedup", "--alpha", "1.5", "--c", "20")
    assert result.returncode == 2 and "--alpha must be in [0, 1], got 1.5" in result.stderr
    result = run("step", "--vocab", "1")
    assert result.returncode == 2 and "--vocab must be an integer in 2 … 1,000,000, got 1" in result.stderr


@pytest.mark.parametrize("command", [[], ["step"], ["speedup"]])
def test_help_reads_well(command):
    result = run(*command, "--help")
    assert result.returncode == 0 and "usage: python -m specdec" in result.stdout
    assert len(result.stdout.splitlines()) >= 5


def test_benchmarks_live_outside_the_package_and_list_their_suites():
    from benchmarks.__main__ import SUITES

    assert set(SUITES) == {"sampling", "checks", "interactivity", "redraw", "text", "neural"}
    result = subprocess.run([sys.executable, "-m", "benchmarks", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and all(name in result.stdout for name in SUITES)
    assert "bench" not in run("--help").stdout


def test_speedup_table_rows_hold_expected_tokens_cost_and_speedup(capsys):
    # α = 0.5, c = 10, by hand: E[N] = 2 − 0.5^γ, cost 1 + γ/10; speedups 1.364, 1.458, 1.442, 1.355, 1.292
    cli.main(["speedup", "--alpha", "0.5", "--c", "10"])
    lines = capsys.readouterr().out.splitlines()
    assert "best γ = 2" in lines[0] and "speedup 1.46×" in lines[0] and "no γ beats" not in lines[0]
    rows = [line.split() for line in lines if line.strip()[:1].isdigit()]
    assert [row[0] for row in rows] == ["1", "2", "3", "4", "5"]  # best − 3 is below 1: the table starts at γ = 1
    assert [row[1:4] for row in rows] == [["1.500", "1.100", "1.36"], ["1.750", "1.200", "1.46"],
                                          ["1.875", "1.300", "1.44"], ["1.938", "1.400", "1.38"],
                                          ["1.969", "1.500", "1.31"]]


def test_a_speedup_of_exactly_one_does_not_beat_plain_decoding(capsys):
    cli.main(["speedup", "--alpha", "1", "--c", "1"])  # every γ: (γ + 1) / (1 + γ) = 1
    assert capsys.readouterr().out.splitlines()[0].endswith(": no γ beats plain decoding (1×) here")


def test_the_smallest_allowed_gamma_and_max_gamma_are_accepted(capsys):
    assert cli.main(["speedup", "--alpha", "0.8", "--c", "20", "--max-gamma", "1"]) == 0
    assert "best γ = 1 (of 1 … 1)" in capsys.readouterr().out
    assert cli.main(["step", "--gamma", "0", "--vocab", "3"]) == 0
    assert "draft proposed: (none)" in capsys.readouterr().out


@pytest.mark.parametrize("arguments, words", [
    (["step", "--gamma", "two"], "argument --gamma: invalid int value: 'two'"),
    (["step", "--example", "--gamma", "3"], "--example fixes γ = 2, V = 4 and the rows, so it takes none of --gamma"),
])
def test_a_usage_error_is_one_line_and_exit_status_2(arguments, words, capsys):
    with pytest.raises(SystemExit) as raised:
        cli.main(arguments)
    assert raised.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and words in error and error.count("\n") == 1
