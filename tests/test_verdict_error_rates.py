"""The verdict's error rates on campaigns whose truth is known (tests/support/simulated.py): a factor that cannot
matter is called real in at most 5 % of campaigns, a planted 10 % shift is found at the default
repetitions, a change in the tail alone is found on the tail and leaves the body alone. 200 campaigns
each, 5,000 samples a run (the script prints the same rates at 20,000)."""

import numpy as np
import pytest

from rtscope.execution.campaign_spec import DEFAULT_REPETITIONS
from support import simulated

CAMPAIGNS = 200
SAMPLES = 5_000

pytestmark = pytest.mark.slow


def test_a_factor_that_cannot_matter_is_called_real_in_at_most_5_percent_of_campaigns():
    rng = np.random.default_rng(31)
    for repetitions in (3, DEFAULT_REPETITIONS):
        assert simulated.null_rate(rng, CAMPAIGNS, repetitions, count=SAMPLES) <= 0.05


def test_a_10_percent_shift_is_found_at_the_default_repetitions():
    found, _ = simulated.power(np.random.default_rng(32), CAMPAIGNS, DEFAULT_REPETITIONS, count=SAMPLES)
    assert found >= 0.8


def test_a_change_in_the_tail_alone_is_found_there_and_leaves_the_body_alone():
    found, body = simulated.power(
        np.random.default_rng(33), CAMPAIGNS, DEFAULT_REPETITIONS, tail_only=True, count=SAMPLES
    )
    assert found >= 0.8 and body <= 0.05
