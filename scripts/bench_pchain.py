"""Benchmark: one virtual year of P-Chain staking with 1,000 validators and 10,000 delegators.

Every staker ends somewhere in the year, so every reward is paid by a time-driven block. Txs are
paced at the fee target (50,000 gas/s) so the dynamic price stays at its minimum.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_pchain.py [--validators N] [--delegators M] [--leveldb]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simnode.clock import VirtualClock  # noqa: E402
from simnode.codec import UTXO, TransferableOutput, TransferOutput  # noqa: E402
from simnode.config import NodeConfig  # noqa: E402
from simnode.crypto import bls  # noqa: E402
from simnode.formats import private_key_from_str  # noqa: E402
from simnode.genesis import load_network_genesis, rebased_start_time  # noqa: E402
from simnode.store import Store  # noqa: E402
from simnode.vms.chain_context import ChainContext  # noqa: E402
from simnode.vms.platform import fees  # noqa: E402
from simnode.vms.platform import txs as t  # noqa: E402
from simnode.vms.platform.wallet import PBuilder, address_of, owner  # noqa: E402
from simnode.vms.platform.vm import PlatformVM  # noqa: E402

EWOQ = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
DAY = 24 * 3600
YEAR = 365 * DAY
AVAX = 10**9
START = 1_767_225_600  # 2026-01-01


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--validators", type=int, default=1000)
    ap.add_argument("--delegators", type=int, default=10000)
    ap.add_argument("--leveldb", action="store_true", help="use a LevelDB store in a temp dir (default: memory)")
    args = ap.parse_args()
    nv, nd = args.validators, args.delegators

    tmp = tempfile.mkdtemp(prefix="bench-pchain-") if args.leveldb else None
    store = Store.open(Path(tmp) / "db") if tmp else Store.memory()
    g = load_network_genesis(12345)
    clock = VirtualClock(START * 1000)
    vm = PlatformVM(ChainContext(NodeConfig(), g, store, clock, bytes(32), {}, rebased_start_time(g.start_time, START)))
    ewoq_addr = address_of(EWOQ)
    t0 = time.perf_counter()

    # 1. split ewoq's funds into one UTXO per staker tx (a few BaseTxs with many outputs)
    amounts = [2000 * AVAX + AVAX // 100] * nv + [25 * AVAX + AVAX // 100] * nd
    pieces: list[UTXO] = []
    w = PBuilder(vm, [EWOQ])
    per_tx = 400
    for i in range(0, len(amounts), per_tx):
        chunk = amounts[i:i + per_tx]
        outs = [TransferableOutput(vm.avax_asset_id, TransferOutput(a, owner(ewoq_addr))) for a in chunk]
        stx = w._build(lambda b: t.BaseTx(b), outs)
        vm.issue_tx(stx.tx_bytes)
        for idx, o in enumerate(stx.unsigned.base.outs):
            if o.out.amount in (2000 * AVAX + AVAX // 100, 25 * AVAX + AVAX // 100) and len(pieces) < len(amounts):
                pieces.append(UTXO(stx.tx_id, idx, o.asset_id, o.out))
        clock.advance(20)
    v_pieces = [p for p in pieces if p.out.amount > 1000 * AVAX][:nv]
    d_pieces = [p for p in pieces if p.out.amount < 1000 * AVAX][:nd]
    t_split = time.perf_counter()

    # 2. build every staker tx: validator i ends at ~ (i+1)/nv of the year; its delegators end before it
    def node(i: int) -> bytes:
        return hashlib.sha256(b"bench-node-%d" % i).digest()[:20]

    base = START + 40 * DAY  # leave room for issuance
    v_end = [base + 2 * DAY + (YEAR - 45 * DAY) * (i + 1) // nv for i in range(nv)]
    sks = [bls.secret_key_from_seed(hashlib.sha256(b"bench-bls-%d" % i).digest()) for i in range(nv)]

    def issue_paced(make_txs) -> int:
        """Issue txs in blocks of ≤ 500k gas, moving the clock so that gas/s stays at the target."""
        issued = 0
        block_gas = 0
        for stx in make_txs:  # each tx is built lazily, after the previous block moved the fee state
            vm.issue_tx(stx.tx_bytes, build=False)
            block_gas += fees.tx_gas(stx.unsigned)
            issued += 1
            if block_gas > 450_000:
                vm.build_block()
                clock.advance(-(-block_gas // 50_000) + 1)
                block_gas = 0
        vm.build_block()
        clock.advance(max(1, block_gas // 50_000) + 1)
        return issued

    def validator_txs():
        for i in range(nv):
            b = PBuilder(vm, [EWOQ], only=[v_pieces[i]])
            yield b.add_validator(node(i), v_end[i], 2000 * AVAX, sks[i], 20_000 + i,
                                  address_of(hashlib.sha256(b"vr-%d" % i).digest()))

    def delegator_txs():
        now = vm.next_block_time()
        for j in range(nd):
            i = j % nv
            end = max(now + 2 * DAY, v_end[i] - (j // nv + 1) * 3600)
            b = PBuilder(vm, [EWOQ], only=[d_pieces[j]])
            yield b.add_delegator(node(i), min(end, v_end[i]), 25 * AVAX,
                                  address_of(hashlib.sha256(b"dr-%d" % j).digest()))

    issue_paced(validator_txs())
    t_vals = time.perf_counter()
    issue_paced(delegator_txs())
    t_dels = time.perf_counter()
    stakers_n = len(vm.state.stakers)
    height0 = vm.height
    supply0 = vm.current_supply()
    potential = sum(s.potential_reward for s in vm.state.stakers.values())

    # 3. one year of virtual time: every staker ends, every reward is paid
    clock.advance(YEAR)
    t_year = time.perf_counter()
    remaining = [s for s in vm.state.stakers.values() if s.subnet_id == bytes(32) and s.weight < 10**15]
    paid = 0
    for _, rec in vm.state.iter_history():
        if rec["status"] == "completed":
            paid += rec["rewardAmount"] + (rec["delegateeReward"] if rec["kind"] == "validator" else 0)

    print(f"validators={nv} delegators={nd} (current stakers after issuance: {stakers_n})")
    print(f"split funds:        {t_split - t0:7.2f} s")
    print(f"issue validators:   {t_vals - t_split:7.2f} s  ({nv / max(t_vals - t_split, 1e-9):,.0f} tx/s)")
    print(f"issue delegators:   {t_dels - t_vals:7.2f} s  ({nd / max(t_dels - t_vals, 1e-9):,.0f} tx/s)")
    print(f"advance one year:   {t_year - t_dels:7.2f} s  ({vm.height - height0} blocks, "
          f"{(vm.height - height0) / max(t_year - t_dels, 1e-9):,.0f} blocks/s)")
    print(f"total:              {t_year - t0:7.2f} s")
    print(f"stakers left (non-genesis): {len(remaining)}; potential rewards {potential:,} nAVAX; "
          f"paid (incl. genesis stakers) {paid:,} nAVAX")
    print(f"supply: {supply0:,} -> {vm.current_supply():,}; chain height {vm.height}; "
          f"chain time {vm.timestamp}")
    assert not remaining, "some stakers were not rewarded"


if __name__ == "__main__":
    main()
