"""Foundry 1.7.1 (cast, forge and anvil from npm, tests/js) against a node that mines at once and one
that mines every second (`--block-time 1`). forge compiles tests/foundry offline through its `solc`
shim (the pinned solc-js); a fresh build must give the committed artifacts the ethers and viem tests
deploy. Per node, one pass of commands (the `foundry` fixture) records what each printed; each test
asserts one of them: `forge create --broadcast`, `cast send/call/receipt/logs/access-list/run`,
`forge script --broadcast`, `forge test --fork-url` and `anvil --fork-url` forking the C-Chain."""

from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simnode.config import NodeConfig
from simnode.node import Node

from . import client_matrix as m
from .js import JS_DIR, require_js
from .rpc import call

FOUNDRY = Path(__file__).resolve().parents[1] / "foundry"
EWOQ_KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
EWOQ = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"
DEAD = "0x000000000000000000000000000000000000dEaD"
COINBASE = "0x0100000000000000000000000000000000000000"  # the C-Chain's, warm under EIP-3651 only
VALUE_SET = "ValueSet(address indexed,uint256 indexed,uint256)"


def tool(name: str) -> Path:
    return JS_DIR / "node_modules" / "@foundry-rs" / f"{name}-linux-amd64" / "bin" / name


def require_foundry() -> None:
    require_js("the Foundry tests (forge's solc is solc-js)")
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip(f"the npm Foundry binaries are linux-amd64 only (this is {platform.system()} {platform.machine()})")
    for name in ("cast", "forge", "anvil"):
        if not tool(name).is_file():
            pytest.skip(f"tests/js/node_modules has no @foundry-rs/{name}-linux-amd64: run `cd tests/js && npm ci`")


def run_tool(name: str, *args: str, env: dict[str, str], timeout: int = 120, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(tool(name)), *args], cwd=FOUNDRY, env=env, capture_output=True, text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, f"{name} {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}\n{proc.stdout}"
    return proc


def json_lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.startswith(("{", "["))]


@pytest.fixture(scope="module")
def forge_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One `forge build` for the module: its output, cache and broadcast logs stay in a temp folder."""
    require_foundry()
    scratch = tmp_path_factory.mktemp("forge")
    env = {**os.environ, "FOUNDRY_OUT": str(scratch / "out"), "FOUNDRY_CACHE_PATH": str(scratch / "cache"),
           "FOUNDRY_BROADCAST": str(scratch / "broadcast"), "FOUNDRY_OFFLINE": "true", "NO_COLOR": "1"}
    run_tool("forge", "build", env=env, timeout=300)
    return env


def test_forge_build_gives_the_committed_artifacts(forge_env):
    """The ethers and viem tests deploy tests/foundry/artifacts; forge builds the same bytes today."""
    for name in ("Vault", "Reader"):
        built = json.loads((Path(forge_env["FOUNDRY_OUT"]) / f"{name}.sol" / f"{name}.json").read_text())
        committed = json.loads((FOUNDRY / "artifacts" / f"{name}.json").read_text())
        assert built["bytecode"]["object"] == committed["bytecode"], f"{name}: run node tests/foundry/export_artifacts.mjs"
        assert built["deployedBytecode"]["object"] == committed["deployedBytecode"], name
        assert built["abi"] == committed["abi"], name
        assert committed["compiler"]["version"] == "0.8.37+commit.f401782d.Emscripten.clang"


class Steps(dict):
    """What each command of the pass printed, or the error that stopped it (later steps still run)."""

    def attempt(self, name: str, fn: Callable[[], Any]) -> Any:
        try:
            self[name] = {"value": fn()}
        except Exception as err:  # recorded for the test that asserts this step
            self[name] = {"error": f"{type(err).__name__}: {err}"}
        return self[name].get("value")

    def value(self, name: str) -> Any:
        got = self[name]
        assert "error" not in got, f"{name}: {got['error']}"
        return got["value"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fork_with_anvil(rpc: str, env: dict[str, str], vault: str) -> dict:
    """`anvil --fork-url <C-Chain>`: anvil serves the node's state at its head and mines on top of it."""
    fork_block = int(call(rpc, "eth_blockNumber", []), 16)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([str(tool("anvil")), "--fork-url", rpc, "--port", str(port), "--silent"],
                            cwd=FOUNDRY, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                chain_id = int(call(url, "eth_chainId", []), 16)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"anvil --fork-url did not answer: {proc.stderr.read() if proc.poll() is not None else 'timeout'}") from None
                time.sleep(0.1)
        return {"chainId": chain_id, "forkBlock": fork_block, "vault": vault, **_on_the_fork(url, env, vault)}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _on_the_fork(url: str, env: dict[str, str], vault: str) -> dict:
    out = {
        "blockNumber": int(run_tool("cast", "block-number", "-r", url, env=env).stdout),
        "ewoqBalance": int(run_tool("cast", "balance", EWOQ, "-r", url, env=env).stdout),
        "value": int(run_tool("cast", "call", vault, "value()(uint256)", "-r", url, env=env).stdout.split()[0]),
    }
    sent = json.loads(run_tool("cast", "send", vault, "set(uint256)", "99", "--private-key", EWOQ_KEY, "-r", url, "--json", env=env).stdout)
    out.update(sent=sent, valueAfter=int(run_tool("cast", "call", vault, "value()(uint256)", "-r", url, env=env).stdout.split()[0]),
               blockAfter=int(run_tool("cast", "block-number", "-r", url, env=env).stdout))
    return out


