#!/usr/bin/env python3
"""Explorer benchmark: how fast each page shows its data on a node holding 100k transactions, and
what an idle open explorer costs the node, measured in headless Chromium (Debian's chromium,
driven by Playwright).

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_explorer.py [--txs 100000] [--per-block 100]
        [--data-dir DIR] [--rounds 5] [--idle-seconds 60]

1) The node: `simnode run --clock virtual` on --data-dir (kept, and reused by the next run when it
   already holds the chain; else a temporary one). Filled over JSON-RPC as a client would: ewoq
   deploys an ERC-20, then signs --txs transactions (9 in 10 native transfers to 1000 addresses,
   1 in 10 ERC-20 transfers; a "hot" address receives every 7th), sent as one JSON-RPC batch per
   block of --per-block txs (the automining C-Chain builds a batch into one block), the node's
   time advanced 10 s between blocks (simnode.advanceTime), as blocks come on a live chain.
2) Page timing: every page route (overview, chain, block, txs, addresses with the hot one's
   thousands of txs, validators, subnets, ICM, metrics, a search) loaded --rounds times in one
   browser tab. Two figures per page, p50 and max over the rounds:
   - load: a full navigation (the browser revalidates its cached files, as on a reload), from the
     navigation's start to the moment the page has rendered its data (the explorer's
     `explorer-ready` performance mark);
   - in-app: the same page reached from another explorer page by a link (no document load),
     from the click to its data rendered (a search: until the page it lands on has).
   For scale, the first row is the browser's own cost of any navigation on this machine: a
   plain-text page of the node (a 404) to its load event.
3) Idle CPU: the node process's CPU time (utime + stime from /proc) over --idle-seconds with no
   browser, then with the overview open in Chromium (live heads: websocket subscriptions and the
   P/X height polls), on the 100k node and on a fresh wall-clock `simnode run --ephemeral`; then
   how long a block mined by simnode.mine takes to show as the open overview's C-Chain head.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from eth_abi import encode
from eth_account import Account
from eth_utils import to_checksum_address

ROOT = Path(__file__).resolve().parents[1]
EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
TOKEN = json.loads((ROOT / "scenarios" / "contracts" / "ScenarioToken.json").read_text())
CHAIN_ID = 43112
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
BATCH = 500
BLOCK_SECONDS = 10
MARKER = "bench-explorer.json"


def log(*a: object) -> None:
    print(*a, file=sys.stderr, flush=True)


def post(url: str, body: object) -> object:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as resp:
        return json.loads(resp.read())


def rpc(url: str, method: str, params: object = None) -> object:
    out = post(url, {"jsonrpc": "2.0", "id": 1, "method": method, "params": [] if params is None else params})
    if "error" in out:
        raise RuntimeError(f"{method}: {out['error']}")
    return out["result"]


def get(url: str) -> object:
    with urllib.request.urlopen(url, timeout=60) as resp:
        return json.loads(resp.read())


# ----------------------------------------------------------------------------- the node

def start_node(args: list[str]) -> tuple[subprocess.Popen, str]:
    exe = ROOT / ".venv" / "bin" / "simnode"
    proc = subprocess.Popen([str(exe), "run", "--http-port", "0", "--log-level", "WARN", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        m = re.search(r"simnode ready: .* at (http://\S+)", line)
        if m:
            return proc, m.group(1)
    raise SystemExit(f"the node did not start (exit {proc.wait()})")


def stop_node(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=60)


def sign(nonce: int, to: str, value: int = 0, data: bytes = b"", gas: int = 21000) -> str:
    tx = {"chainId": CHAIN_ID, "nonce": nonce, "to": to, "value": value, "data": data, "gas": gas,
          "maxFeePerGas": 100 * 10**9, "maxPriorityFeePerGas": 10**9, "type": 2}
    return EWOQ.sign_transaction(tx).raw_transaction.to_0x_hex()


def fill(url: str, txs: int, per_block: int) -> dict:
    """ewoq's ERC-20 and `txs` transfers in blocks of `per_block`."""
    c = url + "/ext/bc/C/rpc"
    simnode = url + "/ext/simnode"
    recipients = [Account.from_key((i + 1).to_bytes(32, "big")).address for i in range(1000)]
    hot = recipients[7]
    deploy = bytes.fromhex(TOKEN["bytecode"][2:]) + encode(["string", "string", "uint256"], ["Bench Token", "BNCH", 10**27])
    nonce = int(rpc(c, "eth_getTransactionCount", [EWOQ.address, "latest"]), 16)
    h = rpc(c, "eth_sendRawTransaction", [EWOQ.sign_transaction({
        "chainId": CHAIN_ID, "nonce": nonce, "data": deploy, "gas": 3_000_000, "maxFeePerGas": 100 * 10**9,
        "maxPriorityFeePerGas": 10**9, "type": 2, "value": 0}).raw_transaction.to_0x_hex()])
    token = to_checksum_address(rpc(c, "eth_getTransactionReceipt", [h])["contractAddress"])
    nonce += 1
    transfer = bytes.fromhex("a9059cbb")
    samples: dict[str, str] = {}
    started = time.time()
    sent = 0
    while sent < txs:
        raws, kinds = [], []
        for _ in range(min(per_block, txs - sent)):
            i = sent + len(raws)
            to = hot if i % 7 == 0 else recipients[i % 1000]
            if i % 10 == 3:
                raws.append(sign(nonce + i, token, data=transfer + encode(["address", "uint256"], [to, 10**18 + i]), gas=60000))
                kinds.append("erc20_tx")
            else:
                raws.append(sign(nonce + i, to, value=10**15 + i))
                kinds.append("native_tx")
        for lo in range(0, len(raws), BATCH):  # per_block <= BATCH: one batch, one block
            answers = post(c, [{"jsonrpc": "2.0", "id": j, "method": "eth_sendRawTransaction", "params": [r]}
                               for j, r in enumerate(raws[lo:lo + BATCH])])
            bad = [a for a in answers if "error" in a]
            if bad:
                raise SystemExit(f"a tx was refused: {bad[0]}")
            for a in answers:
                samples.setdefault(kinds[lo + a["id"]], a["result"])
        rpc(simnode, "simnode.advanceTime", {"seconds": str(BLOCK_SECONDS)})
        sent += len(raws)
        if sent % 10000 < per_block:
            log(f"  {sent} txs in {time.time() - started:.0f} s")
    head = int(rpc(c, "eth_blockNumber"), 16)
    return {"txs": txs, "hot": hot, "token": token, "head": head, "block": head - 5, **samples}


