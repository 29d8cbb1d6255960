"""Every number of the Data API's EVM routes agrees with the node's own JSON-RPC, after a scenario
with native transfers, an ERC-20, an ERC-721, an ERC-1155 (mint, batch transfer), a factory that
deploys contracts with CREATE and CREATE2, SELFDESTRUCT, reverted txs, NFTs with every kind of
token URI and tokens whose logs do not add up to their balances (evm_data_scenario.py): blocks,
txs (gas, effective gas price, status, fee caps, input), token transfers against the receipts'
logs, internal txs against debug_traceTransaction's callTracer, balances against eth_getBalance
and balanceOf at every block, contracts, deployments and NFTs against eth_call. The tests only
read, so they share one node."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from web3 import Web3

from simnode.config import NodeConfig
from simnode.crypto.hashing import keccak256
from simnode.node import Node

from . import evm_data_scenario
from .dataapi import api
from .evm_data_scenario import ART_URIS, EvmScenario, walk
from .index_scenario import EWOQ, flatten_trace
from .rpc import call
from .test_index_evm import expected_transfers

CHAIN_ID = 43112
C = f"/v1/chains/{CHAIN_ID}"
LISTED_CALLS = ("CALL", "CALLCODE")


@pytest.fixture(scope="module")
def h():
    config = NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", log_level="WARN")
    with Node.start_in_thread(config) as handle:
        yield handle


@pytest.fixture(scope="module")
def w3(h):
    return Web3(Web3.HTTPProvider(h.url + "/ext/bc/C/rpc", request_kwargs={"timeout": 60}))


@pytest.fixture(scope="module")
def sc(h, w3) -> EvmScenario:
    return evm_data_scenario.run(w3, CHAIN_ID)


def cs(address: bytes | str) -> str:
    return Web3.to_checksum_address(address)


@dataclass
class Rpc:
    """The chain as JSON-RPC tells it, read once."""

    url: str
    blocks: list[dict] = field(default_factory=list)  # eth_getBlockByNumber (hashes only)
    txs: dict[str, dict] = field(default_factory=dict)  # by hash: eth_getTransactionByHash
    receipts: dict[str, dict] = field(default_factory=dict)
    traces: dict[str, list[dict]] = field(default_factory=dict)  # callTracer frames, pre-order, with depth
    tokens: dict[str, dict] = field(default_factory=dict)  # token contract -> its name/symbol/decimals
    transfers: dict[str, set[tuple]] = field(default_factory=dict)  # by tx hash: what its logs state
    order: list[str] = field(default_factory=list)  # every tx hash in chain order

    def get(self, method: str, *params: Any) -> Any:
        return call(self.url, method, list(params))

    def eth_call(self, to: str, data: bytes, block: int | str = "latest") -> bytes | None:
        try:
            out = self.get("eth_call", {"to": to, "data": "0x" + data.hex()}, block if isinstance(block, str)
                           else hex(block))
        except Exception:  # noqa: BLE001 - a reverted call answers nothing
            return None
        return bytes.fromhex(out[2:])


def selector(signature: str) -> bytes:
    return keccak256(signature.encode())[:4]


def abi_string(out: bytes | None) -> str | None:
    if not out or len(out) < 64:
        return None
    n = int.from_bytes(out[32:64], "big")
    return out[64:64 + n].decode()


@pytest.fixture(scope="module")
def rpc(h, w3, sc) -> Rpc:
    r = Rpc(h.url + "/ext/bc/C/rpc")
    head = int(r.get("eth_blockNumber"), 16)
    for n in range(head + 1):
        block = r.get("eth_getBlockByNumber", hex(n), False)
        r.blocks.append(block)
        for tx_hash in block["transactions"]:
            r.order.append(tx_hash)
            r.txs[tx_hash] = r.get("eth_getTransactionByHash", tx_hash)
            r.receipts[tx_hash] = r.get("eth_getTransactionReceipt", tx_hash)
            r.transfers[tx_hash] = {(std, cs(token), cs(frm), cs(to), amount, token_id, log_index)
                                    for std, token, frm, to, amount, token_id, log_index
                                    in expected_transfers(w3.eth.get_transaction_receipt(tx_hash))}
            if r.txs[tx_hash]["input"] != "0x":
                r.traces[tx_hash] = flatten_trace(r.get("debug_traceTransaction", tx_hash, {"tracer": "callTracer"}))
    for rc in r.receipts.values():
        for log in rc["logs"]:
            address = cs(log["address"])
            if address in r.tokens or log["topics"][0] not in TRANSFER_TOPICS:
                continue
            decimals = r.eth_call(address, selector("decimals()"))
            r.tokens[address] = {"name": abi_string(r.eth_call(address, selector("name()"))),
                                 "symbol": abi_string(r.eth_call(address, selector("symbol()"))),
                                 "decimals": int.from_bytes(decimals, "big") if decimals else None}
    return r


TRANSFER_TOPICS = {"0x" + keccak256(sig.encode()).hex() for sig in (
    "Transfer(address,address,uint256)", "TransferSingle(address,address,address,uint256,uint256)",
    "TransferBatch(address,address,address,uint256[],uint256[])")}


def rich(r: Rpc, address: str) -> dict:
    address = cs(address)
    meta = r.tokens.get(address)
    return {"address": address, **({k: v for k, v in meta.items() if v is not None} if meta else {})}


def native(r: Rpc, tx_hash: str) -> dict:
    """The NativeTransaction JSON-RPC's numbers give."""
    tx, rc = r.txs[tx_hash], r.receipts[tx_hash]
    block = r.blocks[int(rc["blockNumber"], 16)]
    data = bytes.fromhex(tx["input"][2:])
    if tx["to"] is None:
        method = {"callType": "CONTRACT_CREATION", "methodHash": "", "methodName": "Contract Created"}
    elif not data:
        method = {"callType": "NATIVE_TRANSFER", "methodHash": "", "methodName": "Native Transfer"}
    else:
        method = {"callType": "CONTRACT_CALL", "methodHash": "0x" + data[:4].hex()}
    out = {"blockNumber": str(int(rc["blockNumber"], 16)), "blockTimestamp": int(block["timestamp"], 16),
           "blockHash": rc["blockHash"], "chainId": str(CHAIN_ID), "blockIndex": int(rc["transactionIndex"], 16),
           "txHash": tx_hash, "txStatus": str(int(rc["status"], 16)), "txType": int(tx["type"], 16),
           "gasLimit": str(int(tx["gas"], 16)), "gasUsed": str(int(rc["gasUsed"], 16)),
           "gasPrice": str(int(rc["effectiveGasPrice"], 16)), "nonce": str(int(tx["nonce"], 16)),
           "from": rich(r, tx["from"]), "to": rich(r, tx["to"] or rc["contractAddress"]), "method": method,
           "value": str(int(tx["value"], 16))}
    if "minDelayExcess" in block:
        out.update(blockTimestampMilliseconds=int(block["timestampMilliseconds"], 16),
                   blockMinDelayExcess=int(block["minDelayExcess"], 16))
    return out


