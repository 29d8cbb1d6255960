"""Shared set-up for the P-Chain unit tests: a PlatformVM on a memory store and a virtual clock."""

from __future__ import annotations

import json
from pathlib import Path

from simnode.clock import VirtualClock
from simnode.config import NodeConfig
from simnode.formats import id_from_str, private_key_from_str
from simnode.genesis import load_network_genesis, rebased_start_time
from simnode.store import Store
from simnode.vms import atomic
from simnode.vms.chain_context import ChainContext
from simnode.vms.platform.service import build_service
from simnode.vms.platform.vm import PlatformVM

VECTORS = Path("/work/shared/reference/vectors")
EWOQ = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
EWOQ_ADDR = bytes.fromhex("3cb7d3842e8cee6a0ebd09f1fe884f6861e1b29c")
VECTOR_TIME = 1796083200  # minIssuanceTime of the vectors (2026-12-01)


def vectors() -> list[dict]:
    return json.loads((VECTORS / "tx-vectors.json").read_text())


def negative_vectors() -> list[dict]:
    return json.loads((VECTORS / "negative-vectors.json").read_text())


def new_vm(start: int = VECTOR_TIME) -> tuple[PlatformVM, dict, VirtualClock]:
    g = load_network_genesis(12345)
    clock = VirtualClock(start * 1000)
    ctx = ChainContext(NodeConfig(), g, Store.memory(), clock, bytes(32), {}, rebased_start_time(g.start_time, start))
    vm = PlatformVM(ctx)
    return vm, build_service(vm), clock


def seed_atomic(vm: PlatformVM, source: bytes, utxo_hex: str, utxo_id: str, owners: tuple[bytes, ...]) -> None:
    b = vm.ctx.store.batch()
    atomic.put_utxo(b, bytes(32), source, atomic.AtomicUTXO(id_from_str(utxo_id), bytes.fromhex(utxo_hex[2:]), owners))
    b.commit()


def seed_utxo(vm: PlatformVM, utxo_hex: str) -> None:
    from simnode.codec import decode_utxo
    from simnode.vms.platform.txs import P_REGISTRY

    st = vm.state
    st.w = vm.ctx.store.batch()
    st.add_utxo(decode_utxo(bytes.fromhex(utxo_hex[2:]), P_REGISTRY))
    st.w.commit()
    st.w = None


def warp_tools(vm: PlatformVM, secrets: list = ()) -> tuple:
    """The Warp signer and aggregator over `vm`, holding the genesis stakers' keys and `secrets`."""
    from simnode.genesis import staker_keys
    from simnode.signing.aggregator import Aggregator
    from simnode.signing.signer import WarpSigner
    from simnode.warp.keystore import Keystore

    keystore = Keystore(0)
    for sk in [*staker_keys(vm.genesis.config, 0).secrets.values(), *secrets]:
        keystore.add(sk)
    signer = WarpSigner(vm, keystore)
    return signer, Aggregator(vm, signer)


def manager_message(signer, chain_id: bytes, manager: bytes, msg) -> bytes:
    """The unsigned message an L1's manager contract sends with `msg` (an ACP-77 message), made an
    off-chain message of the L1 chain so its validators sign it (no EVM runs in these tests)."""
    from simnode.warp.message import UnsignedMessage
    from simnode.warp.payload import AddressedCall

    unsigned = UnsignedMessage(signer.platform.network_id, chain_id, AddressedCall(manager, msg.encode()).encode())
    signer.add_off_chain_message(unsigned.encoded)
    return unsigned.encoded
