"""The checks every P-Chain tx shares (AvalancheGo's standardTxExecutor helpers): syntax of the
BaseTx, the UTXO flow check (utxo.VerifySpend) with its credentials, subnet authorization.

A `Verifier` holds one tx under verification; the tx families (verify_staking.py,
verify_subnets.py, verify_l1.py, verify_atomic.py) use its checks and return an `Effects`.
Verification never writes, so a rejected tx leaves the state exactly as it was.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from simnode.codec import (
    UTXO,
    Credential,
    Input,
    OutputOwners,
    SignedTx,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
    VerifyError,
    inputs_sorted_unique,
    outputs_sorted,
)
from simnode.codec.stakeable import StakeableLockIn, StakeableLockOut
from simnode.crypto import CryptoError, secp256k1
from simnode.formats import id_to_str, short_id_to_str

from . import fees
from . import txs as t
from .context import PlatformContext
from .effects import Effects


class TxError(ValueError):
    pass


@contextmanager
def tx_errors(prefix: str = "", catch: tuple[type[Exception], ...] = (VerifyError,)) -> Iterator[None]:
    """A failed syntactic check (`catch`) as the TxError AvalancheGo's executor returns: `prefix` + its text."""
    try:
        yield
    except catch as e:
        raise TxError(f"{prefix}{e}") from None


def _utxo_id_str(in_: TransferableInput) -> str:
    return f"{id_to_str(in_.tx_id)}:{in_.output_index}"


def _owner_id(owner: OutputOwners) -> bytes:
    return hashlib.sha256(t.P_REGISTRY.marshal(owner, typed=False)).digest()