def same_native(got: dict, want: dict) -> None:
    """A NativeTransaction equals JSON-RPC's; a named method is the one its hash says."""
    got = dict(got)
    got["method"] = dict(got["method"])
    name = got["method"].pop("methodName", None)
    if got["method"]["callType"] == "CONTRACT_CALL" and name is not None:
        assert "0x" + selector(name).hex() == got["method"]["methodHash"], name
    elif got["method"]["callType"] != "CONTRACT_CALL":
        got["method"]["methodName"] = name
    assert got == want


def listed_transfer(t: dict) -> tuple:
    if "erc20Token" in t:
        return ("ERC-20", t["erc20Token"]["address"], t["from"]["address"], t["to"]["address"], int(t["value"]), None,
                t["logIndex"])
    if "erc721Token" in t:
        return ("ERC-721", t["erc721Token"]["address"], t["from"]["address"], t["to"]["address"], 1,
                int(t["erc721Token"]["tokenId"]), t["logIndex"])
    return ("ERC-1155", t["erc1155Token"]["address"], t["from"]["address"], t["to"]["address"], int(t["value"]),
            int(t["erc1155Token"]["tokenId"]), t["logIndex"])


def internals_of(r: Rpc, tx_hash: str) -> list[dict]:
    """The internal txs the document lists, from callTracer: below the tx, CREATE/CREATE2, and
    CALL/CALLCODE moving value; a creation's gasUsed with its code deposit (as geth counts it)."""
    out = []
    failed: list[bool] = []
    for f in r.traces.get(tx_hash, []):
        del failed[f["depth"]:]
        reverted = "error" in f or (bool(failed) and failed[-1])
        failed.append(reverted)
        value = int(f.get("value", "0x0"), 16)
        if f["depth"] == 0 or not (f["type"].startswith("CREATE") or (value and f["type"] in LISTED_CALLS)):
            continue
        code = bytes.fromhex(f.get("output", "0x")[2:])
        deposit = 200 * len(code) if f["type"].startswith("CREATE") and "error" not in f else 0
        out.append({"from": cs(f["from"]), "to": cs(f["to"]), "internalTxType": f["type"], "value": str(value),
                    "isReverted": reverted, "gasUsed": str(int(f["gasUsed"], 16) + deposit),
                    "gasLimit": str(int(f["gas"], 16))})
    return out


