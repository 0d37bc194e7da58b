"""The one colour scheme every figure uses, and what each colour means.

Colours come from the Okabe–Ito palette, chosen to stay distinguishable under the common forms of
colour blindness. Each role keeps its colour in every figure of the series, so a learner who has
seen that orange means "draft q" once can rely on it everywhere. Figures also vary hatching or
markers where two roles sit side by side, so colour is never the only cue.

No plotting library is imported here: these are plain strings that matplotlib and HTML both read.
"""

TARGET = "#0072B2"  # blue: the target distribution p
DRAFT = "#E69F00"  # orange: the draft distribution q
ACCEPTED = "#009E73"  # bluish green: accepted draft tokens, and the overlap min(p, q) that accepts
RESAMPLED = "#D55E00"  # vermillion: tokens redrawn from the residual, and the residual itself
BONUS = "#CC79A7"  # reddish purple: the bonus token drawn from p_γ
NEUTRAL = "#7F7F7F"  # grey: guides, thresholds, reference lines
HIGHLIGHT = "#000000"  # black: outlines that pick out the token under discussion

#: Colour of each token origin, as named in `StepTrace.origins` and in text generation.
ORIGIN_COLOURS = {"accepted": ACCEPTED, "resampled": RESAMPLED, "bonus": BONUS, "target": TARGET}

#: Legend wording for each role, the same in every figure.
ROLE_LABELS = {
    TARGET: "target p",
    DRAFT: "draft q",
    ACCEPTED: "accepted",
    RESAMPLED: "resampled",
    BONUS: "bonus",
}
