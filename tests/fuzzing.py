"""How many examples a Hypothesis test runs: its full count where the time is there (CI: .ci/run sets
HYPOTHESIS_PROFILE=full), a tenth of it elsewhere (a developer's run, `make test-fast`), at least 25. The
profiles themselves are registered in tests/conftest.py."""

from __future__ import annotations

import os

#: The profile this run uses (tests/conftest.py loads it): "full" or "quick".
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "quick")


def examples(full: int) -> int:
    """``full`` under the full profile, else a tenth of it (at least 25)."""
    return full if PROFILE == "full" else max(25, full // 10)