def plain_internal(i: dict) -> dict:
    return {**i, "from": i["from"]["address"], "to": i["to"]["address"]}


# ------------------------------------------------------------------------------------ blocks


def test_blocks_agree_with_json_rpc(h, rpc):
    listed = walk(h.url, f"{C}/blocks", "blocks")
    assert [b["blockNumber"] for b in listed] == [str(n) for n in range(len(rpc.blocks) - 1, -1, -1)]
    cumulative = 0
    for item in reversed(listed):
        block = rpc.blocks[int(item["blockNumber"])]
        cumulative += len(block["transactions"])
        fees = sum(int(rpc.receipts[t]["gasUsed"], 16) * int(rpc.receipts[t]["effectiveGasPrice"], 16)
                   for t in block["transactions"])
        want = {"chainId": str(CHAIN_ID), "blockNumber": str(int(block["number"], 16)),
                "blockTimestamp": int(block["timestamp"], 16), "blockHash": block["hash"],
                "txCount": len(block["transactions"]), "baseFee": str(int(block["baseFeePerGas"], 16)),
                "gasUsed": str(int(block["gasUsed"], 16)), "gasLimit": str(int(block["gasLimit"], 16)),
                "gasCost": str(int(block.get("blockGasCost", "0x0"), 16)), "parentHash": block["parentHash"],
                "feesSpent": str(fees), "cumulativeTransactions": str(cumulative)}
        if "minDelayExcess" in block:
            want.update(blockTimestampMilliseconds=int(block["timestampMilliseconds"], 16),
                        blockMinDelayExcess=int(block["minDelayExcess"], 16))
        assert item == want
        assert api(h.url, f"{C}/blocks/{item['blockNumber']}") == item == api(h.url, f"{C}/blocks/{block['hash']}")
        txs = api(h.url, f"{C}/blocks/{item['blockNumber']}/transactions")
        assert [t["txHash"] for t in txs["transactions"]] == block["transactions"] and "nextPageToken" not in txs
        for got in txs["transactions"]:
            same_native(got, native(rpc, got["txHash"]))
    # a block's txs in pages
    busiest = max(rpc.blocks, key=lambda b: len(b["transactions"]))
    assert walk(h.url, f"{C}/blocks/{int(busiest['number'], 16)}/transactions", "transactions", page_size=1) == \
        api(h.url, f"{C}/blocks/{int(busiest['number'], 16)}/transactions")["transactions"]


# ------------------------------------------------------------------------------------ transactions


