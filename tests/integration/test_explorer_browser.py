"""The explorer in a real headless Chromium (Debian's `chromium`, driven by Playwright for Python):
one node per module holding an L1 with ICM messages both ways (scenarios/icm_pingpong.toml), X/P/C
transfers and atomic moves (scenarios/quickstart.toml) and the EVM data scenario (ERC-20/721/1155,
internal txs, reverted txs). Every page loads with no console error and no failed request (a
screenshot of each is written under the test's temporary folder); what the pages show equals what
the JSON-RPC, platform and avm APIs say; a new block appears on the open overview without a reload;
search lands on the right page for every kind of key; the dev panel's actions take effect; the docs
page's "try it" reaches this node."""

from __future__ import annotations

import json
import re
import shutil
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("explorer browser tests: no chromium here (./simnode.sh test installs Debian's as root)",
                allow_module_level=True)

from eth_utils import keccak  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from web3 import Web3  # noqa: E402

from simnode.testing import Simnode  # noqa: E402

from . import evm_data_scenario  # noqa: E402
from .rpc import call  # noqa: E402

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
READY = "main[data-state=ready]"


class World:
    """The node, what the scenarios made, and one browser page shared by the module's tests."""

    def __init__(self, node: Simnode, shots: Path) -> None:
        self.node = node
        self.url = node.url
        self.shots = shots
        self.errors: list[str] = []
        self.page = None

    def rpc(self, endpoint: str, method: str, params=None):
        path = {"C": "/ext/bc/C/rpc", "P": "/ext/bc/P", "X": "/ext/bc/X", "info": "/ext/info",
                "simnode": "/ext/simnode"}.get(endpoint, endpoint)
        return call(self.url + path, method, [] if params is None else params)

    def watch(self, page) -> None:
        page.on("console", lambda m: m.type in ("error", "warning") and self.errors.append(f"console {m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        # a request the page cancelled (leaving a page aborts its polls and fetches) has not failed
        page.on("requestfailed", lambda r: "ERR_ABORTED" not in (r.failure or "")
                and self.errors.append(f"failed request: {r.url} {r.failure}"))
        page.on("response", lambda r: r.status >= 400 and self.errors.append(f"HTTP {r.status}: {r.url}"))

    def visit(self, path: str, shot: str | None = None, wait: str = READY):
        """Load a page, wait until it shows its data, screenshot it; no console error, no failed request."""
        self.errors.clear()
        self.page.goto(self.url + path)
        self.page.wait_for_selector(wait, timeout=20_000)
        self.page.wait_for_load_state("networkidle")
        name = shot or re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_") or "root"
        self.page.screenshot(path=str(self.shots / f"{name[:80]}.png"), full_page=True)
        assert self.page.eval_on_selector("main", "m => m.dataset.state") in ("ready", None)
        assert not self.errors, self.errors
        return self.page


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    node = Simnode.start(seed=1, base_dir=SCENARIOS)
    try:
        w = World(node, tmp_path_factory.mktemp("explorer-screenshots"))
        w.pingpong = node.run_scenario("icm_pingpong.toml")
        w.quick = node.run_scenario("quickstart.toml")
        w.evm = evm_data_scenario.run(Web3(Web3.HTTPProvider(node.urls["C"])), 43112)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            w.page = context.new_page()
            w.watch(w.page)
            yield w
            browser.close()
    finally:
        node.stop()


def saved(result, name: str) -> str:
    return str(result.saved[name])


def shown_raw(page, selector: str) -> int:
    """The exact base-unit value of an amount the page shows (its data-raw), checked against its text."""
    el = page.locator(selector).locator(".amount").first
    raw = int(el.get_attribute("data-raw"))
    decimals = int(el.get_attribute("data-decimals") or 0)
    text = el.inner_text().split(" ")[0].replace(",", "")
    whole, _, frac = text.partition(".")
    assert int(whole) * 10**decimals + int((frac or "0").ljust(decimals, "0")[:decimals] or 0) == raw, text
    return raw


# ----------------------------------------------------------------------------- the keys the pages show

def keys(w: World) -> dict[str, str]:
    """One key of every kind, read from the node's own APIs."""
    if hasattr(w, "_keys"):
        return w._keys
    s = w.evm.s
    c_head = int(w.rpc("C", "eth_blockNumber"), 16)
    c_block = w.rpc("C", "eth_getBlockByNumber", [hex(c_head - 1), False])
    chains = w.rpc("/ext/bc/P", "platform.getBlockchains", {})["blockchains"]
    pong = next(c for c in chains if c["name"] == "pong")
    x_txs = _data(w, "/v1/networks/fuji/blockchains/x-chain/transactions?pageSize=20")["transactions"]
    p_txs = _data(w, "/v1/networks/fuji/blockchains/p-chain/transactions?pageSize=50")["transactions"]
    c_atomic = _data(w, "/v1/networks/fuji/blockchains/c-chain/transactions?pageSize=20")["transactions"]
    p_blocks = _data(w, "/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=5")["blocks"]
    x_blocks = _data(w, "/v1/networks/fuji/blockchains/x-chain/blocks?pageSize=5")["blocks"]
    messages = _data(w, "/v1/icm/messages?pageSize=10")["messages"]
    validators = w.rpc("P", "platform.getCurrentValidators", {})["validators"]
    w._keys = {
        "transfer": s.receipts[0]["transactionHash"].to_0x_hex(),
        "reverted": s.reverted[0]["transactionHash"].to_0x_hex(),
        "erc1155": next(r for r in s.receipts if len(r["logs"]) and r["logs"][0]["topics"][0].hex().startswith("4a39dc06"))["transactionHash"].to_0x_hex(),
        "icm_send": next(m for m in messages if m["sourceEvmChainId"] == "43112")["sourceTransaction"]["txHash"],
        "message": messages[0]["messageId"],
        "x_transfer": next(t for t in x_txs if t["txType"] == "BaseTx" and t.get("memo"))["txHash"],
        "x_export": next(t for t in x_txs if t["txType"] == "ExportTx")["txHash"],
        "p_import": next(t for t in p_txs if t["txType"] == "ImportTx")["txHash"],
        "p_convert": next(t for t in p_txs if t["txType"] == "ConvertSubnetToL1Tx")["txHash"],
        "c_export": next(t for t in c_atomic if t["txType"] == "ExportTx")["txHash"],
        "c_block_number": str(c_head - 1), "c_block_hash": c_block["hash"],
        "p_block": p_blocks[0]["blockHash"], "p_height": p_blocks[0]["blockNumber"], "x_block": x_blocks[0]["blockHash"],
        "pong_chain": pong["id"], "pong_subnet": pong["subnetID"], "pong_evm": "77102",
        "token": s.token.address, "alice": s.alice.address, "ewoq": "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC",
        "node": validators[0]["nodeID"],
    }
    return w._keys


def _data(w: World, path: str):
    with urllib.request.urlopen(w.url + path, timeout=30) as resp:
        return json.loads(resp.read())


# ----------------------------------------------------------------------------- every route loads clean

ROUTES = [
    ("overview", lambda k: "/explorer/"),
    ("chain_C", lambda k: "/explorer/chain/C"), ("chain_X", lambda k: "/explorer/chain/X"),
    ("chain_P", lambda k: "/explorer/chain/P"), ("chain_L1", lambda k: f"/explorer/chain/{k['pong_evm']}"),
    ("block_C_number", lambda k: f"/explorer/block/C/{k['c_block_number']}"),
    ("block_C_hash", lambda k: f"/explorer/block/C/{k['c_block_hash']}"),
    ("block_by_chain_id", lambda k: f"/explorer/block/{k['pong_chain']}/1"),
    ("block_P_height", lambda k: f"/explorer/block/P/{k['p_height']}"),
    ("block_P_id", lambda k: f"/explorer/block/P/{k['p_block']}"),
    ("block_X_id", lambda k: f"/explorer/block/X/{k['x_block']}"),
    ("tx_transfer", lambda k: f"/explorer/tx/{k['transfer']}"), ("tx_reverted", lambda k: f"/explorer/tx/{k['reverted']}"),
    ("tx_erc1155", lambda k: f"/explorer/tx/{k['erc1155']}"), ("tx_icm", lambda k: f"/explorer/tx/{k['icm_send']}"),
    ("tx_x_transfer", lambda k: f"/explorer/tx/{k['x_transfer']}"), ("tx_x_export", lambda k: f"/explorer/tx/{k['x_export']}"),
    ("tx_p_import", lambda k: f"/explorer/tx/{k['p_import']}"), ("tx_p_convert", lambda k: f"/explorer/tx/{k['p_convert']}"),
    ("tx_c_export", lambda k: f"/explorer/tx/{k['c_export']}"),
    ("address_ewoq", lambda k: f"/explorer/address/{k['ewoq']}"),
    ("address_ewoq_l1", lambda k: f"/explorer/address/{k['ewoq']}?chain={k['pong_evm']}"),
    ("address_contract", lambda k: f"/explorer/address/{k['token']}"),
    ("validators", lambda k: "/explorer/validators"), ("validators_completed", lambda k: "/explorer/validators?status=completed"),
    ("validator", lambda k: f"/explorer/validators/{k['node']}"),
    ("subnets", lambda k: "/explorer/subnets"), ("subnet_l1", lambda k: f"/explorer/subnets/{k['pong_subnet']}"),
    ("subnet_primary", lambda k: "/explorer/subnets/11111111111111111111111111111111LpoYY"),
    ("icm", lambda k: "/explorer/icm"), ("icm_message", lambda k: f"/explorer/icm/{k['message']}"),
    ("metrics", lambda k: "/explorer/metrics"),
    ("metrics_hourly_gas", lambda k: "/explorer/metrics?family=evm&metric=gasUsed&interval=hour&range=7d"),
    ("metrics_staking", lambda k: "/explorer/metrics?family=staking&metric=validatorWeight&range=all"),
    ("metrics_icm", lambda k: "/explorer/metrics?family=icm&interval=day&range=all"),
    ("search_empty", lambda k: "/explorer/search"),
]


@pytest.mark.parametrize("name, path", ROUTES, ids=[r[0] for r in ROUTES])
def test_every_route_loads_with_no_error(world, name, path):
    page = world.visit(path(keys(world)), shot=name)
    assert page.locator("main h1").first.inner_text().strip()
    assert "not found" not in page.locator("main h1").first.inner_text().lower()


def test_address_pages_of_x_p_and_c(world):
    alice = world.quick.accounts["alice"]
    for addr in (alice.x_address, alice.p_address, "C-" + alice.x_address.split("-", 1)[1]):
        page = world.visit(f"/explorer/address/{addr}", shot="address_" + addr[:1])
        assert page.locator("#balances").count() == 1


def test_unknown_page_is_the_explorers_not_found_with_404(world):
    world.errors.clear()
    resp = world.page.goto(world.url + "/explorer/no/such/page")
    assert resp.status == 404
    world.page.wait_for_selector(READY)
    world.page.screenshot(path=str(world.shots / "not_found.png"))
    assert world.page.locator("main h1").inner_text() == "Page not found"
    # the only error is the document's own 404
    assert all("/explorer/no/such/page" in e or "status of 404" in e for e in world.errors), world.errors


def test_missing_things_say_not_found(world):
    for path in ("/explorer/tx/0x" + "12" * 32, "/explorer/tx/2Kx" + "a" * 46, "/explorer/block/Q/1"):
        world.errors.clear()
        world.page.goto(world.url + path)
        world.page.wait_for_selector(READY)
        assert "not found" in world.page.locator("main h1").inner_text().lower(), path


# ----------------------------------------------------------------------------- what it shows equals the node's APIs

def test_balances_equal_the_apis(world):
    k = keys(world)
    page = world.visit(f"/explorer/address/{k['ewoq']}", shot="balance_ewoq")
    assert shown_raw(page, "#native-balance") == int(world.rpc("C", "eth_getBalance", [k["ewoq"], "latest"]), 16)
    page = world.visit(f"/explorer/address/{k['ewoq']}?chain={k['pong_evm']}", shot="balance_ewoq_l1")
    l1 = world.rpc(f"/ext/bc/{k['pong_chain']}/rpc", "eth_getBalance", [k["ewoq"], "latest"])
    assert shown_raw(page, "#native-balance") == int(l1, 16)

    alice = world.quick.accounts["alice"]
    page = world.visit(f"/explorer/address/{alice.x_address}", shot="balance_x")
    avax = world.rpc("X", "avm.getBalance", {"address": alice.x_address, "assetID": "AVAX"})
    asset_id = world.rpc("X", "avm.getAssetDescription", {"assetID": "AVAX"})["assetID"]
    cell = page.locator(f"#balances [data-kind=unlocked][data-asset='{asset_id}']")
    assert shown_raw(cell.locator(".."), "span") == int(avax["balance"])
    page = world.visit(f"/explorer/address/{alice.p_address}", shot="balance_p")
    p = world.rpc("P", "platform.getBalance", {"addresses": [alice.p_address]})
    cell = page.locator(f"#balances [data-kind=unlockedUnstaked][data-asset='{asset_id}']")
    assert shown_raw(cell.locator(".."), "span") == int(p["unlocked"])


def test_erc20_balance_and_contract_code_equal_the_rpc(world):
    k = keys(world)
    token = world.evm.s.token
    page = world.visit(f"/explorer/address/{k['alice']}", shot="erc20_alice")
    row = page.locator("#erc20-balances tr", has_text=token.functions.symbol().call())
    assert shown_raw(row, "td.num") == token.functions.balanceOf(k["alice"]).call()
    page = world.visit(f"/explorer/address/{k['token']}", shot="contract")
    assert page.locator("main h1").inner_text().startswith("Contract")
    assert page.locator("#contract-code").inner_text() == world.rpc("C", "eth_getCode", [k["token"], "latest"])


def test_a_txs_value_status_and_fee_equal_the_rpc(world):
    k = keys(world)
    for key in ("transfer", "reverted"):
        page = world.visit(f"/explorer/tx/{k[key]}", shot="values_" + key)
        tx = world.rpc("C", "eth_getTransactionByHash", [k[key]])
        receipt = world.rpc("C", "eth_getTransactionReceipt", [k[key]])
        assert shown_raw(page, "#tx-value") == int(tx["value"], 16)
        assert shown_raw(page, "#tx-fee") == int(receipt["gasUsed"], 16) * int(receipt["effectiveGasPrice"], 16)
        ok = receipt["status"] == "0x1"
        assert page.locator("#tx-status").inner_text() == ("Success" if ok else "Failed")
    trace = world.rpc("C", "debug_traceTransaction", [k["reverted"], {"tracer": "callTracer"}])
    assert trace["revertReason"] in page.locator("#revert-reason").inner_text()


def test_decoded_logs_name_their_events_and_tokens(world):
    k = keys(world)
    page = world.visit(f"/explorer/tx/{k['erc1155']}", shot="logs_erc1155")
    assert page.locator(".log[data-event=TransferBatch]").count() >= 1
    page = world.visit(f"/explorer/tx/{k['icm_send']}", shot="logs_icm")
    assert page.locator(".log[data-event=SendCrossChainMessage]").count() == 1
    assert page.locator(".log[data-event=SendWarpMessage]").count() == 1
    assert page.locator(".log[data-event=SendCrossChainMessage] a", has_text="pong").count() == 1
    transfer = next(r for r in world.evm.s.receipts if r["to"] == world.evm.s.token.address and len(r["logs"]) == 1)
    page = world.visit(f"/explorer/tx/{transfer['transactionHash'].to_0x_hex()}", shot="logs_erc20")
    log = page.locator(".log[data-event=Transfer]")
    assert log.locator(".tag").first.inner_text() == "ERC-20"
    assert world.evm.s.token.functions.symbol().call() in log.inner_text()


def test_atomic_txs_link_their_counterpart(world):
    k = keys(world)
    page = world.visit(f"/explorer/tx/{k['c_export']}", shot="atomic_c_export")
    exported = _data(world, f"/v1/networks/fuji/blockchains/c-chain/transactions/{k['c_export']}")
    importer = exported["emittedUtxos"][0]["consumingTxHash"]
    assert page.locator("#counterpart a").first.get_attribute("title") == importer
    page.locator("#counterpart a").first.click()
    page.wait_for_url(f"**/explorer/tx/{importer}")
    page.wait_for_selector(READY)
    assert page.locator("main h1").inner_text().startswith("ImportTx")
    status = world.rpc("P", "platform.getTxStatus", {"txID": importer})["status"]
    assert page.locator("#tx-status").inner_text() == status


def test_x_tx_shows_memo_inputs_and_outputs(world):
    k = keys(world)
    page = world.visit(f"/explorer/tx/{k['x_transfer']}", shot="x_memo")
    tx = world.rpc("X", "avm.getTx", {"txID": k["x_transfer"], "encoding": "json"})["tx"]["unsignedTx"]
    assert page.locator("#tx-memo").inner_text() == bytes.fromhex(tx["memo"][2:]).decode()
    assert page.locator("#inputs tbody tr").count() == len(tx["inputs"])
    assert page.locator("#outputs tbody tr").count() == len(tx["outputs"])


def test_a_validators_weight_equals_platform(world):
    page = world.visit("/explorer/validators", shot="validator_weights")
    for v in world.rpc("P", "platform.getCurrentValidators", {})["validators"]:
        assert shown_raw(page, f".weight[data-node='{v['nodeID']}']") == int(v["weight"])
    v = world.rpc("P", "platform.getCurrentValidators", {})["validators"][0]
    page = world.visit(f"/explorer/validators/{v['nodeID']}", shot="validator_weight")
    assert shown_raw(page, "#validator-weight") == int(v["weight"])


def test_an_icm_messages_status_equals_the_messenger(world):
    page = world.visit("/explorer/icm", shot="icm_status")
    received = "0x" + keccak(text="messageReceived(bytes32)")[:4].hex()
    chains = {c["id"]: c for c in world.rpc("P", "platform.getBlockchains", {})["blockchains"]}
    for m in _data(world, "/v1/icm/messages?pageSize=50")["messages"]:
        dest = m["destinationBlockchainId"]
        rpc_path = "/ext/bc/C/rpc" if chains[dest]["name"] == "C-Chain" else f"/ext/bc/{dest}/rpc"
        got = world.rpc(rpc_path, "eth_call", [{"to": m["icmContractAddress"], "data": received + m["messageId"]}, "latest"])
        delivered = int(got, 16) == 1
        shown = page.locator(f".icm-status[data-message='{m['messageId']}']").inner_text()
        assert shown == ("delivered" if delivered else "pending"), m["messageId"]


def test_a_blocks_tx_count_equals_the_rpc(world):
    k = keys(world)
    page = world.visit(f"/explorer/block/C/{k['c_block_number']}", shot="block_count")
    block = world.rpc("C", "eth_getBlockByNumber", [hex(int(k["c_block_number"])), False])
    assert int(page.locator("#block-txcount").inner_text()) == len(block["transactions"])
    assert page.locator("main").inner_text().count(block["hash"]) == 1


# ----------------------------------------------------------------------------- live, search, dev panel

def test_a_new_block_appears_on_the_open_overview(world):
    page = world.visit("/explorer/", shot="live_before")
    before = {c: int(page.locator(f".chain-card[data-chain={c}] .head").get_attribute("data-height")) for c in ("C", "X", "P")}
    world.node.fund_accounts(names=("erin",), seed=9)  # real txs on C, X and P: one block each or more
    heads = {"C": int(world.rpc("C", "eth_blockNumber"), 16),
             "X": int(world.rpc("X", "avm.getHeight", {})["height"]), "P": int(world.rpc("P", "platform.getHeight", {})["height"])}
    assert all(heads[c] > before[c] for c in heads)
    for chain, height in heads.items():
        page.wait_for_selector(f".chain-card[data-chain={chain}] .head[data-height='{height}']", timeout=10_000)
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # no reload
    page.screenshot(path=str(world.shots / "live_after.png"), full_page=True)
    assert not world.errors, world.errors


def search(world, q: str) -> str:
    """Type q into the header's search box of the page open now; the path it lands on."""
    world.errors.clear()
    world.page.wait_for_selector(READY)
    box = world.page.locator("header form.search input")
    box.fill(q)
    world.page.eval_on_selector("main", "m => { m.dataset.state = 'stale'; }")  # the next 'ready' is the result's
    box.press("Enter")
    world.page.wait_for_function("() => !location.pathname.startsWith('/explorer/search') && "
                                 "document.querySelector('main').dataset.state === 'ready'", timeout=20_000)
    assert not world.errors, world.errors
    return urllib.parse.unquote(world.page.evaluate("location.pathname + location.search"))


def test_search_lands_on_each_kind_of_key(world):
    k = keys(world)
    alice = world.quick.accounts["alice"]
    cases = {
        k["transfer"]: f"/explorer/tx/{k['transfer']}",
        k["transfer"].upper().replace("0X", "0x"): f"/explorer/tx/{k['transfer']}",
        k["p_import"]: f"/explorer/tx/{k['p_import']}",
        k["x_transfer"]: f"/explorer/tx/{k['x_transfer']}",
        k["c_export"]: f"/explorer/tx/{k['c_export']}",
        k["c_block_number"]: f"/explorer/block/C/{k['c_block_number']}",
        k["c_block_hash"]: f"/explorer/block/C/{k['c_block_hash']}",
        k["p_block"]: f"/explorer/block/P/{k['p_block']}",
        k["x_block"]: f"/explorer/block/X/{k['x_block']}",
        k["ewoq"]: f"/explorer/address/{k['ewoq']}",
        alice.x_address: f"/explorer/address/{alice.x_address}",
        alice.p_address: f"/explorer/address/{alice.p_address}",
        k["node"]: f"/explorer/validators/{k['node']}",
        k["pong_subnet"]: f"/explorer/subnets/{k['pong_subnet']}",
        k["pong_chain"]: f"/explorer/chain/{k['pong_evm']}",
        k["message"]: f"/explorer/icm/{k['message']}",
    }
    world.visit("/explorer/subnets", shot="search_start")
    for q, want in cases.items():
        assert search(world, q) == want, q


def test_search_without_a_match_says_so(world):
    world.errors.clear()
    page = world.page
    page.goto(world.url + "/explorer/search?q=" + urllib.parse.quote("no such thing"))
    page.wait_for_selector(READY)
    assert page.locator("#search-none").count() == 1
    assert not world.errors, world.errors


def dev(world, form: str, **fields) -> str:
    page = world.page
    if page.locator("#dev-panel").is_hidden():
        page.click("#dev-toggle")
    for name, value in fields.items():
        page.locator(f"#dev-panel form[data-action={form}] [name={name}]").select_option(value) if name == "unit" \
            else page.locator(f"#dev-panel form[data-action={form}] [name={name}]").fill(value)
    before = page.locator("#dev-status").inner_text()
    page.locator(f"#dev-panel form[data-action={form}] button").first.click()
    page.wait_for_function("b => { const s = document.getElementById('dev-status').textContent;"
                           " return s && s !== b && document.querySelector('main').dataset.state === 'ready'; }",
                           arg=before, timeout=20_000)
    return page.locator("#dev-status").inner_text()


def test_dev_panel_actions_take_effect(world):
    page = world.visit("/explorer/chain/C", shot="dev_before")
    head = int(world.rpc("C", "eth_blockNumber"), 16)
    assert "C 2" in dev(world, "mine", blocks="2")
    assert int(world.rpc("C", "eth_blockNumber"), 16) == head + 2
    page.wait_for_selector(f"main a[href='/explorer/block/C/{head + 2}']")

    t0 = int(world.rpc("simnode", "simnode.getTime", {})["timestamp"])
    dev(world, "advance", amount="3", unit="3600")
    t1 = int(world.rpc("simnode", "simnode.getTime", {})["timestamp"])
    assert t1 - t0 == 3 * 3600
    assert page.locator("#node-time").get_attribute("data-ts") == str(t1)

    assert "Snapshot" in dev(world, "snapshot")
    snap = page.locator("#snapshots button").last
    dev(world, "mine", blocks="3")
    assert int(world.rpc("C", "eth_blockNumber"), 16) == head + 5
    before = page.locator("#dev-status").inner_text()
    snap.click()
    page.wait_for_function("b => document.getElementById('dev-status').textContent !== b", arg=before)
    page.wait_for_selector(READY)
    assert int(world.rpc("C", "eth_blockNumber"), 16) == head + 2
    page.wait_for_selector(f"main a[href='/explorer/block/C/{head + 2}']")
    assert page.locator(f"main a[href='/explorer/block/C/{head + 5}']").count() == 0
    assert page.locator("#snapshots button").count() == 0

    page = world.visit("/explorer/icm", shot="dev_relayer_before")
    on = world.rpc("simnode", "simnode.getRelayer", {})["enabled"]
    dev(world, "relayer")
    assert world.rpc("simnode", "simnode.getRelayer", {})["enabled"] is (not on)
    assert page.locator("#relayer").inner_text() == ("off" if on else "on")
    assert page.locator("#relayer-state").get_attribute("data-enabled") == str(not on).lower()
    dev(world, "relayer")
    assert world.rpc("simnode", "simnode.getRelayer", {})["enabled"] is on
    page.screenshot(path=str(world.shots / "dev_after.png"), full_page=True)
    assert not world.errors, world.errors


# ----------------------------------------------------------------------------- phone width, docs page

def test_pages_fit_a_phone(world):
    k = keys(world)
    world.page.set_viewport_size({"width": 390, "height": 844})
    try:
        for path in ("/explorer/", f"/explorer/tx/{k['icm_send']}", "/explorer/validators"):
            page = world.visit(path, shot="phone_" + path.split("/")[2] if len(path) > 10 else "phone_overview")
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    finally:
        world.page.set_viewport_size({"width": 1280, "height": 900})


@pytest.mark.parametrize("api, tag, route", [("data-api", "Health Check", "/v1/health-check"),
                                             ("metrics-api", "Health Check", "/v2/health-check")])
def test_docs_page_tries_a_request_against_this_node(world, api, tag, route):
    page = world.visit(f"/docs?api={api}", shot=f"docs_{api}", wait=f"body[data-ready='{api}']")
    assert page.locator(".servers select").input_value() == world.url
    page.locator(".opblock-tag", has_text=tag).first.click()
    page.locator(".opblock-summary-path", has_text=route).first.click()
    if page.locator("button.execute").count() == 0:  # tryItOutEnabled: the form is usually open already
        page.locator("button.try-out__btn").first.click()
    with page.expect_response(world.url + route) as resp:
        page.locator("button.execute").first.click()
    assert resp.value.status == 200
    page.wait_for_selector(".responses-table.live-responses-table .response-col_status")
    assert page.locator(".live-responses-table tbody .response-col_status").first.inner_text().strip() == "200"
    page.screenshot(path=str(world.shots / f"docs_{api}_tried.png"), full_page=True)
    assert not world.errors, world.errors
