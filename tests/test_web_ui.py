"""The web UI in a real browser: Debian's chromium driven by Playwright against a real
`memgpt-local serve` process running smollm2-135m. A screenshot of each stage is kept in
test-artifacts/web-ui/ (or $MEMGPT_TEST_ARTIFACTS)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import _missing_asset
from test_server import Server

ARTIFACTS = Path(os.environ.get("MEMGPT_TEST_ARTIFACTS", Path(__file__).parent.parent / "test-artifacts")) / "web-ui"


def _chromium() -> str:
    path = os.environ.get("MEMGPT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        _missing_asset("no chromium on PATH: install it (apt-get install chromium) for the browser tests")
    return str(path)


@pytest.fixture
def served(data_home: Path, smollm_path: Path) -> Iterator[Server]:
    (data_home / "config.toml").write_text(
        "[model]\nn_ctx_cap = 2048\nn_threads = 2\n\n[agent]\nheartbeat_cap = 1\nreply_reserve_tokens = 160\n"
        "message_max_chars = 160\nthought_max_chars = 60\n"
        # a statement's direct reply thinks here (by default it writes no thought), for the toggle to show
        "direct_thought_max_chars = 60\n"
    )
    server = Server(data_home, "--model", str(smollm_path))
    yield server
    server.stop()


@pytest.mark.real_model
def test_a_person_uses_the_web_ui(served: Server, tmp_path: Path):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    notes = tmp_path / "bees.md"
    notes.write_text("# Bees\n\nThe queen of hive two was marked with a blue dot in May.\n", encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("dialog", lambda dialog: dialog.accept("dana"))
        page.goto(served.url)
        page.wait_for_selector("#status:has-text('No agent yet')")
        page.screenshot(path=str(ARTIFACTS / "1-empty.png"))

        page.click("#new-agent")
        page.wait_for_selector("#agent option[value=dana]", state="attached")
        page.wait_for_selector("#context-bar .seg")
        page.screenshot(path=str(ARTIFACTS / "2-new-agent.png"))

        page.fill("#message", "Hi! I'm Dana and I keep three beehives in Leeds.")
        page.keyboard.press("Enter")
        # the reply shows while the turn still runs (the send button is disabled until it ends)
        page.wait_for_function(
            "() => { const r = document.querySelector('#log li.assistant');"
            " return r && r.textContent.length > 0 && document.querySelector('#send').disabled; }",
            timeout=240_000,
        )
        page.wait_for_function("() => !document.querySelector('#send').disabled", timeout=240_000)
        assert page.locator("#log li.user").first.inner_text().startswith("Hi! I'm Dana")
        assert page.locator("#log li.assistant").last.inner_text().strip()
        page.check("#show-steps")
        assert page.locator("#log li.step").first.is_visible()  # the inner thought, shown on request
        page.screenshot(path=str(ARTIFACTS / "3-chat.png"))

        human = page.locator("textarea[data-label=human]")
        human.fill("Name: Dana\nKeeps: three beehives in Leeds")
        page.click("text=Save human")
        page.wait_for_selector("#status:has-text('human saved')")
        blocks = {b["label"]: b["value"] for b in httpx.get(f"{served.url}/api/agents/dana/memory/core").json()}
        assert blocks["human"] == "Name: Dana\nKeeps: three beehives in Leeds"

        page.fill("#query", "beehives Leeds")
        page.click("#search-form button")
        page.wait_for_selector("#hits li cite")
        assert "beehives" in page.locator("#hits li").first.inner_text()

        page.set_input_files("#upload", str(notes))
        page.wait_for_selector("#sources li:has-text('bees.md')", timeout=120_000)
        page.select_option("#search-kind", "archival")
        page.fill("#query", "queen blue dot")
        page.click("#search-form button")
        page.wait_for_selector("#hits li cite:has-text('bees.md')")
        page.screenshot(path=str(ARTIFACTS / "4-memory.png"))

        segments = page.locator("#context-bar .seg")
        assert segments.count() == 5 and page.locator("#context-bar .mark").count() == 2
        widths = [
            float(w)
            for w in page.eval_on_selector_all("#context-bar .seg", "s => s.map(e => parseFloat(e.style.width))")
        ]
        assert all(w >= 0 for w in widths) and 0 < sum(widths) <= 100
        assert "tokens" in page.inner_text("#context-note")
        page.screenshot(path=str(ARTIFACTS / "5-context.png"), full_page=True)
        assert not errors, errors
        browser.close()
    (ARTIFACTS / "README.txt").write_text(
        json.dumps({"pages": sorted(p.name for p in ARTIFACTS.glob("*.png")), "server": served.url}, indent=1)
    )
