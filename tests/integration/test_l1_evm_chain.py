"""An L1 subnet-EVM chain: a subnet and a CreateChainTx issued over platform.issueTx start an EVM
chain inside the node, served at /ext/bc/<blockchainID>/rpc with the genesis's chain ID,
allocations and feeConfig; it survives a restart, goes away with a revert to before its
CreateChainTx, and a genesis that is not EVM JSON is recorded but not run."""

from __future__ import annotations

import asyncio
import http.client
import json
import urllib.error
import urllib.request
from pathlib import Path

import aiohttp
import pytest
from eth_account import Account
from web3 import Web3
from web3.middleware import ExtraDataToPOAMiddleware

from simnode.config import NodeConfig
from simnode.formats import encode_bytes, id_to_str, private_key_from_str
from simnode.formats.ids import SUBNET_EVM_VM_ID
from simnode.node import Node
from simnode.vms.platform.wallet import PBuilder

from .rpc import RPCFailure, call

CONTRACTS = Path(__file__).resolve().parents[1] / "contracts"
P_KEY = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
L1_CHAIN_ID = 99999
GWEI = 10**9
FUNDS = 10**24
FEE_CONFIG = {"gasLimit": 12_000_000, "targetBlockRate": 2, "minBaseFee": 25 * GWEI, "targetGas": 60_000_000,
              "baseFeeChangeDenominator": 36, "minBlockGasCost": 0, "maxBlockGasCost": 1_000_000,
              "blockGasCostStep": 200_000}
GENESIS = {
    "config": {"chainId": L1_CHAIN_ID, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
               "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
               "muirGlacierBlock": 0, "subnetEVMTimestamp": 0, "feeConfig": FEE_CONFIG},
    "alloc": {EWOQ.address[2:].lower(): {"balance": hex(FUNDS)}},
    "nonce": "0x0", "timestamp": "0x0", "extraData": "0x", "gasLimit": hex(12_000_000), "difficulty": "0x0",
    "mixHash": "0x" + "00" * 32, "coinbase": "0x" + "00" * 20, "number": "0x0", "gasUsed": "0x0",
    "parentHash": "0x" + "00" * 32,
}
DAY = 24 * 3600


def issue(h, tx) -> str:
    return call(h.url + "/ext/bc/P", "platform.issueTx", {"tx": encode_bytes(tx.tx_bytes, "hex")})["txID"]


def create_l1(h, genesis: bytes, name: str = "myl1", subnet_id: bytes | None = None) -> tuple[bytes, bytes]:
    """A subnet (unless given) and a subnet-EVM chain on it; returns (subnet ID, chain ID)."""
    p = h.node.chains[bytes(32)]
    w = h.call(PBuilder, p, [P_KEY])
    if subnet_id is None:
        st = h.call(w.create_subnet)
        assert issue(h, st) == id_to_str(st.tx_id)
        subnet_id = st.tx_id
    ct = h.call(w.create_chain, subnet_id, name, SUBNET_EVM_VM_ID, genesis)
    assert issue(h, ct) == id_to_str(ct.tx_id)
    return subnet_id, ct.tx_id


def l1_web3(rpc: str) -> Web3:
    """As for any subnet-EVM chain: its header extra is the 80-byte gas window, longer than the
    32 bytes web3.py accepts without the POA middleware."""
    w3 = Web3(Web3.HTTPProvider(rpc, request_kwargs={"timeout": 30}))
    w3.middleware_onion.inject(ExtraDataToPOAMiddleware, layer=0)
    return w3


def window_of(rpc: str, number: int) -> list[int]:
    extra = bytes.fromhex(call(rpc, "eth_getBlockByNumber", [hex(number), False])["extraData"][2:])
    assert len(extra) == 86 and extra[80:] == b"\x00" * 6  # the window, then the (empty) warp predicate results
    return [int.from_bytes(extra[i:i + 8], "big") for i in range(0, 80, 8)]