# ----------------------------------------------------------------------------- the browser

def pages(info: dict) -> list[tuple[str, str]]:
    return [
        ("overview", "/explorer/"),
        ("chain C", "/explorer/chain/C"),
        ("block (100 txs)", f"/explorer/block/C/{info['block']}"),
        ("tx native", f"/explorer/tx/{info['native_tx']}"),
        ("tx ERC-20", f"/explorer/tx/{info['erc20_tx']}"),
        ("address hot (~14k txs)", f"/explorer/address/{info['hot']}"),
        ("address token contract", f"/explorer/address/{info['token']}"),
        ("address ewoq", f"/explorer/address/{EWOQ.address}"),
        ("validators", "/explorer/validators"),
        ("subnets", "/explorer/subnets"),
        ("icm", "/explorer/icm"),
        ("metrics (hour, 30d)", "/explorer/metrics?family=evm&metric=txCount&interval=hour&range=30d"),
        ("search tx hash", f"/explorer/search?q={info['native_tx']}"),
    ]


# Click a link to path on the page open at origin; resolves with the ms from the click until the
# page reached (a search lands on another) has rendered its data.
IN_APP = """([path, origin]) => new Promise((resolve) => {
  const main = document.getElementById('app');
  const a = document.createElement('a');
  a.href = path;
  main.append(a);
  const t0 = performance.now();
  const seen = new MutationObserver(() => {
    if (main.dataset.state === 'ready' && location.pathname !== origin && !location.pathname.startsWith('/explorer/search')) {
      seen.disconnect();
      resolve(performance.now() - t0);
    }
  });
  seen.observe(main, { attributes: true, attributeFilter: ['data-state'] });
  a.click();
})"""


