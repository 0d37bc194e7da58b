"""The redraw benchmark times both ways on the same changes, in turn, and reports their ratio (times not asserted)."""

from benchmarks import redraw


def test_both_ways_are_timed_in_turn_and_reported(capsys):
    assert redraw.main(["--explorer", "DivergenceExplorer", "--changes", "2"]) == 0
    output = capsys.readouterr().out
    assert "DivergenceExplorer" in output and "a full redraw takes" in output and "times as long" in output
    times = redraw.measure(["DivergenceExplorer"], count=1)["DivergenceExplorer"]
    assert len(times["fast"]) >= 1 and abs(len(times["fast"]) - len(times["full"])) <= 1
    assert all(t > 0 for way in redraw.WAYS for t in times[way])