async def ws_call(url: str, method: str) -> object:
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        await ws.send_json({"jsonrpc": "2.0", "id": 1, "method": method, "params": []})
        return (await ws.receive_json(timeout=10))["result"]


def send(w3: Web3, tx: dict) -> dict:
    tx = {"chainId": L1_CHAIN_ID, "nonce": w3.eth.get_transaction_count(EWOQ.address, "pending"),
          "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI, "gas": 21000, **tx}
    h = w3.eth.send_raw_transaction(EWOQ.sign_transaction(tx).raw_transaction)
    return w3.eth.wait_for_transaction_receipt(h, timeout=10, poll_latency=0.01)


def deploy_token(w3: Web3) -> object:
    a = json.loads((CONTRACTS / "Token.json").read_text())
    c = w3.eth.contract(abi=a["abi"], bytecode=a["bytecode"])
    tx = c.constructor("L1", "L1", 1000).build_transaction({"from": EWOQ.address, "chainId": L1_CHAIN_ID,
                                                            "nonce": w3.eth.get_transaction_count(EWOQ.address),
                                                            "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI})
    rc = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_raw_transaction(EWOQ.sign_transaction(tx).raw_transaction), timeout=10, poll_latency=0.01)
    assert rc.status == 1
    return w3.eth.contract(address=rc.contractAddress, abi=a["abi"])


def test_l1_chain_over_web3_and_restart(tmp_path):
    cfg = NodeConfig(http_port=0, data_dir=tmp_path / "data")
    with Node.start_in_thread(cfg) as h:
        c_rpc = h.url + "/ext/bc/C/rpc"
        c_head = call(c_rpc, "eth_getBlockByNumber", ["latest", False])
        c_balance = call(c_rpc, "eth_getBalance", [EWOQ.address, "latest"])

        subnet_id, chain_id = create_l1(h, json.dumps(GENESIS).encode())
        cid = id_to_str(chain_id)
        rpc = h.url + f"/ext/bc/{cid}/rpc"
        w3 = l1_web3(rpc)

        # identity and status
        assert w3.eth.chain_id == L1_CHAIN_ID
        assert call(rpc, "net_version") == str(L1_CHAIN_ID)
        assert call(h.url + "/ext/info", "info.isBootstrapped", {"chain": cid}) == {"isBootstrapped": True}
        assert call(h.url + "/ext/info", "info.getBlockchainID", {"alias": cid}) == {"blockchainID": cid}
        assert call(h.url + "/ext/bc/P", "platform.validatedBy", {"blockchainID": cid}) == \
            {"subnetID": id_to_str(subnet_id)}
        assert cid in call(h.url + "/ext/bc/P", "platform.validates", {"subnetID": id_to_str(subnet_id)})[
            "blockchainIDs"]
        # running but not validated by this node yet: AvalancheGo says "Syncing"
        status = {"blockchainID": cid}
        assert call(h.url + "/ext/bc/P", "platform.getBlockchainStatus", status) == {"status": "Syncing"}
        p = h.node.chains[bytes(32)]
        w = h.call(PBuilder, p, [P_KEY])
        end = h.call(p.next_block_time) + DAY
        issue(h, h.call(w.add_subnet_validator, subnet_id, h.node.node_id, end, 20))
        assert call(h.url + "/ext/bc/P", "platform.getBlockchainStatus", status) == {"status": "Validating"}

        # genesis: allocation, fee config, gas limit
        assert w3.eth.get_balance(EWOQ.address) == FUNDS
        genesis = w3.eth.get_block(0)
        assert genesis.gasLimit == 12_000_000 and genesis.baseFeePerGas == 25 * GWEI
        assert call(rpc, "eth_baseFee") == hex(25 * GWEI)
        assert call(rpc, "eth_feeConfig") == {"feeConfig": FEE_CONFIG, "lastChangedAt": 0}
        assert call(rpc, "eth_getChainConfig")["feeConfig"] == FEE_CONFIG

        # a transfer and a contract
        rc = send(w3, {"to": "0x" + "77" * 20, "value": 12345})
        assert rc.status == 1 and rc.blockNumber == 1
        assert w3.eth.get_balance("0x" + "77" * 20) == 12345
        blk = w3.eth.get_block(1)
        assert blk.gasLimit == FEE_CONFIG["gasLimit"]
        assert blk.baseFeePerGas == 25 * GWEI
        assert window_of(rpc, 1) == [0] * 10  # block 1's gas window: genesis used none
        token = deploy_token(w3)
        tx = token.functions.transfer("0x" + "88" * 20, 7).build_transaction(
            {"from": EWOQ.address, "chainId": L1_CHAIN_ID, "nonce": w3.eth.get_transaction_count(EWOQ.address),
             "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI})
        rc2 = w3.eth.wait_for_transaction_receipt(
            w3.eth.send_raw_transaction(EWOQ.sign_transaction(tx).raw_transaction), timeout=10, poll_latency=0.01)
        assert rc2.status == 1
        assert token.functions.balanceOf("0x" + "88" * 20).call() == 7
        # block 3's window holds the gas of blocks 1 and 2 (when within its 10 seconds)
        b2, b3 = w3.eth.get_block(2), w3.eth.get_block(3)
        if b3.timestamp - blk.timestamp < 10:
            assert sum(window_of(rpc, 3)) == blk.gasUsed + b2.gasUsed

        # a C-Chain-signed tx is refused; the C-Chain itself did not move
        c_tx = {"chainId": 43112, "nonce": 0, "to": "0x" + "77" * 20, "value": 1, "gas": 21000,
                "maxFeePerGas": 100 * GWEI, "maxPriorityFeePerGas": GWEI}
        with pytest.raises(RPCFailure, match="^invalid sender$"):  # AvalancheGo v1.14.2's txpool words
            call(rpc, "eth_sendRawTransaction", [EWOQ.sign_transaction(c_tx).raw_transaction.to_0x_hex()])
        assert call(c_rpc, "eth_getBlockByNumber", ["latest", False]) == c_head
        assert call(c_rpc, "eth_getBalance", [EWOQ.address, "latest"]) == c_balance
        assert call(c_rpc, "eth_chainId") == hex(43112)

        head = call(rpc, "eth_getBlockByNumber", ["latest", False])
        # subnet-EVM blocks carry no atomic txs: none of coreth's extData fields
        assert not {"blockExtraData", "extDataHash", "extDataGasUsed"} & set(head)
        assert {"blockExtraData", "extDataHash"} <= set(c_head)
        balance = w3.eth.get_balance(EWOQ.address)
        receipt = call(rpc, "eth_getTransactionReceipt", [rc2.transactionHash.to_0x_hex()])

    with Node.start_in_thread(cfg) as h:
        rpc = h.url + f"/ext/bc/{cid}/rpc"
        assert call(h.url + "/ext/info", "info.isBootstrapped", {"chain": cid}) == {"isBootstrapped": True}
        assert call(h.url + "/ext/bc/P", "platform.getBlockchainStatus", {"blockchainID": cid}) == \
            {"status": "Validating"}
        assert call(rpc, "eth_getBlockByNumber", ["latest", False]) == head
        assert call(rpc, "eth_getTransactionReceipt", [rc2.transactionHash.to_0x_hex()]) == receipt
        w3 = l1_web3(rpc)
        assert w3.eth.get_balance(EWOQ.address) == balance
        rc = send(w3, {"to": "0x" + "77" * 20, "value": 1})
        assert rc.blockNumber == int(head["number"], 16) + 1
        assert w3.eth.get_balance("0x" + "77" * 20) == 12346


def keep_alive_status(port: int, path: str) -> int:
    """The status of an eth_chainId POST sent as a keep-alive client sends it (the HTTP fast path
    answers those; urllib's `Connection: close` goes to aiohttp)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", path, body=b'{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def test_aliases_revert_and_bad_genesis():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, api_admin_enabled=True)) as h:
        node = h.node
        sid = h.call(node.snapshot)
        subnet_id, chain_id = create_l1(h, json.dumps(GENESIS).encode())
        cid = id_to_str(chain_id)
        admin, info = h.url + "/ext/admin", h.url + "/ext/info"
        assert call(admin, "admin.getChainAliases", {"chain": cid}) == {"aliases": [cid]}
        call(admin, "admin.aliasChain", {"chain": cid, "alias": "myl1"})
        assert call(info, "info.getBlockchainID", {"alias": "myl1"}) == {"blockchainID": cid}
        assert call(h.url + "/ext/bc/myl1/rpc", "eth_chainId") == hex(L1_CHAIN_ID)
        assert keep_alive_status(node.port, f"/ext/bc/{cid}/rpc") == keep_alive_status(node.port, "/ext/bc/myl1/rpc") == 200
        ws_url = h.url.replace("http://", "ws://") + f"/ext/bc/{cid}/ws"
        assert asyncio.run(ws_call(ws_url, "eth_chainId")) == hex(L1_CHAIN_ID)

        # a genesis that is not EVM JSON: recorded by the P-Chain, not run
        _, bad = create_l1(h, b"this is not json", name="broken", subnet_id=subnet_id)
        bad_id = id_to_str(bad)
        assert call(h.url + "/ext/bc/P", "platform.getBlockchainStatus", {"blockchainID": bad_id}) == \
            {"status": "Created"}
        assert bad_id in {c["id"] for c in call(h.url + "/ext/bc/P", "platform.getBlockchains")["blockchains"]}
        with pytest.raises(RPCFailure, match="there is no chain with alias/ID"):
            call(info, "info.isBootstrapped", {"chain": bad_id})
        assert "failed to unmarshal genesis bytes" in node.chain_manager.failed[bad]
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(h.url + "/ext/health")
        assert err.value.code == 503
        assert "failed to create chain on subnet" in json.loads(err.value.read())["checks"][bad_id]["error"]

        # revert to before both CreateChainTxs: the chain stops, its routes and aliases go
        h.call(node.revert, sid)
        assert chain_id not in node.chains and not node.chain_manager.failed
        assert call(h.url + "/ext/bc/P", "platform.getBlockchainStatus", {"blockchainID": cid}) == \
            {"status": "Unknown"}
        with pytest.raises(RPCFailure, match="there is no ID with alias"):
            call(info, "info.getBlockchainID", {"alias": "myl1"})
        req = urllib.request.Request(h.url + f"/ext/bc/{cid}/rpc", method="POST", data=b"{}",
                                     headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req)
        assert err.value.code == 404
        # and on a keep-alive connection, where the HTTP fast path kept what these paths were
        assert keep_alive_status(node.port, f"/ext/bc/{cid}/rpc") == keep_alive_status(node.port, "/ext/bc/myl1/rpc") == 404
        with urllib.request.urlopen(h.url + "/ext/health") as resp:
            assert resp.status == 200

        # the same tx again starts the chain afresh from its genesis
        _, again = create_l1(h, json.dumps(GENESIS).encode())
        rpc = h.url + f"/ext/bc/{id_to_str(again)}/rpc"
        assert call(rpc, "eth_blockNumber") == "0x0"
        assert call(rpc, "eth_getBalance", [EWOQ.address, "latest"]) == hex(FUNDS)


def test_other_vm_is_recorded_not_run():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as h:
        p = h.node.chains[bytes(32)]
        w = h.call(PBuilder, p, [P_KEY])
        st = h.call(w.create_subnet)
        issue(h, st)
        ct = h.call(w.create_chain, st.tx_id, "custom", bytes(range(32)), b"{}")
        issue(h, ct)
        cid = id_to_str(ct.tx_id)
        assert call(h.url + "/ext/bc/P", "platform.getBlockchainStatus", {"blockchainID": cid}) == {"status": "Created"}
        assert ct.tx_id not in h.node.chains and not h.node.chain_manager.failed
        with urllib.request.urlopen(h.url + "/ext/health") as resp:
            assert resp.status == 200