def time_pages(url: str, info: dict, rounds: int) -> list[tuple[str, list[float], list[float]]]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url + "/explorer/")  # warm the browser's cache once, as any second visit has it
        page.wait_for_selector("main[data-state=ready]")
        # the browser's own cost of a navigation here: a plain-text page (a 404 of the node), to its load event
        base = []
        for _ in range(rounds):
            page.goto(url + "/explorer/static/none")
            base.append(page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd"))
        out.append(("(browser: a plain-text page)", base, [0.0]))
        errors: list[str] = []
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        for name, path in pages(info):
            loads, navs = [], []
            for _ in range(rounds):
                page.goto(url + path)
                page.wait_for_selector("main[data-state=ready]", timeout=60_000)
                loads.append(page.evaluate("(() => { const m = performance.getEntriesByName('explorer-ready');"
                                           " return m[m.length - 1].startTime; })()"))
                # in-app: from another page, through the router, as a click on a link does
                origin = "/explorer/validators" if path == "/explorer/subnets" else "/explorer/subnets"
                page.goto(url + origin)
                page.wait_for_selector("main[data-state=ready]")
                navs.append(page.evaluate(IN_APP, [path, origin]))
            out.append((name, loads, navs))
            log(f"  {name}: load p50 {statistics.median(loads):.0f} ms, in-app p50 {statistics.median(navs):.0f} ms")
        if errors:
            log(f"  console errors: {errors[:5]}")
        browser.close()
    return out


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(proc: subprocess.Popen, url: str, seconds: float) -> tuple[float, float]:
    """The node's CPU share (%) over `seconds`: with no client, then with the overview open; and how
    long (ms) a new C-Chain block takes to show as the open overview's head."""
    from playwright.sync_api import sync_playwright

    time.sleep(2)
    c0, t0 = cpu_seconds(proc.pid), time.monotonic()
    time.sleep(seconds)
    alone = 100 * (cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url + "/explorer/")
        page.wait_for_selector("main[data-state=ready]")
        time.sleep(3)
        c0, t0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(seconds)
        with_explorer = 100 * (cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
        # a new C-Chain block (simnode.mine) until the open overview shows it as the head
        shown = []
        for _ in range(5):
            t = time.monotonic()
            rpc(url + "/ext/simnode", "simnode.mine", {"blocks": "1"})
            height = int(rpc(url + "/ext/bc/C/rpc", "eth_blockNumber"), 16)
            page.wait_for_selector(f".chain-card[data-chain=C] .head[data-height='{height}']", timeout=30_000)
            shown.append(1000 * (time.monotonic() - t))
        browser.close()
    return alone, with_explorer, shown


# ----------------------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--txs", type=int, default=100_000)
    ap.add_argument("--per-block", type=int, default=100, choices=range(1, 501), metavar="1..500")
    ap.add_argument("--data-dir", type=Path, default=None, help="kept; reused when it holds the chain already")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--idle-seconds", type=float, default=60)
    args = ap.parse_args()
    if shutil.which("chromium") is None:
        log("bench_explorer: needs Debian's chromium (apt-get install chromium)")
        return 1
    tmp = None
    data_dir = args.data_dir
    if data_dir is None:
        tmp = tempfile.mkdtemp(prefix="simnode-bench-explorer-")
        data_dir = Path(tmp)
    marker = data_dir / MARKER
    try:
        proc, url = start_node(["--data-dir", str(data_dir), "--clock", "virtual"])
        try:
            info = json.loads(marker.read_text()) if marker.exists() else None
            if info is None or info["txs"] != args.txs:
                if info is not None:
                    raise SystemExit(f"{data_dir} holds {info['txs']} txs, not {args.txs}: use another --data-dir")
                log(f"filling the node with {args.txs} txs ({args.per_block} per block) ...")
                t = time.time()
                info = fill(url, args.txs, args.per_block)
                marker.write_text(json.dumps(info))
                log(f"  filled in {time.time() - t:.0f} s")
            count = get(f"{url}/v1/chains/{CHAIN_ID}/blocks?pageSize=1")["blocks"][0]["cumulativeTransactions"]
            print(f"node: {url}, C-Chain head {info['head']}, {int(count):,} txs on the C-Chain")
            log("timing the pages ...")
            rows = time_pages(url, info, args.rounds)
            print(f"\npage shows its data (ms; {args.rounds} rounds)      load p50   max   in-app p50   max")
            for name, loads, navs in rows:
                print(f"  {name:<34} {statistics.median(loads):8.0f} {max(loads):6.0f} {statistics.median(navs):12.0f} {max(navs):5.0f}")
            worst = max(max(statistics.median(r[1]), statistics.median(r[2])) for r in rows[1:])
            print(f"  slowest page p50: {worst:.0f} ms (target: 300 ms)")
            log(f"idle CPU, {args.idle_seconds:.0f} s each ...")
            alone, opened, shown = idle_cpu(proc, url, args.idle_seconds)
            print(f"\nidle node CPU (100k-tx node, virtual clock): {alone:.2f}% alone, {opened:.2f}% with the overview open")
            print(f"a mined C-Chain block shown on the open overview after (ms): {', '.join(f'{x:.0f}' for x in shown)}")
        finally:
            stop_node(proc)
        proc, url = start_node(["--ephemeral"])
        try:
            alone, opened, shown = idle_cpu(proc, url, args.idle_seconds)
            print(f"idle node CPU (fresh wall-clock node):        {alone:.2f}% alone, {opened:.2f}% with the overview open")
            print(f"a mined C-Chain block shown on the open overview after (ms): {', '.join(f'{x:.0f}' for x in shown)}")
        finally:
            stop_node(proc)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
