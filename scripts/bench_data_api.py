#!/usr/bin/env python3
"""Data API benchmark: index query time and server-side request time against index size, and
the index's write cost.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_data_api.py [--rows 1000,100000,1000000]
        [--samples 300] [--transfers 2000] [--rounds 3] [--skip-callgrind] [--skip-node]
        [--skip-evm] [--skip-primary]

1) Latency against index size. Synthetic accepted blocks (5 txs each: native transfers and,
   every third tx, ERC-20 transfers among 1000 addresses; every other tx touches one "hot"
   address and 1 in 7 fails, so every page measured is full at every size) go through the code
   path real blocks take (Indexer.block_accepted into one LevelDB batch per block) into the
   C-Chain's index of a node's database, one per --rows figure, until the index holds that
   many rows; the node then opens that database offline (its chains loaded, nothing served).
   Timed on each, in interleaved rounds across the sizes, p50/p99 (ms) of:
   a) index queries in-process (EvmIndex): a blocks page, a latest-txs page, a failed-txs page,
      the hot address's ERC-20 transfers and native txs (first page, and a page in the middle
      reached by a cursor), 10 rows each;
   b) Data API requests, server side: the aiohttp handler (DataAPI.handle: routing, parameter
      and page-token checks, the index reads, the JSON body) from the request object to the
      finished response, no client or socket: GET /v1/chains/43112/blocks, .../transactions,
      and the hot address's transactions:listErc20 and transactions:listNative (first page,
      and the middle page by its pageToken), default pageSize 10;
   plus the indexing time per block and per tx.
   The same for the primary network: synthetic P-Chain blocks (five BaseTxs, each spending an
   output of the block before and paying one of 1000 addresses and a "hot" address, plus one
   AddPermissionlessValidatorTx) and X-Chain blocks (five such BaseTxs), in turn, go through
   Indexer.block_accepted, the path of each chain's accepted blocks, into a node's index until
   it holds each --rows figure more rows; timed: the hot address's P-Chain UTXOs (first page, a
   middle page by cursor, by amount) and X-Chain UTXOs, and the validators list (by block index,
   by time remaining) in-process (simnode.index.primary.query), and server side
   GET .../p-chain/utxos?addresses=<hot> (by time and by amount), .../x-chain/utxos, and
   GET .../validators (by block index and by timeRemaining), pageSize 10. The VM's staker history the P family reads is
   what the synthetic chain says it holds (SyntheticHistory).
2) Instruction counts (callgrind: steady however busy the machine is) per transfer of an EVM
   chain building blocks of 20 transfers through EVMChain.build_block on LevelDB, with the index
   on and off; and per ERC-20 transfer with the call-frame recorder on and off.
3) Transfers/s through a real node: automined signed transfers (scripts/bench_evm.py's phase a:
   50 senders, 50 concurrent clients) against `simnode run --ephemeral` with the index on and
   with --no-index, alternating for --rounds rounds: mined tx/s (best round) and the node
   process's CPU time per transfer (best round).

Every figure comes from this machine while it runs; other load makes single numbers noisy, so
p50s, best-of-rounds and ratios are what to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from eth_abi import encode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # bench_evm

from simnode import patches  # noqa: E402

patches.install()  # the chains below run as a node runs them (simnode/patches.py)
from simnode.api.data.app import DataAPI  # noqa: E402
from simnode.api.data.pages import binding_of  # noqa: E402
from simnode.config import NodeConfig  # noqa: E402
from simnode.crypto.hashing import keccak256  # noqa: E402
from simnode.formats.ids import EVM_VM_ID  # noqa: E402
from simnode.index import Indexer  # noqa: E402
from simnode.index.evm.query import EvmIndex  # noqa: E402
from simnode.index.evm.rows import TRANSFER_TOPIC  # noqa: E402
from simnode.index.evm.tokens import DECIMALS, NAME, SYMBOL  # noqa: E402
from simnode.node import Node  # noqa: E402
from simnode.store import Store  # noqa: E402
from simnode.vms.evm import rlpcodec  # noqa: E402
from simnode.vms.evm.headers import Header, HeaderRules  # noqa: E402

TOKENS = [bytes([0x70, i]) + b"\x00" * 18 for i in range(4)]
HOT = b"\x0b" * 20
TXS_PER_BLOCK = 5
PAGE = 10
MIN_BLOCKS = 40  # with every row family (EVM, metrics, ICM) 1k rows are ~7 blocks: too few for two full pages


def log(*a: object) -> None:
    print(*a, file=sys.stderr, flush=True)


def _int(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def _word(n: int) -> bytes:
    return n.to_bytes(32, "big")


@dataclass
class SyntheticChain:
    """A chain as the indexer sees it: identity, stored rows, and static calls answered with
    fixed token metadata."""

    chain_id: bytes
    vm_id: bytes = EVM_VM_ID
    header_rules: HeaderRules = HeaderRules(coreth=False, base_fee=0, block_gas_cost=0, durango=0, etna=0, granite=0)
    name: str = "synthetic"
    number: int = 0
    nonce: int = 0
    answers: dict = field(default_factory=lambda: {
        (t, sel): out for t in TOKENS for sel, out in (
            (NAME, encode(["string"], ["Bench"])), (SYMBOL, encode(["string"], ["BNC"])), (DECIMALS, _word(18)))})

    def static_call(self, row: dict, to: bytes, data: bytes) -> bytes | None:
        return self.answers.get((to, data))

    @staticmethod
    def address(k: int) -> bytes:
        return (k % 1000 + 1).to_bytes(4, "big") * 5

    def raw_tx(self, to: bytes, value: int, data: bytes) -> bytes:
        """A type-2 tx as a block row holds it (the indexer reads its fields, not its signature)."""
        self.nonce += 1
        return b"\x02" + rlpcodec.encode([_int(43112), _int(self.nonce), _int(1), _int(30), _int(100_000), to,
                                          _int(value), data, [], b"", _word(self.nonce), _word(1)])

    def block(self) -> dict:
        self.number += 1
        n = self.number
        txs, senders, receipts = [], [], []
        for i in range(TXS_PER_BLOCK):
            k = n * TXS_PER_BLOCK + i
            sender, to = self.address(k), self.address(k * 7 + 3)
            if k % 2 == 0:  # the hot address is in every other tx, so its pages are full from the start
                sender, to = (HOT, to) if k % 4 == 0 else (sender, HOT)
            status = 0 if k % 7 == 0 else 1
            if k % 3 == 0:
                token = TOKENS[k % len(TOKENS)]
                data = bytes.fromhex("a9059cbb") + to.rjust(32, b"\x00") + _word(k)
                logs = [[token, [TRANSFER_TOPIC, sender.rjust(32, b"\x00"), to.rjust(32, b"\x00")], _word(k)]]
                txs.append(self.raw_tx(token, 0, data))
                receipts.append([status, 0, 35_000, 26, None, logs if status else []])
            else:
                txs.append(self.raw_tx(to, k, b""))
                receipts.append([status, 0, 21_000, 26, None, []])
            senders.append(sender)
        hdr = Header(keccak256(_int(n - 1)), b"\x00" * 32, b"\x00" * 20, b"\x00" * 32, b"\x00" * 32, b"\x00" * 32, 0,
                     1, n, 15_000_000, sum(r[2] for r in receipts), 1_700_000_000 + n, b"", b"\x00" * 32, b"\x00" * 8,
                     None, base_fee_per_gas=25, block_gas_cost=0).encode()
        return {"hdr": hdr, "h": keccak256(_int(n)), "ms": (1_700_000_000 + n) * 1000, "fee": [], "txs": txs,
                "from": senders, "rc": receipts, "size": 0}


def percentiles(samples: list[float]) -> dict:
    s = sorted(samples)
    return {"p50_ms": round(statistics.median(s) * 1000, 3), "p99_ms": round(s[min(len(s) - 1, int(len(s) * 0.99))] * 1000, 3)}


def middle_cursor(pages, total: int) -> bytes | None:
    """The cursor of the page in the middle of a list of `total` rows that is still full (None, the
    first page, while the list holds fewer than two pages)."""
    cursor = None
    for _ in range(max(0, total - PAGE) // PAGE // 2):
        cursor = pages(cursor).next
    return cursor


def queries(store: Store, chain_id: bytes) -> tuple[dict, dict, dict]:
    """The timed index queries on one index, the sizes of the hot address's lists, and the cursors
    of the middle pages of those lists."""
    ix = EvmIndex(store, chain_id)
    hot_native = len(ix.native_transactions(HOT, 1_000_000).items)
    hot_erc20 = len(ix.erc20_transfers(HOT, 1_000_000).items)
    native_deep = middle_cursor(lambda c: ix.native_transactions(HOT, PAGE, c), hot_native)
    erc20_deep = middle_cursor(lambda c: ix.erc20_transfers(HOT, PAGE, c), hot_erc20)
    return {
        "blocks_page": lambda: ix.blocks(PAGE),
        "latest_txs_page": lambda: ix.transactions(PAGE),
        "failed_txs_page": lambda: ix.transactions(PAGE, status=0),
        "erc20_transfers_page": lambda: ix.erc20_transfers(HOT, PAGE),
        "erc20_transfers_deep_page": lambda: ix.erc20_transfers(HOT, PAGE, erc20_deep),
        "native_txs_page": lambda: ix.native_transactions(HOT, PAGE),
        "native_txs_deep_page": lambda: ix.native_transactions(HOT, PAGE, native_deep),
    }, {"hot_native_txs": hot_native, "hot_erc20_transfers": hot_erc20}, {
        "erc20": erc20_deep, "native": native_deep}


C_CHAIN = "/v1/chains/43112"
ERC20_ROUTE = "/v1/chains/{chainId}/addresses/{address}/transactions:listErc20"
NATIVE_ROUTE = "/v1/chains/{chainId}/addresses/{address}/transactions:listNative"


def requests(node: Node, deep: dict) -> tuple[DataAPI, dict[str, str]]:
    """The Data API of `node` and the timed request paths (the middle pages by their pageToken,
    issued as the route hands them out)."""
    api = DataAPI(node)
    hot = "0x" + HOT.hex()
    bound = {"chainId": "43112", "address": hot}
    erc20_token = api.signed_tokens.issue(binding_of("GET", ERC20_ROUTE, bound), deep["erc20"])
    native_token = api.signed_tokens.issue(binding_of("GET", NATIVE_ROUTE, bound), deep["native"])
    return api, {
        "GET blocks": f"{C_CHAIN}/blocks",
        "GET latest txs": f"{C_CHAIN}/transactions",
        "GET hot listErc20": f"{C_CHAIN}/addresses/{hot}/transactions:listErc20",
        "GET hot listErc20 middle page": f"{C_CHAIN}/addresses/{hot}/transactions:listErc20?pageToken={erc20_token}",
        "GET hot listNative": f"{C_CHAIN}/addresses/{hot}/transactions:listNative",
        "GET hot listNative middle page": f"{C_CHAIN}/addresses/{hot}/transactions:listNative?pageToken={native_token}",
    }


def time_calls(fns: dict, n: int, samples_of: dict[str, list[float]]) -> None:
    """Each in-process query once to warm it, then `n` timed calls into samples_of[name]."""
    for name, fn in fns.items():
        fn()
        for _ in range(n):
            t = time.perf_counter()
            fn()
            samples_of[name].append(time.perf_counter() - t)


async def handle(api: DataAPI, path: str) -> float:
    """Seconds DataAPI.handle takes for GET `path`, from the request object to the response with
    its JSON body (asserted to be a full 200 page)."""
    from aiohttp.test_utils import make_mocked_request
    request = make_mocked_request("GET", path, headers={"Host": "127.0.0.1:9650"})
    t = time.perf_counter()
    response = await api.handle(request)
    elapsed = time.perf_counter() - t
    assert response.status == 200, (path, response.body)
    body = json.loads(response.body)
    assert len(body.get("blocks") or body["transactions"]) == PAGE, path
    return elapsed


def feed(store: Store, target: int, chain_id: bytes) -> dict:
    """Synthetic blocks through the indexer, into the index of chain `chain_id`, until the index
    holds `target` rows and MIN_BLOCKS blocks (full first and middle pages of every list timed)."""
    chain = SyntheticChain(chain_id)
    indexer = Indexer(store)
    rows = txs = 0
    index_s = 0.0
    while rows < target or chain.number < MIN_BLOCKS:
        while rows < target or chain.number < MIN_BLOCKS:
            row = chain.block()
            batch = store.batch()
            t = time.perf_counter()
            indexer.block_accepted(chain, row, batch)
            index_s += time.perf_counter() - t
            rows += len(batch.changes)  # an estimate: some of them rewrite existing rows
            txs += len(row["txs"])
            batch.commit()
        rows = sum(1 for _ in store.iterate(b"ix/"))
    return {"index_rows": rows, "blocks": chain.number, "txs": txs,
            "index_us_per_block": round(index_s / chain.number * 1e6, 1), "index_us_per_tx": round(index_s / txs * 1e6, 1)}


def open_node(data_dir: Path) -> Node:
    """A node on `data_dir`, opened offline: its store and chains, nothing served."""
    node = Node(NodeConfig(data_dir=data_dir, log_level="WARN"))
    node.open_offline()
    return node


def bench_queries(targets: list[int], samples: int, rounds: int = 10) -> list[dict]:
    """One node database per size, its C-Chain's index fed synthetic blocks (after the real
    genesis block, so numbers go on from 1); then every index query and Data API request of
    every size timed in interleaved rounds, so the sizes share whatever else the machine does."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-data-api-"))
    nodes: list[Node] = []
    try:
        out, timed, served = [], [], []
        for target in targets:
            node = open_node(tmp / f"node{target}")
            nodes.append(node)
            assert node.store is not None
            # the node's own C-Chain head stays its genesis: the index is ahead, and stays as fed
            figures = feed(node.store, target, node.genesis.c_chain_id)
            fns, sizes, deep = queries(node.store, node.genesis.c_chain_id)
            out.append({**figures, **sizes})
            timed.append(fns)
            served.append(requests(node, deep))
            log(json.dumps(out[-1]))
        times: list[dict[str, list[float]]] = [{name: [] for name in [*fns, *paths]}
                                               for fns, (_, paths) in zip(timed, served)]

        async def run_rounds() -> None:
            for _ in range(rounds):
                for fns, (api, paths), samples_of in zip(timed, served, times):
                    time_calls(fns, max(1, samples // rounds), samples_of)
                    for name, path in paths.items():
                        await handle(api, path)  # warm
                        for _ in range(max(1, samples // rounds)):
                            samples_of[name].append(await handle(api, path))
        asyncio.run(run_rounds())
        for figures, samples_of in zip(out, times):
            figures.update({name: percentiles(values) for name, values in samples_of.items()})
            log(json.dumps(figures))
        return out
    finally:
        for node in nodes:
            asyncio.run(node.stop())
        shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------ the primary network (P- and X-Chain)


@dataclass
class SyntheticHistory:
    """What the P-Chain VM's state holds for a staker when its block is indexed (its history
    record, no reward UTXOs yet): the P family reads these, as it does from the real VM."""

    history: dict = field(default_factory=dict)

    def get_history(self, tx_id: bytes) -> dict | None:
        return self.history.get(tx_id)

    def reward_utxos(self, tx_id: bytes) -> list:
        return []


@dataclass
class SyntheticPChain:
    """The node's P-Chain as the indexer sees it (its ID, asset, staking and fee rules), with
    synthetic blocks: TXS_PER_BLOCK BaseTxs, each spending an output of the block before and
    paying one output to one of 1000 addresses and one to the hot address (never spent, so its
    UTXO pages are full at every size), and one AddPermissionlessValidatorTx."""

    vm: object
    state: SyntheticHistory = field(default_factory=SyntheticHistory)
    number: int = 0
    parent: bytes = bytes(32)
    previous: list = field(default_factory=list)

    def __getattr__(self, name: str):  # chain_id, vm_id, avax_asset_id, staking, validator_fee_config, name
        return getattr(self.vm, name)

    @staticmethod
    def owner(k: int) -> object:
        from simnode.codec.secp256k1fx import OutputOwners
        return OutputOwners(0, 1, ((k % 1000 + 1).to_bytes(4, "big") * 5,))

    def block(self) -> dict:
        from simnode.codec.avax import BaseTxFields, TransferableInput, TransferableOutput
        from simnode.codec.secp256k1fx import Input, OutputOwners, TransferInput, TransferOutput
        from simnode.formats.ids import ZERO_ID
        from simnode.vms.platform import blocks as pblocks
        from simnode.vms.platform import txs as t
        from simnode.vms.platform.tx_parts import EmptySigner, Validator
        self.number += 1
        n, avax, net = self.number, self.avax_asset_id, self.network_id
        time_s = 1_800_000_000 + n
        hot = OutputOwners(0, 1, (HOT,))
        signed, made = [], []
        previous = self.previous or [(keccak256(_int(i + 1)), 10**17) for i in range(TXS_PER_BLOCK)]
        for i in range(TXS_PER_BLOCK):
            k = n * TXS_PER_BLOCK + i
            tx_id, amount = previous[i]  # the first block spends UTXOs it does not index
            ins = (TransferableInput(tx_id, 0, avax, TransferInput(amount, Input((0,)))),)
            left = amount - 1000 - (k + 1)  # 1000 burned
            outs = (TransferableOutput(avax, TransferOutput(left, self.owner(k))),
                    TransferableOutput(avax, TransferOutput(k + 1, hot)))
            stx = t.sign_tx(t.BaseTx(BaseTxFields(net, ZERO_ID, outs, ins, b"")), [])
            signed.append(stx)
            made.append((stx.tx_id, left))
        node_id = keccak256(_int(n))[:20]
        end = time_s + 14 * 24 * 3600 + (n % 1000) * 3600
        weight = 2000 * 10**9
        validator = t.AddPermissionlessValidatorTx(
            BaseTxFields(net, ZERO_ID, (), (TransferableInput(keccak256(node_id), 0, avax, TransferInput(
                weight + 1000, Input((0,)))),), b""), Validator(node_id, time_s, end, weight), ZERO_ID,
            EmptySigner(), (TransferableOutput(avax, TransferOutput(weight, self.owner(n))),), self.owner(n),
            self.owner(n), 20_000 + n % 50_000)
        stx = t.sign_tx(validator, [])
        self.state.history[stx.tx_id] = {"start": time_s, "end": end, "weight": weight, "potentialReward": n}
        signed.append(stx)
        self.previous = made
        raw = pblocks.encode_standard_block(time_s, self.parent, n, [s.tx_bytes for s in signed])
        self.parent = pblocks.block_id(raw)
        facts = [time_s, [[ZERO_ID, 0, 1, weight]], [], [], [], [], 0]
        return {"height": n, "id": self.parent, "b": raw, "facts": facts}


@dataclass
class SyntheticXChain:
    """The node's X-Chain as the indexer sees it, with synthetic blocks of TXS_PER_BLOCK BaseTxs
    (as the P-Chain's: each spends an output of the block before, pays one of 1000 addresses and
    the hot address)."""

    vm: object
    number: int = 0
    parent: bytes = bytes(32)
    previous: list = field(default_factory=list)

    def __getattr__(self, name: str):  # chain_id, vm_id, avax_asset_id, genesis, name
        return getattr(self.vm, name)

    def block(self) -> dict:
        from simnode.codec.avax import BaseTxFields, TransferableInput, TransferableOutput
        from simnode.codec.secp256k1fx import Input, OutputOwners, TransferInput, TransferOutput
        from simnode.vms.avm.blocks import build_block
        from simnode.vms.avm.txs import BaseTx, encode_tx
        self.number += 1
        n, avax = self.number, self.avax_asset_id
        hot = OutputOwners(0, 1, (HOT,))
        txs, made = [], []
        previous = self.previous or [(keccak256(b"x" + _int(i + 1)), 10**17) for i in range(TXS_PER_BLOCK)]
        for i in range(TXS_PER_BLOCK):
            k = n * TXS_PER_BLOCK + i
            tx_id, amount = previous[i]
            ins = (TransferableInput(tx_id, 0, avax, TransferInput(amount, Input((0,)))),)
            left = amount - 1000 - (k + 1)
            outs = (TransferableOutput(avax, TransferOutput(left, SyntheticPChain.owner(k))),
                    TransferableOutput(avax, TransferOutput(k + 1, hot)))
            tx = encode_tx(BaseTx(BaseTxFields(self.network_id, self.chain_id, outs, ins, b"")), [])
            txs.append(tx)
            made.append((tx.id, left))
        self.previous = made
        blk = build_block(self.parent, n, 1_800_000_000 + n, txs)
        self.parent = blk.id
        return {"n": n, "id": blk.id, "b": blk.bytes}


def feed_primary(node: Node, target: int) -> dict:
    """Synthetic P- and X-Chain blocks, in turn, through the indexer (each chain's families, as its
    accepted blocks take them) into the node's index until it holds `target` more rows."""
    store = node.store
    p_chain = SyntheticPChain(node.chains[bytes(32)])
    p_chain.number = p_chain.vm.height  # go on after the node's own blocks
    p_chain.parent = p_chain.vm.state.meta.last_block_id
    x_vm = node.chains[node.genesis.x_chain_id]
    x_chain = SyntheticXChain(x_vm, x_vm.height(), x_vm.last_accepted_block().id)
    indexer = Indexer(store)
    start = sum(1 for _ in store.iterate(b"ix/"))
    rows, index_s, blocks = start, 0.0, 0
    while rows < start + target:
        while rows < start + target:
            for chain in (p_chain, x_chain):  # half the rows each, about
                row = chain.block()
                batch = store.batch()
                t = time.perf_counter()
                indexer.block_accepted(chain, row, batch)
                index_s += time.perf_counter() - t
                rows += len(batch.changes)
                blocks += 1
                batch.commit()
        rows = sum(1 for _ in store.iterate(b"ix/"))
    return {"index_rows": rows - start, "p_and_x_blocks": blocks, "validators": blocks // 2,
            "hot_utxos": blocks * TXS_PER_BLOCK, "index_us_per_block": round(index_s / blocks * 1e6, 1)}


async def handle_list(api: DataAPI, path: str, key: str) -> float:
    """Seconds DataAPI.handle takes for GET `path` (asserted a full page of `key`)."""
    from aiohttp.test_utils import make_mocked_request
    request = make_mocked_request("GET", path, headers={"Host": "127.0.0.1:9650"})
    t = time.perf_counter()
    response = await api.handle(request)
    elapsed = time.perf_counter() - t
    assert response.status == 200, (path, response.body)
    assert len(json.loads(response.body)[key]) == PAGE, path
    return elapsed


def primary_timed(node: Node) -> tuple[dict, dict]:
    """The timed index queries and Data API requests of the P-Chain part."""
    from simnode.formats import format_address
    from simnode.index.primary import query as pq
    pid = bytes(32)
    store = node.store
    xid = node.genesis.x_chain_id
    hot_total = len(pq.utxos(store, pid, [HOT], 1_000_000).items)
    deep = middle_cursor(lambda c: pq.utxos(store, pid, [HOT], PAGE, c), hot_total)
    f = pq.ValidatorFilter(now=node.chains[pid].clock.now())
    fns = {
        "p_utxos_hot_page": lambda: pq.utxos(store, pid, [HOT], PAGE),
        "p_utxos_hot_deep_page": lambda: pq.utxos(store, pid, [HOT], PAGE, deep),
        "p_utxos_hot_by_amount_page": lambda: pq.utxos(store, pid, [HOT], PAGE, by_amount=True),
        "x_utxos_hot_page": lambda: pq.utxos(store, xid, [HOT], PAGE),
        "validators_page": lambda: pq.validators(store, pid, PAGE, None, True, "blockIndex", f, None, lambda r: None),
        "validators_by_end_page": lambda: pq.validators(store, pid, PAGE, None, False, "timeRemaining", f, None,
                                                        lambda r: None),
    }
    hot = format_address("P", node.genesis.hrp, HOT)
    n = "/v1/networks/fuji"
    paths = {
        "GET p-chain utxos (hot address)": (f"{n}/blockchains/p-chain/utxos?addresses={hot}", "utxos"),
        "GET p-chain utxos by amount": (f"{n}/blockchains/p-chain/utxos?addresses={hot}&sortBy=amount", "utxos"),
        "GET x-chain utxos (hot address)": (f"{n}/blockchains/x-chain/utxos?addresses=X{hot[1:]}", "utxos"),
        "GET validators": (f"{n}/validators", "validators"),
        "GET validators by timeRemaining": (f"{n}/validators?sortBy=timeRemaining&sortOrder=asc", "validators"),
    }
    return fns, paths


def bench_primary(targets: list[int], samples: int, rounds: int = 10) -> list[dict]:
    """One node database per size, its P-Chain index fed synthetic blocks; the P-Chain queries
    and requests of every size timed in interleaved rounds."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-data-api-p-"))
    nodes: list[Node] = []
    try:
        out, timed = [], []
        for target in targets:
            node = open_node(tmp / f"node{target}")
            nodes.append(node)
            out.append(feed_primary(node, target))
            fns, paths = primary_timed(node)
            timed.append((fns, DataAPI(node), paths))
            log(json.dumps(out[-1]))
        times = [{name: [] for name in [*fns, *paths]} for fns, _, paths in timed]

        async def run_rounds() -> None:
            for _ in range(rounds):
                for (fns, api, paths), samples_of in zip(timed, times):
                    time_calls(fns, max(1, samples // rounds), samples_of)
                    for name, (path, key) in paths.items():
                        await handle_list(api, path, key)
                        for _ in range(max(1, samples // rounds)):
                            samples_of[name].append(await handle_list(api, path, key))
        asyncio.run(run_rounds())
        for figures, samples_of in zip(out, times):
            figures.update({name: percentiles(values) for name, values in samples_of.items()})
            log(json.dumps(figures))
        return out
    finally:
        for node in nodes:
            asyncio.run(node.stop())
        shutil.rmtree(tmp, ignore_errors=True)


def targets_met(sizes: list[dict]) -> tuple[dict, dict]:
    """p50 ratios largest/smallest size, and the request targets: p50 at the largest size at
    most 1.5x the smallest's, and at most 5 ms."""
    first, last = sizes[0], sizes[-1]
    ratio = {k: round(last[k]["p50_ms"] / first[k]["p50_ms"], 2) for k in first if isinstance(first[k], dict)}
    met = {k: last[k]["p50_ms"] <= 1.5 * first[k]["p50_ms"] and last[k]["p50_ms"] <= 5.0
           for k in first if k.startswith("GET ")}
    return ratio, met


# ------------------------------------------------------------------ index on vs off through a node


def cpu_seconds(pid: int) -> float:
    """User + system CPU the process has used (less sensitive to other load than wall time)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def transfers_per_second(url: str, transfers: int, pid: int) -> dict:
    import aiohttp
    from eth_account import Account

    import bench_evm
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=60)) as s:
        rpc = bench_evm.RPC(url, s)
        chain_id = int(await rpc("eth_chainId"), 16)
        senders = await bench_evm.fund_senders(rpc, chain_id, Account.from_key(bench_evm.EWOQ), 50, 10**20)
        signed = await bench_evm.sign_transfers(rpc, chain_id, senders, transfers)
        cpu = cpu_seconds(pid)
        result = await bench_evm.run_txs(rpc, signed, 50)
        result["node_cpu_us_per_tx"] = round((cpu_seconds(pid) - cpu) / transfers * 1e6, 1)
        return result


def bench_node(transfers: int, rounds: int) -> dict:
    import bench_evm
    runs: dict[str, list[dict]] = {}
    for r in range(rounds):
        for label, flags in (("index_on", []), ("index_off", ["--no-index"])):
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                number = sock.getsockname()[1]
            env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
            proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--ephemeral", "--http-port", str(number),
                                     "--log-level", "WARN", *flags], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            url = f"http://127.0.0.1:{number}/ext/bc/C/rpc"
            try:
                asyncio.run(bench_evm.wait_up(url))
                result = asyncio.run(transfers_per_second(url, transfers, proc.pid))
            finally:
                proc.terminate()
                proc.wait(30)
            log(f"round {r + 1} {label}: {result}")
            runs.setdefault(label, []).append(result)
    tx_s = {label: max(r["mined_tx_s"] for r in rs) for label, rs in runs.items()}
    cpu = {label: min(r["node_cpu_us_per_tx"] for r in rs) for label, rs in runs.items()}
    per_block = statistics.mean(r["tx_per_block"] for r in runs["index_on"])
    return {"transfers": transfers, "rounds": rounds, "best_mined_tx_s": tx_s, "best_node_cpu_us_per_tx": cpu,
            "tx_per_block": round(per_block, 1),
            "slowdown_pct_tx_s": round((tx_s["index_off"] - tx_s["index_on"]) / tx_s["index_off"] * 100, 1),
            "slowdown_pct_cpu": round((cpu["index_on"] - cpu["index_off"]) / cpu["index_off"] * 100, 1),
            "index_cpu_us_per_block": round((cpu["index_on"] - cpu["index_off"]) * per_block, 1)}


# ------------------------------------------------------------------ index write cost in instructions

SENDERS = 20


def sign_workload(path: Path, blocks: int, erc20: bool) -> None:
    """Signed txs for the workload (signed here, outside the measured process): the funder pays
    20 senders (and, for `erc20`, deploys tests/contracts/Token.json and hands them tokens), then
    `blocks` blocks of one transfer (native or ERC-20 `transfer`) from each sender."""
    import rlp
    from eth_account import Account
    from eth_utils import to_checksum_address

    import bench_evm
    funder = Account.from_key(bench_evm.EWOQ)
    senders = [Account.from_key((0xBE4C0000 + i).to_bytes(32, "big")) for i in range(SENDERS)]
    fee = {"gas": 100_000, "maxFeePerGas": 10**12, "maxPriorityFeePerGas": 1, "chainId": 43112, "value": 0}
    setup: list[dict] = [{"to": a.address, "value": 10**20} for a in senders]
    token = to_checksum_address(keccak256(rlp.encode([bytes.fromhex(funder.address[2:]), len(setup)]))[12:])
    if erc20:
        art = json.loads((ROOT / "tests" / "contracts" / "Token.json").read_text())
        setup.append({"data": art["bytecode"] + encode(["string", "string", "uint256"], ["B", "B", 10**30]).hex(),
                      "gas": 2_000_000})
        setup += [{"to": token, "data": "0xa9059cbb" + encode(["address", "uint256"], [a.address, 10**24]).hex()}
                  for a in senders]
    fund = [funder.sign_transaction({**fee, "nonce": i, **tx}).raw_transaction.hex() for i, tx in enumerate(setup)]

    def transfer(k: int) -> dict:
        to = senders[(k + 1) % SENDERS].address
        if erc20:
            return {"to": token, "data": "0xa9059cbb" + encode(["address", "uint256"], [to, 1]).hex()}
        return {"to": to, "value": 1, "gas": 21000}
    rounds = [[a.sign_transaction({**fee, "nonce": b, **transfer(k)}).raw_transaction.hex() for k, a in enumerate(senders)]
              for b in range(blocks)]
    path.write_text(json.dumps([fund, *rounds]))


def run_workload(path: Path, blocks: int, index: bool, record: bool) -> None:
    """The measured process: an EVM chain on LevelDB building the setup block and `blocks`
    blocks of transfers, each through EVMChain.build_block (and the indexer, if on). Without
    `record`, the call-frame recorder is never started (what it costs is then left out)."""
    from simnode.clock import VirtualClock
    from simnode.config import NodeConfig
    from simnode.genesis import load_network_genesis
    from simnode.vms.chain_context import ChainContext
    from simnode.vms.evm.tracing import block_frames
    from simnode.vms.evm.evm_chain import EVMChain
    if not record:
        block_frames.start = list
    txs = json.loads(path.read_text())[:blocks + 1]
    tmp = tempfile.mkdtemp(prefix="bench-write-")
    store = Store.open(Path(tmp) / "db")
    try:
        genesis = load_network_genesis(12345)
        ctx = ChainContext(NodeConfig(), genesis, store, VirtualClock(1_767_225_600_000), genesis.c_chain_id,
                           indexer=Indexer(store) if index else None)
        chain = EVMChain(ctx)
        chain.set_automine(False)
        for block in txs:
            for raw in block:
                chain.submit_raw(bytes.fromhex(raw))
            chain.mine_pending()
        last = chain.block_row(chain.head.number)
        assert chain.head.number == len(txs) and all(r[0] == 1 for r in last["rc"]) and (record or "ct" not in last)
    finally:
        store.close()
        shutil.rmtree(tmp, ignore_errors=True)


def instructions(path: Path, blocks: int, *flags: str) -> int:
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3", PYTHONHASHSEED="0")  # same dict layouts every run
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
           "--workload", str(path), "--blocks", str(blocks), *flags]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1])
    raise RuntimeError(f"no instruction count from callgrind: {done.stderr[-2000:]}")


def per_transfer(path: Path, small: int, large: int, flags: tuple[str, ...], label: str) -> float:
    """Instructions per transfer: the difference of a `large`- and a `small`-block run, so
    start-up, genesis and the setup block cancel out."""
    counts = {n: instructions(path, n, *flags) for n in (small, large)}
    out = (counts[large] - counts[small]) / ((large - small) * SENDERS)
    log(f"callgrind {label}: {counts} -> {out:.0f} instructions per transfer")
    return out


def bench_instructions(small: int = 5, large: int = 25) -> dict:
    """Instruction counts (callgrind: the machine's other load does not change them) of
    transfers with the index on and off, and of ERC-20 transfers with the call-frame recorder on
    and off (index off)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-write-txs-"))
    try:
        native, erc20 = tmp / "native.json", tmp / "erc20.json"
        sign_workload(native, large, erc20=False)
        sign_workload(erc20, large, erc20=True)
        on = per_transfer(native, small, large, ("--index", "--record"), "transfers, index on")
        off = per_transfer(native, small, large, ("--record",), "transfers, index off")
        rec = per_transfer(erc20, small, large, ("--record",), "ERC-20 transfers, recorder on")
        bare = per_transfer(erc20, small, large, (), "ERC-20 transfers, recorder off")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"transfers_per_block": SENDERS, "blocks": [small, large],
            "transfer_instructions_index_on": round(on), "transfer_instructions_index_off": round(off),
            "index_slowdown_pct": round((on - off) / off * 100, 1),
            "index_instructions_per_block": round((on - off) * SENDERS),
            "erc20_instructions_recorder_on": round(rec), "erc20_instructions_recorder_off": round(bare),
            "recorder_slowdown_pct": round((rec - bare) / bare * 100, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="1000,100000,1000000", help="index sizes to measure at")
    ap.add_argument("--samples", type=int, default=300, help="timed runs of each query per size")
    ap.add_argument("--transfers", type=int, default=2000, help="transfers per node round")
    ap.add_argument("--rounds", type=int, default=3, help="node rounds (index on, then off, each round)")
    ap.add_argument("--skip-node", action="store_true", help="skip the node rounds (transfers/s)")
    ap.add_argument("--skip-callgrind", action="store_true", help="skip the instruction counts")
    ap.add_argument("--skip-evm", action="store_true", help="skip the C-Chain index sizes")
    ap.add_argument("--skip-primary", action="store_true", help="skip the P-Chain index sizes")
    ap.add_argument("--workload", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--blocks", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--index", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--record", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.workload is not None:
        run_workload(args.workload, args.blocks, args.index, args.record)
        return
    sizes = [int(x) for x in args.rows.split(",")]
    out: dict = {}
    if not args.skip_evm:
        out["queries"] = bench_queries(sizes, args.samples)
        out["p50_ratio_largest_to_smallest"], out["request_targets_met"] = targets_met(out["queries"])
    if not args.skip_primary:
        out["primary"] = bench_primary(sizes, args.samples)
        out["primary_p50_ratio_largest_to_smallest"], out["primary_request_targets_met"] = targets_met(out["primary"])
    if not args.skip_callgrind:
        out["instructions"] = bench_instructions()
    if not args.skip_node:
        out["node"] = bench_node(args.transfers, args.rounds)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
