"""How many examples a property test tries under each Hypothesis profile.

The two profiles (registered in ``tests/conftest.py``): ``dev``, the default, keeps the
README's test command quick; ``ci`` (``HYPOTHESIS_PROFILE=ci``, as ``.ci/run`` sets) is
thorough. A test that needs more examples than the profile gives (a large input space)
or fewer (an expensive example) says so with ``@settings(max_examples=examples(n))``:
``n`` under ``ci``, and under ``dev`` the same share of ``n`` as the dev profile is of
the ci profile, but never fewer than the dev profile's own count (nor more than ``n``).
"""

from __future__ import annotations

from hypothesis import settings

DEV_EXAMPLES = 30
CI_EXAMPLES = 400


def examples(thorough: int) -> int:
    """The examples to try for a test that tries ``thorough`` under the ``ci`` profile,
    under the profile loaded now (a decorator reads it when its module is imported,
    after the conftest and ``--hypothesis-profile`` have loaded the profile)."""
    loaded = settings.default.max_examples
    if loaded >= CI_EXAMPLES:
        return thorough
    return max(min(thorough, loaded), round(thorough * loaded / CI_EXAMPLES))
