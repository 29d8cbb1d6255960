"""The P-Chain's index rows, from its accepted block rows.

A row is {"height": h, "id": block ID, "b": block bytes, "facts": the block's facts} (PlatformVM.
block_row). The txs say most of what a block did; the facts (vms/platform/facts.py) say the
rest: the stakers that ended in the block, every L1 validator record it wrote (time-driven
deactivations included) with the L1 fee counter, and the L1 balance refunds it paid. Amounts the
VM decided are read from its durable records: a staker's history (`get_history`: start, end,
weight, potential and paid rewards) and its reward UTXOs (`reward_utxos`). Height 0 is the
genesis: its UTXOs, validators and chains, and the primary network itself.

Tables: layout.py. Within a block the txs come first (in block order, a proposal block's
proposal last), then the L1 validator records, then the ended stakers.
"""

from __future__ import annotations

from typing import Any

from ...codec import UTXO, decode_utxo, encode_utxo
from ...formats.ids import PLATFORM_VM_ID, ZERO_ID
from ...store import Batch, pack, unpack
from ...vms.platform import blocks as pblocks
from ...vms.platform import txs as t
from ...vms.platform.tx_parts import ProofOfPossession
from ...vms.platform.state import L1Validator
from ...warp import acp77
from ...warp.message import parse_signed_message
from ...warp.payload import parse_addressed_call
from ..keys import u16, u32, u64
from .layout import (ACTIVE, COMPLETED, REMOVED, REWARD_DELEGATOR, REWARD_FEE, REWARD_VALIDATOR, bi, space)
from .utxos import BlockRows, burned, make_out, output_amount

__all__ = ["BLOCK_TYPES", "block_row", "head_number", "index_block"]

PRIMARY = ZERO_ID
BLOCK_TYPES = {pblocks.APRICOT_COMMIT_BLOCK: "ApricotCommitBlock", t.BANFF_STANDARD_BLOCK: "BanffStandardBlock",
               t.BANFF_PROPOSAL_BLOCK: "BanffProposalBlock", t.BANFF_COMMIT_BLOCK: "BanffCommitBlock"}
MAX_WEIGHT_FACTOR = 5  # a primary validator may hold delegations up to 5x its own stake (capped)


def head_number(chain: Any) -> int:
    return chain.height


def block_row(chain: Any, number: int) -> dict | None:
    return chain.block_row(number)


def owner_record(owner: Any) -> list:
    """[threshold, [addresses], locktime] of an OutputOwners or PChainOwner."""
    return [owner.threshold, list(owner.addresses), getattr(owner, "locktime", 0)]


def capacity(chain: Any, rec: dict) -> int:
    """What a current primary validator can still take in delegations."""
    cap = min(rec["w"] * MAX_WEIGHT_FACTOR, chain.staking.max_validator_stake)
    return max(0, cap - rec["w"] - rec["aw"])