def test_every_transaction_agrees_with_json_rpc(h, w3, rpc, sc):
    for tx_hash in rpc.order:
        got = api(h.url, f"{C}/transactions/{tx_hash}")
        tx = rpc.txs[tx_hash]
        block = rpc.blocks[int(tx["blockNumber"], 16)]
        full = got["nativeTransaction"]
        want = {**native(rpc, tx_hash), "input": tx["input"], "baseFeePerGas": str(int(block["baseFeePerGas"], 16))}
        if tx["type"] == "0x2":
            want.update(maxFeePerGas=str(int(tx["maxFeePerGas"], 16)),
                        maxPriorityFeePerGas=str(int(tx["maxPriorityFeePerGas"], 16)))
        same_native(full, want)
        assert got["networkTokenDetails"] == {"networkToken": {"name": "Avalanche", "symbol": "AVAX", "decimals": 18}}
        listed = {listed_transfer(t) for key in ("erc20Transfers", "erc721Transfers", "erc1155Transfers")
                  for t in got[key]}
        assert listed == rpc.transfers[tx_hash]
        assert len(listed) == sum(len(got[k]) for k in ("erc20Transfers", "erc721Transfers", "erc1155Transfers"))
        assert [plain_internal(i) for i in got["internalTransactions"]] == internals_of(rpc, tx_hash)
    # the scenario has all of these
    kinds = {i["internalTxType"] for t in rpc.order for i in internals_of(rpc, t)}
    assert kinds == {"CALL", "CREATE", "CREATE2"}
    assert any(i["isReverted"] for t in rpc.order for i in internals_of(rpc, t))
    # the SELFDESTRUCT that paid alice is in the trace's tx but is no listed internal tx
    destroy = sc.s.factory_receipts[5].transactionHash.to_0x_hex()
    assert [i["internalTxType"] for i in api(h.url, f"{C}/transactions/{destroy}")["internalTransactions"]] == ["CALL"]


def test_latest_transactions_and_status_filter(h, rpc):
    newest_first = rpc.order[::-1]
    assert [t["txHash"] for t in walk(h.url, f"{C}/transactions", "transactions")] == newest_first
    failed = [t for t in newest_first if rpc.receipts[t]["status"] == "0x0"]
    assert len(failed) == 3
    assert [t["txHash"] for t in walk(h.url, f"{C}/transactions?status=failed", "transactions", 2)] == failed
    succeeded = walk(h.url, f"{C}/transactions?status=success", "transactions", 7)
    assert [t["txHash"] for t in succeeded] == [t for t in newest_first if t not in failed]
    for got in succeeded[:5]:
        same_native(got, native(rpc, got["txHash"]))


# ------------------------------------------------------------------------------------ per address


def involved(rpc: Rpc, w3: Web3, address: str) -> list[str]:
    """The txs an address is part of, in chain order: sender, receiver or created contract, an end
    of a token transfer or of a listed internal tx."""
    out = []
    for t in rpc.order:
        tx, rc = rpc.txs[t], rpc.receipts[t]
        ends = {cs(tx["from"]), cs(tx["to"] or rc["contractAddress"])}
        ends |= {a for x in rpc.transfers[t] for a in x[2:4]}
        ends |= {a for i in internals_of(rpc, t) for a in (i["from"], i["to"])}
        if address in ends:
            out.append(t)
    return out


@pytest.fixture(scope="module")
def addresses(sc) -> list[str]:
    s = sc.s
    return [s.alice.address, s.bob.address, sc.carol.address, EWOQ.address, s.factory.address]


def test_address_transactions_v1_and_v2(h, w3, rpc, sc, addresses):
    for address in addresses:
        want = involved(rpc, w3, address)[::-1]
        for version in ("v1", "v2"):
            path = f"/{version}/chains/{CHAIN_ID}/addresses/{address}/transactions"
            items = walk(h.url, path, "transactions", 4)
            assert [x["nativeTransaction"]["txHash"] for x in items] == want
            for x in items:
                t = x["nativeTransaction"]["txHash"]
                same_native(x["nativeTransaction"], native(rpc, t))
                mine = {y for y in rpc.transfers[t] if address in y[2:4]}
                assert {listed_transfer(y) for k in ("erc20Transfers", "erc721Transfers", "erc1155Transfers")
                        for y in x[k]} == mine
                assert [plain_internal(i) for i in x["internalTransactions"]] == [
                    i for i in internals_of(rpc, t) if address in (i["from"], i["to"])]
                reputations = {y["erc20Token"].get("tokenReputation", "absent") for y in x["erc20Transfers"]}
                assert reputations <= ({None} if version == "v2" else {"absent"})
            ascending = walk(h.url, path + "?sortOrder=asc", "transactions", 3)
            assert [x["nativeTransaction"]["txHash"] for x in ascending] == want[::-1]
    # startBlock inclusive, endBlock exclusive
    bob = sc.s.bob.address
    for start, end in ((10, 14), (0, 1), (None, 12), (30, None), (5, 5)):
        query = "&".join(f"{k}={v}" for k, v in (("startBlock", start), ("endBlock", end)) if v is not None)
        got = walk(h.url, f"{C}/addresses/{bob}/transactions?{query}", "transactions")
        lo, hi = start or 0, len(rpc.blocks) if end is None else end
        assert [x["nativeTransaction"]["txHash"] for x in got] == [
            t for t in involved(rpc, w3, bob)[::-1] if lo <= int(rpc.txs[t]["blockNumber"], 16) < hi]


