"""A small wallet for C-Chain atomic txs, built the way coreth's NewImportTx / NewExportTx and
avalanchejs' evm.newImportTxFromBaseFee / newExportTxFromBaseFee build them.

* import: every given UTXO the keys can spend (threshold met, locktime passed) becomes an input
  (sorted by UTXO ID); the AVAX minus the fee goes to one EVMOutput. The fee is computed as coreth
  does: gas of the tx without outputs + one EVMOutput (60 bytes), at the base fee.
* export: one EVMInput (the sender's eth address, amount + fee, its account nonce) and one
  exported output owned by `to`; the fee is for the tx's own gas (1 signature).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...codec import Input, OutputOwners, TransferableInput, TransferableOutput, TransferInput, TransferOutput
from ...codec.avax import UTXO
from ...crypto.secp256k1 import eth_address, public_key, short_address
from .atomic_txs import (
    C_REGISTRY,
    AtomicContext,
    AtomicTx,
    EVMInput,
    EVMOutput,
    UnsignedExportTx,
    UnsignedImportTx,
    calculate_dynamic_fee,
    encode_tx,
    sign_tx,
)

EVM_OUTPUT_GAS = 20 + 8 + 32  # bytes of one EVMOutput


class BuildError(ValueError):
    pass


def _spend(utxo: UTXO, keys: dict[bytes, bytes], now_s: int) -> tuple[TransferableInput, list[bytes]] | None:
    out = utxo.out
    if not isinstance(out, TransferOutput) or out.owners.locktime > now_s:
        return None
    idx: list[int] = []
    signers: list[bytes] = []
    for i, addr in enumerate(out.owners.addresses):
        if len(idx) == out.owners.threshold:
            break
        if addr in keys:
            idx.append(i)
            signers.append(keys[addr])
    if len(idx) < out.owners.threshold:
        return None
    transfer = TransferInput(out.amount, Input(tuple(idx)))
    return TransferableInput(utxo.tx_id, utxo.output_index, utxo.asset_id, transfer), signers


def build_import(ctx: AtomicContext, source_chain: bytes, utxos: Iterable[UTXO], to: bytes, private_keys: list[bytes],
                 base_fee_wei: int, now_s: int = 0) -> AtomicTx:
    """Import every spendable AVAX UTXO of `utxos` to the eth address `to`."""
    keys = {short_address(public_key(k)): k for k in private_keys}
    pairs = []
    for u in utxos:
        if u.asset_id != ctx.avax_asset_id:
            continue
        spent = _spend(u, keys, now_s)
        if spent is not None:
            pairs.append(spent)
    if not pairs:
        raise BuildError("no spendable atomic UTXOs to import")
    pairs.sort(key=lambda p: (p[0].tx_id, p[0].output_index))
    ins = tuple(p[0] for p in pairs)
    total = sum(i.in_.amount for i in ins)  # type: ignore[attr-defined]
    draft = encode_tx(UnsignedImportTx(ctx.network_id, ctx.chain_id, source_chain, ins, ()), ())
    fee = calculate_dynamic_fee(draft.gas_used() + EVM_OUTPUT_GAS, base_fee_wei)
    if total <= fee:
        raise BuildError(f"the imported AVAX ({total} nAVAX) does not cover the fee ({fee} nAVAX)")
    out = EVMOutput(to, total - fee, ctx.avax_asset_id)
    unsigned = UnsignedImportTx(ctx.network_id, ctx.chain_id, source_chain, ins, (out,))
    return sign_tx(unsigned, [p[1] for p in pairs])


def export_fee(ctx: AtomicContext, destination_chain: bytes, amount: int, to: bytes, private_key: bytes,
               nonce: int, base_fee_wei: int) -> int:
    draft = _export_unsigned(ctx, destination_chain, amount, to, private_key, nonce, 0)
    return calculate_dynamic_fee(encode_tx(draft, ()).gas_used(), base_fee_wei)


def _export_unsigned(ctx: AtomicContext, destination_chain: bytes, amount: int, to: bytes, private_key: bytes,
                     nonce: int, fee: int) -> UnsignedExportTx:
    ein = EVMInput(eth_address(private_key), amount + fee, ctx.avax_asset_id, nonce)
    out = TransferableOutput(ctx.avax_asset_id, TransferOutput(amount, OutputOwners(0, 1, (to,))))
    return UnsignedExportTx(ctx.network_id, ctx.chain_id, destination_chain, (ein,), (out,))


def build_export(ctx: AtomicContext, destination_chain: bytes, amount: int, to: bytes, private_key: bytes,
                 nonce: int, base_fee_wei: int) -> AtomicTx:
    """Export `amount` nAVAX from the key's C account (at `nonce`) to `to` on `destination_chain`."""
    if amount <= 0:
        raise BuildError("the export amount must be positive")
    fee = export_fee(ctx, destination_chain, amount, to, private_key, nonce, base_fee_wei)
    unsigned = _export_unsigned(ctx, destination_chain, amount, to, private_key, nonce, fee)
    return sign_tx(unsigned, [[private_key]])


__all__ = ["C_REGISTRY", "BuildError", "build_export", "build_import", "export_fee"]
