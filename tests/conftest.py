"""Fixtures shared by the test modules.

Plain helpers (time steps, random play, observation checks, child interpreters)
are in `helpers.py`, imported by name like `oracles.py` and `search.py`; this
file makes pytest explain a failed `assert` inside them as it does in tests.
"""

import pytest

from mathy_envs.envs import PolySimplify

pytest.register_assert_rewrite("helpers", "oracles", "search")


@pytest.fixture
def poly() -> PolySimplify:
    """A fresh `PolySimplify` with the default settings (`max_moves=20`,
    `max_seq_len=128`)."""
    return PolySimplify()
