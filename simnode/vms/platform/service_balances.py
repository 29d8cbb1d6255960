"""`platform.*` methods on UTXOs and balances: getUTXOs, getBalance, getRewardUTXOs, getStake."""

from __future__ import annotations

import dataclasses
from typing import Any

from simnode.codec import UTXO
from simnode.codec.stakeable import StakeableLockOut
from simnode.formats import FormatError, encode_bytes, id_to_str
from simnode.rpc.jsonrpc import RPCError
from simnode.rpc.params import encoding_arg, go_quote, str_list_arg
from simnode.vms import utxo_api
from simnode.vms.chain_context import lookup_chain

from . import txs as t
from .service_params import id_arg, num
from .state import K_UTXO, PRIMARY, PRIO_PRIMARY_VALIDATOR
from .vm import PlatformVM

MAX_GET_STAKE_ADDRS = 256


def balance_methods(vm: PlatformVM) -> dict[str, Any]:
    def touching(ids_of: Any, source: bytes | None = None) -> Any:
        """`ids_of` after the address is touched (on a fork: its upstream UTXOs brought in)."""
        def ids(address: bytes, after: bytes | None) -> Any:
            vm.touch_addresses((address,), source)
            return ids_of(address, after)
        return ids

    def utxos_from(source_chain: bytes) -> utxo_api.UTXOSet:
        if source_chain != PRIMARY:
            shared = utxo_api.shared_memory_utxos(vm.ctx.store, PRIMARY, source_chain)
            return dataclasses.replace(shared, ids_of=touching(shared.ids_of, source_chain))
        return utxo_api.UTXOSet(touching(vm.state.utxo_ids_of), lambda utxo_id: vm.state.get(K_UTXO + utxo_id))

    utxo_service = utxo_api.UTXOService(
        chain_id=PRIMARY, alias="P", hrp=vm.hrp, lookup_chain=lambda ref: lookup_chain(vm.ctx, ref),
        utxos_from=utxos_from, source_required=False,
        encode_error="couldn't encode UTXO as {encoding}: {error}",
    )

    def parse_addrs(items: list[str]) -> list[bytes]:
        out = []
        for a in items:
            try:
                out.append(utxo_service.parse_address(a))
            except FormatError as e:
                raise RPCError(f"couldn't parse address {go_quote(a)}: {e}") from None
        return out

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
        addrs = parse_addrs(str_list_arg(p, "addresses"))
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
            return {id_to_str(k): num(v) for k, v in d.items()}

        av = vm.avax_asset_id
        return {"balance": num(bal.get(av, 0)), "unlocked": num(unlocked.get(av, 0)),
                "lockedStakeable": num(ls.get(av, 0)), "lockedNotStakeable": num(lns.get(av, 0)),
                "balances": m(bal), "unlockeds": m(unlocked), "lockedStakeables": m(ls),
                "lockedNotStakeables": m(lns), "utxoIDs": utxo_ids or None}

    def get_reward_utxos(p: dict) -> dict:
        tx_id = id_arg(p, "txID")
        enc = encoding_arg(p)
        if enc == "json":
            raise RPCError("couldn't encode utxo as json: unsupported encoding in method")
        raws = vm.state.reward_utxos(tx_id)
        return {"numFetched": num(len(raws)), "utxos": [encode_bytes(r, enc) for r in raws], "encoding": enc}

    def get_stake(p: dict) -> dict:
        addresses = str_list_arg(p, "addresses")
        if len(addresses) > MAX_GET_STAKE_ADDRS:
            raise RPCError(f"{len(addresses)} addresses provided but this method can take at most "
                           f"{MAX_GET_STAKE_ADDRS}")
        addrs = set(parse_addrs(addresses))
        enc = encoding_arg(p)
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
        return {"staked": num(total), "stakeds": {id_to_str(vm.avax_asset_id): num(total)} if total else {},
                "stakedOutputs": outs, "encoding": enc}

    return {"getUTXOs": get_utxos, "getBalance": get_balance, "getRewardUTXOs": get_reward_utxos,
            "getStake": get_stake}
