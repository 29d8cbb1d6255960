"""`platform.*` JSON-RPC methods (node-api.md §8): parse params, ask the VM, format like AvalancheGo."""

from __future__ import annotations

import random
from typing import Any

from simnode.rpc.jsonrpc import GorillaService, RPCError
from simnode.codec import UTXO, OutputOwners, decode_utxo, encode_utxo
from simnode.codec.stakeable import StakeableLockOut
from simnode.formats import (
    FormatError,
    decode_bytes,
    encode_bytes,
    format_address,
    format_float4,
    format_rfc3339,
    id_from_str,
    id_to_str,
    node_id_from_str,
    node_id_to_str,
    normalize_encoding,
    parse_uint,
    short_id_to_str,
)
from simnode.vms import txjson, utxo_api
from simnode.vms.chain import lookup_chain
from simnode.rpc.params import go_quote

from . import blocks
from . import txs as t
from .executor import pchain_owner_from_bytes
from .state import K_UTXO, PRIMARY, PRIO_PRIMARY_VALIDATOR, PRIO_SUBNET_PERMISSIONED
from .vm import IssueError, PlatformVM, l1_balance

MAX_GET_STAKE_ADDRS = 256
ZERO_ID_STR = "11111111111111111111111111111111LpoYY"


def _s(n: int) -> str:
    return str(n)


def _id_arg(params: dict, key: str, default: bytes = PRIMARY) -> bytes:
    v = params.get(key)
    if v is None:
        return default
    if not isinstance(v, str) or v == "":
        raise RPCError(
            "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
            "See documentation for example calls")
    try:
        return id_from_str(v)
    except FormatError:
        raise RPCError(
            "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
            "See documentation for example calls") from None


def _encoding(params: dict) -> str:
    try:
        return normalize_encoding(params.get("encoding"))
    except FormatError as e:
        raise RPCError(str(e)) from None


def build_endpoints(vm: PlatformVM) -> dict[str, Any]:
    return {"": GorillaService({"platform": build_service(vm)})}


