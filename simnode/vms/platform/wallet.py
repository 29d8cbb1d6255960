"""Build and sign P-Chain txs from keys and the VM's UTXOs (a small wallet for tests, scenarios, benches).

Fees are the dynamic fee at the VM's next block time (`vm.gas_price()`), computed from the exact
complexity of the tx being built, so the txs pass AvalancheGo's flow check. The builder remembers
the UTXOs it spent and the change it created, so several txs can be built before a block is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from simnode.codec import (
    UTXO,
    BaseTxFields,
    Credential,
    Input,
    OutputOwners,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
    decode_utxo,
    sort_outputs,
)
from simnode.codec.stakeable import StakeableLockOut
from simnode.crypto import bls, secp256k1
from simnode.warp.acp77 import PChainOwner

from . import fees
from . import txs as t
from .state import PRIMARY, utxo_owners
from .tx_parts import ConvertSubnetToL1Validator, EmptySigner, ProofOfPossession, Validator, pchain_owner_from_bytes
from ...errors import BuildError


def address_of(key: bytes) -> bytes:
    return secp256k1.short_address(secp256k1.public_key(key))


def owner(*addrs: bytes, threshold: int = 1, locktime: int = 0) -> OutputOwners:
    return OutputOwners(locktime, threshold, tuple(sorted(addrs)))


class PBuilder:
    def __init__(self, vm: Any, keys: Iterable[bytes], only: list[UTXO] | None = None) -> None:
        """`only`: spend just these UTXOs (e.g. one pre-split UTXO per tx when many txs share a block)."""
        self.vm = vm
        self.only = only
        self.keys = {address_of(k): k for k in keys}
        self.spent: set[bytes] = set()
        self.pending: dict[bytes, UTXO] = {}
        self.asset = vm.avax_asset_id

    @property
    def address(self) -> bytes:
        return next(iter(self.keys))

    # ------------------------------------------------------------------------------ UTXOs

    def stored_utxos(self) -> dict[bytes, UTXO]:
        """The UTXOs the chain holds for the wallet's addresses, by ID (the VM's state)."""
        out: dict[bytes, UTXO] = {}
        for a in sorted(self.keys):
            for uid in self.vm.state.utxo_ids_of(a):
                if uid not in out:
                    u = self.vm.state.get_utxo(uid)
                    if u is not None:
                        out[uid] = u
        return out

    def atomic_utxos(self, source_chain: bytes) -> list[UTXO]:
        """What `source_chain` exported to the wallet's addresses (shared memory)."""
        from simnode.vms import atomic

        out = []
        seen = set()
        for a in sorted(self.keys):
            for uid in atomic.utxo_ids_by_address(self.vm.ctx.store, PRIMARY, source_chain, a):
                if uid not in seen:
                    seen.add(uid)
                    out.append(decode_utxo(atomic.get_utxo(self.vm.ctx.store, PRIMARY, source_chain, uid),
                                           t.P_REGISTRY))
        return out

    def subnet_owner(self, subnet_id: bytes) -> OutputOwners | None:
        sub = self.vm.state.subnets.get(subnet_id)
        return None if sub is None else t.P_REGISTRY.unmarshal_typed(b"\x00\x00" + sub.owner)

    def utxos(self) -> list[UTXO]:
        now = self.vm.next_block_time()
        if self.only is not None:
            return [u for u in self.only if u.id not in self.spent]
        out = {uid: u for uid, u in self.stored_utxos().items() if uid not in self.spent}
        for uid, u in self.pending.items():
            if uid not in self.spent:
                out[uid] = u
        usable = []
        for u in out.values():
            if u.asset_id != self.asset:
                continue
            inner = u.out.out if isinstance(u.out, StakeableLockOut) else u.out
            if isinstance(u.out, StakeableLockOut) and u.out.locktime > now:
                continue  # locked: not spendable by this simple wallet
            if not isinstance(inner, TransferOutput) or inner.owners.locktime > now:
                continue
            if inner.owners.threshold != 1 or not any(a in self.keys for a in inner.owners.addresses):
                continue
            usable.append(u)
        usable.sort(key=lambda u: (-u.out.amount, u.id))
        return usable

    def _input(self, u: UTXO) -> tuple[TransferableInput, bytes]:
        inner = u.out.out if isinstance(u.out, StakeableLockOut) else u.out
        idx = next(i for i, a in enumerate(inner.owners.addresses) if a in self.keys)
        key = self.keys[inner.owners.addresses[idx]]
        return TransferableInput(u.tx_id, u.output_index, u.asset_id, TransferInput(inner.amount, Input((idx,)))), key

    def import_inputs(self, source_chain: bytes) -> list[tuple[TransferableInput, bytes]]:
        return [self._input(u) for u in self.atomic_utxos(source_chain)]

    # ------------------------------------------------------------------------------ core

    def _build(self, make: Callable[[BaseTxFields], Any], outs: list[TransferableOutput], burn_extra: int = 0,
               stake: int = 0, auth_keys: list[bytes] | None = None, extra_in: int = 0,
               extra_inputs: list[tuple[TransferableInput, bytes]] | None = None, memo: bytes = b"") -> t.SignedTx:
        price = self.vm.gas_price()
        need_out = sum(o.out.amount for o in outs) + burn_extra + stake
        available = self.utxos()
        change_owner = owner(self.address)
        fee = 0
        for _ in range(8):
            target = need_out + fee
            chosen: list[tuple[TransferableInput, bytes]] = []
            total = extra_in
            for u in available:
                if total >= target and (chosen or extra_inputs):
                    break
                chosen.append(self._input(u))
                total += u.out.amount
            if total < target:
                raise BuildError(f"insufficient funds: have {total}, need {target}")
            change = total - target
            all_outs = list(outs)
            if change > 0:
                all_outs.append(TransferableOutput(self.asset, TransferOutput(change, change_owner)))
            pairs = sorted(chosen, key=lambda p: (p[0].tx_id, p[0].output_index))
            base = BaseTxFields(self.vm.network_id, self.vm.chain_id, sort_outputs(all_outs, t.P_REGISTRY),
                                tuple(p[0] for p in pairs), memo)
            unsigned = make(base)
            new_fee = fees.tx_gas(unsigned, self.vm.fee_config) * price
            if new_fee <= fee:
                break
            fee = new_fee
        signed = self._sign(unsigned, pairs + (extra_inputs or []), auth_keys)
        for p, _ in pairs:
            self.spent.add(p.utxo_id)
        tx_id = signed.tx_id
        for i, o in enumerate(unsigned.base.outs):
            if utxo_owners(o.out) and any(a in self.keys for a in utxo_owners(o.out).addresses):
                u = UTXO(tx_id, i, o.asset_id, o.out)
                self.pending[u.id] = u
        return signed

    def _sign(self, unsigned: Any, pairs: list[tuple[TransferableInput, bytes]],
              auth_keys: list[bytes] | None) -> t.SignedTx:
        unsigned_bytes = t.marshal(unsigned)
        import hashlib

        digest = hashlib.sha256(unsigned_bytes).digest()
        creds = [Credential((secp256k1.sign_hash(k, digest),)) for _, k in pairs]
        if auth_keys is not None:
            creds.append(Credential(tuple(secp256k1.sign_hash(k, digest) for k in auth_keys)))
        return t.sign_tx(unsigned, creds)

    def _auth(self, owners: OutputOwners, keys: dict[bytes, bytes] | None = None) -> tuple[Input, list[bytes]]:
        keys = keys or self.keys
        idx = [i for i, a in enumerate(owners.addresses) if a in keys][: owners.threshold]
        return Input(tuple(idx)), [keys[owners.addresses[i]] for i in idx]

    def _subnet_auth(self, subnet_id: bytes) -> tuple[Input, list[bytes]]:
        o = self.subnet_owner(subnet_id)
        if o is None:
            raise BuildError("unknown subnet")
        return self._auth(o)

    # ------------------------------------------------------------------------------ txs

    def base_tx(self, to: bytes, amount: int, memo: bytes = b"") -> t.SignedTx:
        out = TransferableOutput(self.asset, TransferOutput(amount, owner(to)))
        return self._build(lambda b: t.BaseTx(b), [out], memo=memo)

    def export_tx(self, dest_chain: bytes, to: bytes, amount: int) -> t.SignedTx:
        out = TransferableOutput(self.asset, TransferOutput(amount, owner(to)))
        return self._build(lambda b: t.ExportTx(b, dest_chain, (out,)), [], burn_extra=amount)

    def import_tx(self, source_chain: bytes, to: bytes | None = None) -> t.SignedTx:
        imported = sorted(self.import_inputs(source_chain), key=lambda p: (p[0].tx_id, p[0].output_index))
        if not imported:
            raise BuildError("no atomic UTXOs to import")
        total = sum(p[0].in_.amount for p in imported)
        price = self.vm.gas_price()
        ins = tuple(p[0] for p in imported)
        dest = owner(to or self.address)

        def make(amount: int) -> t.ImportTx:
            base = BaseTxFields(self.vm.network_id, self.vm.chain_id,
                                (TransferableOutput(self.asset, TransferOutput(amount, dest)),), (), b"")
            return t.ImportTx(base, source_chain, ins)

        fee = fees.tx_gas(make(total), self.vm.fee_config) * price
        if fee >= total:
            raise BuildError("imported amount does not cover the fee")
        return self._sign(make(total - fee), imported, None)

    def create_subnet(self, control: OutputOwners | None = None) -> t.SignedTx:
        o = control or owner(self.address)
        return self._build(lambda b: t.CreateSubnetTx(b, o), [])

    def create_chain(self, subnet_id: bytes, name: str, vm_id: bytes, genesis: bytes,
                     fx_ids: tuple[bytes, ...] = ()) -> t.SignedTx:
        auth, keys = self._subnet_auth(subnet_id)
        return self._build(lambda b: t.CreateChainTx(b, subnet_id, name, vm_id, fx_ids, genesis, auth), [],
                           auth_keys=keys)

    def add_validator(self, node_id: bytes, end: int, weight: int, bls_key: bls.SecretKey | None,
                      shares: int = 20_000, reward_to: bytes | None = None, pop: tuple[bytes, bytes] | None = None
                      ) -> t.SignedTx:
        if pop is None and bls_key is not None:
            pop = (bls.public_key(bls_key), bls.prove_possession(bls_key))
        signer = ProofOfPossession(*pop) if pop else EmptySigner()
        ro = owner(reward_to or self.address)
        stake = (TransferableOutput(self.asset, TransferOutput(weight, owner(self.address))),)
        start = self.vm.next_block_time()
        return self._build(lambda b: t.AddPermissionlessValidatorTx(
            b, Validator(node_id, start, end, weight), PRIMARY, signer, stake, ro, ro, shares), [], stake=weight)

    def add_delegator(self, node_id: bytes, end: int, weight: int, reward_to: bytes | None = None) -> t.SignedTx:
        ro = owner(reward_to or self.address)
        stake = (TransferableOutput(self.asset, TransferOutput(weight, owner(self.address))),)
        start = self.vm.next_block_time()
        return self._build(lambda b: t.AddPermissionlessDelegatorTx(
            b, Validator(node_id, start, end, weight), PRIMARY, stake, ro), [], stake=weight)

    def add_subnet_validator(self, subnet_id: bytes, node_id: bytes, end: int, weight: int) -> t.SignedTx:
        auth, keys = self._subnet_auth(subnet_id)
        start = self.vm.next_block_time()
        return self._build(lambda b: t.AddSubnetValidatorTx(b, Validator(node_id, start, end, weight), subnet_id,
                                                            auth), [], auth_keys=keys)

    def remove_subnet_validator(self, subnet_id: bytes, node_id: bytes) -> t.SignedTx:
        auth, keys = self._subnet_auth(subnet_id)
        return self._build(lambda b: t.RemoveSubnetValidatorTx(b, node_id, subnet_id, auth), [], auth_keys=keys)

    def transfer_subnet_ownership(self, subnet_id: bytes, new_owner: OutputOwners) -> t.SignedTx:
        auth, keys = self._subnet_auth(subnet_id)
        return self._build(lambda b: t.TransferSubnetOwnershipTx(b, subnet_id, auth, new_owner), [],
                           auth_keys=keys)

    def convert_subnet(self, subnet_id: bytes, chain_id: bytes, address: bytes,
                       validators: list[tuple[bytes, int, int, bls.SecretKey | tuple[bytes, bytes]]]) -> t.SignedTx:
        """validators: (nodeID, weight, balance, BLS key or its (public key, proof of possession));
        owners are this wallet's address."""
        auth, keys = self._subnet_auth(subnet_id)
        po = PChainOwner(1, (self.address,))

        def pop(sk: bls.SecretKey | tuple[bytes, bytes]) -> ProofOfPossession:
            if isinstance(sk, tuple):
                return ProofOfPossession(*sk)
            return ProofOfPossession(bls.public_key(sk), bls.prove_possession(sk))
        vdrs = tuple(sorted((ConvertSubnetToL1Validator(n, wgt, bal, pop(sk), po, po)
                             for n, wgt, bal, sk in validators), key=lambda v: v.node_id))
        return self._build(lambda b: t.ConvertSubnetToL1Tx(b, subnet_id, chain_id, address, vdrs, auth), [],
                           burn_extra=sum(v.balance for v in vdrs), auth_keys=keys)

    def register_l1_validator(self, balance: int, bls_key: bls.SecretKey, message: bytes) -> t.SignedTx:
        pop = bls.prove_possession(bls_key)
        return self._build(lambda b: t.RegisterL1ValidatorTx(b, balance, pop, message), [], burn_extra=balance)

    def set_l1_validator_weight(self, message: bytes) -> t.SignedTx:
        return self._build(lambda b: t.SetL1ValidatorWeightTx(b, message), [])

    def increase_l1_validator_balance(self, validation_id: bytes, amount: int) -> t.SignedTx:
        return self._build(lambda b: t.IncreaseL1ValidatorBalanceTx(b, validation_id, amount), [], burn_extra=amount)

    def disable_l1_validator(self, validation_id: bytes) -> t.SignedTx:
        v = self.vm.state.l1[validation_id]
        o = pchain_owner_from_bytes(v.deactivation_owner).as_output_owners()
        auth, keys = self._auth(o)
        return self._build(lambda b: t.DisableL1ValidatorTx(b, validation_id, auth), [], auth_keys=keys)