def test_native_transactions(h, rpc, addresses, sc):
    for address in addresses:
        want = [t for t in rpc.order[::-1] if address in (cs(rpc.txs[t]["from"]), cs(
            rpc.txs[t]["to"] or rpc.receipts[t]["contractAddress"]))]
        got = walk(h.url, f"{C}/addresses/{address}/transactions:listNative", "transactions", 3)
        assert [t["txHash"] for t in got] == want and want
        for t in got:
            same_native(t, native(rpc, t["txHash"]))
    # the created contract counts as the receiver of its creation
    art = sc.art.address
    assert walk(h.url, f"{C}/addresses/{art}/transactions:listNative", "transactions")[-1]["method"] == {
        "callType": "CONTRACT_CREATION", "methodHash": "", "methodName": "Contract Created"}


def test_token_transfers_by_address(h, w3, rpc, addresses):
    by_standard = {"ERC-20": "listErc20", "ERC-721": "listErc721", "ERC-1155": "listErc1155"}
    for address in addresses:
        for standard, route in by_standard.items():
            want = []
            for t in rpc.order[::-1]:
                mine = sorted((x for x in rpc.transfers[t] if x[0] == standard and address in x[2:4]),
                              key=lambda x: x[6], reverse=True)
                want += [(t, *x) for x in mine]
            got = walk(h.url, f"{C}/addresses/{address}/transactions:{route}", "transactions", 2)
            listed = [(g["txHash"], *listed_transfer(g)) for g in got]
            # a TransferBatch gives several items with one logIndex: their order is the batch's, reversed
            assert sorted(listed) == sorted(want) and [x[:2] + x[-1:] for x in listed] == [
                x[:2] + x[-1:] for x in want]
            for g in got:
                tx = rpc.txs[g["txHash"]]
                assert (g["blockNumber"], g["blockHash"]) == (str(int(tx["blockNumber"], 16)), tx["blockHash"])
    # startBlock/endBlock bound the ERC-20 list too
    alice = addresses[0]
    every = walk(h.url, f"{C}/addresses/{alice}/transactions:listErc20", "transactions")
    some = walk(h.url, f"{C}/addresses/{alice}/transactions:listErc20?startBlock=6&endBlock=9", "transactions")
    assert some == [t for t in every if 6 <= int(t["blockNumber"]) < 9] and some


def test_internal_transactions_by_address(h, rpc, addresses):
    for address in addresses:
        want = []
        for t in rpc.order[::-1]:
            want += [{**i, "txHash": t} for i in internals_of(rpc, t)[::-1] if address in (i["from"], i["to"])]
        got = walk(h.url, f"{C}/addresses/{address}/transactions:listInternals", "transactions", 2)
        assert [{**plain_internal({k: v for k, v in g.items() if k in INTERNAL_KEYS}), "txHash": g["txHash"]}
                for g in got] == want
        for g in got:
            tx = rpc.txs[g["txHash"]]
            assert (g["blockNumber"], g["blockHash"]) == (str(int(tx["blockNumber"], 16)), tx["blockHash"])


INTERNAL_KEYS = ("from", "to", "internalTxType", "value", "isReverted", "gasUsed", "gasLimit")


# ------------------------------------------------------------------------------------ balances


def uint(out: bytes | None) -> int:
    return int.from_bytes(out[:32], "big") if out else 0


