"""The P-Chain on a fork: the upstream's P-Chain taken at its current height, then run here.

At the fork's first start the upstream's `platform` answers become the chain's state at the
upstream's height H: its block H (the parent of the fork's first block), chain time, supply and
fee states; every current validator and delegator of the primary network (weights, times,
potential and accrued rewards, delegation fees, BLS keys), every subnet with its owner and
conversion, every blockchain with its VM and genesis (its CreateChainTx), every permissioned
subnet validator and every L1 validator (weights, balances, owners, nonces). Upstream BLS secret
keys are unknown, so each forked validator gets the key simnode derives from the seed and its node
ID (warp/keystore.py), which the fork's P-Chain then reports: Warp messages and ACP-77 messages
inside the fork are signed and verified with those. The stakers' txs (for their rewards owners
and stake) are read from the upstream when first needed and kept in the fork cache; the UTXOs of
an address when it is first touched (vms/fork_utxos.py). From then on the P-Chain runs on
simnode's clock: stakers end and are rewarded, new txs are accepted.

AvalancheGo serves no staker history (getCurrentValidators is the current set only), so the P-Chain
is the upstream's at the height current when the fork is made.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from simnode.codec import OutputOwners, Writer, decode_utxo
from simnode.crypto import bls
from simnode.formats import decode_bytes, id_from_str, id_to_str, node_id_from_str, parse_address
from simnode.formats.ids import SUBNET_EVM_VM_ID, ZERO_ID
from simnode.fork.client import UpstreamAnswerError
from simnode.store import pack
from simnode.vms import utxo_order
from simnode.warp import acp77
from simnode.warp.keystore import derived_secret_key

from . import blocks
from . import txs as t
from .staker_history import history_add
from .state import (
    K_UTXO,
    PREFIX,
    PRIMARY,
    PRIO_PRIMARY_DELEGATOR,
    PRIO_PRIMARY_VALIDATOR,
    PRIO_SUBNET_PERMISSIONED,
    ChainRecord,
    L1Validator,
    Staker,
    Subnet,
    utxo_owners,
)

log = logging.getLogger("simnode.fork")

P = "/ext/bc/P"
SIGNER_PREFIX = b"P/g"  # <staker txID> -> [public key, proof of possession] the fork gave a forked validator
UPSTREAM_CHAINS_KEY = b"P/chains"  # (fork cache) the chain IDs the upstream listed
TX_KEY = b"P/tx/"  # (fork cache) upstream tx bytes by ID


def _addr(text: str) -> bytes:
    return parse_address(text)[2]


def _owners(obj: dict) -> OutputOwners:
    return OutputOwners(int(obj.get("locktime", "0")), int(obj.get("threshold", "0")),
                        tuple(sorted(_addr(a) for a in obj.get("addresses") or [])))


def _pchain_owner_bytes(obj: dict) -> bytes:
    w = Writer()
    addresses = tuple(sorted(_addr(a) for a in obj.get("addresses") or []))
    acp77.PChainOwner(int(obj.get("threshold", "0")), addresses).encode(w)
    return w.getvalue()


def _time(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


class PlatformFork:
    """The P-Chain's view of the upstream: its snapshot at the fork, and its txs on demand."""

    def __init__(self, vm: Any, fork: Any) -> None:
        self.vm = vm
        self.fork = fork
        self.upstream = fork.upstream
        self.seed = vm.ctx.config.seed

    def call(self, method: str, params: dict | None = None) -> Any:
        return self.upstream.avax(P, method, params or {})

    def many(self, method: str, params: list[dict]) -> list[Any]:
        return self.upstream.avax_many(P, method, params)

    def many_txs(self, tx_ids: list[bytes]) -> list[bytes | None]:
        """Upstream txs, fetched on a few connections at once (those not kept yet), kept."""
        missing = [tx_id for tx_id in tx_ids if not self.fork.cache.has(TX_KEY + tx_id)]
        answers = self.many("platform.getTx", [{"txID": id_to_str(tx_id), "encoding": "hex"} for tx_id in missing])
        self.fork.cache.put_many({TX_KEY + tx_id: decode_bytes(a["tx"], "hex") for tx_id, a in zip(missing, answers)})
        return [self.tx_bytes(tx_id) for tx_id in tx_ids]

    def tx_bytes(self, tx_id: bytes) -> bytes | None:
        """An upstream tx the fork's state refers to (a staker's, a subnet's, a chain's)."""
        return self.fork.tx_bytes(P, "platform.getTx", TX_KEY, tx_id)

    def history(self, method: str, params: dict) -> Any:
        """The upstream's answer about its history (a block or tx the fork does not hold), kept."""
        return self.fork.history(P, b"P/q/", method, params)

    def derived_signer(self, node_id: bytes) -> tuple[bytes, bytes]:
        secret = derived_secret_key(self.seed, node_id)
        return bls.public_key(secret), bls.prove_possession(secret)

    # ------------------------------------------------------------------ the snapshot

    def init_state(self) -> None:
        """Write the upstream's P-Chain at its current height as this chain's state (one batch)."""
        vm = self.vm
        st = vm.state
        height = int(self.call("platform.getHeight")["height"])
        raw_block = decode_bytes(self.call("platform.getBlockByHeight", {"height": str(height),
                                                                         "encoding": "hex"})["block"], "hex")
        block = blocks.decode_block(raw_block)
        chain_time = _time(self.call("platform.getTimestamp")["timestamp"])
        supply = int(self.call("platform.getCurrentSupply")["supply"])
        fee_state = self.call("platform.getFeeState")
        validator_fee_state = self.call("platform.getValidatorFeeState")
        subnet_ids = sorted(id_from_str(s["id"]) for s in self.call("platform.getSubnets")["subnets"]
                            if id_from_str(s["id"]) != PRIMARY)
        subnets = dict(zip(subnet_ids, self.many("platform.getSubnet",
                                                 [{"subnetID": id_to_str(sid)} for sid in subnet_ids])))
        chains = self.call("platform.getBlockchains")["blockchains"]
        # the genesis of a chain simnode can run (subnet-EVM), from its CreateChainTx
        runnable = [id_from_str(c["id"]) for c in chains if id_from_str(c["vmID"]) == SUBNET_EVM_VM_ID]
        geneses = dict(zip(runnable, self.many_txs(runnable)))

        st.w = vm.ctx.store.batch()
        m = st.meta
        m.timestamp = max(chain_time, getattr(block, "time", 0) or 0)
        m.supply = {PRIMARY: supply}
        m.fee_capacity, m.fee_excess = int(fee_state["capacity"]), int(fee_state["excess"])
        m.l1_excess = int(validator_fee_state["excess"])
        m.accrued_fees = 0
        for sid, info in sorted(subnets.items()):
            owner = OutputOwners(int(info.get("locktime", "0")), int(info.get("threshold", "0")),
                                 tuple(sorted(_addr(a) for a in info.get("controlKeys") or [])))
            sub = Subnet(sid, t.P_REGISTRY.marshal(owner)[2:])
            if not info.get("isPermissioned", True):
                sub.conversion_id = id_from_str(info["conversionID"])
                sub.manager_chain_id = id_from_str(info["managerChainID"])
                sub.manager_address = bytes.fromhex((info.get("managerAddress") or "0x")[2:])
            st.put_subnet(sub)
        upstream_chains = []
        for c in chains:
            cid = id_from_str(c["id"])
            raw = geneses.get(cid)
            genesis = t.parse_tx(raw).unsigned.genesis_data if raw is not None else b""
            st.put_chain(ChainRecord(cid, id_from_str(c["subnetID"]), c["name"], id_from_str(c["vmID"]), genesis))
            upstream_chains.append(cid)
        self.fork.cache.put(UPSTREAM_CHAINS_KEY, upstream_chains)
        self._primary_stakers()
        self._subnet_validators(height, subnets)
        block_id = blocks.block_id(raw_block)
        st.put_block(block_id, height, raw_block)
        m.height = height
        m.last_block_id = block_id
        st._vdiff.clear()  # the sets before H are the upstream's history, not diffs of the fork
        st.put_facts(height, m.timestamp)
        st.save_meta()
        st.w.commit()
        st.w = None
        log.info("P-Chain forked at height %d (%s): %d stakers, %d subnets, %d chains, %d L1 validators",
                 height, id_to_str(block_id), len(st.stakers), len(subnets), len(chains), len(st.l1))
        identity = self.fork.identity
        if int(self.upstream.eth("eth_blockNumber", []), 16) != identity.block_number:
            log.warning("the C-Chain fork block %d is not the upstream's last: the P-Chain is still the "
                        "upstream's at its current height %d, as AvalancheGo serves no staker history",
                        identity.block_number, height)

    def _signer_record(self, s: Staker) -> None:
        pk, pop = self.derived_signer(s.node_id)
        s.public_key = pk
        self.vm.state.put(SIGNER_PREFIX + s.tx_id, pack([pk, pop]))

    def _primary_stakers(self) -> None:
        vm = self.vm
        st = vm.state
        validators = self.call("platform.getCurrentValidators")["validators"]
        for v in validators:
            s = Staker(id_from_str(v["txID"]), node_id_from_str(v["nodeID"]), PRIMARY, PRIO_PRIMARY_VALIDATOR,
                       int(v["weight"]), int(v["startTime"]), int(v["endTime"]), int(v.get("potentialReward", "0")),
                       None, round(float(v.get("delegationFee", "0")) * 10_000),
                       int(v.get("accruedDelegateeReward", "0")))
            if v.get("signer"):
                self._signer_record(s)
            st.put_staker(s)
            history_add(vm.state, s, "validator")
        delegated = [v["nodeID"] for v in validators if int(v.get("delegatorCount", "0"))]
        for answer in self.many("platform.getCurrentValidators", [{"nodeIDs": [n]} for n in delegated]):
            for entry in answer["validators"]:
                node = node_id_from_str(entry["nodeID"])
                for d in entry.get("delegators") or []:
                    ds = Staker(id_from_str(d["txID"]), node, PRIMARY, PRIO_PRIMARY_DELEGATOR, int(d["weight"]),
                                int(d["startTime"]), int(d["endTime"]), int(d.get("potentialReward", "0")), None, 0, 0)
                    st.put_staker(ds)
                    history_add(vm.state, ds, "delegator")

    def _subnet_validators(self, height: int, subnets: dict[bytes, dict]) -> None:
        """Each subnet's permissioned or L1 validators (only the subnets with any: a network with
        many subnets is asked for the sets at the height in one request)."""
        st = self.vm.state
        try:
            sets = self.call("platform.getAllValidatorsAt", {"height": str(height)})["validatorSets"]
            with_validators = sorted(sid for sid in subnets if id_to_str(sid) in sets)
        except UpstreamAnswerError:  # an upstream without that method: every subnet is asked
            with_validators = sorted(subnets)
        answers = self.many("platform.getCurrentValidators",
                            [{"subnetID": id_to_str(sid)} for sid in with_validators])
        for sid, answer in zip(with_validators, answers):
            for v in answer["validators"]:
                node = node_id_from_str(v["nodeID"])
                if "validationID" in v:
                    pk, _ = self.derived_signer(node)
                    balance = int(v.get("balance", "0"))
                    st.put_l1(L1Validator(id_from_str(v["validationID"]), sid, node, pk,
                                          _pchain_owner_bytes(v["remainingBalanceOwner"]),
                                          _pchain_owner_bytes(v["deactivationOwner"]), int(v["startTime"]),
                                          int(v["weight"]), int(v.get("minNonce", "0")),
                                          balance + st.meta.accrued_fees if balance else 0))
                    continue
                s = Staker(id_from_str(v["txID"]), node, sid, PRIO_SUBNET_PERMISSIONED, int(v["weight"]),
                           int(v["startTime"]), int(v["endTime"]), 0, None, 0, 0)
                st.put_staker(s)
                history_add(self.vm.state, s, "subnet")

    # ------------------------------------------------------------------ UTXOs

    def utxos(self) -> Any:
        from simnode.vms.fork_utxos import UTXOFork

        vm = self.vm

        def owners(raw: bytes) -> tuple[bytes, ...]:
            o = utxo_owners(decode_utxo(raw, t.P_REGISTRY).out)
            return o.addresses if o is not None else ()

        def put_own(batch: Any, uid: bytes, raw: bytes, addrs: tuple[bytes, ...]) -> None:
            batch.put(K_UTXO + uid, raw)
            utxo_order.add(batch, PREFIX, addrs, uid)

        return UTXOFork(self.fork, vm.ctx.store, ZERO_ID, P, "platform", "P", vm.hrp, owners, put_own)
