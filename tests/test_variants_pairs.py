"""A draft with a chosen acceptance rate."""

import numpy as np
import pytest

from specdec.core import acceptance_rate
from specdec.variants.pairs import contrarian, draft_with_acceptance, geometric_target, lowest_acceptance


@pytest.mark.parametrize("alpha", [0.25, 0.3, 0.5, 0.77, 0.9, 1.0])
def test_the_draft_has_exactly_the_chosen_acceptance_rate(alpha):
    p = geometric_target(8, 0.6)
    q = draft_with_acceptance(p, alpha)
    assert q.sum() == pytest.approx(1.0) and q.min() >= 0
    assert acceptance_rate(p, q) == pytest.approx(alpha, abs=1e-12)


def test_the_contrarian_reverses_the_ranks_and_bounds_alpha():
    p = np.array([0.1, 0.6, 0.3])
    np.testing.assert_allclose(contrarian(p), [0.6, 0.1, 0.3])
    assert lowest_acceptance(p) == pytest.approx(acceptance_rate(p, contrarian(p)))
    with pytest.raises(ValueError, match="alpha must be at least"):
        draft_with_acceptance(p, 0.1)
    with pytest.raises(ValueError, match="alpha"):
        draft_with_acceptance(p, 1.5)
    with pytest.raises(ValueError, match="ratio"):
        geometric_target(4, 0.0)
