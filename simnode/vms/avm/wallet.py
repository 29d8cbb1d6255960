"""Build and sign X-Chain txs from keys and UTXOs (a small wallet for scenarios, benches and tests).

The caller hands over the UTXOs it knows (from avm.getUTXOs, or the VM's state); the builder
picks the ones it can spend alone (secp256k1fx transfer outputs, threshold 1, one of its keys
among the owners, unlocked at `now`), largest first, until every asset's need is covered; pays
the static fee (txFee, createAssetTxFee) in AVAX; returns change per asset to `change_to`; and
sorts inputs and outputs as AvalancheGo requires. Every input is signed by the keys of its
signature indices, credential i for input i.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simnode.codec import (
    UTXO,
    BaseTxFields,
    Input,
    OutputOwners,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
    sort_outputs,
)
from simnode.crypto.secp256k1 import public_key, short_address
from simnode.errors import BuildError
from simnode.formats.ids import id_to_str

from .txs import (
    FX_INDEX_OF_TYPE,
    SECP_FX,
    X_REGISTRY,
    BaseTx,
    CreateAssetTx,
    ExportTx,
    ImportTx,
    InitialState,
    Operation,
    OperationTx,
    Tx,
    UnsignedTx,
    op_sort_key,
    sign_tx,
    state_sort_key,
)

if TYPE_CHECKING:
    from .vm import XChainVM


@dataclass(frozen=True, slots=True)
class XContext:
    """What a tx needs to know about the X-Chain it is for."""

    network_id: int
    chain_id: bytes
    avax_asset_id: bytes
    tx_fee: int
    create_asset_tx_fee: int

    @classmethod
    def of_vm(cls, vm: XChainVM) -> XContext:
        b = vm.backend
        return cls(b.network_id, b.chain_id, b.fee_asset_id, b.tx_fee, b.create_asset_tx_fee)


@dataclass(frozen=True, slots=True)
class Spend:
    """An input and the keys that sign it (one per signature index, in order)."""

    input: TransferableInput
    keys: tuple[bytes, ...]


def address_of(key: bytes) -> bytes:
    return short_address(public_key(key))


def owner(*addrs: bytes, threshold: int = 1, locktime: int = 0) -> OutputOwners:
    return OutputOwners(locktime, threshold, tuple(sorted(addrs)))


def transfer_input(utxo: UTXO, sig_indices: Iterable[int]) -> TransferableInput:
    return TransferableInput(utxo.tx_id, utxo.output_index, utxo.asset_id,
                             TransferInput(utxo.out.amount, Input(tuple(sig_indices))))


def spend(utxo: UTXO, keys: dict[bytes, bytes]) -> Spend:
    """Spend `utxo` (a TransferOutput) with the first `threshold` owners found in `keys` (address → key)."""
    owners = utxo.out.owners
    indices = [i for i, a in enumerate(owners.addresses) if a in keys][: owners.threshold]
    return Spend(transfer_input(utxo, indices), tuple(keys[owners.addresses[i]] for i in indices))


def spendable(utxo: UTXO, keys: dict[bytes, bytes], now: int) -> bool:
    out = utxo.out
    return (isinstance(out, TransferOutput) and out.owners.threshold == 1 and out.owners.locktime <= now
            and any(a in keys for a in out.owners.addresses))


def sorted_spends(spends: Iterable[Spend]) -> list[Spend]:
    return sorted(spends, key=lambda s: (s.input.tx_id, s.input.output_index))


def base_fields(ctx: XContext, spends: Sequence[Spend], outs: Iterable[TransferableOutput],
                memo: bytes = b"") -> BaseTxFields:
    """BaseTx fields with `spends` as inputs (in the order given) and `outs` sorted."""
    return BaseTxFields(ctx.network_id, ctx.chain_id, sort_outputs(list(outs), X_REGISTRY),
                        tuple(s.input for s in spends), memo)


def sign(unsigned: UnsignedTx, spends: Sequence[Spend]) -> Tx:
    return sign_tx(unsigned, [list(s.keys) for s in spends])


def select(keys: dict[bytes, bytes], utxos: Iterable[UTXO], needs: dict[bytes, int],
           now: int) -> tuple[list[Spend], dict[bytes, int]]:
    """Spends covering `needs` (asset → amount), largest UTXOs first, sorted; and the change per asset."""
    have = dict.fromkeys(needs, 0)
    chosen = []
    candidates = [u for u in utxos if u.asset_id in needs and spendable(u, keys, now)]
    for u in sorted(candidates, key=lambda u: (-u.out.amount, u.id)):
        if have[u.asset_id] >= needs[u.asset_id]:
            continue
        chosen.append(spend(u, keys))
        have[u.asset_id] += u.out.amount
    for asset, need in needs.items():
        if have[asset] < need:
            raise BuildError(f"insufficient funds: have {have[asset]}, need {need} "
                             f"(asset {id_to_str(asset)}, fee included)")
    return sorted_spends(chosen), {a: have[a] - needs[a] for a in needs}


@dataclass(frozen=True, slots=True)
class XWallet:
    """Keys and the UTXOs they may spend, at a time (unix seconds) that decides which are unlocked."""

    ctx: XContext
    keys: tuple[bytes, ...]
    utxos: tuple[UTXO, ...]
    now: int = 0

    @property
    def address(self) -> bytes:
        """The first key's address: where change and imports go unless told otherwise."""
        return address_of(self.keys[0])

    def keys_by_address(self) -> dict[bytes, bytes]:
        return {address_of(k): k for k in self.keys}

    def _funded(self, paid: Sequence[TransferableOutput], fee: int, kept: Sequence[TransferableOutput] = (),
                memo: bytes = b"") -> tuple[BaseTxFields, list[Spend]]:
        """Base fields spending enough to pay `paid` and the fee (AVAX), holding `kept` and the change."""
        needs = {self.ctx.avax_asset_id: fee}
        for o in paid:
            needs[o.asset_id] = needs.get(o.asset_id, 0) + o.out.amount
        spends, change = select(self.keys_by_address(), self.utxos, needs, self.now)
        change_outs = [TransferableOutput(asset, TransferOutput(amount, owner(self.address)))
                       for asset, amount in sorted(change.items()) if amount > 0]
        return base_fields(self.ctx, spends, [*kept, *change_outs], memo), spends

    def base_tx(self, outs: Sequence[TransferableOutput], memo: bytes = b"") -> Tx:
        fields, spends = self._funded(outs, self.ctx.tx_fee, kept=outs, memo=memo)
        return sign(BaseTx(fields), spends)

    def export_tx(self, destination_chain: bytes, outs: Sequence[TransferableOutput]) -> Tx:
        fields, spends = self._funded(outs, self.ctx.tx_fee)
        return sign(ExportTx(fields, destination_chain, sort_outputs(list(outs), X_REGISTRY)), spends)

    def import_tx(self, source_chain: bytes, atomic_utxos: Iterable[UTXO], to: bytes | None = None) -> Tx:
        """Every spendable UTXO in `atomic_utxos` (exported from `source_chain`) to `to`, less the fee in AVAX."""
        keys = self.keys_by_address()
        spends = sorted_spends(spend(u, keys) for u in atomic_utxos if spendable(u, keys, self.now))
        if not spends:
            raise BuildError("no atomic UTXOs to import")
        totals: dict[bytes, int] = {}
        for s in spends:
            totals[s.input.asset_id] = totals.get(s.input.asset_id, 0) + s.input.in_.amount
        avax, fee = self.ctx.avax_asset_id, self.ctx.tx_fee
        if totals.get(avax, 0) <= fee:
            raise BuildError(f"the imported AVAX ({totals.get(avax, 0)} nAVAX) does not cover the X fee ({fee})")
        totals[avax] -= fee
        dest = owner(to or self.address)
        outs = [TransferableOutput(a, TransferOutput(n, dest)) for a, n in sorted(totals.items())]
        return sign(ImportTx(base_fields(self.ctx, [], outs), source_chain, tuple(s.input for s in spends)), spends)

    def create_asset_tx(self, name: str, symbol: str, denomination: int, states: Iterable[InitialState]) -> Tx:
        fields, spends = self._funded([], self.ctx.create_asset_tx_fee)
        sorted_states = tuple(InitialState(s.fx_index, tuple(sorted(s.outs, key=state_sort_key)))
                              for s in sorted(states, key=lambda s: s.fx_index))
        return sign(CreateAssetTx(fields, name, symbol, denomination, sorted_states), spends)

    def operation_tx(self, ops: Iterable[tuple[Operation, Sequence[bytes]]]) -> Tx:
        """`ops`: each operation with the keys of its input's signature indices; the fee from this wallet."""
        fields, spends = self._funded([], self.ctx.tx_fee)
        ordered = sorted(ops, key=lambda pair: op_sort_key(pair[0]))
        unsigned = OperationTx(fields, tuple(op for op, _ in ordered))
        keys = [list(s.keys) for s in spends] + [list(op_keys) for _, op_keys in ordered]
        fxs = [SECP_FX] * len(spends) + [FX_INDEX_OF_TYPE[type(op.op)] for op, _ in ordered]
        return sign_tx(unsigned, keys, fx_indices=fxs)
