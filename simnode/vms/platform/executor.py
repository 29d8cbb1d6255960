"""Tx verification (AvalancheGo's standardTxExecutor + the staker/subnet verification helpers).

`verify(tx)` reads state and returns an `Effects` record of what the tx would change, or raises
`TxError` with AvalancheGo's text; `apply` (in vm.py) writes an `Effects`. Verification never
writes, so a rejected tx leaves the state exactly as it was.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from simnode.codec import (
    UTXO,
    CodecError,
    Credential,
    Input,
    OutputOwners,
    SignedTx,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
    VerifyError,
    decode_utxo,
    inputs_sorted_unique,
    outputs_sorted,
)
from simnode.codec.sorting import is_sorted_and_unique
from simnode.codec.stakeable import StakeableLockIn, StakeableLockOut
from simnode.crypto import CryptoError, secp256k1
from simnode.formats import id_to_str, node_id_to_str, short_id_to_str
from simnode.vms import atomic
from simnode.warp import acp77
from simnode.warp.justification import SubnetIDIndex, encode_justification
from simnode.warp.message import parse_signed_message
from simnode.warp.payload import AddressedCall, parse_addressed_call

from . import fees
from . import txs as t
from .state import PRIMARY, L1Validator, utxo_owners

if TYPE_CHECKING:
    from .vm import PlatformVM

MAX_U64 = (1 << 64) - 1
REGISTER_EXPIRY_WINDOW = 24 * 3600
MAX_VALIDATOR_WEIGHT_FACTOR = 5


class TxError(ValueError):
    pass


@dataclass(slots=True)
class Effects:
    consumed: list[bytes] = field(default_factory=list)
    produced: list[UTXO] = field(default_factory=list)
    atomic_remove: tuple[bytes, list[tuple[bytes, tuple[bytes, ...]]]] | None = None
    atomic_put: tuple[bytes, list[UTXO]] | None = None
    staker: Any = None  # ("validator"|"delegator"|"subnet", tx)
    remove_staker: Any = None
    subnet_owner: tuple[bytes, OutputOwners] | None = None
    new_subnet: bytes | None = None
    new_chain: t.CreateChainTx | None = None
    conversion: tuple | None = None
    l1_puts: list[L1Validator] = field(default_factory=list)
    l1_preimages: list[tuple[bytes, bytes]] = field(default_factory=list)  # (validationID, justification)
    expiry: tuple[int, bytes] | None = None
    l1_balance: tuple[bytes, int] | None = None  # IncreaseL1ValidatorBalance
    l1_disable: bytes | None = None
    l1_weight: tuple | None = None
    gas: int = 0


def _utxo_id_str(in_: TransferableInput) -> str:
    return f"{id_to_str(in_.tx_id)}:{in_.output_index}"


def _owner_id(owner: OutputOwners) -> bytes:
    return hashlib.sha256(t.P_REGISTRY.marshal(owner, typed=False)).digest()


class Verifier:
    def __init__(self, vm: PlatformVM, stx: SignedTx, time: int, price: int) -> None:
        self.vm = vm
        self.state = vm.state
        self.stx = stx
        self.tx = stx.unsigned
        self.time = time
        self.price = price
        self.hash = stx.unsigned_hash
        self.creds: list[Credential] = list(stx.credentials)

    # ------------------------------------------------------------------------------- common

    def syntactic_base(self) -> None:
        b = self.tx.base
        try:
            b.verify(self.vm.network_id, self.vm.chain_id)
        except VerifyError as e:
            raise TxError(f"metadata failed verification: {e}") from None
        for out in b.outs:
            try:
                out.verify()
            except VerifyError as e:
                raise TxError(f"output failed verification: {e}") from None
        for in_ in b.ins:
            try:
                in_.verify()
            except VerifyError as e:
                raise TxError(f"input failed verification: {e}") from None
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
            try:
                if not isinstance(inp, TransferInput):
                    raise VerifyError("wrong input type")
                if not isinstance(out, TransferOutput):
                    raise VerifyError("wrong utxo type")
                out.verify()
                inp.verify()
                if out.amount != inp.amount:
                    raise VerifyError(f"utxo amount and input amount are not equal: {out.amount} != {inp.amount}")
                self.verify_credentials(inp.input, creds[index], out.owners)
            except VerifyError as e:
                raise TxError(f"failed to verify transfer: {e}") from None
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
        utxos = self.load_utxos(self.tx.base.ins) + (extra_utxos or [])
        produced = {self.vm.avax_asset_id: extra_produced + self.fee()}
        try:
            self.verify_spend_utxos(utxos, ins, outs, creds, produced)
        except TxError as e:
            if wrap:
                raise TxError(f"{wrap}: {e}") from None
            raise

    def verify_authorization(self, owner: OutputOwners, auth: Input) -> list[Any]:
        if not self.creds:
            raise TxError("should have the same number of credentials as inputs")
        cred = self.creds[-1]
        try:
            auth.verify()
            owner.verify()
            self.verify_credentials(auth, cred, owner)
        except VerifyError as e:
            raise TxError(f"unauthorized modification: {e}") from None
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

    # ------------------------------------------------------------------------------- dispatch

    def run(self) -> Effects:
        tx = self.tx
        handler = getattr(self, "v_" + type(tx).__name__, None)
        if handler is None:
            raise TxError("wrong tx type")
        return handler(tx)

    def v_AddValidatorTx(self, tx: t.AddValidatorTx) -> Effects:
        raise TxError("AddValidatorTx is not permitted post-Durango")

    def v_AddDelegatorTx(self, tx: t.AddDelegatorTx) -> Effects:
        raise TxError("AddDelegatorTx is not permitted post-Durango")

    def v_RewardValidatorTx(self, tx: Any) -> Effects:
        raise TxError("wrong tx type")

    def v_BaseTx(self, tx: t.BaseTx) -> Effects:
        self.syntactic_base()
        self.memo_empty()
        self.flow(self.creds)
        return self.base_effects()

    def v_CreateSubnetTx(self, tx: t.CreateSubnetTx) -> Effects:
        self.syntactic_base()
        try:
            tx.owner.verify()
        except VerifyError as e:
            raise TxError(str(e)) from None
        self.memo_empty()
        self.flow(self.creds)
        eff = self.base_effects()
        eff.new_subnet = self.stx.tx_id
        eff.subnet_owner = (self.stx.tx_id, tx.owner)
        return eff

    def v_CreateChainTx(self, tx: t.CreateChainTx) -> Effects:
        if tx.subnet_id == PRIMARY:
            raise TxError("new blockchain can't be validated by primary network")
        if len(tx.chain_name) > t.MAX_NAME_LEN:
            raise TxError("name too long")
        if tx.vm_id == bytes(32):
            raise TxError("invalid VM ID")
        if not is_sorted_and_unique(tx.fx_ids):
            raise TxError("feature extensions IDs must be sorted and unique")
        if len(tx.genesis_data) > t.MAX_GENESIS_LEN:
            raise TxError("genesis too long")
        for ch in tx.chain_name:
            if ord(ch) > 127 or not (ch.isalnum() or ch == " "):
                raise TxError("illegal name character")
        self.syntactic_base()
        self._auth_verify(tx.subnet_auth)
        self.memo_empty()
        creds = self.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=True)
        self.flow(creds)
        eff = self.base_effects()
        eff.new_chain = tx
        return eff

    def _auth_verify(self, auth: Input) -> None:
        try:
            auth.verify()
        except VerifyError as e:
            raise TxError(str(e)) from None

    def _same_subnet(self, chain_id: bytes) -> None:
        if chain_id == self.vm.chain_id:
            raise TxError("same chain")
        if chain_id not in (self.vm.x_chain_id, self.vm.c_chain_id):
            rec = self.state.chains.get(chain_id)
            if rec is None:
                raise TxError(f"failed to get subnet of {id_to_str(chain_id)}: not found")
            raise TxError("mismatched subnets")

    def v_ImportTx(self, tx: t.ImportTx) -> Effects:
        if not tx.imported_inputs:
            raise TxError("tx has no imported inputs")
        self.syntactic_base()
        for in_ in tx.imported_inputs:
            try:
                in_.verify()
            except VerifyError as e:
                raise TxError(f"input failed verification: {e}") from None
        if not inputs_sorted_unique(tx.imported_inputs):
            raise TxError("inputs not sorted and unique")
        self.memo_empty()
        self._same_subnet(tx.source_chain)
        atomic_utxos = []
        removes = []
        reader = self.state.reader
        for in_ in tx.imported_inputs:
            raw = atomic.get_utxo(reader, self.vm.chain_id, tx.source_chain, in_.utxo_id)
            if raw is None:
                raise TxError("failed to get shared memory: not found")
            u = decode_utxo(raw, t.P_REGISTRY)
            atomic_utxos.append(u)
            owners = utxo_owners(u.out)
            removes.append((in_.utxo_id, owners.addresses if owners else ()))
        self.flow(self.creds, extra_ins=tx.imported_inputs, extra_utxos=atomic_utxos)
        eff = self.base_effects()
        eff.atomic_remove = (tx.source_chain, removes)
        return eff

    def v_ExportTx(self, tx: t.ExportTx) -> Effects:
        if not tx.exported_outputs:
            raise TxError("no export outputs")
        self.syntactic_base()
        for out in tx.exported_outputs:
            try:
                out.verify()
            except VerifyError as e:
                raise TxError(f"output failed verification: {e}") from None
            if isinstance(out.out, StakeableLockOut):
                raise TxError("wrong locktime reported")
        if not outputs_sorted(tx.exported_outputs, t.P_REGISTRY):
            raise TxError("outputs not sorted")
        self.memo_empty()
        self._same_subnet(tx.destination_chain)
        self.flow(self.creds, wrap="failed verifySpend")
        eff = self.base_effects()
        tx_id = self.stx.tx_id
        n = len(tx.base.outs)
        eff.atomic_put = (tx.destination_chain,
                          [UTXO(tx_id, n + i, o.asset_id, o.out) for i, o in enumerate(tx.exported_outputs)])
        return eff

    # ------------------------------------------------------------------------------- staking

    def _stake_syntax(self, tx: Any, what: str) -> None:
        if not tx.stake_outs:
            raise TxError("no stake")
        try:
            self.syntactic_base()
        except TxError as e:
            raise TxError(f"failed to verify BaseTx: {e}") from None
        for out in tx.stake_outs:
            try:
                out.verify()
            except VerifyError as e:
                raise TxError(f"failed to verify output: {e}") from None
        asset = tx.stake_outs[0].asset_id
        total = 0
        for out in tx.stake_outs:
            total += out.out.amount
            if out.asset_id != asset:
                raise TxError(f'multiple staked assets: "{id_to_str(asset)}" and "{id_to_str(out.asset_id)}"')
        if not outputs_sorted(tx.stake_outs, t.P_REGISTRY):
            raise TxError("outputs not sorted")
        if total != tx.validator.weight:
            if what == "validator":
                raise TxError(f"validator weight mismatch: weight {tx.validator.weight} != stake {total}")
            raise TxError(f"delegator weight mismatch, delegator weight {tx.validator.weight} "
                          f"total stake weight {total}")

    def v_AddPermissionlessValidatorTx(self, tx: t.AddPermissionlessValidatorTx) -> Effects:
        if tx.validator.node_id == bytes(20):
            raise TxError("validator nodeID cannot be empty")
        if not tx.stake_outs:
            raise TxError("no stake")
        if tx.delegation_shares > t.PERCENT_DENOMINATOR:
            raise TxError("a staker can only require at most 100% reward")
        self._stake_syntax(tx, "validator")
        try:
            tx.validator.verify()
            if isinstance(tx.signer, t.ProofOfPossession):
                tx.signer.verify()
            tx.validation_rewards_owner.verify()
            tx.delegation_rewards_owner.verify()
        except VerifyError as e:
            raise TxError(f"failed to verify validator, signer, or rewards owners: {e}") from None
        has_key = isinstance(tx.signer, t.ProofOfPossession)
        is_primary = tx.subnet_id == PRIMARY
        if has_key != is_primary:
            raise TxError(f"invalid signer: hasKey={str(has_key).lower()} != isPrimaryNetwork={str(is_primary).lower()}")
        self.memo_empty()
        if not is_primary:
            raise TxError("not found")  # no TransformSubnetTx exists post-Etna
        p = self.vm.staking
        duration = tx.validator.end - self.time
        staked_asset = tx.stake_outs[0].asset_id
        if tx.validator.weight < p.min_validator_stake:
            raise TxError("weight of this validator is too low")
        if tx.validator.weight > p.max_validator_stake:
            raise TxError("weight of this validator is too large")
        if tx.delegation_shares < p.min_delegation_fee:
            raise TxError("staker charges an insufficient delegation fee")
        if duration < p.min_stake_duration:
            raise TxError("staking period is too short")
        if duration > p.max_stake_duration:
            raise TxError("staking period is too long")
        if staked_asset != self.vm.avax_asset_id:
            raise TxError(f"incorrect staked assetID: {id_to_str(self.vm.avax_asset_id)} != {id_to_str(staked_asset)}")
        if self.state.get_validator(tx.subnet_id, tx.validator.node_id) is not None:
            raise TxError(f"duplicate validator: {node_id_to_str(tx.validator.node_id)} on {id_to_str(tx.subnet_id)}")
        self.flow(self.creds, wrap="flow check failed")
        eff = self.base_effects()
        eff.staker = ("validator", tx)
        return eff

    def v_AddPermissionlessDelegatorTx(self, tx: t.AddPermissionlessDelegatorTx) -> Effects:
        if not tx.stake_outs:
            raise TxError("no stake")
        self._stake_syntax(tx, "delegator")
        try:
            tx.validator.verify()
            tx.rewards_owner.verify()
        except VerifyError as e:
            raise TxError(f"failed to verify validator or rewards owner: {e}") from None
        self.memo_empty()
        if tx.subnet_id != PRIMARY:
            raise TxError("not found")
        p = self.vm.staking
        start, end = self.time, tx.validator.end
        duration = end - start
        staked_asset = tx.stake_outs[0].asset_id
        if tx.validator.weight < p.min_delegator_stake:
            raise TxError("weight of this validator is too low")
        if duration < p.min_stake_duration:
            raise TxError("staking period is too short")
        if duration > p.max_stake_duration:
            raise TxError("staking period is too long")
        if staked_asset != self.vm.avax_asset_id:
            raise TxError(f"incorrect staked assetID: {id_to_str(self.vm.avax_asset_id)} != {id_to_str(staked_asset)}")
        vdr = self.state.get_validator(tx.subnet_id, tx.validator.node_id)
        if vdr is None:
            raise TxError(f"failed to fetch the validator for {node_id_to_str(tx.validator.node_id)} on "
                          f"{id_to_str(tx.subnet_id)}: not found")
        max_weight = min(MAX_VALIDATOR_WEIGHT_FACTOR * vdr.weight, p.max_validator_stake)
        if not (vdr.start <= start and end <= vdr.end and start <= end):
            raise TxError("proposed staking period is not inside dependent staking period")
        # GetMaxWeight: the delegators' weight can only fall from now on (every current delegator
        # started already), so the maximum over [start, end] is the current total.
        current = vdr.weight + sum(d.weight for d in self.state.delegators_of(tx.subnet_id, tx.validator.node_id))
        if current + tx.validator.weight > max_weight:
            raise TxError("validator would be over delegated")
        self.flow(self.creds, wrap="flow check failed")
        eff = self.base_effects()
        eff.staker = ("delegator", tx)
        return eff

    # ------------------------------------------------------------------------------- subnets

    def v_AddSubnetValidatorTx(self, tx: t.AddSubnetValidatorTx) -> Effects:
        if tx.subnet_id == PRIMARY:
            raise TxError("can't add primary network validator with AddSubnetValidatorTx")
        self.syntactic_base()
        try:
            tx.validator.verify()
            tx.subnet_auth.verify()
        except VerifyError as e:
            raise TxError(str(e)) from None
        self.memo_empty()
        p = self.vm.staking
        duration = tx.validator.end - self.time
        if duration < p.min_stake_duration:
            raise TxError("staking period is too short")
        if duration > p.max_stake_duration:
            raise TxError("staking period is too long")
        node = tx.validator.node_id
        if self.state.get_validator(tx.subnet_id, node) is not None:
            raise TxError(f"attempted to issue duplicate validator for {node_id_to_str(node)} on subnet "
                          f"{id_to_str(tx.subnet_id)}")
        primary = self.state.get_validator(PRIMARY, node)
        if primary is None:
            raise TxError(f"{node_id_to_str(node)} isn't a current or pending validator of the primary network")
        if not (primary.start <= self.time and tx.validator.end <= primary.end):
            raise TxError("proposed staking period is not inside dependent staking period")
        creds = self.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=True)
        self.flow(creds, wrap="flow check failed")
        eff = self.base_effects()
        eff.staker = ("subnet", tx)
        return eff

    def v_RemoveSubnetValidatorTx(self, tx: t.RemoveSubnetValidatorTx) -> Effects:
        if tx.subnet_id == PRIMARY:
            raise TxError("can't remove primary network validator with RemoveSubnetValidatorTx")
        self.syntactic_base()
        self._auth_verify(tx.subnet_auth)
        self.memo_empty()
        vdr = self.state.get_validator(tx.subnet_id, tx.node_id)
        if vdr is None:
            raise TxError(f"{node_id_to_str(tx.node_id)} isn't a current or pending validator of "
                          f"{id_to_str(tx.subnet_id)}: not found")
        if vdr.priority != 7:
            raise TxError("attempting to remove permissionless validator")
        creds = self.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=False)
        self.flow(creds, wrap="flow check failed")
        eff = self.base_effects()
        eff.remove_staker = vdr
        return eff

    def v_TransferSubnetOwnershipTx(self, tx: t.TransferSubnetOwnershipTx) -> Effects:
        if tx.subnet_id == PRIMARY:
            raise TxError("cannot transfer ownership of a permissionless subnet")
        self.syntactic_base()
        try:
            tx.subnet_auth.verify()
            tx.owner.verify()
        except VerifyError as e:
            raise TxError(str(e)) from None
        self.memo_empty()
        creds = self.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=False)
        self.flow(creds, wrap="flow check failed")
        eff = self.base_effects()
        eff.subnet_owner = (tx.subnet_id, tx.owner)
        return eff

    # ------------------------------------------------------------------------------- L1s

    def v_ConvertSubnetToL1Tx(self, tx: t.ConvertSubnetToL1Tx) -> Effects:
        if tx.subnet_id == PRIMARY:
            raise TxError("cannot convert a permissionless subnet")
        if len(tx.address) > t.MAX_SUBNET_ADDRESS_LEN:
            raise TxError("address is too long")
        if not tx.validators:
            raise TxError("conversion must include at least one validator")
        if not is_sorted_and_unique([v.node_id for v in tx.validators]):
            raise TxError("conversion validators must be sorted and unique")
        self.syntactic_base()
        for v in tx.validators:
            try:
                v.verify()
            except VerifyError as e:
                raise TxError(str(e)) from None
        self._auth_verify(tx.subnet_auth)
        self.memo_empty()
        creds = self.subnet_auth(tx.subnet_id, tx.subnet_auth, poa=True)
        accrued = self.vm.state.meta.accrued_fees
        active = self.state.num_active_l1
        puts = []
        for i, v in enumerate(tx.validators):
            end_fee = 0
            if v.balance != 0:
                if active >= self.vm.validator_fee_config.capacity:
                    raise TxError("already at the max number of active validators")
                active += 1
                end_fee = v.balance + accrued
                if end_fee > MAX_U64:
                    raise TxError("overflow")
            puts.append(L1Validator(
                acp77.subnet_validation_id(tx.subnet_id, i), tx.subnet_id, v.node_id, v.signer.public_key,
                _pchain_owner_bytes(v.remaining_balance_owner), _pchain_owner_bytes(v.deactivation_owner),
                self.time, v.weight, 0, end_fee))
        self.flow(creds, extra_produced=sum(v.balance for v in tx.validators))
        eff = self.base_effects()
        eff.l1_puts = puts
        eff.l1_preimages = [(p.validation_id, encode_justification(SubnetIDIndex(tx.subnet_id, i)))
                            for i, p in enumerate(puts)]
        data = acp77.SubnetToL1ConversionData(tx.subnet_id, tx.chain_id, tx.address, tuple(
            acp77.ConversionValidator(v.node_id, v.signer.public_key, v.weight) for v in tx.validators))
        eff.conversion = (tx.subnet_id, data.conversion_id, tx.chain_id, tx.address)
        return eff

    def _warp_call(self, message: bytes) -> tuple[bytes, AddressedCall]:
        """The source chain and AddressedCall of a tx's Warp message (its signature was verified
        before the tx executes, see PlatformVM.verify_warp)."""
        try:
            msg = parse_signed_message(message)
            return msg.unsigned.source_chain_id, parse_addressed_call(msg.unsigned.payload)
        except CodecError as e:
            raise TxError(str(e)) from None

    def _verify_l1_conversion(self, subnet_id: bytes, chain_id: bytes, address: bytes) -> None:
        sub = self.state.subnets.get(subnet_id)
        if sub is None or sub.conversion_id is None:
            raise TxError(f"could not load subnet conversion for {id_to_str(subnet_id)} with: not found")
        if chain_id != sub.manager_chain_id:
            raise TxError(f"wrong warp message source chain ID expected {id_to_str(sub.manager_chain_id)} but had "
                          f"{id_to_str(chain_id)}")
        if address != sub.manager_address:
            raise TxError(f"wrong warp message source address expected 0x{sub.manager_address.hex()} but got "
                          f"0x{address.hex()}")

    def v_RegisterL1ValidatorTx(self, tx: t.RegisterL1ValidatorTx) -> Effects:
        self.syntactic_base()
        self.memo_empty()
        self.flow(self.creds, extra_produced=tx.balance)
        source_chain, call = self._warp_call(tx.message)
        try:
            reg = acp77.parse_register_l1_validator(call.payload)
            reg.verify()
        except (CodecError, VerifyError) as e:
            raise TxError(str(e)) from None
        self._verify_l1_conversion(reg.subnet_id, source_chain, call.source_address)
        now = self.time
        if reg.expiry <= now:
            raise TxError(f"warp message expired at {reg.expiry} and it is currently {now}")
        if reg.expiry - now > REGISTER_EXPIRY_WINDOW:
            raise TxError(f"warp message not yet allowed because time is {reg.expiry - now} seconds in the future "
                          f"but the limit is {REGISTER_EXPIRY_WINDOW}")
        vid = reg.validation_id
        if self.state.has_expiry(reg.expiry, vid):
            raise TxError(f"warp message already issued for validationID {id_to_str(vid)}")
        pop = t.ProofOfPossession(reg.bls_public_key, tx.proof_of_possession)
        try:
            pop.verify()
        except VerifyError as e:
            raise TxError(str(e)) from None
        if (reg.subnet_id, reg.node_id) in self.state.l1_by_node:
            raise TxError("L1 validator already exists for this nodeID")
        end_fee = 0
        if tx.balance != 0:
            if self.state.num_active_l1 >= self.vm.validator_fee_config.capacity:
                raise TxError("already at the max number of active validators")
            end_fee = tx.balance + self.state.meta.accrued_fees
        eff = self.base_effects()
        eff.l1_puts = [L1Validator(vid, reg.subnet_id, reg.node_id, reg.bls_public_key,
                                   _pchain_owner_bytes(reg.remaining_balance_owner),
                                   _pchain_owner_bytes(reg.disable_owner), now, reg.weight, 0, end_fee)]
        eff.expiry = (reg.expiry, vid)
        eff.l1_preimages = [(vid, encode_justification(call.payload))]
        return eff

    def v_SetL1ValidatorWeightTx(self, tx: t.SetL1ValidatorWeightTx) -> Effects:
        self.syntactic_base()
        self.memo_empty()
        self.flow(self.creds)
        source_chain, call = self._warp_call(tx.message)
        try:
            m = acp77.parse_l1_validator_weight(call.payload)
            m.verify()
        except (CodecError, VerifyError) as e:
            raise TxError(str(e)) from None
        v = self.state.l1.get(m.validation_id)
        if v is None:
            raise TxError("could not load L1 validator: not found")
        if m.nonce < v.min_nonce:
            raise TxError(f"warp message contains stale nonce {m.nonce} must be at least {v.min_nonce}")
        self._verify_l1_conversion(v.subnet_id, source_chain, call.source_address)
        eff = self.base_effects()
        refund = None
        if m.weight == 0:
            if self.state.l1_weight(v.subnet_id) == v.weight:
                raise TxError("attempting to remove the last L1 validator from a converted subnet")
            if v.end_accumulated_fee != 0:
                accrued = self.state.meta.accrued_fees
                if v.end_accumulated_fee <= accrued:
                    raise TxError("state corruption: validator should have already been disabled")
                refund = v.end_accumulated_fee - accrued
        eff.l1_weight = (v, m.nonce, m.weight, refund, len(tx.base.outs))
        return eff

    def v_IncreaseL1ValidatorBalanceTx(self, tx: t.IncreaseL1ValidatorBalanceTx) -> Effects:
        if tx.balance == 0:
            raise TxError("balance must be greater than 0")
        self.syntactic_base()
        self.memo_empty()
        self.flow(self.creds, extra_produced=tx.balance)
        v = self.state.l1.get(tx.validation_id)
        if v is None:
            raise TxError("not found")
        if v.end_accumulated_fee == 0 and self.state.num_active_l1 >= self.vm.validator_fee_config.capacity:
            raise TxError("already at the max number of active validators")
        eff = self.base_effects()
        eff.l1_balance = (tx.validation_id, tx.balance)
        return eff

    def v_DisableL1ValidatorTx(self, tx: t.DisableL1ValidatorTx) -> Effects:
        self.syntactic_base()
        self._auth_verify(tx.disable_auth)
        self.memo_empty()
        v = self.state.l1.get(tx.validation_id)
        if v is None:
            raise TxError("could not load L1 validator: not found")
        owner = _pchain_owner_from_bytes(v.deactivation_owner).as_output_owners()
        creds = self.verify_authorization(owner, tx.disable_auth)
        self.flow(creds)
        eff = self.base_effects()
        eff.l1_disable = tx.validation_id
        return eff


def _pchain_owner_bytes(owner: t.PChainOwner) -> bytes:
    from simnode.codec import Writer

    wr = Writer()
    owner.encode(wr)
    return wr.getvalue()


def _pchain_owner_from_bytes(data: bytes) -> t.PChainOwner:
    from simnode.codec import Reader

    return t.PChainOwner.decode(Reader(data))


pchain_owner_from_bytes = _pchain_owner_from_bytes
