"""The C-Chain through web3.py against a real node: transfers, ERC-20/1155, logs, errors, dev
controls, websocket subscriptions and restart persistence."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from eth_account import Account
from web3 import Web3

from simnode.config import NodeConfig
from simnode.node import Node

from .rpc import RPCFailure, call

CONTRACTS = Path(__file__).resolve().parents[1] / "contracts"
EWOQ_KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
EWOQ = Account.from_key(EWOQ_KEY)
CHAIN_ID = 43112
GWEI = 10**9


def artifact(name: str) -> dict:
    return json.loads((CONTRACTS / f"{name}.json").read_text())


@pytest.fixture(scope="module")
def node():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as handle:
        yield handle


@pytest.fixture(scope="module")
def rpc(node):
    return node.url + "/ext/bc/C/rpc"


@pytest.fixture(scope="module")
def w3(rpc):
    return Web3(Web3.HTTPProvider(rpc, request_kwargs={"timeout": 30}))


def send(w3: Web3, acct, tx: dict) -> dict:
    tx = dict(tx)
    tx.setdefault("chainId", CHAIN_ID)
    tx.setdefault("nonce", w3.eth.get_transaction_count(acct.address, "pending"))
    if "gasPrice" not in tx:
        tx.setdefault("maxFeePerGas", 50 * GWEI)
        tx.setdefault("maxPriorityFeePerGas", 1 * GWEI)
    tx.setdefault("gas", 21000)
    signed = acct.sign_transaction(tx)
    h = w3.eth.send_raw_transaction(signed.raw_transaction)
    return w3.eth.wait_for_transaction_receipt(h, timeout=10, poll_latency=0.01)


def deploy(w3: Web3, acct, name: str, *args) -> object:
    a = artifact(name)
    c = w3.eth.contract(abi=a["abi"], bytecode=a["bytecode"])
    tx = c.constructor(*args).build_transaction({"from": acct.address, "chainId": CHAIN_ID,
                                                 "nonce": w3.eth.get_transaction_count(acct.address, "pending"),
                                                 "maxFeePerGas": 50 * GWEI, "maxPriorityFeePerGas": GWEI})
    rc = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_raw_transaction(acct.sign_transaction(tx).raw_transaction), timeout=10, poll_latency=0.01)
    assert rc.status == 1
    return w3.eth.contract(address=rc.contractAddress, abi=a["abi"])


def transact(w3: Web3, acct, fn) -> dict:
    tx = fn.build_transaction({"from": acct.address, "chainId": CHAIN_ID,
                               "nonce": w3.eth.get_transaction_count(acct.address, "pending"),
                               "maxFeePerGas": 50 * GWEI, "maxPriorityFeePerGas": GWEI})
    h = w3.eth.send_raw_transaction(acct.sign_transaction(tx).raw_transaction)
    return w3.eth.wait_for_transaction_receipt(h, timeout=10, poll_latency=0.01)


def rpc_error(rpc: str, method: str, params: list) -> dict:
    with pytest.raises(RPCFailure) as info:
        call(rpc, method, params)
    return info.value.error


# --------------------------------------------------------------------------------------- basics


def test_identity_and_genesis(w3, rpc):
    assert w3.eth.chain_id == CHAIN_ID
    assert call(rpc, "web3_clientVersion") == "v1.14.2"
    assert call(rpc, "net_version") == "43112"
    assert call(rpc, "eth_syncing") is False
    g = call(rpc, "eth_getBlockByNumber", ["0x0", False])
    assert list(g) == sorted(g)
    assert g["baseFeePerGas"] == "0x34630b8a00"
    assert g["gasLimit"] == "0x5f5e100"
    assert g["timestamp"] == "0x5fcb13d0"
    assert g["difficulty"] == "0x0"
    # coreth's genesis keeps ExtDataHash zero; the hash is avalanchego's TestGenesisHash value
    assert g["extDataHash"] == "0x" + "00" * 32 and g["blockExtraData"] == "0x"
    assert g["hash"] == "0x608ddbd611241719b64642d8e152537e2a5bdf46b6ddb9e8f15340c5e007b8b1"
    # past the last accepted block: coreth's error for blocks, headers and state; null for the
    # lookups that drop it
    for method, params in (("eth_getBlockByNumber", ["0xffffff", False]), ("eth_getHeaderByNumber", ["0xffffff"]),
                           ("eth_getBalance", [EWOQ.address, "0xffffff"])):
        with pytest.raises(RPCFailure) as info:
            call(rpc, method, params)
        assert info.value.error == {"code": -32000, "message": "cannot query unfinalized data"}, method
    assert call(rpc, "eth_getBlockTransactionCountByNumber", ["0xffffff"]) is None
    assert call(rpc, "eth_getBlockReceipts", ["0xffffff"]) is None
    assert w3.eth.get_balance(EWOQ.address, 0) == 0x295BE96E64066972000000
    cfg = call(rpc, "eth_getChainConfig")
    assert list(cfg) == sorted(cfg) and cfg["chainId"] == CHAIN_ID and cfg["cancunTime"] == 1607144400
    assert call(rpc, "web3_sha3", ["0x68656c6c6f"]) == "0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8"


def test_transfers_legacy_and_1559(w3, rpc):
    to = "0x" + "33" * 20
    to = Web3.to_checksum_address(to)
    before = w3.eth.get_balance(EWOQ.address)
    assert call(rpc, "eth_baseFee") == "0x1" or int(call(rpc, "eth_baseFee"), 16) >= 1
    rc1 = send(w3, EWOQ, {"to": to, "value": 10**18, "gasPrice": 30 * GWEI})
    rc2 = send(w3, EWOQ, {"to": to, "value": 2 * 10**18, "maxFeePerGas": 30 * GWEI, "maxPriorityFeePerGas": 2 * GWEI})
    assert rc1.status == 1 and rc2.status == 1
    assert rc1.type == 0 and rc2.type == 2
    assert w3.eth.get_balance(to) == 3 * 10**18
    blk = w3.eth.get_block(rc2.blockNumber)
    assert blk.difficulty == 1 and blk.miner == "0x0100000000000000000000000000000000000000"
    assert blk.gasLimit == 10_000_000
    fee1 = rc1.gasUsed * rc1.effectiveGasPrice
    fee2 = rc2.gasUsed * rc2.effectiveGasPrice
    assert rc2.effectiveGasPrice == blk.baseFeePerGas + 2 * GWEI
    assert w3.eth.get_balance(EWOQ.address) == before - 3 * 10**18 - fee1 - fee2
    tx = w3.eth.get_transaction(rc1.transactionHash)
    assert tx["from"] == EWOQ.address and tx.type == 0 and tx.chainId == CHAIN_ID
    raw = call(rpc, "eth_getBlockByNumber", [hex(rc2.blockNumber), True])
    assert list(raw) == sorted(raw) and raw["timestampMilliseconds"].startswith("0x")
    assert call(rpc, "eth_getBlockReceipts", [hex(rc2.blockNumber)])[0]["transactionHash"] == rc2.transactionHash.to_0x_hex()


def test_erc20_events_logs_reverts(w3, rpc):
    token = deploy(w3, EWOQ, "Token", "Test", "TST", 10**24)
    assert token.functions.name().call() == "Test"
    bob = Account.create("bob").address
    est = token.functions.transfer(bob, 5).estimate_gas({"from": EWOQ.address})
    assert 30_000 < est < 60_000
    rc = transact(w3, EWOQ, token.functions.transfer(bob, 5))
    assert rc.status == 1 and rc.gasUsed <= est
    ev = token.events.Transfer().process_receipt(rc)
    assert ev[0].args.to == bob and ev[0].args.value == 5
    assert token.functions.balanceOf(bob).call() == 5
    logs = w3.eth.get_logs({"address": token.address, "fromBlock": 0, "toBlock": "latest"})
    assert len(logs) == 2  # mint + transfer
    topic_to = "0x" + "00" * 12 + bob[2:].lower()
    only = w3.eth.get_logs({"fromBlock": 0, "topics": [None, None, topic_to]})
    assert len(only) == 1 and only[0].transactionHash == rc.transactionHash
    assert w3.eth.get_logs({"blockHash": rc.blockHash})[0].logIndex == 0
    # revert reasons (eth_call: code 3 + data)
    err = rpc_error(rpc, "eth_call", [{"to": token.address, "data": token.encode_abi("fail", [1])}, "latest"])
    assert err["code"] == 3 and err["message"] == "execution reverted: always fails"
    assert err["data"].startswith("0x08c379a0")
    # a revert without data is the EVM's error, not a revert error (coreth's Call makes code 3
    # only when len(result.Revert()) > 0)
    err = rpc_error(rpc, "eth_call", [{"to": token.address, "data": token.encode_abi("fail", [0])}])
    assert err == {"code": -32000, "message": "execution reverted"}
    err = rpc_error(rpc, "eth_call", [{"to": token.address, "data": token.encode_abi("fail", [2])}])
    assert err["message"] == "execution reverted: assert(false)"
    err = rpc_error(rpc, "eth_estimateGas", [{"from": EWOQ.address, "to": token.address,
                                               "data": token.encode_abi("transfer", [bob, 10**30])}])
    assert err["code"] == 3 and err["message"] == "execution reverted: insufficient balance"
    # a mined revert has status 0
    tx = token.functions.fail(7).build_transaction({"from": EWOQ.address, "gas": 100_000, "chainId": CHAIN_ID,
                                                    "nonce": w3.eth.get_transaction_count(EWOQ.address, "pending"),
                                                    "maxFeePerGas": 50 * GWEI, "maxPriorityFeePerGas": GWEI})
    rc = w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(EWOQ.sign_transaction(tx).raw_transaction))
    assert rc.status == 0
    # state override on eth_call
    slot_owner_balance = call(rpc, "eth_call", [{"to": token.address, "data": token.encode_abi("balanceOf", [bob])},
                                                 "latest", {bob: {"balance": "0x1"}}])
    assert int(slot_owner_balance, 16) == 5
    detailed = call(rpc, "eth_callDetailed", [{"to": token.address, "data": token.encode_abi("fail", [1])}])
    assert detailed["errCode"] == 3 and detailed["err"] == "execution reverted: always fails"
    info = token.functions.blockInfo().call()
    assert info[3] == CHAIN_ID
    al = call(rpc, "eth_createAccessList", [{"from": EWOQ.address, "to": token.address,
                                             "data": token.encode_abi("transfer", [bob, 1])}])
    assert al["accessList"] == [] or all("address" in e for e in al["accessList"])
    proof = call(rpc, "eth_getProof", [token.address, ["0x" + "00" * 32], "latest"])
    assert proof["accountProof"] and proof["storageProof"][0]["key"] == "0x" + "00" * 32


def test_erc1155(w3):
    mt = deploy(w3, EWOQ, "MultiToken")
    alice = Account.create("alice").address
    transact(w3, EWOQ, mt.functions.mint(EWOQ.address, 1, 100))
    transact(w3, EWOQ, mt.functions.mint(EWOQ.address, 2, 50))
    rc = transact(w3, EWOQ, mt.functions.safeBatchTransferFrom(EWOQ.address, alice, [1, 2], [10, 5], b""))
    ev = mt.events.TransferBatch().process_receipt(rc)[0]
    assert ev.args.ids == [1, 2] and ev.args.values == [10, 5]
    assert mt.functions.balanceOfBatch([alice, alice, EWOQ.address], [1, 2, 1]).call() == [10, 5, 90]
    assert mt.functions.supportsInterface(bytes.fromhex("d9b67a26")).call()


def test_error_messages(w3, rpc):
    nonce = w3.eth.get_transaction_count(EWOQ.address)
    poor = Account.create("poor")

    def raw(acct, **kw):
        tx = {"chainId": CHAIN_ID, "nonce": nonce, "to": "0x" + "44" * 20, "value": 1, "gas": 21000,
              "maxFeePerGas": 50 * GWEI, "maxPriorityFeePerGas": GWEI}
        tx.update(kw)
        return acct.sign_transaction(tx).raw_transaction.to_0x_hex()

    assert rpc_error(rpc, "eth_sendRawTransaction", [raw(EWOQ, nonce=0)])["message"].startswith("nonce too low")
    assert rpc_error(rpc, "eth_sendRawTransaction", [raw(poor, nonce=0)])["message"].startswith(
        "insufficient funds for gas * price + value")
    msg = rpc_error(rpc, "eth_sendRawTransaction", [raw(EWOQ, maxFeePerGas=0, maxPriorityFeePerGas=0)])["message"]
    # AvalancheGo v1.14.2's words (tests/vectors/avalanchego_answers)
    assert msg.startswith("transaction underpriced: address 0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC have gas fee "
                          "cap (0) < pool minimum fee cap (")
    assert rpc_error(rpc, "eth_sendRawTransaction", [raw(EWOQ, gas=20000)])["message"].startswith(
        "intrinsic gas too low")
    legacy = {"nonce": nonce, "to": "0x" + "44" * 20, "value": 1, "gas": 21000, "gasPrice": 30 * GWEI}
    unprotected = EWOQ.sign_transaction(legacy).raw_transaction.to_0x_hex()
    assert rpc_error(rpc, "eth_sendRawTransaction", [unprotected]) == {
        "code": -32000, "message": "only replay-protected (EIP-155) transactions allowed over RPC"}
    blob = "0x03" + "c0"
    assert rpc_error(rpc, "eth_sendRawTransaction", [blob])["message"] == "transaction type not supported"
    assert rpc_error(rpc, "eth_foo", [])["code"] == -32601
    assert rpc_error(rpc, "eth_getBalance", [])["message"] == "missing value for required argument 0"
    assert w3.eth.get_transaction_count(EWOQ.address) == nonce  # nothing changed


def test_mempool_queue_promotion_and_replacement(w3, rpc):
    carol = Account.create("carol")
    send(w3, EWOQ, {"to": carol.address, "value": 10**18})
    # a future nonce waits, then the gap closes and both are mined
    to = "0x" + "55" * 20

    def signed(n, fee=10 * GWEI, tip=GWEI, value=1):
        return carol.sign_transaction({"chainId": CHAIN_ID, "nonce": n, "to": to, "value": value, "gas": 21000,
                                       "maxFeePerGas": fee, "maxPriorityFeePerGas": tip}).raw_transaction.to_0x_hex()
    h1 = call(rpc, "eth_sendRawTransaction", [signed(1)])
    status = call(rpc, "txpool_status")
    assert status == {"pending": "0x0", "queued": "0x1"}
    assert call(rpc, "eth_getTransactionByHash", [h1])["blockNumber"] is None
    h0 = call(rpc, "eth_sendRawTransaction", [signed(0)])
    r0 = w3.eth.wait_for_transaction_receipt(h0, timeout=5, poll_latency=0.01)
    r1 = w3.eth.wait_for_transaction_receipt(h1, timeout=5, poll_latency=0.01)
    assert r0.status == r1.status == 1
    assert call(rpc, "txpool_status") == {"pending": "0x0", "queued": "0x0"}
    # replacement needs automine off so the first stays in the pool
    call(rpc, "evm_setAutomine", [False])
    try:
        call(rpc, "eth_sendRawTransaction", [signed(2)])
        err = rpc_error(rpc, "eth_sendRawTransaction", [signed(2, fee=10 * GWEI + 1, tip=GWEI + 1, value=2)])
        assert err["message"] == "replacement transaction underpriced"
        h2b = call(rpc, "eth_sendRawTransaction", [signed(2, fee=11 * GWEI, tip=11 * GWEI // 10, value=3)])
        content = call(rpc, "txpool_content")
        assert content["pending"][carol.address.lower()]["2"]["hash"] == h2b
        call(rpc, "evm_mine", [])
        assert w3.eth.get_transaction_receipt(h2b).status == 1
    finally:
        call(rpc, "evm_setAutomine", [True])


def test_dev_accounts_sign_and_impersonate(w3, rpc):
    accounts = call(rpc, "eth_accounts")
    assert accounts[0] == EWOQ.address.lower()
    assert accounts[1] == "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
    h = call(rpc, "eth_sendTransaction", [{"from": EWOQ.address, "to": accounts[1], "value": hex(10**18)}])
    assert w3.eth.get_transaction_receipt(h).status == 1
    sig = call(rpc, "eth_sign", [EWOQ.address, "0x68656c6c6f"])
    from eth_account.messages import encode_defunct
    assert Account.recover_message(encode_defunct(b"hello"), signature=sig) == EWOQ.address
    whale = "0x" + "77" * 20
    call(rpc, "anvil_setBalance", [whale, hex(5 * 10**18)])
    assert w3.eth.get_balance(Web3.to_checksum_address(whale)) == 5 * 10**18
    assert rpc_error(rpc, "eth_sendTransaction", [{"from": whale, "to": accounts[1], "value": "0x1"}])["message"] == "unknown account"
    call(rpc, "anvil_impersonateAccount", [whale])
    h = call(rpc, "eth_sendTransaction", [{"from": whale, "to": accounts[2], "value": hex(10**18)}])
    rc = w3.eth.get_transaction_receipt(h)
    assert rc.status == 1 and rc["from"].lower() == whale
    call(rpc, "anvil_stopImpersonatingAccount", [whale])


def test_state_edits_snapshot_revert_time(w3, rpc):
    target = "0x" + "66" * 20
    cs = Web3.to_checksum_address(target)
    snap = call(rpc, "evm_snapshot")
    head = w3.eth.block_number
    call(rpc, "anvil_setBalance", [target, "0x1234"])
    call(rpc, "anvil_setCode", [target, "0x6001600055"])
    call(rpc, "anvil_setStorageAt", [target, "0x0", "0x" + "00" * 31 + "2a"])
    call(rpc, "anvil_setNonce", [target, "0x5"])
    assert w3.eth.get_balance(cs) == 0x1234 and w3.eth.get_code(cs) == bytes.fromhex("6001600055")
    assert int(call(rpc, "eth_getStorageAt", [target, "0x0", "latest"]), 16) == 42
    assert w3.eth.get_transaction_count(cs) == 5
    rc = send(w3, EWOQ, {"to": cs, "value": 1, "gas": 100_000})
    assert rc.status == 1
    call(rpc, "anvil_mine", ["0x10"])
    assert w3.eth.block_number == head + 17
    assert call(rpc, "evm_revert", [snap]) is True
    assert w3.eth.block_number == head
    assert w3.eth.get_balance(cs) == 0 and w3.eth.get_code(cs) == b""
    assert w3.eth.get_transaction_receipt(rc.transactionHash) is None if False else True
    assert call(rpc, "eth_getTransactionReceipt", [rc.transactionHash.to_0x_hex()]) is None
    assert call(rpc, "evm_revert", [snap]) is False
    # time travel
    t0 = w3.eth.get_block("latest").timestamp
    call(rpc, "evm_increaseTime", [3600])
    call(rpc, "evm_mine", [])
    assert w3.eth.get_block("latest").timestamp >= t0 + 3600
    target_ts = w3.eth.get_block("latest").timestamp + 1000
    call(rpc, "evm_setNextBlockTimestamp", [target_ts])
    send(w3, EWOQ, {"to": cs, "value": 1})
    assert w3.eth.get_block("latest").timestamp == target_ts
    # anvil_mine with an interval: O(1) per block
    n0 = w3.eth.block_number
    call(rpc, "anvil_mine", [hex(1000), hex(2)])
    latest = w3.eth.get_block("latest")
    assert latest.number == n0 + 1000 and latest.timestamp == target_ts + 2000


def test_filters(w3, rpc):
    bf = call(rpc, "eth_newBlockFilter")
    pf = call(rpc, "eth_newPendingTransactionFilter")
    token = deploy(w3, EWOQ, "Token", "F", "F", 1000)
    lf = call(rpc, "eth_newFilter", [{"address": token.address}])
    transact(w3, EWOQ, token.functions.transfer(EWOQ.address, 1))
    assert len(call(rpc, "eth_getFilterChanges", [bf])) >= 2
    assert len(call(rpc, "eth_getFilterChanges", [pf])) >= 2
    changes = call(rpc, "eth_getFilterChanges", [lf])
    assert len(changes) == 1 and changes[0]["address"].lower() == token.address.lower()
    assert call(rpc, "eth_getFilterChanges", [lf]) == []
    assert len(call(rpc, "eth_getFilterLogs", [lf])) == 1
    assert call(rpc, "eth_uninstallFilter", [lf]) is True
    assert rpc_error(rpc, "eth_getFilterChanges", [lf])["message"] == "filter not found"
    fh = call(rpc, "eth_feeHistory", ["0x4", "latest", [25, 75]])
    head = w3.eth.block_number
    n = min(4, head + 1)
    # coreth: one base fee per block (geth adds the next block's), struct key order
    assert list(fh) == ["oldestBlock", "reward", "baseFeePerGas", "gasUsedRatio"]
    assert len(fh["baseFeePerGas"]) == n and len(fh["reward"]) == n and len(fh["reward"][0]) == 2
    assert fh["oldestBlock"] == hex(head + 1 - n) and fh["baseFeePerGas"][-1] == hex(w3.eth.get_block(head).baseFeePerGas)
    assert call(rpc, "eth_feeHistory", [0, "latest"]) == {"oldestBlock": "0x0", "gasUsedRatio": None}
    assert call(rpc, "eth_feeHistory", ["2", "pending"])["oldestBlock"] == hex(head)
    assert rpc_error(rpc, "eth_feeHistory", ["0x1", hex(head + 5)])["message"] == (
        f"request beyond head block: requested {head + 5}, head {head}")
    assert rpc_error(rpc, "eth_feeHistory", ["0x1", "latest", [50, 10]])["message"] == (
        "invalid reward percentile: #0:50.000000 >= #1:10.000000")
    opts = call(rpc, "eth_suggestPriceOptions")
    assert set(opts) == {"slow", "normal", "fast"}


def test_websocket_logs_subscription(node, w3):
    import websockets

    token = deploy(w3, EWOQ, "Token", "W", "W", 1000)
    ws_url = node.url.replace("http://", "ws://") + "/ext/bc/C/ws"

    async def run():
        async with websockets.connect(ws_url) as ws:
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe",
                                      "params": ["logs", {"address": token.address}]}))
            sub = json.loads(await ws.recv())["result"]
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "eth_subscribe", "params": ["newHeads"]}))
            heads = json.loads(await ws.recv())["result"]
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "eth_blockNumber"}))
            assert json.loads(await ws.recv())["id"] == 3
            await asyncio.get_running_loop().run_in_executor(
                None, lambda: transact(w3, EWOQ, token.functions.transfer(EWOQ.address, 1)))
            got = {}
            while len(got) < 2:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
                got[msg["params"]["subscription"]] = msg["params"]["result"]
            assert got[sub]["address"].lower() == token.address.lower()
            assert "number" in got[heads]
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "eth_unsubscribe", "params": [sub]}))
            assert json.loads(await ws.recv())["result"] is True

    asyncio.run(run())


# coreth HeaderSerializable's JSON (gen_header_serializable_json.go): struct order, every key
# present (null where the block's upgrades leave a field unset), hash last; no blockExtraData,
# size, transactions, uncles or totalDifficulty, which only eth_getBlockBy* adds
CORETH_HEADER_KEYS = [
    "parentHash", "sha3Uncles", "miner", "stateRoot", "transactionsRoot", "receiptsRoot", "logsBloom", "difficulty",
    "number", "gasLimit", "gasUsed", "timestamp", "extraData", "mixHash", "nonce", "extDataHash", "baseFeePerGas",
    "extDataGasUsed", "blockGasCost", "blobGasUsed", "excessBlobGas", "parentBeaconBlockRoot",
    "timestampMilliseconds", "minDelayExcess", "hash",
]


def test_new_heads_over_web3_websocket_provider(node, w3, rpc):
    """web3.py's WebSocketProvider receives coreth's header JSON. web3.py leaves it unformatted (its
    header heuristic does not know 5+ of coreth's keys), so the values arrive as the node sent them."""
    from web3 import AsyncWeb3, WebSocketProvider

    ws_url = node.url.replace("http://", "ws://") + "/ext/bc/C/ws"

    async def run() -> dict:
        async with AsyncWeb3(WebSocketProvider(ws_url)) as aw3:
            sub = await aw3.eth.subscribe("newHeads")
            await asyncio.get_running_loop().run_in_executor(
                None, lambda: send(w3, EWOQ, {"to": "0x" + "42" * 20, "value": 5}))
            async for message in aw3.socket.process_subscriptions():
                assert message["subscription"] == sub
                return dict(message["result"])
        raise AssertionError("no newHeads notification")

    head = asyncio.run(asyncio.wait_for(run(), 20))
    assert list(head) == CORETH_HEADER_KEYS
    block = call(rpc, "eth_getBlockByNumber", [head["number"], False])
    assert head["hash"] == block["hash"] and head["parentHash"] == block["parentHash"]
    # every header value equals the block's (all of this local block's optional fields are set)
    assert {k: block[k] for k in CORETH_HEADER_KEYS} == head
    assert set(block) - set(head) == {"blockExtraData", "size", "transactions", "uncles", "totalDifficulty"}
    header = call(rpc, "eth_getHeaderByHash", [head["hash"]])
    assert set(header) == set(head) | {"totalDifficulty"} and list(header) == sorted(header)


def test_restart_persistence(tmp_path):
    cfg = NodeConfig(http_port=0, data_dir=tmp_path / "data")
    with Node.start_in_thread(cfg) as h:
        rpc = h.url + "/ext/bc/C/rpc"
        w3 = Web3(Web3.HTTPProvider(rpc))
        token = deploy(w3, EWOQ, "Token", "P", "P", 1000)
        rc = transact(w3, EWOQ, token.functions.transfer("0x" + "88" * 20, 7))
        call(rpc, "anvil_setBalance", ["0x" + "99" * 20, "0x99"])
        head = call(rpc, "eth_getBlockByNumber", ["latest", False])
        bal = call(rpc, "eth_getBalance", [EWOQ.address, "latest"])
        receipt = call(rpc, "eth_getTransactionReceipt", [rc.transactionHash.to_0x_hex()])
        logs = call(rpc, "eth_getLogs", [{"fromBlock": "0x0", "address": token.address}])
    with Node.start_in_thread(cfg) as h:
        rpc = h.url + "/ext/bc/C/rpc"
        assert call(rpc, "eth_getBlockByNumber", ["latest", False]) == head
        assert call(rpc, "eth_getBalance", [EWOQ.address, "latest"]) == bal
        assert call(rpc, "eth_getBalance", ["0x" + "99" * 20, "latest"]) == "0x99"
        assert call(rpc, "eth_getTransactionReceipt", [rc.transactionHash.to_0x_hex()]) == receipt
        assert call(rpc, "eth_getLogs", [{"fromBlock": "0x0", "address": token.address}]) == logs
        w3 = Web3(Web3.HTTPProvider(rpc))
        send(w3, EWOQ, {"to": "0x" + "88" * 20, "value": 1})
        assert int(call(rpc, "eth_blockNumber"), 16) == int(head["number"], 16) + 1


def test_interval_mining_virtual_clock(tmp_path):
    cfg = NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", block_time=2)
    with Node.start_in_thread(cfg) as h:
        rpc = h.url + "/ext/bc/C/rpc"
        w3 = Web3(Web3.HTTPProvider(rpc))
        hashes = []
        for n in range(5):
            tx = {"chainId": CHAIN_ID, "nonce": n, "to": "0x" + "12" * 20, "value": 1, "gas": 21000,
                  "maxFeePerGas": 50 * GWEI, "maxPriorityFeePerGas": GWEI}
            hashes.append(call(rpc, "eth_sendRawTransaction", [EWOQ.sign_transaction(tx).raw_transaction.to_0x_hex()]))
        assert call(rpc, "eth_blockNumber") == "0x0"
        call(rpc, "evm_increaseTime", [2])
        assert call(rpc, "eth_blockNumber") == "0x1"
        blk = w3.eth.get_block(1)
        assert len(blk.transactions) == 5


def test_debug_traces(w3, rpc):
    token = deploy(w3, EWOQ, "Token", "T", "T", 1000)
    rc = transact(w3, EWOQ, token.functions.transfer(Web3.to_checksum_address("0x" + "ab" * 20), 3))
    h = rc.transactionHash.to_0x_hex()
    struct = call(rpc, "debug_traceTransaction", [h])
    assert struct["failed"] is False and struct["gas"] == rc.gasUsed
    ops = [s["op"] for s in struct["structLogs"]]
    assert "SSTORE" in ops and "LOG3" in ops and ops[-1] == "RETURN"
    assert struct["structLogs"][0]["pc"] == 0 and struct["structLogs"][0]["depth"] == 1
    ct = call(rpc, "debug_traceTransaction", [h, {"tracer": "callTracer"}])
    assert ct["type"] == "CALL" and ct["to"].lower() == token.address.lower()
    assert int(ct["gasUsed"], 16) == rc.gasUsed and ct["output"].endswith("1")
    blk = call(rpc, "debug_traceBlockByNumber", [hex(rc.blockNumber), {"tracer": "callTracer"}])
    assert blk[0]["txHash"] == h
    tc = call(rpc, "debug_traceCall", [{"from": EWOQ.address, "to": token.address,
                                         "data": token.encode_abi("fail", [1])}, "latest", {"tracer": "callTracer"}])
    assert tc["error"] == "execution reverted" and tc["revertReason"] == "always fails"


def test_cchain_admin_and_pending_subscriptions(tmp_path):
    import websockets

    cfg = NodeConfig(http_port=0, ephemeral=True, api_admin_enabled=True)
    with Node.start_in_thread(cfg) as h:
        admin = h.url + "/ext/bc/C/admin"
        assert call(admin, "admin.getVMConfig", {})["config"]["rpc-gas-cap"] == 50_000_000
        assert call(admin, "admin_setLogLevel", {"level": "debug"}) == {"success": True}
        assert call(admin, "admin.startCPUProfiler", {}) == {"success": True}
        assert call(admin, "admin.stopCPUProfiler", {}) == {"success": True}
        assert call(admin, "admin.memoryProfile", {}) == {"success": True}
        assert call(admin, "admin.lockProfile", {}) == {"success": True}
        rpc = h.url + "/ext/bc/C/rpc"
        ws_url = h.url.replace("http://", "ws://") + "/ext/bc/C/ws"

        async def run():
            async with websockets.connect(ws_url) as ws:
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe",
                                          "params": ["newPendingTransactions"]}))
                pend = json.loads(await ws.recv())["result"]
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "eth_subscribe",
                                          "params": ["newAcceptedTransactions", True]}))
                acc = json.loads(await ws.recv())["result"]
                tx = {"chainId": CHAIN_ID, "nonce": 0, "to": "0x" + "12" * 20, "value": 1, "gas": 21000,
                      "maxFeePerGas": 50 * GWEI, "maxPriorityFeePerGas": GWEI}
                raw = EWOQ.sign_transaction(tx).raw_transaction.to_0x_hex()
                h_ = await asyncio.get_running_loop().run_in_executor(None, call, rpc, "eth_sendRawTransaction", [raw])
                got = {}
                while len(got) < 2:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
                    got[msg["params"]["subscription"]] = msg["params"]["result"]
                assert got[pend] == h_ and got[acc]["hash"] == h_ and got[acc]["blockNumber"] == "0x1"

        asyncio.run(run())
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as h:
        from .rpc import post
        status, _body, _ = post(h.url + "/ext/bc/C/admin", json.dumps({"jsonrpc": "2.0", "id": 1,
                                                                       "method": "admin.getVMConfig"}))
        assert status == 404
