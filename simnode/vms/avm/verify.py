"""Verifying an X-Chain tx, split the way AvalancheGo's vms/avm splits it:

* `syntactic_verify` (txs/executor/syntactic_verifier.go): network/chain IDs, memo, sorted
  outputs/inputs, the flow check with the static fee, credential count;
* `semantic_verify` (txs/executor/semantic_verifier.go): every consumed UTXO exists, belongs to
  the input's asset and fx, and the credential recovers to its owners (secp256k1fx).

Every error is a `TxError` whose text is AvalancheGo's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from simnode.codec import (
    UTXO,
    BaseTxFields,
    CodecError,
    Credential,
    MintOperation,
    MintOutput,
    OutputOwners,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
    TypeRegistry,
    VerifyError,
    inputs_sorted_unique,
    is_sorted,
    is_sorted_and_unique,
    outputs_sorted,
)
from simnode.codec.nftfx import NftMintOperation, NftMintOutput, NftTransferOperation, NftTransferOutput
from simnode.codec.propertyfx import (
    PropertyBurnOperation,
    PropertyMintOperation,
    PropertyMintOutput,
    PropertyOwnedOutput,
)
from simnode.crypto import CryptoError
from simnode.crypto.secp256k1 import recover_address
from simnode.formats.ids import ZERO_ID, id_to_str, short_id_to_str

from .txs import (
    FX_CREDENTIALS,
    FX_IDS,
    FX_INDEX_OF_TYPE,
    SECP_FX,
    X_REGISTRY,
    BaseTx,
    CreateAssetTx,
    ExportTx,
    ImportTx,
    Operation,
    OperationTx,
    Tx,
    TxError,
    op_sort_key,
    state_sort_key,
)

MAX_UINT64 = (1 << 64) - 1

# AvalancheGo limits (txs/executor/syntactic_verifier.go).
MIN_NAME_LEN, MAX_NAME_LEN = 1, 128
MIN_SYMBOL_LEN, MAX_SYMBOL_LEN = 1, 4
MAX_DENOMINATION = 32


# --------------------------------------------------------------------------------------- context


@dataclass(frozen=True, slots=True)
class Backend:
    """What verification needs to know about the chain it runs on."""

    network_id: int
    chain_id: bytes
    fee_asset_id: bytes
    tx_fee: int
    create_asset_tx_fee: int
    # Chain ID -> subnet ID of the chains this one may exchange atomic UTXOs with.
    subnet_of: Callable[[bytes], bytes | None]
    subnet_id: bytes = ZERO_ID


class StateReader(Protocol):
    def get_utxo(self, utxo_id: bytes) -> UTXO | None: ...

    def get_asset_fxs(self, asset_id: bytes) -> tuple[int, ...] | None:
        """The fx indices of the asset's CreateAssetTx; None if the tx is unknown;
        raises TxError("not an asset") if the tx is not a CreateAssetTx."""
        ...

    def get_atomic_utxo(self, source_chain: bytes, utxo_id: bytes) -> bytes | None: ...

    def now(self) -> int: ...


# --------------------------------------------------------------------------------------- syntactic


def _verify(obj: Any) -> None:
    try:
        obj.verify()
    except VerifyError as exc:
        raise TxError(str(exc)) from None


def _base_verify(base: BaseTxFields, b: Backend) -> None:
    try:
        base.verify(b.network_id, b.chain_id)
    except VerifyError as exc:
        raise TxError(str(exc)) from None


def _flow_check(fee: int, fee_asset: bytes, all_ins: list[tuple[TransferableInput, ...]],
                all_outs: list[tuple[TransferableOutput, ...]]) -> None:
    """avax.VerifyTx: outputs then inputs, each list sorted, consumed ≥ produced + fee per asset."""
    produced: dict[bytes, int] = {fee_asset: fee}
    consumed: dict[bytes, int] = {}
    overflow = False
    for outs in all_outs:
        for out in outs:
            _verify(out)
            overflow |= _tally(produced, out.asset_id, out.out.amount)  # type: ignore[attr-defined]
        if not outputs_sorted(outs, X_REGISTRY):
            raise TxError("outputs not sorted")
    for ins in all_ins:
        for in_ in ins:
            _verify(in_)
            overflow |= _tally(consumed, in_.asset_id, in_.in_.amount)  # type: ignore[attr-defined]
        if not inputs_sorted_unique(ins):
            raise TxError("inputs not sorted and unique")
    if overflow:
        raise TxError("overflow")
    for asset, amount in produced.items():
        if amount > consumed.get(asset, 0):
            raise TxError("insufficient funds")


def _tally(totals: dict[bytes, int], asset_id: bytes, amount: int) -> bool:
    """Add `amount` to the asset's total; whether the total passed a uint64 (reported once the whole
    flow is read)."""
    total = totals.get(asset_id, 0) + amount
    totals[asset_id] = total
    return total > MAX_UINT64


def _check_creds(tx: Tx, num_inputs: int) -> None:
    for cred in tx.creds:
        _verify(cred)
    if len(tx.creds) != num_inputs:
        raise TxError(f"wrong number of credentials: {len(tx.creds)} != {num_inputs}")


def _is_letter_or_number(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()



def syntactic_verify(tx: Tx, b: Backend) -> None:
    u = tx.unsigned
    base = u.base
    if isinstance(u, BaseTx):
        _base_verify(base, b)
        _flow_check(b.tx_fee, b.fee_asset_id, [base.ins], [base.outs])
        _check_creds(tx, len(base.ins))
    elif isinstance(u, CreateAssetTx):
        name, symbol = u.name, u.symbol
        name_len = len(name.encode("utf-8", "surrogateescape"))
        symbol_len = len(symbol.encode("utf-8", "surrogateescape"))
        if name_len < MIN_NAME_LEN:
            raise TxError(f"name is too short, minimum size is {MIN_NAME_LEN}")
        if name_len > MAX_NAME_LEN:
            raise TxError(f"name is too long, maximum size is {MAX_NAME_LEN}")
        if symbol_len < MIN_SYMBOL_LEN:
            raise TxError(f"symbol is too short, minimum size is {MIN_SYMBOL_LEN}")
        if symbol_len > MAX_SYMBOL_LEN:
            raise TxError(f"symbol is too long, maximum size is {MAX_SYMBOL_LEN}")
        if not u.states:
            raise TxError("assets must support at least one Fx")
        if u.denomination > MAX_DENOMINATION:
            raise TxError("denomination is too large")
        if name.strip(" \t\n\r\v\f\x85\xa0") != name:
            raise TxError("unexpected whitespace provided")
        if any(not (_is_letter_or_number(ch) or ch == " ") for ch in name):
            raise TxError("asset's name must be made up of only letters and numbers")
        if any(not (ch.isascii() and ch.isupper()) for ch in symbol):
            raise TxError("asset's symbol must be all upper case letters")
        _base_verify(base, b)
        _flow_check(b.create_asset_tx_fee, b.fee_asset_id, [base.ins], [base.outs])
        for state in u.states:
            if state.fx_index >= len(FX_IDS):
                raise TxError("unknown feature extension")
            for out in state.outs:
                _verify(out)
            if not is_sorted(state.outs, state_sort_key):
                raise TxError("outputs not sorted")
        if not is_sorted_and_unique(u.states, lambda s: s.fx_index):
            raise TxError("initial states not sorted and unique")
        _check_creds(tx, len(base.ins))
    elif isinstance(u, OperationTx):
        if not u.ops:
            raise TxError("an operationTx must have at least one operation")
        _base_verify(base, b)
        _flow_check(b.tx_fee, b.fee_asset_id, [base.ins], [base.outs])
        inputs = {i.utxo_id for i in base.ins}
        for op in u.ops:
            if not is_sorted_and_unique(op.utxo_ids):
                raise TxError("utxo IDs not sorted and unique")
            if op.asset_id == ZERO_ID:
                raise TxError("empty asset ID is not valid")
            _verify(op.op)
            for input_id in op.input_ids():
                if input_id in inputs:
                    raise TxError("inputs attempt to double spend an input")
                inputs.add(input_id)
        if not is_sorted_and_unique(u.ops, op_sort_key):
            raise TxError("operations not sorted and unique")
        _check_creds(tx, len(base.ins) + len(u.ops))
    elif isinstance(u, ImportTx):
        if not u.imported_ins:
            raise TxError("no import inputs")
        _base_verify(base, b)
        _flow_check(b.tx_fee, b.fee_asset_id, [base.ins, u.imported_ins], [base.outs])
        _check_creds(tx, len(base.ins) + len(u.imported_ins))
    elif isinstance(u, ExportTx):
        if not u.exported_outs:
            raise TxError("no export outputs")
        _base_verify(base, b)
        _flow_check(b.tx_fee, b.fee_asset_id, [base.ins], [base.outs, u.exported_outs])
        _check_creds(tx, len(base.ins))
    else:  # pragma: no cover - the codec only yields the types above
        raise TxError("unknown tx type")


# --------------------------------------------------------------------------------------- semantic


def verify_credentials(unsigned_hash: bytes, sig_indices: tuple[int, ...], cred: Credential,
                       owners: OutputOwners, now: int) -> None:
    """secp256k1fx.Fx.VerifyCredentials."""
    num_sigs = len(sig_indices)
    if owners.locktime > now:
        raise TxError("output is time locked")
    if owners.threshold < num_sigs:
        raise TxError("input has more signers than expected")
    if owners.threshold > num_sigs:
        raise TxError("input has less signers than expected")
    if num_sigs != len(cred.signatures):
        raise TxError("input expected a different number of signers than provided in the credential")
    addrs = owners.addresses
    for sig, index in zip(cred.signatures, sig_indices):
        if index >= len(addrs):
            raise TxError("input referenced a nonexistent address in the output")
        try:
            got = recover_address(unsigned_hash, sig)
        except CryptoError as exc:
            raise TxError(str(exc)) from None
        expected = addrs[index]
        if got != expected:
            raise TxError(
                f"wrong signature: expected signature from {short_id_to_str(expected)} "
                f"but got from {short_id_to_str(got)}"
            )


def _fx_of(obj: Any) -> int:
    fx = FX_INDEX_OF_TYPE.get(type(obj))
    if fx is None:
        raise TxError("unknown feature extension")
    return fx


def _verify_fx_usage(state: StateReader, fx_index: int, asset_id: bytes) -> None:
    fxs = state.get_asset_fxs(asset_id)
    if fxs is None:
        raise TxError("not found")
    if fx_index not in fxs:
        raise TxError("incompatible feature extension")


def _verify_transfer_of_utxo(tx: Tx, in_: TransferableInput, cred: Any, utxo: UTXO, state: StateReader) -> None:
    if utxo.asset_id != in_.asset_id:
        raise TxError("asset IDs in the input don't match the utxo")
    fx_index = _fx_of(cred)
    _verify_fx_usage(state, fx_index, in_.asset_id)
    if fx_index != SECP_FX:
        raise TxError("cant transfer with this fx")  # nftfx/propertyfx errCantTransfer
    if not isinstance(in_.in_, TransferInput):
        raise TxError("wrong input type")
    out = utxo.out
    if not isinstance(out, TransferOutput):
        raise TxError("wrong utxo type")
    _verify(out)
    _verify(in_.in_)
    _verify(cred)
    if out.amount != in_.in_.amount:
        raise TxError(f"utxo amount and input amount are not equal: {out.amount} != {in_.in_.amount}")
    verify_credentials(tx.unsigned_hash, in_.in_.input.sig_indices, cred, out.owners, state.now())


def _verify_outputs_fx(outs: Iterable[TransferableOutput], state: StateReader, wrap: bool) -> None:
    for out in outs:
        try:
            fx_index = _fx_of(out.out)
        except TxError as exc:
            raise TxError(f"failed to get fx: {exc}" if wrap else str(exc)) from None
        try:
            _verify_fx_usage(state, fx_index, out.asset_id)
        except TxError as exc:
            raise TxError(f"failed to verify fx usage: {exc}" if wrap else str(exc)) from None


def _semantic_base(tx: Tx, base: BaseTxFields, state: StateReader) -> None:
    for i, in_ in enumerate(base.ins):
        cred = tx.creds[i]
        uid = in_.utxo_id
        try:
            utxo = state.get_utxo(uid)
            if utxo is None:
                raise TxError(f"failed to get utxo {id_to_str(uid)}: not found")
            _verify_transfer_of_utxo(tx, in_, cred, utxo, state)
        except TxError as exc:
            raise TxError(f"failed to verify transfer: {exc}") from None
    _verify_outputs_fx(base.outs, state, wrap=True)


def _same_subnet(b: Backend, peer: bytes) -> None:
    if peer == b.chain_id:
        raise TxError("same chainID")
    subnet = b.subnet_of(peer)
    if subnet is None:
        raise TxError(f'failed to get subnet of "{id_to_str(peer)}": not found')
    if subnet != b.subnet_id:
        raise TxError(f'mismatched subnetIDs; expected "{id_to_str(b.subnet_id)}" got "{id_to_str(subnet)}"')


_MINT_OUTS = {MintOperation: MintOutput, NftMintOperation: NftMintOutput, NftTransferOperation: NftTransferOutput,
              PropertyMintOperation: PropertyMintOutput, PropertyBurnOperation: PropertyOwnedOutput}


def _verify_operation(tx: Tx, op: Operation, cred: Any, state: StateReader) -> None:
    utxos = []
    for input_id in op.input_ids():
        utxo = state.get_utxo(input_id)
        if utxo is None:
            raise TxError("not found")
        if utxo.asset_id != op.asset_id:
            raise TxError("asset IDs in the input don't match the utxo")
        utxos.append(utxo.out)
    fx_index = _fx_of(op.op)
    _verify_fx_usage(state, fx_index, op.asset_id)
    # secp256k1fx checks the credential type before the UTXO count; nftfx and propertyfx after,
    # with their own text.
    if fx_index == SECP_FX:
        if type(cred) is not Credential:
            raise TxError("wrong credential type")
        if len(utxos) != 1:
            raise TxError("wrong number of utxos for the operation")
    else:
        if len(utxos) != 1:
            raise TxError("wrong number of UTXOs for the operation")
        if type(cred) is not FX_CREDENTIALS[fx_index]:
            raise TxError("wrong credential type")
    out = utxos[0]
    o = op.op
    if not isinstance(out, _MINT_OUTS[type(o)]):
        raise TxError("wrong utxo type")
    _verify(o)
    _verify(out)
    now = state.now()
    h = tx.unsigned_hash
    if isinstance(o, MintOperation):
        if out.owners != o.mint_output.owners:
            raise TxError("wrong mint output created from the operation")
        verify_credentials(h, o.mint_input.sig_indices, cred, out.owners, now)
    elif isinstance(o, NftMintOperation):
        if out.group_id != o.group_id:
            raise TxError("wrong unique ID provided")
        verify_credentials(h, o.mint_input.sig_indices, cred, out.owners, now)
    elif isinstance(o, NftTransferOperation):
        if out.group_id != o.output.group_id:
            raise TxError("wrong unique ID provided")
        if out.payload != o.output.payload:
            raise TxError("wrong bytes provided")
        verify_credentials(h, o.input.sig_indices, cred, out.owners, now)
    elif isinstance(o, PropertyMintOperation):
        if out.owners != o.mint_output.owners:
            raise TxError("wrong mint output provided")
        verify_credentials(h, o.mint_input.sig_indices, cred, out.owners, now)
    else:  # PropertyBurnOperation
        verify_credentials(h, o.input.sig_indices, cred, out.owners, now)


def semantic_verify(tx: Tx, b: Backend, state: StateReader, reg: TypeRegistry = X_REGISTRY) -> None:
    u = tx.unsigned
    _semantic_base(tx, u.base, state)
    if isinstance(u, OperationTx):
        offset = len(u.base.ins)
        for i, op in enumerate(u.ops):
            _verify_operation(tx, op, tx.creds[offset + i], state)
    elif isinstance(u, ImportTx):
        _same_subnet(b, u.source_chain)
        offset = len(u.base.ins)
        for i, in_ in enumerate(u.imported_ins):
            raw = state.get_atomic_utxo(u.source_chain, in_.utxo_id)
            if raw is None:
                raise TxError("not found")
            try:
                utxo = reg.unmarshal(raw, UTXO)
            except CodecError as exc:
                raise TxError(str(exc)) from None
            _verify_transfer_of_utxo(tx, in_, tx.creds[offset + i], utxo, state)
    elif isinstance(u, ExportTx):
        _same_subnet(b, u.destination_chain)
        _verify_outputs_fx(u.exported_outs, state, wrap=False)

