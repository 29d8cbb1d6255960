"""`platform.*` methods on validators: getMinStake, getTotalStake, getCurrentValidators,
getL1Validator, getValidatorsAt, getAllValidatorsAt, sampleValidators."""

from __future__ import annotations

import random
from typing import Any

from simnode.codec import OutputOwners
from simnode.crypto import bls
from simnode.formats import FormatError, format_address, format_float4, id_to_str, node_id_from_str, node_id_to_str
from simnode.rpc.jsonrpc import RPCError
from simnode.rpc.params import bad_arg, str_list_arg, uint_arg

from . import txs as t
from .service_params import id_arg, num
from .state import PRIMARY, PRIO_SUBNET_PERMISSIONED
from .tx_parts import pchain_owner_from_bytes
from .vm import PlatformVM, l1_balance


def validator_methods(vm: PlatformVM) -> dict[str, Any]:
    hrp = vm.hrp

    def owner_json(o: OutputOwners) -> dict:
        addresses = [format_address("P", hrp, a) for a in o.addresses]
        return {"locktime": num(o.locktime), "threshold": num(o.threshold), "addresses": addresses}

    def get_min_stake(p: dict) -> dict:
        subnet = id_arg(p, "subnetID")
        if subnet != PRIMARY:
            raise RPCError(f"failed fetching subnet transformation for {id_to_str(subnet)}: not found")
        return {"minValidatorStake": num(vm.staking.min_validator_stake),
                "minDelegatorStake": num(vm.staking.min_delegator_stake)}

    def get_total_stake(p: dict) -> dict:
        subnet = id_arg(p, "subnetID")
        w = sum(e[0] for e in vm.state.vset.get(subnet, {}).values())
        return {"stake": num(w), "weight": num(w)}

    def get_current_validators(p: dict) -> dict:
        subnet = id_arg(p, "subnetID")
        try:
            node_ids = {node_id_from_str(n) for n in str_list_arg(p, "nodeIDs")}
        except FormatError:
            raise bad_arg() from None
        sub = vm.state.subnets.get(subnet)
        if sub is not None and sub.conversion_id is not None:
            out = []
            for s in sorted((s for s in vm.state.stakers.values() if s.subnet_id == subnet),
                            key=lambda s: (s.end, s.priority, s.tx_id)):
                if node_ids and s.node_id not in node_ids:
                    continue
                out.append(staker_json(s))
            # AvalancheGo lists them from its subnetID+nodeID index: by node ID
            for v in sorted(vm.state.l1.values(), key=lambda v: v.node_id):
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
                d["potentialReward"] = num(s.potential_reward)
                d["accruedDelegateeReward"] = num(s.delegatee_reward)
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
                d["potentialReward"] = num(s.potential_reward)
                delegators.setdefault(s.node_id, []).append(d)
        for d in validators:
            if "potentialReward" not in d:
                continue
            ds = delegators.get(node_id_from_str(d["nodeID"]), [])
            d["delegatorCount"] = num(len(ds))
            d["delegatorWeight"] = num(sum(int(x["weight"]) for x in ds))
            if single:
                d["delegators"] = ds
        return {"validators": validators}

    def staker_json(s: Any) -> dict:
        return {"txID": id_to_str(s.tx_id), "startTime": num(s.start), "endTime": num(s.end), "weight": num(s.weight),
                "nodeID": node_id_to_str(s.node_id)}

    def l1_json(v: Any) -> dict:
        rem = pchain_owner_from_bytes(v.remaining_balance_owner).as_output_owners()
        dea = pchain_owner_from_bytes(v.deactivation_owner).as_output_owners()
        return {"nodeID": node_id_to_str(v.node_id), "weight": num(v.weight), "startTime": num(v.start_time),
                "validationID": id_to_str(v.validation_id), "publicKey": "0x" + v.public_key.hex(),
                "remainingBalanceOwner": owner_json(rem), "deactivationOwner": owner_json(dea),
                "minNonce": num(v.min_nonce), "balance": num(l1_balance(vm, v))}

    def get_l1_validator(p: dict) -> dict:
        vid = id_arg(p, "validationID")
        v = vm.state.l1.get(vid)
        if v is None:
            raise RPCError(f'fetching L1 validator "{id_to_str(vid)}" failed: not found')
        d = l1_json(v)
        d["subnetID"] = id_to_str(v.subnet_id)
        d["height"] = num(vm.height)
        return d

    def query_height(p: dict) -> int:
        h = p.get("height")
        if h == "proposed":
            return vm.height
        height = uint_arg(p, "height")
        if height > vm.height:
            raise RPCError(f"failed to get validator set at {height}: failed to fetch validator set at unfinalized "
                           f"height with SubnetID = {id_to_str(id_arg(p, 'subnetID'))}: current P-chain height "
                           f"({vm.height}) < requested P-Chain height ({height})")
        return height

    def get_validators_at(p: dict) -> dict:
        height = query_height(p)
        subnet = id_arg(p, "subnetID")
        if vm.fork is not None and height < vm.first_indexed_block - 1:  # before a fork: the upstream's
            return vm.fork.history("platform.getValidatorsAt", {"height": str(height), "subnetID": id_to_str(subnet)})
        vs = vm.state.validator_set_at(subnet, height)
        return {node_id_to_str(n): {"publicKey": ("0x" + pk.hex()) if pk else None, "weight": num(w)}
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
            vals = sorted(merged.items(), key=lambda kv: bls.public_key_to_uncompressed(kv[0]))
            out[id_to_str(sid)] = {
                "validators": [{"publicKey": "0x" + pk.hex(), "weight": num(w),
                                "nodeIDs": [node_id_to_str(n) for n in sorted(ns)]} for pk, (w, ns) in vals],
                "totalWeight": num(total)}
        return {"validatorSets": out}

    def sample_validators(p: dict) -> dict:
        size = uint_arg(p, "size", 16)
        subnet = id_arg(p, "subnetID")
        vs = vm.state.vset.get(subnet, {})
        if size and not vs:
            raise RPCError(f"sampling {id_to_str(subnet)} errored with insufficient weight")
        # AvalancheGo samples by weight with replacement (a node may come more than once)
        nodes = sorted(vs)
        rng = random.Random(vm.height)
        chosen = rng.choices(nodes, weights=[vs[n][0] for n in nodes], k=size)
        return {"validators": [node_id_to_str(n) for n in sorted(chosen)]}

    return {"getMinStake": get_min_stake, "getTotalStake": get_total_stake,
            "getCurrentValidators": get_current_validators, "getL1Validator": get_l1_validator,
            "getValidatorsAt": get_validators_at, "getAllValidatorsAt": get_all_validators_at,
            "sampleValidators": sample_validators}