def build_service(vm: PlatformVM) -> dict[str, Any]:
    hrp = vm.hrp

    def addr(a: bytes) -> str:
        return format_address("P", hrp, a)

    def owner_json(o: OutputOwners) -> dict:
        return {"locktime": _s(o.locktime), "threshold": _s(o.threshold), "addresses": [addr(a) for a in o.addresses]}

    def touching(ids_of: Any, source: bytes | None = None) -> Any:
        """`ids_of` after the address is touched (on a fork: its upstream UTXOs brought in)."""
        def ids(address: bytes, after: bytes | None) -> Any:
            vm.touch_addresses((address,), source)
            return ids_of(address, after)
        return ids

    def utxos_from(source_chain: bytes) -> utxo_api.UTXOSet:
        if source_chain != PRIMARY:
            shared = utxo_api.shared_memory_utxos(vm.ctx.store, PRIMARY, source_chain)
            return utxo_api.UTXOSet(touching(shared.ids_of, source_chain), shared.get)
        return utxo_api.UTXOSet(touching(vm.state.utxo_ids_of), lambda utxo_id: vm.state.get(K_UTXO + utxo_id))

    utxo_service = utxo_api.UTXOService(
        chain_id=PRIMARY, alias="P", hrp=hrp, lookup_chain=lambda ref: lookup_chain(vm.ctx, ref),
        utxos_from=utxos_from, source_required=False,
        encode_error="couldn't encode UTXO as {encoding}: {error}",
    )

    def parse_addrs(items: Any) -> list[bytes]:
        out = []
        for a in items or []:
            try:
                out.append(utxo_service.parse_address(a))
            except FormatError as e:
                raise RPCError(f"couldn't parse address {go_quote(a)}: {e}") from None
        return out

    def chain_id_of(ref: str) -> bytes:
        if ref in ("P", "platform"):
            return PRIMARY
        if ref in ("X", "avm"):
            return vm.x_chain_id
        if ref in ("C", "evm"):
            return vm.c_chain_id
        try:
            return id_from_str(ref)
        except FormatError:
            raise FormatError(f"there is no ID with alias: {ref}") from None

    # ------------------------------------------------------------------ basics

    def get_height(p: dict) -> dict:
        return {"height": _s(vm.height)}

    def get_timestamp(p: dict) -> dict:
        return {"timestamp": format_rfc3339(vm.timestamp)}

    def get_fee_config(p: dict) -> dict:
        return vm.fee_config.to_json()

    def get_fee_state(p: dict) -> dict:
        m = vm.state.meta
        from .fees import calculate_price

        return {"capacity": m.fee_capacity, "excess": m.fee_excess,
                "price": calculate_price(vm.fee_config.min_price, m.fee_excess,
                                         vm.fee_config.excess_conversion_constant),
                "timestamp": format_rfc3339(m.timestamp)}

    def get_validator_fee_config(p: dict) -> dict:
        return vm.validator_fee_config.to_json()

    def get_validator_fee_state(p: dict) -> dict:
        from .fees import calculate_price

        m = vm.state.meta
        c = vm.validator_fee_config
        return {"excess": m.l1_excess, "price": calculate_price(c.min_price, m.l1_excess, c.excess_conversion_constant),
                "timestamp": format_rfc3339(m.timestamp)}

    def get_staking_asset_id(p: dict) -> dict:
        subnet = _id_arg(p, "subnetID")
        if subnet == PRIMARY:
            return {"assetID": id_to_str(vm.avax_asset_id)}
        if subnet not in vm.state.subnets:
            raise RPCError(f"failed fetching subnet transformation for {id_to_str(subnet)}: not found")
        raise RPCError(f"failed fetching subnet transformation for {id_to_str(subnet)}: not found")

    def get_current_supply(p: dict) -> dict:
        subnet = _id_arg(p, "subnetID")
        if subnet != PRIMARY and subnet not in vm.state.meta.supply:
            raise RPCError("fetching current supply failed: not found")
        return {"supply": _s(vm.current_supply(subnet)), "height": _s(vm.height)}

    # ------------------------------------------------------------------ txs and blocks

    def issue_tx(p: dict) -> dict:
        enc = _encoding(p)
        try:
            raw = decode_bytes(p.get("tx") or "", enc)
        except FormatError as e:
            raise RPCError(f"problem decoding transaction: {e}") from None
        try:
            tx_id = vm.issue_tx(raw)
        except IssueError as e:
            raise RPCError(str(e)) from None
        return {"txID": id_to_str(tx_id)}

    def get_tx(p: dict) -> dict:
        tx_id = _id_arg(p, "txID")
        enc = _encoding(p)
        rec = vm.state.get_tx(tx_id)
        if rec is None and vm.fork is not None:  # on a fork, the upstream's history
            return vm.fork.history("platform.getTx", dict(p))
        if rec is None:
            raise RPCError("couldn't get tx: not found")
        if enc == "json":
            return {"tx": tx_json(t.parse_tx(rec[0]), addr), "encoding": "json"}
        return {"tx": encode_bytes(rec[0], enc), "encoding": enc}

    def get_tx_status(p: dict) -> dict:
        tx_id = _id_arg(p, "txID")
        status, reason = vm.tx_status(tx_id)
        if status == "Unknown" and vm.fork is not None:  # on a fork, the upstream's history
            return vm.fork.history("platform.getTxStatus", {"txID": id_to_str(tx_id)})
        out = {"status": status}
        if reason:
            out["reason"] = reason
        return out

    def _block_reply(raw: bytes, enc: str) -> dict:
        if enc == "json":
            return {"block": block_json(raw, addr), "encoding": "json"}
        return {"block": encode_bytes(raw, enc), "encoding": enc}

    def get_block(p: dict) -> dict:
        bid = _id_arg(p, "blockID")
        enc = _encoding(p)
        raw = vm.state.block_by_id(bid)
        if raw is None and vm.fork is not None:  # on a fork, the upstream's history
            return vm.fork.history("platform.getBlock", dict(p))
        if raw is None:
            raise RPCError(f"couldn't get block with id {id_to_str(bid)}: not found")
        return _block_reply(raw, enc)

    def get_block_by_height(p: dict) -> dict:
        try:
            h = parse_uint(p.get("height"))
        except FormatError:
            raise RPCError("couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
                           "See documentation for example calls") from None
        enc = _encoding(p)
        bid = vm.state.block_id_at(h)
        if bid is None and vm.fork is not None and h < vm.height:  # on a fork, the upstream's history
            return vm.fork.history("platform.getBlockByHeight", dict(p))
        if bid is None:
            raise RPCError(f"couldn't get block at height {h}: not found")
        return _block_reply(vm.state.block_by_id(bid), enc)

    # ------------------------------------------------------------------ UTXOs and balances

    def get_utxos(p: dict) -> dict:
        return utxo_api.get_utxos(utxo_service, p)

    def all_utxos(addrs: list[bytes]) -> list[UTXO]:
        vm.touch_addresses(addrs)
        seen = set()
        out = []
        for a in sorted(set(addrs)):
            for uid in vm.state.utxo_ids_of(a):
                if uid in seen:
                    continue
                seen.add(uid)
                u = vm.state.get_utxo(uid)
                if u is not None:
                    out.append(u)
        return out

    def get_balance(p: dict) -> dict:
        addrs = parse_addrs(p.get("addresses"))
        now = vm.clock.now()
        unlocked: dict[bytes, int] = {}
        ls: dict[bytes, int] = {}
        lns: dict[bytes, int] = {}
        utxo_ids = []
        for u in all_utxos(addrs):
            out = u.out
            a = u.asset_id
            if isinstance(out, StakeableLockOut):
                inner = out.out
                if inner.owners.locktime > now:
                    lns[a] = lns.get(a, 0) + out.amount
                elif out.locktime <= now:
                    unlocked[a] = unlocked.get(a, 0) + out.amount
                else:
                    ls[a] = ls.get(a, 0) + out.amount
            elif hasattr(out, "owners"):
                if out.owners.locktime <= now:
                    unlocked[a] = unlocked.get(a, 0) + out.amount
                else:
                    lns[a] = lns.get(a, 0) + out.amount
            else:
                continue
            utxo_ids.append({"txID": id_to_str(u.tx_id), "outputIndex": u.output_index})
        bal: dict[bytes, int] = dict(ls)
        for d in (lns, unlocked):
            for k, v in d.items():
                bal[k] = bal.get(k, 0) + v

        def m(d: dict) -> dict:
            return {id_to_str(k): _s(v) for k, v in d.items()}

        av = vm.avax_asset_id
        return {"balance": _s(bal.get(av, 0)), "unlocked": _s(unlocked.get(av, 0)),
                "lockedStakeable": _s(ls.get(av, 0)), "lockedNotStakeable": _s(lns.get(av, 0)),
                "balances": m(bal), "unlockeds": m(unlocked), "lockedStakeables": m(ls),
                "lockedNotStakeables": m(lns), "utxoIDs": utxo_ids or None}

    def get_reward_utxos(p: dict) -> dict:
        tx_id = _id_arg(p, "txID")
        enc = _encoding(p)
        if enc == "json":
            raise RPCError("couldn't encode utxo as json: unsupported encoding in method")
        raws = vm.state.reward_utxos(tx_id)
        return {"numFetched": _s(len(raws)), "utxos": [encode_bytes(r, enc) for r in raws], "encoding": enc}

    def get_stake(p: dict) -> dict:
        addresses = p.get("addresses") or []
        if len(addresses) > MAX_GET_STAKE_ADDRS:
            raise RPCError(f"{len(addresses)} addresses provided but this method can take at most "
                           f"{MAX_GET_STAKE_ADDRS}")
        addrs = set(parse_addrs(addresses))
        enc = _encoding(p)
        validators_only = bool(p.get("validatorsOnly"))
        total = 0
        outs: list[str] = []
        for s in sorted(vm.state.stakers.values(), key=lambda s: (s.end, s.priority, s.tx_id)):
            if s.subnet_id != PRIMARY or (validators_only and s.priority != PRIO_PRIMARY_VALIDATOR):
                continue
            tx = t.parse_tx(vm.state.get_tx(s.tx_id)[0]).unsigned
            for o in tx.stake_outs:
                inner = o.out.out if isinstance(o.out, StakeableLockOut) else o.out
                if any(a in addrs for a in inner.owners.addresses):
                    total += inner.amount
                    outs.append(encode_bytes(t.P_REGISTRY.marshal(o, typed=False), enc))
        return {"staked": _s(total), "stakeds": {id_to_str(vm.avax_asset_id): _s(total)} if total else {},
                "stakedOutputs": outs, "encoding": enc}

    # ------------------------------------------------------------------ validators

    def get_min_stake(p: dict) -> dict:
        subnet = _id_arg(p, "subnetID")
        if subnet != PRIMARY:
            raise RPCError(f"failed fetching subnet transformation for {id_to_str(subnet)}: not found")
        return {"minValidatorStake": _s(vm.staking.min_validator_stake),
                "minDelegatorStake": _s(vm.staking.min_delegator_stake)}

    def get_total_stake(p: dict) -> dict:
        subnet = _id_arg(p, "subnetID")
        w = sum(e[0] for e in vm.state.vset.get(subnet, {}).values())
        return {"stake": _s(w), "weight": _s(w)}

    def get_current_validators(p: dict) -> dict:
        subnet = _id_arg(p, "subnetID")
        try:
            node_ids = {node_id_from_str(n) for n in (p.get("nodeIDs") or [])}
        except FormatError:
            raise RPCError("couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
                           "See documentation for example calls") from None
        sub = vm.state.subnets.get(subnet)
        if sub is not None and sub.conversion_id is not None:
            out = []
            for s in sorted((s for s in vm.state.stakers.values() if s.subnet_id == subnet),
                            key=lambda s: (s.end, s.priority, s.tx_id)):
                if node_ids and s.node_id not in node_ids:
                    continue
                out.append(staker_json(s))
            for v in sorted(vm.state.l1.values(), key=lambda v: v.validation_id):
                if v.subnet_id != subnet or (node_ids and v.node_id not in node_ids):
                    continue
                out.append(l1_json(v))
            return {"validators": out}
        if not node_ids:
            targets = sorted((s for s in vm.state.stakers.values() if s.subnet_id == subnet),
                             key=lambda s: (s.end, s.priority, s.tx_id))
        else:
            targets = []
            for n in node_ids:
                v = vm.state.get_validator(subnet, n)
                if v is None:
                    continue
                targets.append(v)
                targets += sorted(vm.state.delegators_of(subnet, n), key=lambda s: (s.end, s.priority, s.tx_id))
        single = len(node_ids) == 1
        validators: list[dict] = []
        delegators: dict[bytes, list[dict]] = {}
        for s in targets:
            if s.priority == PRIO_SUBNET_PERMISSIONED:
                validators.append(staker_json(s))
            elif s.is_validator:
                tx = t.parse_tx(vm.state.get_tx(s.tx_id)[0]).unsigned
                d = staker_json(s)
                d["validationRewardOwner"] = owner_json(tx.validation_rewards_owner)
                d["delegationRewardOwner"] = owner_json(tx.delegation_rewards_owner)
                d["potentialReward"] = _s(s.potential_reward)
                d["accruedDelegateeReward"] = _s(s.delegatee_reward)
                d["delegationFee"] = format_float4(100 * s.delegation_shares / 1_000_000)
                if subnet == PRIMARY:
                    d["uptime"] = "100.0000"
                    d["connected"] = s.node_id == getattr(vm, "node_id", None) or True
                signer = vm.signer_of(s.tx_id, tx)
                if signer is not None:
                    d["signer"] = {"publicKey": "0x" + signer[0].hex(), "proofOfPossession": "0x" + signer[1].hex()}
                validators.append(d)
            else:
                d = staker_json(s)
                if single:
                    tx = t.parse_tx(vm.state.get_tx(s.tx_id)[0]).unsigned
                    d["rewardOwner"] = owner_json(tx.rewards_owner)
                d["potentialReward"] = _s(s.potential_reward)
                delegators.setdefault(s.node_id, []).append(d)
        for d in validators:
            if "potentialReward" not in d:
                continue
            ds = delegators.get(node_id_from_str(d["nodeID"]), [])
            d["delegatorCount"] = _s(len(ds))
            d["delegatorWeight"] = _s(sum(int(x["weight"]) for x in ds))
            if single:
                d["delegators"] = ds
        return {"validators": validators}

    def staker_json(s: Any) -> dict:
        return {"txID": id_to_str(s.tx_id), "startTime": _s(s.start), "endTime": _s(s.end), "weight": _s(s.weight),
                "nodeID": node_id_to_str(s.node_id)}

    def l1_json(v: Any) -> dict:
        rem = pchain_owner_from_bytes(v.remaining_balance_owner).as_output_owners()
        dea = pchain_owner_from_bytes(v.deactivation_owner).as_output_owners()
        return {"nodeID": node_id_to_str(v.node_id), "weight": _s(v.weight), "startTime": _s(v.start_time),
                "validationID": id_to_str(v.validation_id), "publicKey": "0x" + v.public_key.hex(),
                "remainingBalanceOwner": owner_json(rem), "deactivationOwner": owner_json(dea),
                "minNonce": _s(v.min_nonce), "balance": _s(l1_balance(vm, v))}

    def get_l1_validator(p: dict) -> dict:
        vid = _id_arg(p, "validationID")
        v = vm.state.l1.get(vid)
        if v is None:
            raise RPCError(f'fetching L1 validator "{id_to_str(vid)}" failed: not found')
        d = l1_json(v)
        d["subnetID"] = id_to_str(v.subnet_id)
        d["height"] = _s(vm.height)
        return d

    def query_height(p: dict) -> int:
        h = p.get("height")
        if h == "proposed":
            return vm.height
        try:
            height = parse_uint(h)
        except FormatError:
            raise RPCError("couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
                           "See documentation for example calls") from None
        if height > vm.height:
            raise RPCError(f"failed to get validator set at height {height}: requested height is greater "
                           f"than current height {vm.height}")
        return height

    def get_validators_at(p: dict) -> dict:
        height = query_height(p)
        subnet = _id_arg(p, "subnetID")
        if vm.fork is not None and height < vm.first_indexed_block - 1:  # before a fork: the upstream's
            return vm.fork.history("platform.getValidatorsAt", {"height": str(height), "subnetID": id_to_str(subnet)})
        vs = vm.state.validator_set_at(subnet, height)
        return {node_id_to_str(n): {"publicKey": ("0x" + pk.hex()) if pk else None, "weight": _s(w)}
                for n, (w, pk) in sorted(vs.items())}

    def get_all_validators_at(p: dict) -> dict:
        height = query_height(p)
        subnets = [PRIMARY] + sorted(vm.state.subnets)
        out = {}
        for sid in subnets:
            vs = vm.state.validator_set_at(sid, height)
            if not vs and sid != PRIMARY:
                continue
            merged: dict[bytes, list] = {}
            total = 0
            for n, (w, pk) in vs.items():
                total += w
                if pk is None:
                    continue
                e = merged.setdefault(pk, [0, []])
                e[0] += w
                e[1].append(n)
            from simnode.crypto import bls

            vals = sorted(merged.items(), key=lambda kv: bls.public_key_to_uncompressed(kv[0]))
            out[id_to_str(sid)] = {
                "validators": [{"publicKey": "0x" + pk.hex(), "weight": _s(w),
                                "nodeIDs": [node_id_to_str(n) for n in sorted(ns)]} for pk, (w, ns) in vals],
                "totalWeight": _s(total)}
        return {"validatorSets": out}

    def sample_validators(p: dict) -> dict:
        try:
            size = parse_uint(p.get("size"), 16)
        except FormatError:
            raise RPCError("couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
                           "See documentation for example calls") from None
        subnet = _id_arg(p, "subnetID")
        vs = vm.state.vset.get(subnet, {})
        if size > len(vs):
            raise RPCError(f"sampling {id_to_str(subnet)} errored with insufficient weight")
        nodes = sorted(vs)
        weights = [vs[n][0] for n in nodes]
        rng = random.Random(vm.height)
        chosen: list[bytes] = []
        pool = list(zip(nodes, weights))
        for _ in range(size):
            total = sum(w for _, w in pool)
            x = rng.randrange(total)
            for i, (n, w) in enumerate(pool):
                if x < w:
                    chosen.append(n)
                    pool.pop(i)
                    break
                x -= w
        return {"validators": [node_id_to_str(n) for n in sorted(chosen)]}

    # ------------------------------------------------------------------ subnets and chains

    def get_subnet(p: dict) -> dict:
        sid = _id_arg(p, "subnetID")
        if sid == PRIMARY:
            raise RPCError("the primary network isn't a subnet")
        sub = vm.state.subnets.get(sid)
        if sub is None:
            raise RPCError("not found")
        owner = t.P_REGISTRY.unmarshal_typed(b"\x00\x00" + sub.owner)
        conv = sub.conversion_id is not None
        return {"isPermissioned": not conv, "controlKeys": [addr(a) for a in owner.addresses],
                "threshold": _s(owner.threshold), "locktime": _s(owner.locktime),
                "subnetTransformationTxID": ZERO_ID_STR,
                "conversionID": id_to_str(sub.conversion_id) if conv else ZERO_ID_STR,
                "managerChainID": id_to_str(sub.manager_chain_id) if conv else ZERO_ID_STR,
                "managerAddress": ("0x" + sub.manager_address.hex()) if conv else None}

    def get_subnets(p: dict) -> dict:
        ids_ = p.get("ids")
        out = []

        def one(sid: bytes) -> dict | None:
            if sid == PRIMARY:
                return {"id": ZERO_ID_STR, "controlKeys": [], "threshold": "0"}
            sub = vm.state.subnets.get(sid)
            if sub is None:
                return None
            owner = t.P_REGISTRY.unmarshal_typed(b"\x00\x00" + sub.owner)
            return {"id": id_to_str(sid), "controlKeys": [addr(a) for a in owner.addresses],
                    "threshold": _s(owner.threshold)}

        if not ids_:
            for sid in sorted(vm.state.subnets):
                out.append(one(sid))
            out.append(one(PRIMARY))
        else:
            for s in ids_:
                try:
                    sid = id_from_str(s)
                except FormatError:
                    raise RPCError("couldn't unmarshal an argument. Ensure arguments are valid and properly "
                                   "formatted. See documentation for example calls") from None
                r = one(sid)
                if r is not None:
                    out.append(r)
        return {"subnets": out}

    def get_blockchains(p: dict) -> dict:
        chains = sorted(vm.state.chains.values(), key=lambda c: (c.subnet_id == PRIMARY, c.subnet_id, c.chain_id))
        return {"blockchains": [{"id": id_to_str(c.chain_id), "name": c.name, "subnetID": id_to_str(c.subnet_id),
                                 "vmID": id_to_str(c.vm_id)} for c in chains]}

    def get_blockchain_status(p: dict) -> dict:
        ref = p.get("blockchainID") or ""
        if ref == "":
            raise RPCError("argument 'blockchainID' not given")
        try:
            cid = chain_id_of(ref)
        except FormatError as e:
            raise RPCError(f'problem parsing blockchainID "{ref}": {e}') from None
        if cid == PRIMARY or cid in vm.ctx.chains:
            # a chain this node runs: "Validating" if the node validates its subnet, else "Syncing"
            rec = vm.state.chains.get(cid)
            if rec is None or rec.subnet_id == PRIMARY or vm.ctx.node_id in vm.state.vset.get(rec.subnet_id, {}):
                return {"status": "Validating"}
            return {"status": "Syncing"}
        if cid in vm.state.chains:
            return {"status": "Created"}  # recorded, not run here (other VM, or it failed to start)
        return {"status": "Unknown"}

    def validated_by(p: dict) -> dict:
        cid = _id_arg(p, "blockchainID")
        if cid == PRIMARY:
            return {"subnetID": ZERO_ID_STR}
        c = vm.state.chains.get(cid)
        if c is None:
            raise RPCError(f"problem retrieving blockchain {id_to_str(cid)}: not found")
        return {"subnetID": id_to_str(c.subnet_id)}

    def validates(p: dict) -> dict:
        sid = _id_arg(p, "subnetID")
        if sid != PRIMARY and sid not in vm.state.subnets:
            if vm.state.get_tx(sid) is None:
                raise RPCError(f'problem retrieving subnet "{id_to_str(sid)}": not found')
            raise RPCError(f'"{id_to_str(sid)}" is not a subnet')
        ids_ = [id_to_str(c.chain_id) for c in vm.state.chains.values() if c.subnet_id == sid]
        if sid == PRIMARY:
            ids_ = [id_to_str(PRIMARY)] + ids_
        return {"blockchainIDs": ids_}

    return {
        "getHeight": get_height, "getProposedHeight": get_height, "getTimestamp": get_timestamp,
        "getFeeConfig": get_fee_config, "getFeeState": get_fee_state,
        "getValidatorFeeConfig": get_validator_fee_config, "getValidatorFeeState": get_validator_fee_state,
        "getStakingAssetID": get_staking_asset_id, "getCurrentSupply": get_current_supply,
        "issueTx": issue_tx, "getTx": get_tx, "getTxStatus": get_tx_status, "getBlock": get_block,
        "getBlockByHeight": get_block_by_height, "getUTXOs": get_utxos, "getBalance": get_balance,
        "getRewardUTXOs": get_reward_utxos, "getStake": get_stake, "getMinStake": get_min_stake,
        "getTotalStake": get_total_stake, "getCurrentValidators": get_current_validators,
        "getL1Validator": get_l1_validator, "getValidatorsAt": get_validators_at,
        "getAllValidatorsAt": get_all_validators_at, "sampleValidators": sample_validators,
        "getSubnet": get_subnet, "getSubnets": get_subnets, "getBlockchains": get_blockchains,
        "getBlockchainStatus": get_blockchain_status, "validatedBy": validated_by, "validates": validates,
    }


