"""What the browser suite does to one explorer: its moves, and the name of its screenshot.

A small module of its own, so that an explorer's test module can declare its ``BROWSER_CHECK`` with
``from .browser.moves import ExplorerCheck, Move`` without importing `explorer_moves`, which imports
every test module to gather those checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Move:
    """One change a learner makes, and the text the readout must contain after it.

    Attributes
    ----------
    control : str
        The control's label (a slider's description, a button's text).
    action : str
        ``"key:<Key>"``: focus the slider's handle and press the key (noUiSlider's keyboard support);
        ``"drag:<pixels>"``: drag the slider's handle; ``"click"``: click the button;
        ``"choose:<option>"``: pick that option of a dropdown.
    expected : callable
        Control values after the move (label -> value as shown) -> the strings the readout must contain.
    """

    control: str
    action: str
    expected: Callable[[dict], list[str]]


@dataclass(frozen=True)
class ExplorerCheck:
    """The moves the browser test makes on one explorer, and the name of its screenshot.

    `picture` is the name of the explorer's class in `specdec.explore`; the screenshot is saved as
    ``<picture>.png`` after the first `picture_after` moves (0: as the notebook shows it).
    """

    picture: str
    moves: tuple[Move, ...]
    picture_after: int = 0