def test_balances_agree_with_balance_of_at_every_block(h, rpc, sc):
    s = sc.s
    erc20 = [s.token.address, s.made_token, sc.odd.address]
    # MultiToken's balanceOf is its mapping's getter, (id, owner); OddMultiToken's is the standard's
    erc1155 = {(s.multi.address, 1): ("balanceOf(uint256,address)", True),
               (s.multi.address, 2): ("balanceOf(uint256,address)", True),
               (sc.odd_multi.address, 7): ("balanceOf(address,uint256)", False)}
    head = len(rpc.blocks) - 1
    for address in (s.alice.address, s.bob.address, sc.carol.address):
        owner = bytes.fromhex(address[2:]).rjust(32, b"\x00")
        for n in range(head + 1):
            got = api(h.url, f"{C}/addresses/{address}/balances:listErc20?blockNumber={n}&pageSize=500")
            assert got["nativeTokenBalance"]["balance"] == str(int(rpc.get("eth_getBalance", address, hex(n)), 16))
            want = {token: uint(rpc.eth_call(token, selector("balanceOf(address)") + owner, n)) for token in erc20}
            assert {b["address"]: int(b["balance"]) for b in got["erc20TokenBalances"]} == {
                t: v for t, v in want.items() if v}
            for b in got["erc20TokenBalances"]:
                meta = rpc.tokens[b["address"]]
                assert (b["name"], b["symbol"], b["decimals"], b["chainId"], b["tokenReputation"]) == (
                    meta["name"], meta["symbol"], meta["decimals"], str(CHAIN_ID), None)
            got = api(h.url, f"{C}/addresses/{address}/balances:listErc1155?blockNumber={n}")
            want = {(token, i): uint(rpc.eth_call(token, selector(sig) + (
                i.to_bytes(32, "big") + owner if id_first else owner + i.to_bytes(32, "big")), n))
                for (token, i), (sig, id_first) in erc1155.items()}
            assert {(b["address"], int(b["tokenId"])): int(b["balance"]) for b in got["erc1155TokenBalances"]} == {
                k: v for k, v in want.items() if v}
        # the latest state, filters
        latest = api(h.url, f"{C}/addresses/{address}/balances:listErc20")
        assert latest == api(h.url, f"{C}/addresses/{address}/balances:listErc20?blockNumber={head}")
        only = api(h.url, f"{C}/addresses/{address}/balances:listErc20?contractAddresses={sc.odd.address},"
                          f"{s.token.address.lower()}")["erc20TokenBalances"]
        assert only == [b for b in latest["erc20TokenBalances"] if b["address"] in (sc.odd.address, s.token.address)]
    # the tokens whose logs do not add up: balanceOf is answered where the logs go below zero
    bob, carol, alice = s.bob.address, sc.carol.address, s.alice.address
    odd = {b["address"]: b["balance"] for b in api(h.url, f"{C}/addresses/{bob}/balances:listErc20")[
        "erc20TokenBalances"]}
    assert odd[sc.odd.address] == "100"
    assert sc.odd.address not in {b["address"] for b in api(h.url, f"{C}/addresses/{carol}/balances:listErc20")[
        "erc20TokenBalances"]}
    multi = api(h.url, f"{C}/addresses/{alice}/balances:listErc1155?contractAddress={sc.odd_multi.address}")
    assert [(b["tokenId"], b["balance"]) for b in multi["erc1155TokenBalances"]] == [("7", "10")]
    assert api(h.url, f"{C}/addresses/{bob}/balances:listErc1155?contractAddress={sc.odd_multi.address}")[
        "erc1155TokenBalances"] == []