@pytest.fixture(scope="module", params=list(m.MODES))
def foundry(request: pytest.FixtureRequest, forge_env: dict[str, str]) -> Iterator[tuple[str, Steps]]:
    config = NodeConfig(http_port=0, ephemeral=True, block_time=m.MODES[request.param], log_level="WARN")
    with Node.start_in_thread(config) as node:
        rpc = node.url + "/ext/bc/C/rpc"
        yield rpc, _pass(rpc, forge_env)


def _pass(rpc: str, env: dict[str, str]) -> Steps:
    s = Steps()
    cast = lambda *a, **kw: run_tool("cast", *a, "-r", rpc, env=env, **kw)  # noqa: E731
    signed = ("--private-key", EWOQ_KEY)

    def create(contract: str, *ctor: str) -> dict:
        args = ["create", contract, "--broadcast", "--json", *signed, "-r", rpc]
        if ctor:
            args += ["--constructor-args", *ctor]
        out = run_tool("forge", *args, env=env).stdout  # pretty-printed JSON after forge's build note
        return json.loads(out[out.index("\n{") + 1:] if not out.startswith("{") else out)

    vault = s.attempt("forgeCreate", lambda: create("src/Vault.sol:Vault", "42"))
    reader = s.attempt("forgeCreateReader", lambda: create("src/Reader.sol:Reader"))
    v = vault["deployedTo"] if vault else "0x" + "00" * 20

    s.attempt("castSendTransfer", lambda: {
        "before": int(cast("balance", "0x00000000000000000000000000000000000c0ffe").stdout),
        "receipt": json.loads(cast("send", "0x00000000000000000000000000000000000c0ffe", "--value", "123456789", *signed, "--json").stdout),
        "after": int(cast("balance", "0x00000000000000000000000000000000000c0ffe").stdout)})
    s.attempt("castSend", lambda: json.loads(cast("send", v, "set(uint256)", "77", *signed, "--json").stdout))
    s.attempt("castCall", lambda: {
        "value": cast("call", v, "value()(uint256)").stdout.split()[0],
        "owner": cast("call", v, "owner()(address)").stdout.strip(),
        "customError": cast("call", v, "set(uint256)", "5", "--from", DEAD, check=False).stderr,
        "requireString": cast("call", v, "set(uint256)", "2000000", "--from", EWOQ, check=False).stderr})
    s.attempt("castDecodeError", lambda: json.loads(run_tool(
        "cast", "decode-error", "--sig", "NotOwner(address,address)", _revert_data(s.value("castCall")["customError"]), "--json", env=env).stdout))
    set_tx = (s.get("castSend", {}).get("value") or {}).get("transactionHash", "0x" + "00" * 32)
    s.attempt("castReceipt", lambda: {"json": json.loads(cast("receipt", set_tx, "--json").stdout),
                                      "gasUsed": cast("receipt", set_tx, "gasUsed").stdout.strip()})
    s.attempt("castLogs", lambda: json.loads(cast("logs", "--from-block", "0", "--to-block", "latest", "--address", v,
                                                  VALUE_SET, "--json").stdout))
    r = reader["deployedTo"] if reader else "0x" + "00" * 20
    s.attempt("castAccessList", lambda: json.loads(cast("access-list", r, "peek(address,address)", v, DEAD, "--from", EWOQ, "--json").stdout))
    s.attempt("castSendAccessList", lambda: json.loads(cast("send", r, "peek(address,address)", v, DEAD, "--access-list", *signed, "--json").stdout))
    s.attempt("castRun", lambda: cast("run", set_tx).stdout)
    s.attempt("forgeScript", lambda: _forge_script(rpc, env))
    s.attempt("forgeTestFork", lambda: _forge_test_fork(rpc, env, v))
    s.attempt("anvilFork", lambda: fork_with_anvil(rpc, env, v))
    return s