# ---------------------------------------------------------------------- JSON forms (encoding=json)
#
# What AvalancheGo's json.Marshal of a txs.Tx / block.Block gives once InitCtx has run: struct fields in
# declaration order with their json tags (vms/platformvm/txs/*.go), embedded structs promoted, plain
# uint64/uint32 as numbers, shared pieces (BaseTx, outputs, inputs, owners, credentials) as in
# simnode.vms.txjson.


def _validator_json(v: t.Validator) -> dict[str, Any]:
    """txs.Validator: ``nodeID, start, end, weight``."""
    return {"nodeID": node_id_to_str(v.node_id), "start": v.start, "end": v.end, "weight": v.weight}


def _signer_json(s: Any) -> dict[str, Any]:
    """signer.Empty marshals as ``{}``; ProofOfPossession as ``{publicKey, proofOfPossession}`` in 0x hex."""
    if isinstance(s, t.ProofOfPossession):
        return {"publicKey": txjson.hex_bytes(s.public_key), "proofOfPossession": txjson.hex_bytes(s.proof)}
    return {}


def _pchain_owner_json(o: t.PChainOwner) -> dict[str, Any]:
    """message.PChainOwner: ``threshold, addresses`` (ids.ShortID, so bare cb58 — no InitCtx here)."""
    return {"threshold": o.threshold, "addresses": [short_id_to_str(a) for a in o.addresses]}