def test_nft_holdings_and_collectibles(h, rpc, sc):
    s = sc.s
    ids = {s.nft.address: [1, 2], sc.art.address: sorted(ART_URIS)}
    owners = {}
    for token, token_ids in ids.items():
        for i in token_ids:
            out = rpc.eth_call(token, selector("ownerOf(uint256)") + i.to_bytes(32, "big"))
            owner = cs(out[12:32]) if out and int.from_bytes(out, "big") else None
            if owner is not None:
                owners[(token, i)] = owner
    assert (s.nft.address, 2) not in owners  # burned
    for address in (s.alice.address, s.bob.address, sc.carol.address):
        got = walk(h.url, f"{C}/addresses/{address}/balances:listErc721", "erc721TokenBalances", 3)
        assert [(b["address"], int(b["tokenId"])) for b in got] == sorted(
            (k for k, v in owners.items() if v == address), key=lambda k: (k[0].lower(), k[1]))
        for b in got:
            assert b["ownerAddress"] == address and b["chainId"] == str(CHAIN_ID)
            uri = abi_string(rpc.eth_call(b["address"], selector("tokenURI(uint256)") + int(b["tokenId"]).to_bytes(
                32, "big")))
            assert b["tokenUri"] == uri
            assert (b["name"], b["symbol"]) == (rpc.tokens[b["address"]]["name"], rpc.tokens[b["address"]]["symbol"])
        art_only = api(h.url, f"{C}/addresses/{address}/balances:listErc721?contractAddress={sc.art.address}")
        assert art_only["erc721TokenBalances"] == [b for b in got if b["address"] == sc.art.address]
        native = api(h.url, f"{C}/addresses/{address}/balances:getNative")["nativeTokenBalance"]
        assert art_only["nativeTokenBalance"] == native
        erc1155 = walk(h.url, f"{C}/addresses/{address}/balances:listErc1155", "erc1155TokenBalances")
        collectibles = walk(h.url, f"{C}/addresses/{address}/balances:listCollectibles", "collectibleBalances", 2)
        assert collectibles == sorted(got + erc1155, key=lambda b: (b["address"].lower(), int(b["tokenId"])))
        assert walk(h.url, f"{C}/addresses/{address}/balances:listCollectibles?contractAddress={s.multi.address}",
                    "collectibleBalances") == [b for b in erc1155 if b["address"] == s.multi.address]


# ------------------------------------------------------------------------------------ contracts


def creations(rpc: Rpc) -> dict[str, tuple[str, str, str | None, str]]:
    """contract -> (tx hash, tx sender, creating contract or None, kind) of every creation that took effect."""
    out = {}
    for t in rpc.order:
        tx, rc = rpc.txs[t], rpc.receipts[t]
        if rc["contractAddress"] and rc["status"] == "0x1":
            out[cs(rc["contractAddress"])] = (t, cs(tx["from"]), None, "CREATE")
        for i in internals_of(rpc, t):
            if i["internalTxType"].startswith("CREATE") and not i["isReverted"]:
                out[i["to"]] = (t, cs(tx["from"]), i["from"], i["internalTxType"])
    return out


def test_contract_metadata_and_deployments(h, rpc, sc):
    made = creations(rpc)
    assert len(made) == 11  # 7 by txs, 4 by the factory (one of its creations was undone)
    standards: dict[str, str] = {}
    for t in rpc.order:
        for x in sorted(rpc.transfers[t], key=lambda x: x[6]):
            standards.setdefault(x[1], x[0])
    for address, (tx_hash, deployer, creator, _) in made.items():
        got = api(h.url, f"{C}/addresses/{address}")
        standard = standards.get(address, "UNKNOWN")
        want: dict[str, Any] = {"address": address, "ercType": standard,
                                "deploymentDetails": {"txHash": tx_hash, "deployerAddress": deployer}}
        if creator is not None:
            want["deploymentDetails"]["deployerContractAddress"] = creator
        if standard != "UNKNOWN":
            meta = rpc.tokens[address]
            want.update({k: v for k, v in meta.items() if v is not None and (k != "decimals" or standard == "ERC-20")})
        assert got == want, address
        deployment = api(h.url, f"{C}/contracts/{address}/transactions:getDeployment")
        assert deployment == api(h.url, f"{C}/transactions/{tx_hash}")
    # deployments: by the contract that ran CREATE and by the tx's sender, newest first
    for deployer in {d for _, d, _, _ in made.values()} | {c for _, _, c, _ in made.values() if c}:
        want = [a for a, (_, d, c, _) in made.items() if deployer in (d, c)][::-1]
        got = walk(h.url, f"{C}/contracts/{deployer}/deployments", "contracts", 2)
        assert [c["address"] for c in got] == want
        assert got == [api(h.url, f"{C}/addresses/{a}") for a in want]
    # an account is no contract and has no deployment
    for route in (f"{C}/addresses/{sc.carol.address}", f"{C}/contracts/{sc.carol.address}/transactions:getDeployment"):
        assert api(h.url, route, 404)["statusCode"] == 404
    assert api(h.url, f"{C}/contracts/{sc.carol.address}/deployments") == {"contracts": []}


