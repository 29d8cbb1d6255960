"""primary_network_address_activity (P- and X-Chain) and validator_activity (P-Chain), read from
the index rows an accepted block staged in its batch (simnode/index/primary/layout.py), so the
events say exactly what the Data API will list for the block.

address activity (`keys`: P-/X- addresses, with or without the chain prefix):
  balance_change       a tx of the block lists a watched address (owner of an output or of a
                       consumed UTXO); the event carries the address' AVAX balances by type after it
  balance_threshold    the balance of `balanceThresholdFilter.balanceType` fell from at or above
                       `balanceThreshold` to below it in the block
  reward_distribution  a reward UTXO paid to a watched address
validator activity (`keyType` nodeId or subnetId, one key):
  validator_stake, delegator_stake       a validation / delegation of the node (subnet) started
  reward_distribution                    a reward UTXO of the node's (subnet's) staker
  l1_validator_balance_increased, l1_validator_disabled, l1_validator_removed,
  l1_validator_balance_threshold         an L1 validator record of the node (subnet) changed so
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import orjson

from ..formats.address import format_address
from ..formats.ids import id_to_str, node_id_to_str
from ..index.primary.layout import UA_UNSPENT, UO, Out, space
from ..store import unpack
from .records import PRIMARY_ADDRESS_ACTIVITY, VALIDATOR_ACTIVITY, Webhook, message_id

Reader = Callable[[bytes], bytes | None]
Scan = Callable[[bytes], Iterable[tuple[bytes, bytes]]]
Emit = Callable[[Webhook, str, dict[str, Any], str], None]


class BlockView:
    """One accepted block of a P- or X-Chain, seen through the rows its batch gained."""

    def __init__(self, chain_id: bytes, alias: str, hrp: str, avax: bytes, new: dict[bytes, bytes | None],
                 before: Reader, after: Reader, scan_before: Scan, scan_after: Scan) -> None:
        self.chain_id, self.alias, self.hrp, self.avax = chain_id, alias, hrp, avax
        self.sp = space(chain_id)
        self.new = new
        self.before, self.after = before, after
        self.scan_before, self.scan_after = scan_before, scan_after
        key, raw = next(((k, v) for k, v in new.items() if k.startswith(self.sp.tb) and v is not None),
                        (self.sp.tb + bytes(8), None))
        block = unpack(raw) if raw is not None else None
        self.height = int.from_bytes(key[len(self.sp.tb):], "big")
        self.block_id: bytes = block[0] if block is not None else b""
        self.time: int = block[2] if block is not None else 0

    def keys(self, prefix: bytes) -> list[bytes]:
        """The key tails under `prefix` this block wrote."""
        return sorted(k[len(prefix):] for k, v in self.new.items() if k.startswith(prefix) and v is not None)

    def address(self, a: bytes) -> str:
        return format_address(self.alias, self.hrp, a)

    def tx(self, pos: bytes) -> dict[str, Any]:
        return unpack(_row(self.after, self.sp.tx + pos))

    def out(self, uid: bytes) -> Out:
        return Out.from_record(uid, unpack(_row(self.after, UO + uid)))

    def balances(self, addresses: list[bytes], after: bool = True) -> dict[str, int]:
        """AVAX by balance type (the Data API's names) of `addresses` together, at the block's time."""
        scan, read = (self.scan_after, self.after) if after else (self.scan_before, self.before)
        totals: dict[str, int] = {}
        seen: set[bytes] = set()
        for a in addresses:
            prefix = UA_UNSPENT + self.chain_id + a
            for key, _ in scan(prefix):
                uid = key[len(prefix) + 8:]
                raw = read(UO + uid)
                if uid in seen or raw is None:
                    continue
                seen.add(uid)
                out = Out.from_record(uid, unpack(raw))
                if out.asset == self.avax and out.amount:
                    kind = self.balance_type(out)
                    totals[kind] = totals.get(kind, 0) + out.amount
        return totals

    def balance_type(self, out: Out) -> str:
        now = self.time
        if out.created_on != self.chain_id:
            return "atomicMemoryLocked" if out.locktime > now else "atomicMemoryUnlocked"
        if self.alias == "X":
            return "locked" if out.locktime > now else "unlocked"
        if out.stake is not None:
            if out.stake[0] > now:
                return "pendingStaked"
            return "lockedStaked" if out.stakeable > now else "unlockedStaked"
        if out.stakeable > now:
            return "lockedStakeable"
        return "lockedPlatform" if out.locktime > now else "unlockedUnstaked"

    def base(self, sub_event: str) -> dict[str, Any]:
        return {"eventType": sub_event, "blockchainId": id_to_str(self.chain_id), "blockHeight": str(self.height),
                "blockHash": id_to_str(self.block_id), "blockTimestamp": self.time}


def address_events(view: BlockView, hooks: list[tuple[Webhook, set[bytes]]], emit: Emit) -> None:
    """Every primary_network_address_activity message of the block."""
    ta = view.sp.ta
    by_tx: dict[bytes, set[bytes]] = {}
    for tail in view.keys(ta):
        by_tx.setdefault(tail[-10:], set()).add(tail[:20])
    rewards = view.keys(view.sp.rw)
    for w, watched in hooks:
        subs = set(w.metadata.get("subEvents", {}).get("addressActivitySubEvents") or ())
        touched_all: list[bytes] = []
        last_tx = b""
        for pos, addresses in sorted(by_tx.items()):
            mine = sorted(addresses & watched)
            if not mine:
                continue
            touched_all.extend(a for a in mine if a not in touched_all)
            rec = view.tx(pos)
            last_tx = rec["id"]
            if "balance_change" in subs:
                event = {**view.base("balance_change"), "txHash": id_to_str(rec["id"]), "txType": rec["type"],
                         "addresses": [view.address(a) for a in mine],
                         "balances": {k: str(v) for k, v in sorted(view.balances(mine).items())}}
                emit(w, message_id(w.id, view.chain_id, rec["id"], "balance_change"), event,
                     f"balance_change tx {id_to_str(rec['id'])}")
        threshold = w.metadata.get("balanceThresholdFilter")
        if "balance_threshold" in subs and threshold and touched_all:
            kind, limit = threshold["balanceType"], int(threshold["balanceThreshold"])
            for a in touched_all:
                was = view.balances([a], after=False).get(kind, 0)
                now = view.balances([a]).get(kind, 0)
                if was >= limit > now:
                    event = {**view.base("balance_threshold"), "txHash": id_to_str(last_tx),
                             "addresses": [view.address(a)], "balanceType": kind, "balanceThreshold": str(limit),
                             "balance": str(now)}
                    emit(w, message_id(w.id, view.chain_id, view.block_id, a, "balance_threshold"), event,
                         f"balance_threshold {view.address(a)}")
        if "reward_distribution" in subs:
            for tail in rewards:
                a, uid = tail[:20], tail[-32:]
                if a in watched:
                    emit(w, message_id(w.id, view.chain_id, uid, a, "reward_distribution"),
                         reward_event(view, uid, [a]), f"reward_distribution {view.address(a)}")


def reward_event(view: BlockView, uid: bytes, addresses: list[bytes]) -> dict[str, Any]:
    out = view.out(uid)
    return {**view.base("reward_distribution"), "txHash": id_to_str(out.tx_hash),
            "stakingTxHash": id_to_str(out.tx_id), "rewardType": out.reward,
            "addresses": [view.address(a) for a in (addresses or out.addresses)], "utxoId": id_to_str(uid),
            "amount": str(out.amount), "assetId": id_to_str(out.asset)}


def validator_events(view: BlockView, hooks: list[Webhook], emit: Emit) -> None:
    """Every validator_activity message of the block (the P-Chain's)."""
    sp = view.sp
    starts = [(b"validator_stake", sp.sv, tail) for tail in view.keys(sp.vn)]
    starts += [(b"delegator_stake", sp.sd, tail) for tail in view.keys(sp.dn)]
    rewards = view.keys(sp.rn)
    l1 = [(k[len(sp.lv):], v) for k, v in view.new.items() if k.startswith(sp.lv) and v is not None]
    for w in hooks:
        md = w.metadata
        subs = set(md.get("subEvents", {}).get("validatorActivitySubEvents") or ())
        for kind, table, tail in starts:
            sub = kind.decode()
            pos = tail[-10:]
            rec = unpack(_row(view.after, table + pos))
            if sub in subs and _watches_validator(md, rec["node"], rec["subnet"]):
                event = {**view.base(sub), "txHash": id_to_str(rec["tx"]), "nodeId": node_id_to_str(rec["node"]),
                         "subnetId": id_to_str(rec["subnet"]), "weight": str(rec["w"]),
                         "startTimestamp": rec["start"], "endTimestamp": rec["end"]}
                emit(w, message_id(w.id, view.chain_id, rec["tx"], sub), event, f"{sub} {id_to_str(rec['tx'])}")
        if "reward_distribution" in subs:
            for tail in rewards:
                node, uid = tail[:20], tail[-32:]
                sbi, skind = unpack(_row(view.after, sp.rn + tail))
                staker = unpack(_row(view.after, (sp.sv if skind == b"v" else sp.sd) + sbi))
                if _watches_validator(md, node, staker["subnet"]):
                    event = {**reward_event(view, uid, []), "nodeId": node_id_to_str(node),
                             "subnetId": id_to_str(staker["subnet"])}
                    emit(w, message_id(w.id, view.chain_id, uid, "reward_distribution"), event,
                         f"reward_distribution {node_id_to_str(node)}")
        for vid, raw in l1:
            new = unpack(raw)
            if not _watches_validator(md, new["node"], new["subnet"]):
                continue
            old_raw = view.before(sp.lv + vid)
            old = unpack(old_raw) if old_raw is not None else None
            for sub in l1_changes(old, new, md.get("l1ValidatorFeeBalanceThreshold")):
                if sub in subs:
                    event = {**view.base(sub), "validationId": id_to_str(vid), "nodeId": node_id_to_str(new["node"]),
                             "subnetId": id_to_str(new["subnet"]), "weight": str(new["w"]),
                             "remainingBalance": str(remaining(new))}
                    emit(w, message_id(w.id, view.chain_id, view.block_id, vid, sub), event,
                         f"{sub} {id_to_str(vid)}")


def _row(read: Reader, key: bytes) -> bytes:
    """A row the accepted block wrote (its index entries name it): missing is a bug."""
    value = read(key)
    if value is None:
        raise KeyError(f"no index row {key.hex()}")
    return value


def remaining(rec: dict[str, Any]) -> int:
    return max(0, rec["end"] - rec["acc"]) if rec["end"] else 0


def l1_changes(old: dict[str, Any] | None, new: dict[str, Any], threshold: str | None) -> list[str]:
    if old is None:
        return []
    out = []
    if new["end"] and old["end"] and new["end"] > old["end"]:
        out.append("l1_validator_balance_increased")
    if old["end"] and not new["end"] and new["w"]:
        out.append("l1_validator_disabled")
    if old["w"] and not new["w"]:
        out.append("l1_validator_removed")
    if threshold is not None and remaining(old) >= int(threshold) > remaining(new):
        out.append("l1_validator_balance_threshold")
    return out


def primary_body(w: Webhook, mid: str, event: dict[str, Any]) -> bytes:
    event_type = PRIMARY_ADDRESS_ACTIVITY if w.event_type == PRIMARY_ADDRESS_ACTIVITY else VALIDATOR_ACTIVITY
    return orjson.dumps({"webhookId": w.id, "eventType": event_type, "messageId": mid, "event": event})


def _watches_validator(md: dict[str, Any], node: bytes, subnet: bytes) -> bool:
    """A validator_activity webhook's filter: its one key (a node ID or a subnet ID), narrowed by
    the other kind's list when given."""
    key = md["keys"][0]
    if md.get("keyType") == "nodeId":
        return node_id_to_str(node) == key and (not md.get("subnetIds") or id_to_str(subnet) in md["subnetIds"])
    return id_to_str(subnet) == key and (not md.get("nodeIds") or node_id_to_str(node) in md["nodeIds"])
