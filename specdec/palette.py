"""The one colour scheme every figure uses: each role's colour, hatch and legend label.

Colours come from the Okabe–Ito palette (plus a neutral grey), chosen to stay distinguishable under the common
forms of colour blindness. Each role keeps its colour, its hatch and its name in every figure of the series,
so a learner who has seen that orange with backslashes means "draft q" once can rely on it everywhere; the
hatch means colour is never the only cue. A figure's legend entry for a role is the role's label, optionally
followed by a detail (`Role.labelled`).

No plotting library is imported here: these are plain strings that matplotlib and HTML both read.
"""

from __future__ import annotations

from dataclasses import dataclass

TARGET = "#0072B2"  # blue: the target distribution p
DRAFT = "#E69F00"  # orange: the draft distribution q
ACCEPTED = "#009E73"  # bluish green: accepted draft tokens, and the overlap min(p, q) that accepts
RESAMPLED = "#D55E00"  # vermillion: tokens redrawn from the residual, and the residual itself
BONUS = "#CC79A7"  # reddish purple: the bonus token drawn from p_γ
NEUTRAL = "#7F7F7F"  # grey: guides, thresholds, reference lines
HIGHLIGHT = "#000000"  # black: outlines that pick out the token under discussion


@dataclass(frozen=True)
class Role:
    """What one kind of mark means, and how every figure draws it."""

    label: str
    """The legend's name for the role."""
    colour: str
    """Fill (or line) colour, a hex string."""
    hatch: str
    """matplotlib hatch pattern of a filled mark ("" for none)."""

    def labelled(self, detail: str = "") -> str:
        """The legend label: the role's name, then ``": detail"`` if a detail is given.

        >>> ROLES["resampled"].labelled("(1 − α)·r")
        'resampled: (1 − α)·r'
        """
        return f"{self.label}: {detail}" if detail else self.label


#: Every role, by name. The two zones of the accept test share the colours of the outcomes they
#: lead to and differ from them by their hatch.
ROLES = {
    "target": Role("target p", TARGET, ""),
    "draft": Role("draft q", DRAFT, "\\\\"),
    "accepted": Role("accepted", ACCEPTED, "//"),
    "resampled": Role("resampled", RESAMPLED, "xx"),
    "bonus": Role("bonus", BONUS, ".."),
    "accept zone": Role("accept zone", ACCEPTED, "++"),
    "reject zone": Role("reject zone", RESAMPLED, "--"),
}

#: Colour of each token origin, as named in `StepTrace.origins` and in text generation.
ORIGIN_COLOURS = {"accepted": ACCEPTED, "resampled": RESAMPLED, "bonus": BONUS, "target": TARGET}

#: Legend wording of the five token roles, by colour.
ROLE_LABELS = {ROLES[name].colour: ROLES[name].label for name in ("target", "draft", "accepted", "resampled", "bonus")}
