#!/usr/bin/env python3
"""Engine-level cost of stateful precompiles (no HTTP): per-tx time of admission plus block
building for plain transfers on the C-Chain, on an L1 without precompiles and on an L1 with all
five of subnet-EVM's precompiles enabled, and of precompile calls (readAllowList, mintNativeCoin).

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_precompiles.py [--txs 400] [--runs 5]
        [--only cchain|l1|l1-precompiles|calls]

Prints one JSON line: microseconds per tx, the minimum over --runs (timings on a shared machine
are noisy; compare instruction counts under `valgrind --tool=callgrind` with --runs 1 and --only).
"""

from __future__ import annotations

import argparse
import copy
import json
import time

from eth_account import Account
from eth_utils import to_checksum_address

from simnode import patches

patches.install()  # the chains below run as a node runs them (simnode/patches.py)
from simnode.clock import VirtualClock  # noqa: E402
from simnode.config import NodeConfig  # noqa: E402
from simnode.genesis import load_network_genesis  # noqa: E402
from simnode.store import Store  # noqa: E402
from simnode.vms.chain_context import ChainContext  # noqa: E402
from simnode.vms.evm.evm_chain import EVMChain  # noqa: E402
from simnode.vms.evm.subnet import SubnetEVMChain  # noqa: E402

START_MS = 1_767_225_600_000
SENDERS = [Account.from_key(bytes([i + 1]) * 32) for i in range(20)]
NETWORK = load_network_genesis(12345)
L1_GENESIS = {"config": {"chainId": 99999}, "gasLimit": hex(8_000_000), "timestamp": "0x0",
              "alloc": {a.address[2:].lower(): {"balance": hex(10**24)} for a in SENDERS}}
PRECOMPILES = {key: {"blockTimestamp": 0, "adminAddresses": [SENDERS[0].address]} for key in (
    "contractDeployerAllowListConfig", "contractNativeMinterConfig", "feeManagerConfig", "rewardManagerConfig")}
PRECOMPILES["txAllowListConfig"] = {"blockTimestamp": 0, "enabledAddresses": [a.address for a in SENDERS]}
MINTER = "0x0200000000000000000000000000000000000001"


def make_chain(kind: str) -> EVMChain:
    ctx = ChainContext(NodeConfig(), NETWORK, Store.memory(), VirtualClock(START_MS), bytes([len(kind)]) * 32)
    if kind == "cchain":
        chain: EVMChain = EVMChain(ctx)
    else:
        g = copy.deepcopy(L1_GENESIS)
        if kind != "l1":
            g["config"].update(PRECOMPILES)
        chain = SubnetEVMChain(ctx, genesis_data=json.dumps(g).encode(), name="bench", subnet_id=b"\x01" * 32)
    chain.automine = False
    if kind == "cchain":
        chain.edit_state(lambda s: [s.set_balance(bytes.fromhex(a.address[2:]), 10**24) for a in SENDERS])
    return chain


def txs(chain: EVMChain, n: int, calls: bool) -> list[bytes]:
    out = []
    for i in range(n):
        acct = SENDERS[0] if calls else SENDERS[i % len(SENDERS)]
        nonce = i if calls else i // len(SENDERS)
        tx = {"chainId": chain.evm_chain_id, "nonce": nonce, "gas": 100_000 if calls else 21_000,
              "maxFeePerGas": 300 * 10**9, "maxPriorityFeePerGas": 1, "value": 0 if calls else 1,
              "to": MINTER if calls else to_checksum_address(f"0x{i + 0x1000:040x}"),
              "data": ("0x4f5aaaba" + "00" * 12 + "66" * 20 + "00" * 31 + "01" if i % 2 else
                       "0xeb54dae1" + "00" * 12 + SENDERS[0].address[2:].lower()) if calls else "0x"}
        out.append(bytes(acct.sign_transaction(tx).raw_transaction))
    return out


def measure(kind: str, n: int, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        chain = make_chain("l1-precompiles" if kind == "calls" else kind)
        raws = txs(chain, n, kind == "calls")
        t = time.perf_counter()
        for raw in raws:
            chain.submit_raw(raw)
        chain.mine_pending()
        best = min(best, time.perf_counter() - t)
        assert sum(len(chain.block(b).raws) for b in range(1, chain.head.number + 1)) == n
    return best / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--txs", type=int, default=400)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default=None, choices=("cchain", "l1", "l1-precompiles", "calls"))
    args = ap.parse_args()
    kinds = [args.only] if args.only else ["cchain", "l1", "l1-precompiles", "calls"]
    print(json.dumps({f"{k}_us_per_tx": round(measure(k, args.txs, args.runs), 1) for k in kinds}))


if __name__ == "__main__":
    main()
