"""The explorer's webhooks page in a headless Chromium: each webhook with its deliveries and their
attempts, the "Send a test event" button (the receiver on loopback gets it), and the dev panel's
pause and resume of deliveries; no console error, no failed request."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("explorer browser tests: no chromium here (./simnode.sh test installs Debian's as root)",
                allow_module_level=True)

from playwright.sync_api import sync_playwright  # noqa: E402
from web3 import Web3  # noqa: E402

from simnode.node import Node  # noqa: E402

from .rpc import call  # noqa: E402
from .test_explorer_browser import ARGS, READY  # noqa: E402
from .test_webhooks_delivery import evm_hook, node_config, send  # noqa: E402
from .webhook_receiver import Receiver  # noqa: E402

TARGET = "0x00000000000000000000000000000000000000E1"


def test_webhooks_page_test_event_and_pause(tmp_path):
    errors: list[str] = []
    with Receiver() as rx, Node.start_in_thread(node_config()) as h, sync_playwright() as pw:
        dev = h.url + "/ext/simnode"
        hook = evm_hook(h, rx.url, [TARGET], name="explorer hook")
        w3 = Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc"))
        send(w3, TARGET, 1, 0)
        rx.wait(1)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: m.type in ("error", "warning") and errors.append(m.text))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("response", lambda r: r.status >= 400 and errors.append(f"HTTP {r.status}: {r.url}"))
        page.goto(h.url + "/explorer/webhooks")
        page.wait_for_selector(READY)
        card = page.locator(f"section.webhook[data-webhook='{hook['id']}']")
        assert "explorer hook" in card.locator("h2").inner_text()
        assert card.locator(".webhook-delivery[data-status=delivered]").count() == 1
        assert "200" in card.locator("ol.attempts").first.inner_text()
        card.locator("button.webhook-test").click()
        page.wait_for_function(
            "() => (document.getElementById('webhook-status') || {}).textContent?.includes('queued')")
        rx.wait(2)
        delivered = f"section.webhook[data-webhook='{hook['id']}'] .webhook-delivery[data-status=delivered]"
        page.wait_for_selector(delivered + " >> nth=1")
        # the dev panel pauses deliveries: a new tx waits, then goes out on resume
        page.click("#dev-toggle")
        page.locator("#dev-panel form[data-action=webhooks] button").click()
        page.wait_for_selector("#webhooks-state[data-paused=true]")
        assert call(dev, "simnode.getWebhooks", {})["paused"] is True
        send(w3, TARGET, 2, 1)
        page.wait_for_selector(f"section.webhook[data-webhook='{hook['id']}'] .webhook-delivery[data-status=pending]")
        assert len(rx.received) == 2
        page.screenshot(path=str(tmp_path / "webhooks_paused.png"), full_page=True)
        page.locator("#dev-panel form[data-action=webhooks] button").click()
        page.wait_for_selector("#webhooks-state[data-paused=false]")
        rx.wait(3)
        page.wait_for_selector(delivered + " >> nth=2")
        browser.close()
    assert not errors, errors
