"""Benchmark: sign + aggregate + verify one Warp message with 5, 100 and 1,000 validators.

For each size, the Primary Network of a P-Chain VM gets that many validators (the 5 local genesis
stakers, 2M AVAX each, plus validators sharing 28M AVAX added by AddPermissionlessValidatorTx with
seed-derived BLS keys, so about half of the set is needed for 67%), and
the aggregator core signs a C-Chain message (an off-chain message of the C-Chain) for it: the
validator set at the current height, the signers simnode holds keys for, the minimal heaviest
subset reaching 67%, each signer's BLS signature, the aggregate and its verification. Each figure
is the minimum over the repeats (the first, cold call also derives and caches keys; it is shown
apart). The parts are then timed alone on the same set, and the Warp precompile's check of the
signed message as a predicate (decoding its access-list chunks, the source subnet's set, the
signature) as the block builder runs it.

    ETH_HASH_BACKEND=pysha3 .venv/bin/python scripts/bench_warp.py [--sizes 5,100,1000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simnode.clock import VirtualClock  # noqa: E402
from simnode.config import NodeConfig  # noqa: E402
from simnode.formats import private_key_from_str  # noqa: E402
from simnode.genesis import load_network_genesis, rebased_start_time, staker_keys  # noqa: E402
from simnode.signing.aggregator import AggregationRequest, Aggregator  # noqa: E402
from simnode.signing.signer import PlatformValidators, WarpSigner  # noqa: E402
from simnode.store import Store  # noqa: E402
from simnode.vms.chain_context import ChainContext  # noqa: E402
from simnode.vms.evm import predicates  # noqa: E402
from simnode.vms.evm.precompiles import warp  # noqa: E402
from simnode.vms.platform.wallet import PBuilder  # noqa: E402
from simnode.vms.platform.vm import PlatformVM  # noqa: E402
from simnode.warp import signatures  # noqa: E402
from simnode.warp.keystore import Keystore, derived_secret_key  # noqa: E402
from simnode.warp.message import UnsignedMessage  # noqa: E402
from simnode.warp.payload import AddressedCall  # noqa: E402

EWOQ = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
DAY = 24 * 3600
AVAX = 10**9
START = 1_767_225_600  # 2026-01-01
ADDED_STAKE = 28_000_000 * AVAX
SEED = 0


def primary_network(size: int) -> PlatformVM:
    """A P-Chain VM whose Primary Network has `size` validators (at least the 5 genesis stakers)."""
    g = load_network_genesis(12345)
    clock = VirtualClock(START * 1000)
    vm = PlatformVM(ChainContext(NodeConfig(seed=SEED), g, Store.memory(), clock, bytes(32), {},
                                 rebased_start_time(g.start_time, START)))
    added = size - len(g.config.initial_stakers)
    for i in range(added):
        node_id = hashlib.sha256(f"bench-warp-node-{i}".encode()).digest()[:20]
        weight = ADDED_STAKE // added * (95 + i % 11) // 100  # unequal weights, as on a real network
        stx = PBuilder(vm, [EWOQ]).add_validator(node_id, vm.next_block_time() + 30 * DAY, weight,
                                                 derived_secret_key(SEED, node_id))
        vm.issue_tx(stx.tx_bytes)
        clock.advance(1)  # keep the dynamic fee at its minimum
    return vm


def best(fn, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="5,100,1000")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    print(f"{'validators':>10} {'signers':>8} {'setup s':>8} {'cold ms':>8} {'aggregate ms':>13} "
          f"{'set ms':>7} {'sign+sum ms':>12} {'from bytes ms':>14} {'verify ms':>9} {'predicate ms':>13}")
    for size in (int(s) for s in args.sizes.split(",")):
        t0 = time.perf_counter()
        vm = primary_network(size)
        setup = time.perf_counter() - t0
        keystore = Keystore(SEED)
        for sk in staker_keys(vm.genesis.config, SEED).secrets.values():
            keystore.add(sk)
        signer = WarpSigner(vm, keystore)
        aggregator = Aggregator(vm, signer)
        unsigned = UnsignedMessage(vm.network_id, vm.c_chain_id, AddressedCall(b"\x01" * 20, b"x" * 200).encode())
        signer.add_off_chain_message(unsigned.encoded)
        request = AggregationRequest(unsigned.encoded)

        t0 = time.perf_counter()
        aggregator.aggregate(request)
        cold = time.perf_counter() - t0
        total, signed = best(lambda: aggregator.aggregate(request), args.repeats)

        # the parts alone
        set_time, warp_set = best(lambda: vm.state.warp_set(bytes(32), vm.height), args.repeats)
        chosen = signatures.heaviest_signers(warp_set, signer.holders(warp_set), 67)
        sign_time, combined = best(lambda: signer.sign_aggregate(unsigned, b"", warp_set, chosen), args.repeats)
        sigs = signer.sign(unsigned, b"", warp_set, chosen)
        combine_time, again = best(lambda: signatures.aggregate(unsigned, sigs), args.repeats)
        verify_time, _ = best(lambda: signatures.verify(combined, vm.network_id, warp_set, 67, 100), args.repeats)
        assert combined.encoded == again.encoded == signed.encoded
        chunks = predicates.encode(signed.encoded)
        identity = warp.Identity(vm.network_id, vm.c_chain_id, bytes(32))
        view = PlatformValidators({bytes(32): vm})
        predicate_time, reason = best(
            lambda: warp.verify_predicate(warp.DEFAULT_SETTINGS, chunks, identity, view), args.repeats)
        assert reason is None
        print(f"{size:>10} {signed.signature.num_signers():>8} {setup:>8.1f} {cold * 1e3:>8.1f} {total * 1e3:>13.2f} "
              f"{set_time * 1e3:>7.2f} {sign_time * 1e3:>12.2f} {combine_time * 1e3:>14.2f} {verify_time * 1e3:>9.2f} "
              f"{predicate_time * 1e3:>13.2f}")
    print(f"aggregate: the aggregator core end to end (validator set, justification, signers, each signer's "
          f"signature summed, verification), min of {args.repeats}; set / sign+sum / verify: those parts alone; "
          "from bytes: aggregating the same signatures from their 96-byte forms (as for signatures from elsewhere); "
          "predicate: the precompile's predicate check of the signed message")


if __name__ == "__main__":
    main()
