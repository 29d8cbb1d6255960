"""Helpers for the X-Chain unit tests: a VM on an in-memory store, keys, tx builders, state dumps."""

from __future__ import annotations

import hashlib

from simnode.clock import VirtualClock
from simnode.codec import UTXO, BaseTxFields, OutputOwners, TransferableOutput, TransferOutput
from simnode.config import NodeConfig
from simnode.crypto.secp256k1 import public_key, short_address
from simnode.formats.ids import private_key_from_str
from simnode.genesis import load_network_genesis
from simnode.store import Store
from simnode.vms.avm.state import ChainState
from simnode.vms.avm.wallet import Spend, XContext, base_fields, sign, sorted_spends, transfer_input
from simnode.vms.avm.wallet import owner as owners  # noqa: F401 - re-exported to the tests
from simnode.vms.avm.txs import BaseTx, Tx
from simnode.vms.avm.vm import XChainVM
from simnode.vms.chain_context import ChainContext

GENESIS = load_network_genesis(12345)
AVAX = GENESIS.avax_asset_id
X_ID = GENESIS.x_chain_id
C_ID = GENESIS.c_chain_id
P_ID = bytes(32)
EWOQ_KEY = private_key_from_str("PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN")
EWOQ = short_address(public_key(EWOQ_KEY))
K1 = hashlib.sha256(b"simnode-vector-key-1").digest()
K2 = hashlib.sha256(b"simnode-vector-key-2").digest()
ADDR1 = short_address(public_key(K1))
ADDR2 = short_address(public_key(K2))
FEE = 1_000_000
# 2026-12-01T00:00:00Z, the vectors' minIssuanceTime
VECTOR_TIME_MS = 1_796_083_200_000


def make_vm(now_ms: int = VECTOR_TIME_MS, store: Store | None = None) -> XChainVM:
    store = store or Store.memory()
    ctx = ChainContext(NodeConfig(), GENESIS, store, VirtualClock(now_ms), X_ID)
    return XChainVM(ctx)


def seed_utxos(vm: XChainVM, utxos: list[UTXO]) -> None:
    """Put UTXOs straight into the committed state (a test-only shortcut)."""
    batch = vm.store.batch()
    st = ChainState(batch, vm.prefix, vm.chain_id)
    for u in utxos:
        st.put_utxo(u)
    batch.commit()


def base_tx(spend: list[tuple[UTXO, list[bytes]]], outs: list[tuple[int, OutputOwners]],
            asset: bytes = AVAX, memo: bytes = b"", network_id: int = 12345, chain_id: bytes = X_ID,
            keep_order: bool = False) -> Tx:
    """A signed BaseTx spending `spend` [(utxo, [keys by sig index])] into `outs`; `keep_order` leaves
    inputs and outputs unsorted (for the rules that refuse that)."""
    spends = [Spend(transfer_input(utxo, range(len(keys))), tuple(keys)) for utxo, keys in spend]
    touts = [TransferableOutput(asset, TransferOutput(amount, o)) for amount, o in outs]
    if keep_order:
        fields = BaseTxFields(network_id, chain_id, tuple(touts), tuple(s.input for s in spends), memo)
    else:
        spends = sorted_spends(spends)
        fields = base_fields(XContext(network_id, chain_id, AVAX, FEE, FEE), spends, touts, memo)
    return sign(BaseTx(fields), spends)


def genesis_ewoq_utxo(vm: XChainVM) -> UTXO:
    return next(u for u in GENESIS.x_utxos if u.out.owners.addresses == (EWOQ,))


def dump_state(vm: XChainVM) -> dict[bytes, bytes]:
    """Every key of the store (all chains, shared memory) except undo records/meta."""
    return {k: v for k, v in vm.store.iterate(b"") if not k.startswith((b"undo/", b"meta/"))}