def test_token_transfers_by_token(h, w3, rpc, sc):
    s = sc.s
    for token in (s.token.address, s.nft.address, s.multi.address, sc.art.address, sc.odd.address):
        want = []
        for t in rpc.order[::-1]:
            want += [(t, *x) for x in sorted((x for x in rpc.transfers[t] if x[1] == token),
                                              key=lambda x: x[6], reverse=True)]
        got = walk(h.url, f"{C}/tokens/{token}/transfers", "transfers", 3)
        assert sorted((g["txHash"], *listed_transfer(g)) for g in got) == sorted(want) and want
        assert [g["txHash"] for g in got] == [w[0] for w in want]
    window = walk(h.url, f"{C}/tokens/{sc.art.address}/transfers?startBlock=40&endBlock=45", "transfers")
    assert window and all(40 <= int(g["blockNumber"]) < 45 for g in window)


# ------------------------------------------------------------------------------------ NFTs


def test_nft_tokens_and_their_metadata(h, rpc, sc):
    s = sc.s
    art = walk(h.url, f"{C}/nfts/collections/{sc.art.address}/tokens", "tokens", 4)
    assert [t["tokenId"] for t in art] == [str(i) for i in sorted(ART_URIS)]
    for t in art:
        uri, status, fields = ART_URIS[int(t["tokenId"])]
        owner = rpc.eth_call(sc.art.address, selector("ownerOf(uint256)") + int(t["tokenId"]).to_bytes(32, "big"))
        assert t == {"address": sc.art.address, "name": "Index Art", "symbol": "IART", "ercType": "ERC-721",
                     "tokenId": t["tokenId"], "tokenUri": uri, "metadata": {"indexStatus": status, **fields},
                     "ownerAddress": cs(owner[12:])}
        assert api(h.url, f"{C}/nfts/collections/{sc.art.address}/tokens/{t['tokenId']}") == t
    cats = walk(h.url, f"{C}/nfts/collections/{s.nft.address}/tokens", "tokens")
    assert [(t["tokenId"], t.get("ownerAddress")) for t in cats] == [("1", s.bob.address), ("2", None)]
    assert [t["metadata"] for t in cats] == [{"indexStatus": "INDEXED", "name": "Index Cats #1"},
                                             {"indexStatus": "INDEXED", "name": "Index Cats #2"}]
    # ERC-1155: uri(id) with {id} filled in; its https URI is not fetched
    multi = walk(h.url, f"{C}/nfts/collections/{s.multi.address}/tokens", "tokens")
    assert multi == [{"address": s.multi.address, "ercType": "ERC-1155", "tokenId": str(i),
                      "tokenUri": f"https://example.invalid/{i:064x}.json",
                      "metadata": {"indexStatus": "UNREACHABLE_TOKEN_URI"}} for i in (1, 2)]
    odd = api(h.url, f"{C}/nfts/collections/{sc.odd_multi.address}/tokens/7")
    assert odd["metadata"] == {"indexStatus": "INDEXED", "name": "Odd"}
    assert api(h.url, f"{C}/nfts/collections/{s.nft.address}/tokens/3", 404)["message"].startswith(
        f"token 3 of {s.nft.address} not found on chain {CHAIN_ID}")
    assert api(h.url, f"{C}/nfts/collections/{s.token.address}/tokens") == {"tokens": []}


def test_address_chains(h, sc):
    c_chain = api(h.url, f"{C}")
    assert api(h.url, f"/v1/address/{sc.carol.address}/chains") == {"indexedChains": [c_chain]}
    assert api(h.url, f"/v1/address/0x{'ee' * 20}/chains") == {"indexedChains": []}