def _revert_data(stderr: str) -> str:
    return stderr.split('data: "')[1].split('"')[0]


def _forge_script(rpc: str, env: dict[str, str]) -> dict:
    proc = run_tool("forge", "script", "script/Deploy.s.sol:Deploy", "--broadcast", "--private-key", EWOQ_KEY, "-r", rpc,
                    "--json", env=env, timeout=180)
    lines = json_lines(proc.stdout)
    done = lines[-1]
    log = json.loads(Path(done["transactions"]).read_text())
    return {"result": lines[0], "sent": [ln for ln in lines if "tx_hash" in ln], "done": done, "log": log}


def _forge_test_fork(rpc: str, env: dict[str, str], vault: str) -> dict:
    proc = run_tool("forge", "test", "--fork-url", rpc, "--json", "-vv", env={**env, "VAULT": vault, "VAULT_VALUE": "77"},
                    check=False, timeout=180)
    block = int(call(rpc, "eth_blockNumber", []), 16)
    return {"results": json_lines(proc.stdout)[-1], "returncode": proc.returncode, "stderr": proc.stderr, "head": block}


# ---------------------------------------------------------------- the checks


def test_forge_create(foundry):
    rpc, s = foundry
    got = s.value("forgeCreate")
    assert m.same_address(got["deployer"], EWOQ)
    assert call(rpc, "eth_getCode", [got["deployedTo"], "latest"]) == m.VAULT["deployedBytecode"]
    receipt = call(rpc, "eth_getTransactionReceipt", [got["transactionHash"]])
    assert receipt["status"] == "0x1" and int(receipt["gasUsed"], 16) == m.DEPLOY_GAS
    assert m.same_address(receipt["contractAddress"], got["deployedTo"])


def test_cast_send_value_and_contract_write(foundry):
    rpc, s = foundry
    t = s.value("castSendTransfer")
    assert t["receipt"]["status"] == "0x1" and int(t["receipt"]["gasUsed"], 16) == m.TRANSFER_GAS
    assert t["after"] - t["before"] == 123456789
    r = s.value("castSend")
    assert r["status"] == "0x1" and int(r["gasUsed"], 16) == m.SET_GAS
    vault = s.value("forgeCreate")["deployedTo"]
    assert int(call(rpc, "eth_getStorageAt", [vault, "0x0", "latest"]), 16) == 77


def test_cast_call_reads_and_decodes_reverts(foundry):
    _, s = foundry
    got = s.value("castCall")
    assert got["value"] == "77" and m.same_address(got["owner"], EWOQ)
    # a custom error: the node's code 3 with the revert data, which `cast decode-error` decodes
    assert "execution reverted" in got["customError"]
    assert _revert_data(got["customError"]) == m.not_owner_data(DEAD, EWOQ)
    assert [a.lower() for a in s.value("castDecodeError")] == [DEAD.lower(), EWOQ.lower()]
    # a require string: in the node's message and in the data
    assert "execution reverted: value too large" in got["requireString"]
    assert _revert_data(got["requireString"]) == m.error_string_data("value too large")


def test_cast_receipt(foundry):
    rpc, s = foundry
    got = s.value("castReceipt")
    tx = s.value("castSend")["transactionHash"]
    node = call(rpc, "eth_getTransactionReceipt", [tx])
    for field in ("status", "gasUsed", "cumulativeGasUsed", "effectiveGasPrice", "blockHash", "blockNumber", "logsBloom", "type"):
        assert got["json"][field] == node[field], field
    assert got["gasUsed"] == str(m.SET_GAS)


def test_cast_logs(foundry):
    _, s = foundry
    logs = s.value("castLogs")
    vault = s.value("forgeCreate")["deployedTo"]
    assert len(logs) == 1
    log = logs[0]
    assert m.same_address(log["address"], vault)
    assert log["topics"][1] == "0x" + EWOQ[2:].lower().rjust(64, "0")   # by
    assert int(log["topics"][2], 16) == 42 and int(log["data"], 16) == 77  # previous, next
    assert log["transactionHash"] == s.value("castSend")["transactionHash"]


def test_cast_access_list(foundry):
    """geth's access-list tracer: the slots read or written under their contracts (the `to` contract
    too), addresses reached by BALANCE; never the sender, the precompiles or the coinbase; gasUsed is
    the gas of the run with the list, which the tx sent with it then uses."""
    _, s = foundry
    got = s.value("castAccessList")
    vault, reader = s.value("forgeCreate")["deployedTo"], s.value("forgeCreateReader")["deployedTo"]
    listed = {e["address"].lower(): sorted(e["storageKeys"]) for e in got["accessList"]}
    slot0 = "0x" + "00" * 32
    assert COINBASE.lower() not in listed
    assert listed == {reader.lower(): [slot0], vault.lower(): [slot0], DEAD.lower(): []}
    sent = s.value("castSendAccessList")
    assert sent["status"] == "0x1"
    assert int(sent["gasUsed"], 16) == int(got["gasUsed"], 16)


