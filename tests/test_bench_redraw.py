"""The redraw benchmark times both ways on the same changes, in turn, and reports their ratio (times not asserted)."""

from benchmarks import redraw


def test_both_ways_are_timed_in_turn_on_every_change():
    result = redraw.measure(["DivergenceExplorer"], count=2)
    times = result["DivergenceExplorer"]
    assert len(times["fast"]) >= 2 and abs(len(times["fast"]) - len(times["full"])) <= 1
    assert all(t > 0 for way in redraw.WAYS for t in times[way])


def test_the_report_gives_each_explorer_and_the_overall_ratio(capsys):
    assert redraw.main(["--explorer", "DivergenceExplorer", "--changes", "1"]) == 0
    output = capsys.readouterr().out
    assert "DivergenceExplorer" in output and "a full redraw takes" in output and "times as long" in output
