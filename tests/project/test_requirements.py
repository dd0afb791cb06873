"""The install sets: the site alone (requirements.txt, locked in requirements.lock) and the
site with the test tools (requirements-test.txt, locked in requirements-test.lock), and the
README's two commands and CI installing the right one."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")
TEST_TOOLS = {"pytest", "pytest-django", "pytest-xdist", "hypothesis", "schemathesis", "playwright", "ruff", "mypy"}


def name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def pins(path: Path) -> dict[str, str]:
    """The `name==version` lines of a requirements file (not those it includes)."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = PIN.match(line.strip())
        if match:
            found[name(match.group(1))] = match.group(2)
    return found


def lock(path: Path) -> dict[str, str]:
    """A lock's packages and versions; every package must carry at least one hash."""
    text = path.read_text(encoding="utf-8")
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text)
    found = {}
    for block in blocks:
        match = PIN.match(block)
        if not match:
            continue
        assert "--hash=sha256:" in block, f"{path.name}: {match.group(1)} has no hash"
        found[name(match.group(1))] = match.group(2)
    return found


def test_the_site_lock_holds_the_site_pins_and_no_test_tool():
    site, locked = pins(REPO / "requirements.txt"), lock(REPO / "requirements.lock")
    assert site and all(locked.get(package) == version for package, version in site.items()), {
        package: (version, locked.get(package)) for package, version in site.items() if locked.get(package) != version
    }
    assert not TEST_TOOLS & set(locked), "the site's lock carries test tools"


def test_the_test_lock_holds_the_site_lock_and_the_test_pins():
    site, tests = lock(REPO / "requirements.lock"), lock(REPO / "requirements-test.lock")
    differing = {
        package: (version, tests.get(package)) for package, version in site.items() if tests.get(package) != version
    }
    # A package only the site's Python versions below 3.11.3 need may be left out of one lock.
    assert not {package for package, (_, other) in differing.items() if other is not None}, differing
    wanted = pins(REPO / "requirements-test.txt")
    assert TEST_TOOLS <= set(wanted)
    assert all(tests.get(package) == version for package, version in wanted.items())
    assert "-r requirements.txt" in (REPO / "requirements-test.txt").read_text(encoding="utf-8")


def readme_command(heading: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(heading) :]
    return re.search(r"```sh\n(.+?)\n```", section, re.S).group(1)


@pytest.mark.parametrize(
    ("heading", "lock_file", "other"),
    [
        ("**Run the site**", "requirements.lock", "requirements-test.lock"),
        ("**Run the tests**", "requirements-test.lock", "requirements.lock"),
    ],
)
def test_the_readme_commands_install_their_lock_with_hashes(heading, lock_file, other):
    command = readme_command(heading)
    assert f"pip install --require-hashes -r {lock_file}" in command
    assert other not in command


def test_ci_runs_the_readme_test_command():
    command = readme_command("**Run the tests**").replace("pip install ", "pip install -q ")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert command.replace(".venv/bin/python -m pytest", '.venv/bin/python -m pytest "$@"') in ci