def test_cast_run_replays_the_tx(foundry):
    _, s = foundry
    out = s.value("castRun")
    assert f"Gas used: {m.SET_GAS}" in out
    assert "emit ValueSet" in out and "set(77)" in out


def test_forge_script_broadcast(foundry):
    rpc, s = foundry
    got = s.value("forgeScript")
    assert got["done"]["status"] == "success"
    assert sorted(t["status"] for t in got["sent"]) == ["success"] * 3
    # The broadcast log lists the three txs in script order. Which hash goes with which tx is read
    # back from the node: forge 1.7.1 pairs the hashes with its txs in the order the concurrent
    # eth_sendRawTransaction answers arrive, so with --block-time its log can swap them.
    txs = got["log"]["transactions"]
    assert [t["transactionType"] for t in txs] == ["CREATE", "CALL", "CALL"]
    assert [t.get("function") for t in txs[1:]] == ["set(uint256)", "deposit()"]
    start = int(txs[0]["transaction"]["nonce"], 16)
    assert [int(t["transaction"]["nonce"], 16) for t in txs] == [start, start + 1, start + 2]
    mined = sorted((int(tx["nonce"], 16), tx["input"][:10], receipt) for tx, receipt in (
        (call(rpc, "eth_getTransactionByHash", [r["transactionHash"]]), r) for r in got["log"]["receipts"]))
    assert [(n, sel) for n, sel, _ in mined] == [(start, "0x60806040"), (start + 1, "0x60fe47b1"), (start + 2, "0xd0e30db0")]
    assert [r["status"] for *_, r in mined] == ["0x1"] * 3
    assert [int(r["gasUsed"], 16) for *_, r in mined] == [m.DEPLOY_GAS, m.SET_GAS, m.DEPOSIT_GAS]
    vault = mined[0][2]["contractAddress"]
    assert m.same_address(got["result"]["returns"]["vault"]["value"], vault)
    # what the three txs left on the chain
    assert int(call(rpc, "eth_call", [{"to": vault, "data": "0x3fa4f245"}, "latest"]), 16) == 8  # value()
    assert int(call(rpc, "eth_getBalance", [vault, "latest"]), 16) == 1000
    deposits = call(rpc, "eth_call", [{"to": vault, "data": "0xfc7e286d" + EWOQ[2:].lower().rjust(64, "0")}, "latest"])
    assert int(deposits, 16) == 1000


def test_forge_test_on_a_fork(foundry):
    rpc, s = foundry
    got = s.value("forgeTestFork")
    result = got["results"]["test/Fork.t.sol:ForkTest"]["test_results"]["test_forkedVault()"]
    assert result["status"] == "Success", (result["reason"], got["stderr"])
    logs = dict(line.split(": ", 1) for line in result["decoded_logs"])
    block = int(logs["block"])
    assert int(logs["value"]) == 77 and logs["owner"].lower() == EWOQ.lower()
    assert int(logs["chainid"]) == 43112 and block <= got["head"]
    assert int(logs["ownerBalance"]) == int(call(rpc, "eth_getBalance", [EWOQ, hex(block)]), 16)
    assert int(logs["valueAfterSet"]) == 78
    vault = s.value("forgeCreate")["deployedTo"]
    assert int(call(rpc, "eth_getStorageAt", [vault, "0x0", "latest"]), 16) == 77  # the fork's write stayed there


def test_anvil_forks_the_c_chain(foundry):
    rpc, s = foundry
    got = s.value("anvilFork")
    assert got["chainId"] == 43112 and got["blockNumber"] == got["forkBlock"]
    assert got["ewoqBalance"] == int(call(rpc, "eth_getBalance", [EWOQ, hex(got["forkBlock"])]), 16)
    assert got["value"] == 77
    assert got["sent"]["status"] == "0x1" and int(got["sent"]["gasUsed"], 16) == m.SET_GAS
    assert got["valueAfter"] == 99 and got["blockAfter"] == got["forkBlock"] + 1
    assert int(call(rpc, "eth_getStorageAt", [got["vault"], "0x0", "latest"]), 16) == 77  # the node is untouched


def test_foundry_tools_are_1_7_1(forge_env):
    for name in ("cast", "forge", "anvil"):
        out = run_tool(name, "--version", env=forge_env).stdout
        assert "1.7.1" in out and "4072e48705af9d93e3c0f6e29e93b5e9a40caed8"[:10] in out, (name, out)