def _l1_validator_json(v: t.ConvertSubnetToL1Validator) -> dict[str, Any]:
    """txs.ConvertSubnetToL1Validator: nodeID is a JSONByteSlice (0x hex), not a NodeID."""
    return {"nodeID": txjson.hex_bytes(v.node_id), "weight": v.weight, "balance": v.balance,
            "signer": _signer_json(v.signer), "remainingBalanceOwner": _pchain_owner_json(v.remaining_balance_owner),
            "deactivationOwner": _pchain_owner_json(v.deactivation_owner)}


def unsigned_tx_json(tx: Any, addr: txjson.AddrFn) -> dict[str, Any]:
    """The ``unsignedTx`` object of any P tx type."""
    if isinstance(tx, t.RewardValidatorTx):
        return {"txID": id_to_str(tx.tx_id)}
    if not isinstance(tx, t.UnsignedTx):
        raise TypeError(f"no JSON form for {type(tx).__name__}")

    def owner(o: OutputOwners) -> dict[str, Any]:
        return txjson.owners_json(o, addr)

    def outs(os: tuple) -> list[dict[str, Any]]:
        return txjson.secp_outputs_json(os, addr)

    d = txjson.base_tx_json(tx.base, lambda o: txjson.secp_transferable_output_json(o, addr),
                            txjson.secp_transferable_input_json)
    if isinstance(tx, t.BaseTx):
        pass
    elif isinstance(tx, t.CreateSubnetTx):
        d["owner"] = owner(tx.owner)
    elif isinstance(tx, t.CreateChainTx):
        d.update({"subnetID": id_to_str(tx.subnet_id), "chainName": tx.chain_name, "vmID": id_to_str(tx.vm_id),
                  "fxIDs": [id_to_str(f) for f in tx.fx_ids],
                  # GenesisData is a plain []byte in Go: encoding/json writes base64
                  "genesisData": txjson.base64_bytes(tx.genesis_data),
                  "subnetAuthorization": txjson.sig_input_json(tx.subnet_auth)})
    elif isinstance(tx, t.ImportTx):
        d["sourceChain"] = id_to_str(tx.source_chain)
        d["importedInputs"] = txjson.secp_inputs_json(tx.imported_inputs)
    elif isinstance(tx, t.ExportTx):
        d["destinationChain"] = id_to_str(tx.destination_chain)
        d["exportedOutputs"] = outs(tx.exported_outputs)
    elif isinstance(tx, t.AddValidatorTx):
        d.update({"validator": _validator_json(tx.validator), "stake": outs(tx.stake_outs),
                  "rewardsOwner": owner(tx.rewards_owner), "shares": tx.delegation_shares})
    elif isinstance(tx, t.AddDelegatorTx):
        d.update({"validator": _validator_json(tx.validator), "stake": outs(tx.stake_outs),
                  "rewardsOwner": owner(tx.rewards_owner)})
    elif isinstance(tx, t.AddSubnetValidatorTx):
        # SubnetValidator embeds Validator and adds subnetID, all under the "validator" tag
        d["validator"] = {**_validator_json(tx.validator), "subnetID": id_to_str(tx.subnet_id)}
        d["subnetAuthorization"] = txjson.sig_input_json(tx.subnet_auth)
    elif isinstance(tx, t.RemoveSubnetValidatorTx):
        d.update({"nodeID": node_id_to_str(tx.node_id), "subnetID": id_to_str(tx.subnet_id),
                  "subnetAuthorization": txjson.sig_input_json(tx.subnet_auth)})
    elif isinstance(tx, t.AddPermissionlessValidatorTx):
        d.update({"validator": _validator_json(tx.validator), "subnetID": id_to_str(tx.subnet_id),
                  "signer": _signer_json(tx.signer), "stake": outs(tx.stake_outs),
                  "validationRewardsOwner": owner(tx.validation_rewards_owner),
                  "delegationRewardsOwner": owner(tx.delegation_rewards_owner), "shares": tx.delegation_shares})
    elif isinstance(tx, t.AddPermissionlessDelegatorTx):
        d.update({"validator": _validator_json(tx.validator), "subnetID": id_to_str(tx.subnet_id),
                  "stake": outs(tx.stake_outs), "rewardsOwner": owner(tx.rewards_owner)})
    elif isinstance(tx, t.TransferSubnetOwnershipTx):
        d.update({"subnetID": id_to_str(tx.subnet_id), "subnetAuthorization": txjson.sig_input_json(tx.subnet_auth),
                  "newOwner": owner(tx.owner)})
    elif isinstance(tx, t.ConvertSubnetToL1Tx):
        d.update({"subnetID": id_to_str(tx.subnet_id), "chainID": id_to_str(tx.chain_id),
                  "address": txjson.hex_bytes(tx.address),
                  "validators": [_l1_validator_json(v) for v in tx.validators],
                  "subnetAuthorization": txjson.sig_input_json(tx.subnet_auth)})
    elif isinstance(tx, t.RegisterL1ValidatorTx):
        # ProofOfPossession is a [96]byte array in Go: encoding/json writes a list of numbers
        d.update({"balance": tx.balance, "proofOfPossession": list(tx.proof_of_possession),
                  "message": txjson.hex_bytes(tx.message)})
    elif isinstance(tx, t.SetL1ValidatorWeightTx):
        d["message"] = txjson.hex_bytes(tx.message)
    elif isinstance(tx, t.IncreaseL1ValidatorBalanceTx):
        d.update({"validationID": id_to_str(tx.validation_id), "balance": tx.balance})
    elif isinstance(tx, t.DisableL1ValidatorTx):
        d.update({"validationID": id_to_str(tx.validation_id),
                  "disableAuthorization": txjson.sig_input_json(tx.disable_auth)})
    else:
        raise TypeError(f"no JSON form for {type(tx).__name__}")
    return d


def tx_json(stx: Any, addr: txjson.AddrFn) -> dict[str, Any]:
    """txs.Tx: ``unsignedTx, credentials, id`` (P credentials are bare secp256k1fx.Credentials)."""
    return {"unsignedTx": unsigned_tx_json(stx.unsigned, addr),
            "credentials": [txjson.credential_json(c) for c in stx.credentials], "id": id_to_str(stx.tx_id)}


def block_json(raw: bytes, addr: txjson.AddrFn) -> dict[str, Any]:
    """Go's json.Marshal of the block: own fields, then the embedded struct's promoted ones, in order.

    BanffStandardBlock: ``time``, CommonBlock (``parentID, height, id``), ``txs``. BanffProposalBlock:
    ``time, txs`` (decision txs), CommonBlock, ``tx`` (the proposal). BanffCommitBlock: ``time``,
    CommonBlock. The genesis ApricotCommitBlock: just the CommonBlock."""
    b = blocks.decode_block(raw)
    common = {"parentID": id_to_str(b.parent_id), "height": b.height, "id": id_to_str(blocks.block_id(raw))}
    txs_ = [tx_json(s, addr) for s in b.txs]
    if b.type_id == blocks.APRICOT_COMMIT_BLOCK:
        return common
    if b.type_id == t.BANFF_COMMIT_BLOCK:
        return {"time": b.time, **common}
    if b.type_id == t.BANFF_PROPOSAL_BLOCK:
        return {"time": b.time, "txs": txs_, **common, "tx": tx_json(b.proposal_tx, addr)}
    return {"time": b.time, **common, "txs": txs_}


__all__ = ["block_json", "build_service", "decode_utxo", "encode_utxo", "tx_json", "unsigned_tx_json"]
