"""The rules engine is plain Python: importing and running it loads no Django."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SCRIPT = """
import sys
from tests.engine_helpers import book, hero, run
result = run("aof", book("aof", [hero("captain")]), 500, [{"id": "h", "unit": "captain"}])
assert result.valid and result.total_points == 60, result
django = sorted(m for m in sys.modules if m == "django" or m.startswith(("django.", "rest_framework")))
print(",".join(django) or "none")
"""


def test_the_engine_runs_without_importing_django():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=60, env={"PATH": ""}
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "none"
