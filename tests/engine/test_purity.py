"""The rules engine is plain Python: importing and running it loads no Django, and the
layers keep to the contracts in pyproject.toml (import-linter)."""

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = """
import pkgutil, importlib, sys
import armybuilder.engine as engine
for module in pkgutil.iter_modules(engine.__path__):
    importlib.import_module(f"armybuilder.engine.{module.name}")
from tests.support.engine_helpers import book, hero, run
result = run("aof", book("aof", [hero("captain")]), 500, [{"id": "h", "unit": "captain"}])
assert result.valid and result.total_points == 60, result
django = sorted(m for m in sys.modules if m == "django" or m.startswith(("django.", "rest_framework")))
print(",".join(django) or "none")
"""


def test_no_engine_module_imports_django():
    """Every module of the engine (each ruleset's too), imported on its own."""
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=60, env={"PATH": ""}
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "none"


def test_the_layer_contracts_hold():
    """engine imports nothing of Django (nor does memo.py, the one module of ours it
    uses); exports and lists do not import web or api; factions does not import web or
    api; web does not import api; nothing below the API uses DRF; no cycles inside engine."""
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is not installed (requirements.txt)"
    result = subprocess.run([lint, "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout
