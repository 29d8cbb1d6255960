"""`platform.*` methods on subnets and chains: getSubnet, getSubnets, getBlockchains,
getBlockchainStatus, validatedBy, validates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simnode.formats import FormatError, id_from_str, id_to_str
from simnode.rpc.jsonrpc import RPCError
from simnode.rpc.params import bad_arg

from . import txs as t
from .service_params import ZERO_ID_STR, id_arg, num
from .state import PRIMARY
from .vm import PlatformVM


def subnet_methods(vm: PlatformVM, addr: Callable[[bytes], str]) -> dict[str, Any]:
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

    def get_subnet(p: dict) -> dict:
        sid = id_arg(p, "subnetID")
        if sid == PRIMARY:
            raise RPCError("the primary network isn't a subnet")
        sub = vm.state.subnets.get(sid)
        if sub is None:
            raise RPCError("not found")
        owner = t.P_REGISTRY.unmarshal_typed(b"\x00\x00" + sub.owner)
        conv = sub.conversion()
        return {"isPermissioned": conv is None, "controlKeys": [addr(a) for a in owner.addresses],
                "threshold": num(owner.threshold), "locktime": num(owner.locktime),
                "subnetTransformationTxID": ZERO_ID_STR,
                "conversionID": id_to_str(conv[0]) if conv else ZERO_ID_STR,
                "managerChainID": id_to_str(conv[1]) if conv else ZERO_ID_STR,
                "managerAddress": ("0x" + conv[2].hex()) if conv else None}

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
                    "threshold": num(owner.threshold)}

        if not ids_:
            for sid in sorted(vm.state.subnets):
                out.append(one(sid))
            out.append(one(PRIMARY))
        else:
            for s in ids_:
                try:
                    sid = id_from_str(s)
                except FormatError:
                    raise bad_arg() from None
                r = one(sid)
                if r is not None:
                    out.append(r)
        return {"subnets": out or None}  # Go's nil slice when none of the ids is a subnet

    def get_blockchains(p: dict) -> dict:
        subnets = sorted({c.subnet_id for c in vm.state.chains.values()} - {PRIMARY})
        chains = [c for sid in (*subnets, PRIMARY) for c in chains_newest_first(sid)]
        return {"blockchains": [{"id": id_to_str(c.chain_id), "name": c.name, "subnetID": id_to_str(c.subnet_id),
                                 "vmID": id_to_str(c.vm_id)} for c in chains]}

    def chains_newest_first(sid: bytes) -> list:
        # AvalancheGo keeps a subnet's chains in a linked DB that lists the newest first
        return [c for c in reversed(list(vm.state.chains.values())) if c.subnet_id == sid]

    def get_blockchain_status(p: dict) -> dict:
        ref = p.get("blockchainID") or ""
        if ref == "":
            raise RPCError("argument 'blockchainID' not given")
        try:
            cid = chain_id_of(ref)
        except FormatError:
            try:
                id_from_str(ref)
            except FormatError as e:  # not an alias: AvalancheGo reports the ID parser's error
                raise RPCError(f'problem parsing blockchainID "{ref}": {e}') from None
            raise
        if cid == PRIMARY or cid in vm.ctx.chains:
            # a chain this node runs: "Validating" if the node validates its subnet, else "Syncing";
            # the P-Chain has no CreateChainTx, so AvalancheGo never counts it as validated
            rec = vm.state.chains.get(cid)
            if rec is not None and (rec.subnet_id == PRIMARY or vm.ctx.node_id in vm.state.vset.get(rec.subnet_id, {})):
                return {"status": "Validating"}
            return {"status": "Syncing"}
        if cid in vm.state.chains:
            return {"status": "Created"}  # recorded, not run here (other VM, or it failed to start)
        return {"status": "Unknown"}

    def validated_by(p: dict) -> dict:
        cid = id_arg(p, "blockchainID")
        if cid == PRIMARY:
            return {"subnetID": ZERO_ID_STR}
        c = vm.state.chains.get(cid)
        if c is None:
            raise RPCError(f'problem retrieving blockchain "{id_to_str(cid)}": not found')
        return {"subnetID": id_to_str(c.subnet_id)}

    def validates(p: dict) -> dict:
        sid = id_arg(p, "subnetID")
        if sid != PRIMARY and sid not in vm.state.subnets:
            if vm.state.get_tx(sid) is None:
                raise RPCError(f'problem retrieving subnet "{id_to_str(sid)}": not found')
            raise RPCError(f'"{id_to_str(sid)}" is not a subnet')
        return {"blockchainIDs": [id_to_str(c.chain_id) for c in chains_newest_first(sid)]}

    return {"getSubnet": get_subnet, "getSubnets": get_subnets, "getBlockchains": get_blockchains,
            "getBlockchainStatus": get_blockchain_status, "validatedBy": validated_by, "validates": validates}
