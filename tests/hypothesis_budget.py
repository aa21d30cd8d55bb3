"""How many examples a property test tries under each Hypothesis profile.

The two profiles (registered in ``tests/conftest.py``): ``dev``, the default, keeps the
README's test command quick; ``ci`` (``HYPOTHESIS_PROFILE=ci``, as ``.ci/run`` sets) is
thorough. A test that needs another count than the profile gives (a large input space, or an
expensive example) says so with ``@settings(max_examples=examples(n))``: ``n`` under ``ci``,
and under ``dev`` the same share of ``n`` as the dev profile is of the ci profile, but never
fewer than :data:`FEWEST` (nor more than ``n``): an expensive property test (the Dask
engine against pandas, say) runs a handful of random cases in the quick profile and its
full count in CI.

The ci profile tries 200 examples (Hypothesis's default is 100): 400, and twice each
test's own count, made the suite take 20 of CI's 30 minutes on two cores.
"""

from __future__ import annotations

from hypothesis import settings

DEV_EXAMPLES = 30
CI_EXAMPLES = 200
#: The fewest examples a property test tries under any profile (the first is often the
#: simplest input Hypothesis can make; the others are random).
FEWEST = 3


def examples(thorough: int) -> int:
    """The examples to try for a test that tries ``thorough`` under the ``ci`` profile,
    under the profile loaded now (a decorator reads it when its module is imported,
    after the conftest and ``--hypothesis-profile`` have loaded the profile)."""
    loaded = settings.default.max_examples
    if loaded >= CI_EXAMPLES:
        return thorough
    return max(min(thorough, FEWEST), round(thorough * loaded / CI_EXAMPLES))
