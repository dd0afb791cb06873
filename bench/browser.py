"""Click to drawn in the builder, in Chromium, on a 50-entry list.

A live server (Django's threaded WSGI server, this process, port 8106 unless
BENCH_PORT says otherwise) and Debian's Chromium driven by Playwright. Each action is
clicked in the page, 100 ms after the previous one was drawn (a quick player's pace;
quick clicks are tests/web/test_builder_pieces_browser.py's matter), and timed there: from
the click to the list's new version on the page ("updated"), and to the frame after it
("drawn": a requestAnimationFrame, then a task, which runs once that frame is painted).
Prints p50 and p95 per action and the bytes each answer took on the wire (and unpacked),
on loopback and with a slow 4G profile (150 ms round trip, 1.6 Mb/s down, 750 kb/s up,
through CDP `Network.emulateNetworkConditions`; the CPU is not slowed).

Run: .venv/bin/python bench/browser.py   (a throw-away SQLite database; ROUNDS=… for more)
Targets (issue 26): drawn p95 under 100 ms on loopback, under 400 ms on 4G.
"""

import os
import statistics
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import bench_list, load_books, start_django  # noqa: E402

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop shares the main thread with the ORM
start_django(allowed_hosts="localhost")

from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from armybuilder.lists import services  # noqa: E402
from armybuilder.lists.format import parse_list_body  # noqa: E402
from armybuilder.lists.models import ArmyList  # noqa: E402
from factions.selectors import engine_book_get  # noqa: E402

PORT = int(os.environ.get("BENCH_PORT", "8106"))
ROUNDS = int(os.environ.get("ROUNDS", "30"))
CHROMIUM = os.environ.get("ARMYBUILDER_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SLOW_4G = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8}

# Clicks the control, then resolves with [updated ms, drawn ms, bytes on the wire, bytes
# unpacked] once the page shows a list version other than the one it had.
MEASURE = """([selector, value]) => new Promise((resolve) => {
  const before = document.querySelector("[data-version]").dataset.version;
  const seen = performance.getEntriesByType("resource").length;
  const start = performance.now();
  const observer = new MutationObserver(() => {
    if (document.querySelector("[data-version]").dataset.version === before) return;
    observer.disconnect();
    const updated = performance.now() - start;
    requestAnimationFrame(() => setTimeout(() => {
      const drawn = performance.now() - start;
      const answer = performance.getEntriesByType("resource").slice(seen).find((e) => e.initiatorType === "fetch");
      resolve([updated, drawn, answer ? answer.transferSize : 0, answer ? answer.decodedBodySize : 0]);
    }));
  });
  observer.observe(document.getElementById("workspace"), { subtree: true, childList: true, attributes: true });
  const control = document.querySelector(selector);
  control.focus();  // as a click or a tap does
  if (control.tagName === "SELECT") {
    control.value = value;
    control.dispatchEvent(new Event("change", { bubbles: true }));
  } else {
    control.click();
  }
})"""


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve() -> None:
    server = ThreadedWSGIServer(("127.0.0.1", PORT), QuietHandler)
    server.set_app(get_wsgi_application())
    threading.Thread(target=server.serve_forever, daemon=True).start()


def fifty_entry_list(page) -> str:
    """A new list made in the page (so that the browser owns it), filled to 50 entries."""
    page.goto(f"http://localhost:{PORT}/new/aof/")
    page.check("input[name=faction][value=human-empire]")
    page.fill("#points", "7500")
    page.get_by_role("button", name="Create list").click()
    page.wait_for_url("**/lists/*/")
    army_list = ArmyList.objects.order_by("-pk").first()
    book, _ruleset = engine_book_get(system="aof", slug="human-empire")
    data, _handle = parse_list_body(bench_list(book, 50))
    services.army_list_update(army_list=army_list, data=data, based_on=army_list.version)
    return page.url


def open_upgrades(page, entry: str) -> None:
    if not page.locator(f"#entry-{entry} #editor").count():
        page.locator(f"#upgrades-{entry}").click()
        page.locator(f"#entry-{entry} #editor").wait_for()


def one_round(page, timed) -> None:
    """Each action once, and its undoing (also timed), so that the list stays as it was."""
    timed("add", "#add-pike-levy")
    timed("remove", f"#remove-{page.locator('article.entry').last.get_attribute('id')[6:]}")
    open_upgrades(page, "e4")  # Militia Rabble: a counter and check boxes
    timed("+", "#more-J1a")
    timed("−", "#less-J1a")
    timed("toggle", "#pick-D1b")
    timed("toggle", "#pick-D1b")
    timed("combine", "#combine-e5")
    timed("combine", "#combine-e5")
    timed("join", "#join-e0", "e5")  # the Marshal joins the Pike Levy, and leaves it
    timed("join", "#join-e0", "")


def run(page, url: str, label: str) -> float:
    page.goto(url)
    results: dict[str, list[list[float]]] = {}

    def timed(name: str, selector: str, value: str = "") -> None:
        page.wait_for_timeout(100)
        results.setdefault(name, []).append(page.evaluate(MEASURE, [selector, value]))

    one_round(page, lambda *args: None)  # warm up: every piece rendered and kept once
    for _ in range(ROUNDS):
        one_round(page, timed)
    print(f"{label} (ms from the click; bytes of the answer on the wire, and unpacked):")
    worst = 0.0
    for name, rows in results.items():
        updated, drawn = [r[0] for r in rows], [r[1] for r in rows]
        p95 = percentile(drawn, 95)
        worst = max(worst, p95)
        wire, unpacked = statistics.median(r[2] for r in rows), statistics.median(r[3] for r in rows)
        print(
            f"  {name:<8} updated p50 {statistics.median(updated):6.1f} p95 {percentile(updated, 95):6.1f}"
            f"   drawn p50 {statistics.median(drawn):6.1f} p95 {p95:6.1f}"
            f"   {wire / 1024:6.1f} KB ({unpacked / 1024:.1f} KB unpacked)"
        )
    return worst


def percentile(values: list[float], p: int) -> float:
    return sorted(values)[max(int(len(values) * p / 100) - 1, 0)]


def main() -> None:
    load_books()
    serve()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        url = fifty_entry_list(page)
        loopback = run(page, url, f"Loopback, 50 entries, {ROUNDS} rounds")
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", SLOW_4G)
        slow = run(page, url, f"Slow 4G (150 ms, 1.6 Mb/s), 50 entries, {ROUNDS} rounds")
        browser.close()
    print(f"Slowest drawn p95: loopback {loopback:.0f} ms (target under 100), 4G {slow:.0f} ms (target under 400)")


if __name__ == "__main__":
    main()