class Verifier:
    def __init__(self, vm: PlatformContext, stx: SignedTx, time: int, price: int) -> None:
        self.vm = vm
        self.state = vm.state
        self.stx = stx
        self.tx = stx.unsigned
        self.time = time
        self.price = price
        self.hash = stx.unsigned_hash
        self.creds: list[Credential] = list(stx.credentials)

    def syntactic_base(self) -> None:
        b = self.tx.base
        with tx_errors("metadata failed verification: "):
            b.verify(self.vm.network_id, self.vm.chain_id)
        for out in b.outs:
            with tx_errors("output failed verification: "):
                out.verify()
        for in_ in b.ins:
            with tx_errors("input failed verification: "):
                in_.verify()
        if not outputs_sorted(b.outs, t.P_REGISTRY):
            raise TxError("outputs not sorted")
        if not inputs_sorted_unique(b.ins):
            raise TxError("inputs not sorted and unique")

    def memo_empty(self) -> None:
        n = len(self.tx.base.memo)
        if n:
            raise TxError(f"memo exceeds maximum length: {n} > 0")

    def fee(self) -> int:
        return fees.tx_gas(self.tx, self.vm.fee_config) * self.price

    def stake_duration(self, duration: int) -> None:
        p = self.vm.staking
        if duration < p.min_stake_duration:
            raise TxError("staking period is too short")
        if duration > p.max_stake_duration:
            raise TxError("staking period is too long")

    def load_utxos(self, ins: tuple[TransferableInput, ...]) -> list[UTXO]:
        out = []
        for in_ in ins:
            u = self.state.get_utxo(in_.utxo_id)
            if u is None:
                raise TxError(f"failed to read consumed UTXO {_utxo_id_str(in_)} due to: not found")
            out.append(u)
        return out

    def verify_credentials(self, in_: Input, cred: Any, owners: OutputOwners) -> None:
        if not isinstance(cred, Credential):
            raise VerifyError("wrong credential type")
        n = len(in_.sig_indices)
        if owners.locktime > self.time:
            raise VerifyError("output is time locked")
        if owners.threshold < n:
            raise VerifyError("input has more signers than expected")
        if owners.threshold > n:
            raise VerifyError("input has less signers than expected")
        if n != len(cred.signatures):
            raise VerifyError("input expected a different number of signers than provided in the credential")
        for i, index in enumerate(in_.sig_indices):
            if index >= len(owners.addresses):
                raise VerifyError("input referenced a nonexistent address in the output")
            try:
                addr = secp256k1.recover_address(self.hash, cred.signatures[i])
            except CryptoError as e:
                raise VerifyError(str(e)) from None
            expected = owners.addresses[index]
            if addr != expected:
                raise VerifyError(f"wrong signature: expected signature from {short_id_to_str(expected)} "
                                  f"but got from {short_id_to_str(addr)}")

    def verify_spend_utxos(self, utxos: list[UTXO], ins: tuple[TransferableInput, ...],
                           outs: tuple[TransferableOutput, ...], creds: list[Any],
                           unlocked_produced: dict[bytes, int]) -> None:
        if len(ins) != len(creds):
            raise TxError(f"wrong number of credentials: {len(ins)} inputs != {len(creds)} credentials")
        if len(ins) != len(utxos):
            raise TxError(f"wrong number of UTXOs: {len(ins)} inputs != {len(utxos)} utxos")
        now = self.time
        unlocked_consumed: dict[bytes, int] = {}
        locked_consumed: dict[tuple[bytes, int, bytes], int] = {}
        locked_produced: dict[tuple[bytes, int, bytes], int] = {}
        for index, in_ in enumerate(ins):
            utxo = utxos[index]
            if utxo.asset_id != in_.asset_id:
                raise TxError(f"input asset ID does not match UTXO asset ID: {id_to_str(in_.asset_id)} != "
                              f"{id_to_str(utxo.asset_id)}")
            out = utxo.out
            locktime = 0
            if isinstance(out, StakeableLockOut):
                locktime = out.locktime
                out = out.out
            inp = in_.in_
            if isinstance(inp, StakeableLockIn):
                if inp.locktime != locktime:
                    raise TxError(f"input locktime does not match UTXO locktime: {inp.locktime} != {locktime}")
                inp = inp.in_
            elif now < locktime:
                raise TxError("locked funds not marked as locked")
            with tx_errors("failed to verify transfer: "):
                if not isinstance(inp, TransferInput):
                    raise VerifyError("wrong input type")
                if not isinstance(out, TransferOutput):
                    raise VerifyError("wrong utxo type")
                out.verify()
                inp.verify()
                if out.amount != inp.amount:
                    raise VerifyError(f"utxo amount and input amount are not equal: {out.amount} != {inp.amount}")
                self.verify_credentials(inp.input, creds[index], out.owners)
            amount = inp.amount
            if now >= locktime:
                unlocked_consumed[utxo.asset_id] = unlocked_consumed.get(utxo.asset_id, 0) + amount
            else:
                key = (utxo.asset_id, locktime, _owner_id(out.owners))
                locked_consumed[key] = locked_consumed.get(key, 0) + amount
        for o in outs:
            output = o.out
            locktime = 0
            if isinstance(output, StakeableLockOut):
                locktime = output.locktime
                output = output.out
            amount = output.amount  # type: ignore[attr-defined]
            if locktime == 0:
                unlocked_produced[o.asset_id] = unlocked_produced.get(o.asset_id, 0) + amount
            else:
                key = (o.asset_id, locktime, _owner_id(output.owners))  # type: ignore[attr-defined]
                locked_produced[key] = locked_produced.get(key, 0) + amount
        for (asset, locktime, owner_id), produced in locked_produced.items():
            consumed = locked_consumed.get((asset, locktime, owner_id), 0)
            if produced > consumed:
                increase = produced - consumed
                available = unlocked_consumed.get(asset, 0)
                if increase > available:
                    raise TxError(f"insufficient locked funds: {id_to_str(owner_id)} needs {increase - available} "
                                  f"more {id_to_str(asset)} for locktime {locktime}")
                unlocked_consumed[asset] = available - increase
        for asset, produced in unlocked_produced.items():
            consumed = unlocked_consumed.get(asset, 0)
            if produced > consumed:
                raise TxError(f"insufficient unlocked funds: needs {produced - consumed} more {id_to_str(asset)}")

    def flow(self, creds: list[Any], extra_produced: int = 0, wrap: str | None = None,
             extra_ins: tuple = (), extra_utxos: list | None = None) -> None:
        """utxo.GetInputOutputs + fee + VerifySpend."""
        ins = self.tx.base.ins + extra_ins
        outs = self.tx.all_outputs()
        produced = {self.vm.avax_asset_id: extra_produced + self.fee()}
        try:
            # a missing UTXO is a flow-check failure too (AvalancheGo's VerifySpend reads them)
            utxos = self.load_utxos(self.tx.base.ins) + (extra_utxos or [])
            self.verify_spend_utxos(utxos, ins, outs, creds, produced)
        except TxError as e:
            if wrap:
                raise TxError(f"{wrap}: {e}") from None
            raise


    def verify_authorization(self, owner: OutputOwners, auth: Input) -> list[Any]:
        if not self.creds:
            raise TxError("should have the same number of credentials as inputs")
        cred = self.creds[-1]
        with tx_errors("unauthorized modification: "):
            auth.verify()
            owner.verify()
            self.verify_credentials(auth, cred, owner)
        return self.creds[:-1]

    def subnet_auth(self, subnet_id: bytes, auth: Input, poa: bool) -> list[Any]:
        sub = self.state.subnets.get(subnet_id)
        if sub is None:
            raise TxError("not found")
        owner = t.P_REGISTRY.unmarshal_typed(b"\x00\x00" + sub.owner)
        creds = self.verify_authorization(owner, auth)
        if poa and sub.conversion_id is not None:
            raise TxError(f'"{id_to_str(subnet_id)}" is immutable')
        return creds

    def base_effects(self) -> Effects:
        eff = Effects()
        eff.consumed = [in_.utxo_id for in_ in self.tx.base.ins]
        tx_id = self.stx.tx_id
        eff.produced = [UTXO(tx_id, i, o.asset_id, o.out) for i, o in enumerate(self.tx.base.outs)]
        eff.gas = fees.tx_gas(self.tx, self.vm.fee_config)
        return eff