class _Block:
    def __init__(self, chain: Any, row: dict, batch: Batch, time: int) -> None:
        self.chain = chain
        self.pid = chain.chain_id
        self.rows = BlockRows(batch, self.pid, row["height"], time)
        self.batch = batch
        self.ch = batch.changes
        self.sp = space(self.pid)
        self.block_id = row["id"]
        self.avax = chain.avax_asset_id
        self.removals: dict[tuple[bytes, bytes], bytes] = {}  # (subnet, node) -> RemoveSubnetValidatorTx
        self.l1_txs: list[tuple[bytes, list[tuple[bytes, int]]]] = []  # (tx pos, [(vid, balance change)])
        self.refunds: dict[bytes, list[UTXO]] = {}

    # ------------------------------------------------------------------ helpers

    def get(self, key: bytes) -> Any:
        raw = self.batch.get(key)
        return None if raw is None else unpack(raw)

    def put(self, key: bytes, value: Any) -> None:
        self.ch[key] = pack(value)

    def create(self, utxo: UTXO, home: bytes, tx_hash: bytes, stake: tuple[int, int] | None = None,
               reward: str | None = None) -> Any:
        out = make_out(utxo, encode_utxo(utxo, t.P_REGISTRY), self.pid, home, self.rows.height, self.rows.time,
                       tx_hash, stake, reward)
        self.rows.create(out)
        return out

    # ------------------------------------------------------------------ txs

    def tx(self, index: int, stx: Any, tx_id: bytes | None = None) -> bytes:
        """Index one tx of the block (a genesis tx: pass its ID; it spends and burns nothing)."""
        u = stx.unsigned
        tx_id = tx_id or stx.tx_id
        rows = self.rows
        consumed: list[bytes] = []
        emitted: list[bytes] = []
        addresses: set[bytes] = set()
        extra: dict[str, Any] = {}
        base = getattr(u, "base", None)
        pos = bi(rows.height, index)
        if base is not None:
            extra["memo"] = base.memo
            for in_ in base.ins:
                out = rows.spend(in_.utxo_id, tx_id)
                consumed.append(in_.utxo_id)
                if out is not None:
                    addresses.update(out.addresses)
            for i, o in enumerate(base.outs):
                out = self.create(UTXO(tx_id, i, o.asset_id, o.out), self.pid, tx_id)
                emitted.append(out.uid)
                addresses.update(out.addresses)
        deposited = 0
        refunded = sum(output_amount(r.out) for r in self.refunds.get(tx_id, ()))  # an L1 balance paid back
        if isinstance(u, t.ImportTx):
            extra["src"] = u.source_chain
            for in_ in u.imported_inputs:
                rows.spend(in_.utxo_id, tx_id)
                consumed.append(in_.utxo_id)
        elif isinstance(u, t.ExportTx):
            extra["dst"] = u.destination_chain
            n = len(u.base.outs)
            for i, o in enumerate(u.exported_outputs):
                out = self.create(UTXO(tx_id, n + i, o.asset_id, o.out), u.destination_chain, tx_id)
                emitted.append(out.uid)
                addresses.update(out.addresses)
        elif isinstance(u, t.STAKER_TX_TYPES) or isinstance(u, t.AddSubnetValidatorTx):
            self.staker(pos, tx_id, u, emitted, addresses, extra)
        elif isinstance(u, t.RewardValidatorTx):
            extra["staker"] = u.tx_id
            self.reward(u.tx_id, tx_id, emitted, addresses)
        elif isinstance(u, t.RemoveSubnetValidatorTx):
            self.removals[(u.subnet_id, u.node_id)] = tx_id
        elif isinstance(u, t.CreateSubnetTx):
            self.put(self.sp.nb + pos, {"id": tx_id, "t": rows.time, "h": rows.height,
                                        "owner": owner_record(u.owner), "l1": None, "mgr": None})
            self.ch[self.sp.ni + tx_id] = pos
        elif isinstance(u, t.CreateChainTx):
            self.chain_row(pos, tx_id, u.subnet_id, u.chain_name, u.vm_id, u.genesis_data)
        elif isinstance(u, t.TransferSubnetOwnershipTx):
            self.update_subnet(u.subnet_id, {"owner": owner_record(u.owner)})
        elif isinstance(u, t.ConvertSubnetToL1Tx):
            self.update_subnet(u.subnet_id, {"l1": tx_id, "mgr": [u.chain_id, u.address]})
            changes = []
            for n, v in enumerate(u.validators):
                vid = acp77.subnet_validation_id(u.subnet_id, n)
                self.l1_created(pos + u16(n), vid, tx_id, u.subnet_id, v.node_id, v.signer.public_key,
                                v.signer.proof, v.remaining_balance_owner, v.deactivation_owner, v.weight, v.balance)
                changes.append((vid, v.balance))
                deposited += v.balance
            self.l1_txs.append((pos, changes))
        elif isinstance(u, t.RegisterL1ValidatorTx):
            reg = acp77.parse_register_l1_validator(
                parse_addressed_call(parse_signed_message(u.message).unsigned.payload).payload)
            self.l1_created(pos + u16(0), reg.validation_id, tx_id, reg.subnet_id, reg.node_id, reg.bls_public_key,
                            u.proof_of_possession, reg.remaining_balance_owner, reg.disable_owner, reg.weight,
                            u.balance)
            self.l1_txs.append((pos, [(reg.validation_id, u.balance)]))
            deposited = u.balance
        elif isinstance(u, t.SetL1ValidatorWeightTx):
            m = acp77.parse_l1_validator_weight(
                parse_addressed_call(parse_signed_message(u.message).unsigned.payload).payload)
            self.l1_txs.append((pos, [(m.validation_id, -refunded)]))
        elif isinstance(u, t.IncreaseL1ValidatorBalanceTx):
            self.l1_txs.append((pos, [(u.validation_id, u.balance)]))
            deposited = u.balance
        elif isinstance(u, t.DisableL1ValidatorTx):
            self.l1_txs.append((pos, [(u.validation_id, -refunded)]))
        for refund in self.refunds.get(tx_id, ()):
            out = self.create(refund, self.pid, tx_id)
            emitted.append(out.uid)
            addresses.update(out.addresses)
        if refunded:
            extra["refund"] = refunded
            rows.add("l1ref", refunded)
        if base is not None and rows.height:
            ins = list(base.ins) + list(getattr(u, "imported_inputs", ()))
            outs = list(u.all_outputs())
            rows.add("burn:" + self.pid.hex(), burned(ins, outs, self.avax, deposited))
        rows.add("l1dep", deposited)
        rows.tx(index, tx_id, type(u).__name__, consumed, emitted, addresses, self.block_id, extra)
        return tx_id

    # ------------------------------------------------------------------ staking

    def staker(self, pos: bytes, tx_id: bytes, u: Any, emitted: list[bytes], addresses: set[bytes],
               extra: dict[str, Any]) -> None:
        sp, rows = self.sp, self.rows
        y = self.chain.state.get_history(tx_id)
        start, end, weight = y["start"], y["end"], y["weight"]
        extra.update({"start": start, "end": end, "pot": y["potentialReward"]})
        owners: set[bytes] = set()
        n = len(u.base.outs)
        for i, o in enumerate(getattr(u, "stake_outs", ())):
            out = self.create(UTXO(tx_id, n + i, o.asset_id, o.out), self.pid, tx_id, stake=(start, end))
            emitted.append(out.uid)
            owners.update(out.addresses)
        node, subnet = u.validator.node_id, u.subnet_id
        t8 = u64(rows.time)
        if isinstance(u, t.DELEGATOR_TX_TYPES):
            owners.update(u.rewards_owner.addresses)
            vbi = self.batch.get(sp.sk + subnet + node)
            rec = {"tx": tx_id, "node": node, "subnet": subnet, "w": weight, "start": start, "end": end,
                   "ro": owner_record(u.rewards_owner), "pot": y["potentialReward"], "st": ACTIVE, "vbi": vbi}
            self.put(sp.sd + pos, rec)
            self.ch[sp.sx + tx_id] = b"d" + pos
            self.ch[sp.ds + bytes([ACTIVE]) + pos] = b""
            self.ch[sp.dn + node + pos] = b""
            for a in sorted(set(u.rewards_owner.addresses)):
                self.ch[sp.dr + a + pos] = b""
            if vbi is not None:
                self.delegation(vbi, weight, +1)
        else:
            permissioned = isinstance(u, t.AddSubnetValidatorTx)
            signer = getattr(u, "signer", None)
            pop = signer if isinstance(signer, ProofOfPossession) else None
            vro = None if permissioned else owner_record(u.validation_rewards_owner)
            dro = None if permissioned else owner_record(u.delegation_rewards_owner)
            rec = {"tx": tx_id, "node": node, "subnet": subnet, "w": weight, "start": start, "end": end,
                   "shares": None if permissioned else u.delegation_shares,
                   "pk": pop.public_key if pop else None, "pop": pop.proof if pop else None,
                   "vro": vro, "dro": dro, "pot": y["potentialReward"], "st": ACTIVE,
                   "dn": 0, "dw": 0, "an": 0, "aw": 0, "facc": 0}
            self.put(sp.sv + pos, rec)
            self.ch[sp.sx + tx_id] = b"v" + pos
            self.ch[sp.sk + subnet + node] = pos
            self.ch[sp.vs + bytes([ACTIVE]) + pos] = b""
            self.ch[sp.vS + subnet + pos] = b""
            self.ch[sp.vn + node + pos] = b""
            self.ch[sp.ve + u64(end) + pos] = b""
            if not permissioned:
                self.ch[sp.vf + u32(u.delegation_shares) + pos] = b""
                if subnet == PRIMARY:
                    self.ch[sp.vc + u64(capacity(self.chain, rec)) + pos] = b""
                reward_owners = set(vro[1]) | set(dro[1])
                owners.update(reward_owners)
                for a in sorted(reward_owners):
                    self.ch[sp.vr + a + pos] = b""
        addresses.update(owners)
        for a in sorted(owners):
            self.ch[sp.ts + a + t8 + pos] = b""

    def delegation(self, vbi: bytes, weight: int, sign: int, fee: int = 0) -> None:
        """A delegator of validator `vbi` started (sign +1) or ended (-1, paying the validator `fee`)."""
        sp = self.sp
        rec = self.get(sp.sv + vbi)
        primary_active = rec["subnet"] == PRIMARY and rec["st"] == ACTIVE and rec["shares"] is not None
        if primary_active:
            self.ch[sp.vc + u64(capacity(self.chain, rec)) + vbi] = None
        if sign > 0:
            rec["dn"] += 1
            rec["dw"] += weight
        rec["an"] += sign
        rec["aw"] += sign * weight
        rec["facc"] += fee
        if primary_active:
            self.ch[sp.vc + u64(capacity(self.chain, rec)) + vbi] = b""
        self.put(sp.sv + vbi, rec)

    def reward(self, staker: bytes, reward_tx: bytes, emitted: list[bytes], addresses: set[bytes]) -> None:
        sp, rows = self.sp, self.rows
        found = self.batch.get(sp.sx + staker)
        if found is None:
            return
        kind, sbi = found[:1], found[1:]
        rec = self.get((sp.sv if kind == b"v" else sp.sd) + sbi)
        y = self.chain.state.get_history(staker)
        validation_first = y["rewardAmount"] > 0
        t8 = u64(rows.time)
        for n, raw in enumerate(self.chain.state.reward_utxos(staker)):
            utxo = decode_utxo(raw, t.P_REGISTRY)
            if kind == b"d":
                what = REWARD_DELEGATOR
            else:
                what = REWARD_VALIDATOR if n == 0 and validation_first else REWARD_FEE
            out = self.create(utxo, self.pid, reward_tx, reward=what)
            emitted.append(out.uid)
            addresses.update(out.addresses)
            rows.add("rewards", out.amount)
            value = pack([sbi, kind])
            for a in sorted(set(out.addresses)):
                self.ch[sp.rw + a + t8 + out.uid] = value
            self.ch[sp.rn + rec["node"] + t8 + out.uid] = value

    def ended(self, staker: bytes) -> None:
        sp = self.sp
        found = self.batch.get(sp.sx + staker)
        if found is None:
            return
        kind, sbi = found[:1], found[1:]
        y = self.chain.state.get_history(staker)
        status = COMPLETED if y["status"] == "completed" else REMOVED
        if kind == b"d":
            rec = self.get(sp.sd + sbi)
            self.ch[sp.ds + bytes([rec["st"]]) + sbi] = None
            self.ch[sp.ds + bytes([status]) + sbi] = b""
            rec.update({"st": status, "rtx": y["rewardTxID"], "net": y["rewardAmount"],
                        "gross": y["rewardAmount"] + y["delegateeReward"], "et": self.rows.time})
            self.put(sp.sd + sbi, rec)
            if rec["vbi"] is not None:
                self.delegation(rec["vbi"], rec["w"], -1, y["delegateeReward"])
            return
        rec = self.get(sp.sv + sbi)
        if rec["subnet"] == PRIMARY and rec["shares"] is not None:
            self.ch[sp.vc + u64(capacity(self.chain, rec)) + sbi] = None
        self.ch[sp.vs + bytes([rec["st"]]) + sbi] = None
        self.ch[sp.vs + bytes([status]) + sbi] = b""
        if self.batch.get(sp.sk + rec["subnet"] + rec["node"]) == sbi:
            self.ch[sp.sk + rec["subnet"] + rec["node"]] = None
        rec.update({"st": status, "rtx": y["rewardTxID"], "rew": y["rewardAmount"], "frew": y["delegateeReward"],
                    "et": self.rows.time})
        if status == REMOVED:
            rec["rm"] = self.removals.get((rec["subnet"], rec["node"]))
        self.put(sp.sv + sbi, rec)

    # ------------------------------------------------------------------ subnets, chains, L1

    def chain_row(self, pos: bytes, chain_id: bytes, subnet: bytes, name: str, vm_id: bytes, genesis: bytes) -> None:
        sp = self.sp
        self.put(sp.cb + pos, {"id": chain_id, "subnet": subnet, "name": name, "vm": vm_id, "t": self.rows.time,
                               "h": self.rows.height, "g": genesis})
        self.ch[sp.ci + chain_id] = pos
        self.ch[sp.cs + subnet + pos] = chain_id

    def update_subnet(self, subnet: bytes, fields: dict[str, Any]) -> None:
        pos = self.batch.get(self.sp.ni + subnet)
        if pos is None:
            return
        rec = self.get(self.sp.nb + pos)
        rec.update(fields)
        self.put(self.sp.nb + pos, rec)

    def l1_created(self, key: bytes, vid: bytes, tx_id: bytes, subnet: bytes, node: bytes, pk: bytes, pop: bytes,
                   remaining_owner: Any, disable_owner: Any, weight: int, balance: int) -> None:
        sp = self.sp
        self.put(sp.lv + vid, {"subnet": subnet, "node": node, "pk": pk, "pop": pop,
                               "rbo": owner_record(remaining_owner), "do": owner_record(disable_owner),
                               "t": self.rows.time, "tx": tx_id, "key": key, "w": weight, "end": 0, "acc": 0,
                               "bal0": balance})
        self.ch[sp.lb + key] = vid
        self.ch[sp.lN + node + key] = vid
        self.ch[sp.lS + subnet + key] = vid

    def l1_records(self, written: list, acc: int) -> None:
        sp = self.sp
        for vid, record in written:
            rec = self.get(sp.lv + vid)
            if rec is None:
                continue
            v = L1Validator.from_record(record)
            rec.update({"w": v.weight, "end": v.end_accumulated_fee, "acc": acc})
            self.put(sp.lv + vid, rec)
            active = v.weight > 0 and v.end_accumulated_fee != 0
            self.ch[sp.la + rec["key"]] = vid if active else None
        t8 = u64(self.rows.time)
        for pos, changes in self.l1_txs:
            details = []
            for vid, change in changes:
                rec = self.get(sp.lv + vid)
                if rec is None:
                    continue
                remaining = rec["end"] - rec["acc"] if rec["end"] else 0
                details.append([vid, rec["node"], rec["subnet"], rec["w"], max(0, remaining), change])
                self.ch[sp.tl + vid + t8 + pos] = b""
            txrec = self.get(sp.tx + pos)
            txrec["l1"] = details
            self.put(sp.tx + pos, txrec)

    # ------------------------------------------------------------------ genesis

    def genesis(self) -> list[bytes]:
        g = self.chain.genesis
        sp, rows = self.sp, self.rows
        self.put(sp.nb + bi(0, 0), {"id": PRIMARY, "t": rows.time, "h": 0, "owner": [0, [], 0], "l1": None,
                                    "mgr": None})
        self.ch[sp.ni + PRIMARY] = bi(0, 0)
        self.chain_row(bi(0, 0), self.pid, PRIMARY, "P-Chain", PLATFORM_VM_ID, b"")  # X and C: their txs below
        for entry in g.p_utxos:
            self.create(entry.utxo, self.pid, ZERO_ID)
        tx_ids = []
        for i, v in enumerate(g.validators):
            tx_ids.append(self.tx(i, t.parse_tx(v.tx_bytes), v.tx_id))
        for j, c in enumerate(g.chains):
            tx_ids.append(self.tx(len(g.validators) + j, t.parse_tx(c.tx_bytes), c.chain_id))
        return tx_ids


def index_block(chain: Any, row: dict, batch: Batch) -> int:
    height = row["height"]
    blk = pblocks.decode_block(row["b"])
    time = blk.time if height else chain.genesis.start_time
    b = _Block(chain, row, batch, time)
    _, _, _, ended, written, refunds, accrued = row["facts"]
    for raw in refunds:
        utxo = decode_utxo(raw, t.P_REGISTRY)
        b.refunds.setdefault(utxo.tx_id, []).append(utxo)
    if height == 0:
        tx_ids = b.genesis()
    else:
        txs = list(blk.txs) + ([blk.proposal_tx] if blk.proposal_tx is not None else [])
        tx_ids = [b.tx(i, stx) for i, stx in enumerate(txs)]
    if written or b.l1_txs:
        b.l1_records(written, accrued)
    for staker in ended:
        b.ended(staker)
    b.rows.block(row["id"], blk.parent_id, BLOCK_TYPES[blk.type_id], tx_ids, len(row["b"]))
    return height

