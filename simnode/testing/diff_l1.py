"""The L1 part of the differential check: ConvertSubnetToL1, RegisterL1ValidatorTx and
SetL1ValidatorWeightTx on real AvalancheGo nodes and on simnode, and the L1 chain's eth_* reads.

A lone node with sybil protection off (the rest of the check) cannot take a tx carrying a Warp
message: its P-Chain's validator state is empty, so no message verifies. This part runs on the
five nodes of a `simnode export-network` folder (sybil protection on; their staking and BLS keys
are in the folder) beside simnode started from the same exported genesis. The same signed txs go
to both: avalanchejs builds them from the real node-1's state (tests/js/build_tx.mjs); the Warp
messages are the L1 manager's RegisterL1ValidatorMessage and L1ValidatorWeightMessage, signed as
the P-Chain requires: by the L1's validators (the five nodes) over their canonical set.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import diff_reads as R
from ..crypto import bls
from ..formats.address import format_address, hrp_for_network
from ..formats.ids import id_from_str, id_to_str, node_id_from_str
from ..warp import acp77
from ..warp.message import UnsignedMessage
from ..warp.payload import AddressedCall
from ..warp.signatures import sign_aggregate
from ..warp.validators import canonical_set
from .avalanchego import rpc
from .diff_fresh import build, js_missing, step
from .diff_txs import Harness
from .differ import TIME_SKEW_S, Call, Differ
from .realnet import Binaries, RealNetwork

EWOQ_KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
EWOQ_SHORT = bytes.fromhex("3cb7d3842e8cee6a0ebd09f1fe884f6861e1b29c")
MANAGER = "0x0feedc0de0000000000000000000000000000000"
K1_EVM = "0x7D51Bb9Cf51b1c5CE414D1deBCC5D413161Fe5a6"
NEW_NODE_SEED = "diff-l1-node-new"
GWEI = 10**9


@dataclass
class L1Run:
    """What the L1 part did on both sides: the figures the report prints."""

    differ: Differ
    log: list[str] = field(default_factory=list)
    boot_seconds: float = 0.0
    track_seconds: float = 0.0
    subnet: str = ""
    chain: str = ""


def _bls_of_seed(seed: str) -> bls.SecretKey:
    return bls.secret_key_from_seed(hashlib.sha256(seed.encode()).digest())


def _node_id_of_seed(seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest()[:20]


def on_chain(calls: list[Call], chain: str) -> list[Call]:
    """The C-Chain's eth_* reads sent to an L1 chain's endpoint."""
    path = f"/ext/bc/{chain}/rpc"
    return [dataclasses.replace(c, path=path) for c in calls if c.path == R.C]


def l1_evm_reads(chain: str) -> list[Call]:
    calls = on_chain(R.evm_reads(), chain)
    calls += on_chain([R.call(R.C, m, [R.EWOQ_EVM, "latest"]) for m in (
        "eth_getBalance", "eth_getTransactionCount", "eth_getCode")], chain)
    # the addresses of the precompiles an L1's genesis may enable: the code each reads as
    calls += on_chain([R.call(R.C, "eth_getCode", ["0x020000000000000000000000000000000000000" + n, "latest"])
                       for n in "012345"], chain)
    return calls


def p_reads(h: Harness, subnet: str, chain: str, hrp: str, validation_ids: list[str]) -> list[Call]:
    """Every platform read that takes what the L1 txs produced."""
    ewoq_p = format_address("P", hrp, EWOQ_SHORT)
    height = int(rpc(h.differ.real_url + R.P, "platform.getHeight", {})["result"]["height"])
    calls = R.platform_reads((subnet,), (chain,))
    calls += [R.call(R.P, "platform.getL1Validator", {"validationID": v}) for v in validation_ids]
    calls += [R.call(R.P, "platform.getValidatorsAt", {"height": str(height), "subnetID": subnet}),
              R.call(R.P, "platform.getValidatorsAt", {"height": height, "subnetID": subnet}),
              R.call(R.P, "platform.getAllValidatorsAt", {"height": str(height)}),
              R.call(R.P, "platform.getCurrentValidators", {"subnetID": subnet, "nodeIDs": []}),
              R.call(R.P, "platform.getBalance", {"addresses": [ewoq_p]}),
              R.call(R.P, "platform.getUTXOs", {"addresses": [ewoq_p]}),
              R.call(R.P, "platform.getBlockchainStatus", {"blockchainID": chain}),
              R.call(R.P, "platform.validatedBy", {"blockchainID": chain}),
              R.call(R.P, "platform.validates", {"subnetID": subnet})]
    return calls


def _wait_until(read: Callable[[], int], at_least: int, timeout: float = 120.0) -> int:
    deadline = time.monotonic() + timeout
    while (got := read()) < at_least and time.monotonic() < deadline:
        time.sleep(1)
    return got


class ManagerSigner:
    """The L1 manager's messages, signed by the L1's validators over the set the P-Chain holds now."""

    def __init__(self, run: L1Run, export: Path, network_id: int, subnet: str, chain: str) -> None:
        self.run, self.network_id = run, network_id
        self.subnet, self.chain = id_from_str(subnet), id_from_str(chain)
        genesis = json.loads((export / "genesis.json").read_text())
        self.keys: dict[bytes, bls.SecretKey] = {}
        for k in range(1, len(genesis["initialStakers"]) + 1):
            sk = bls.secret_key_from_bytes((export / "nodes" / f"node-{k}" / "signer.key").read_bytes())
            self.keys[bls.public_key(sk)] = sk

    def settle(self, h: Harness) -> None:
        """AvalancheGo verifies a Warp message at the P-Chain height of the current epoch (ACP-181:
        the height a block sealing the last 30 s epoch carried, which itself trails the chain by up to
        30 s of blocks). Until that height holds the last change, wait and have blocks built (P
        transfers, sent to both): one on the current height, then one opening an epoch on it."""
        url = self.run.differ.real_url
        needed = int(rpc(url + R.P, "platform.getHeight", {})["result"]["height"])
        proposed = _wait_until(lambda: int(rpc(url + R.P, "platform.getProposedHeight", {})["result"]["height"]),
                               needed)
        step(h, "p-base", amount=10**6)
        epoch = _wait_until(lambda: int(rpc(url + R.P + "/proposervm", "proposervm.getCurrentEpoch", {})
                                        ["result"]["pChainHeight"]), needed)
        step(h, "p-base", amount=10**6)
        self.run.log.append(f"P height {needed}: proposed {proposed}, then an epoch on {epoch}")

    def sign(self, payload: bytes, keys: list[bls.SecretKey] | None = None) -> str:
        url = self.run.differ.real_url
        vdrs = rpc(url + R.P, "platform.getCurrentValidators", {"subnetID": id_to_str(self.subnet)})["result"]
        ws = canonical_set((node_id_from_str(v["nodeID"]), int(v["weight"]), bytes.fromhex(v["publicKey"][2:]))
                           for v in vdrs["validators"] if v.get("publicKey"))
        use = keys if keys is not None else list(self.keys.values())
        signers = {i: sk for sk in use if (i := ws.index_of(bls.public_key(sk))) is not None}
        unsigned = UnsignedMessage(self.network_id, self.chain,
                                   AddressedCall(bytes.fromhex(MANAGER[2:]), payload).encode())
        return "0x" + sign_aggregate(signers, unsigned)[1].encoded.hex()


def _evm_send(h: Harness, chain: str, label: str, **tx: Any) -> str | None:
    """An L1 tx signed by eth-account (ewoq) against the real node's nonce, sent to both."""
    from eth_account import Account
    path = f"/ext/bc/{chain}/rpc"
    acct = Account.from_key(EWOQ_KEY)
    chain_id = int(rpc(h.differ.real_url + path, "eth_chainId", [])["result"], 16)
    nonce = int(rpc(h.differ.real_url + path, "eth_getTransactionCount", [acct.address, "pending"])["result"], 16)
    tx = {"chainId": chain_id, "nonce": nonce, "gas": 21000, "maxFeePerGas": 300 * GWEI,
          "maxPriorityFeePerGas": GWEI, "value": 0, **tx}
    raw = "0x" + acct.sign_transaction(tx).raw_transaction.hex().removeprefix("0x")
    real, sim = h.differ.compare(Call(path, R.req("eth_sendRawTransaction", [raw]), label=label))
    tx_hash = (real or {}).get("result") or (sim or {}).get("result")
    h.log.append(f"{label}: real={str(real)[:160]} sim={str(sim)[:160]}")
    if tx_hash:
        for base in (h.differ.real_url, h.differ.sim_url):
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not rpc(base + path, "eth_getTransactionReceipt",
                                                          [tx_hash]).get("result"):
                time.sleep(0.3)
    return tx_hash


def l1_section(run: L1Run, h: Harness, export: Path, net: RealNetwork, network_id: int) -> None:
    hrp = hrp_for_network(network_id)
    genesis = json.loads((export / "genesis.json").read_text())
    l1_dir = sorted(d for d in (export / "l1s").iterdir() if d.is_dir())[0]
    l1_genesis = json.loads((l1_dir / "genesis.json").read_text())

    run.subnet = subnet = step(h, "p-subnet")["txID"]
    run.chain = chain = step(h, "p-chain", subnetID=subnet, genesis=l1_genesis, name="diffl1")["txID"]
    members = [{"nodeID": s["nodeID"], "weight": 100, "balance": 10**9, "publicKey": s["signer"]["publicKey"],
                "pop": s["signer"]["proofOfPossession"]} for s in genesis["initialStakers"]]
    step(h, "p-convert", subnetID=subnet, chainID=chain, manager=MANAGER, validators=members)
    vids = [id_to_str(acp77.subnet_validation_id(id_from_str(subnet), i)) for i in range(len(members))]
    h.compare_all(p_reads(h, subnet, chain, hrp, vids))

    # the real nodes run the L1's chain once they track its subnet (simnode runs every chain)
    net.write_chain_config(chain, (l1_dir / "config.json").read_bytes())
    net.restart([subnet])
    run.track_seconds = net.wait_healthy(900, ("P", "X", "C", chain))
    h.log.append(f"real nodes track the L1, healthy with its chain in {run.track_seconds:.1f}s")
    h.compare_all(l1_evm_reads(chain) + p_reads(h, subnet, chain, hrp, vids))
    tx_hash = _evm_send(h, chain, "L1 transfer", to=K1_EVM, value=10**18)
    if tx_hash:
        h.compare_all(on_chain(R.evm_tx_reads(tx_hash), chain) + l1_evm_reads(chain))

    signer = ManagerSigner(run, export, network_id, subnet, chain)
    new_key = _bls_of_seed(NEW_NODE_SEED)
    owner = acp77.PChainOwner(1, (EWOQ_SHORT,))
    expiry = int(time.time()) + 3600
    reg = acp77.RegisterL1Validator(id_from_str(subnet), _node_id_of_seed(NEW_NODE_SEED), bls.public_key(new_key),
                                    expiry, owner, owner, 10)
    vid = id_to_str(reg.validation_id)
    pop = "0x" + bls.prove_possession(new_key).hex()
    one_key = [next(iter(signer.keys.values()))]
    signer.settle(h)
    _issue_built(h, "p-register", "reject RegisterL1Validator signed by 1 of 5",
                 balance=10**9, pop=pop, message=signer.sign(reg.encode(), one_key))
    step(h, "p-register", balance=10**9, pop=pop, message=signer.sign(reg.encode()))
    h.compare_all(p_reads(h, subnet, chain, hrp, [*vids, vid]))

    for nonce, weight in ((1, 5), (2, 0)):
        signer.settle(h)
        msg = signer.sign(acp77.L1ValidatorWeight(reg.validation_id, nonce, weight).encode())
        if weight:
            step(h, "p-set-weight", message=msg)
        else:  # removed: its balance comes back, less a fee that follows each node's clock (differ.refund_amounts)
            built = build(h.differ.real_url, "p-set-weight", message=msg)
            price = int(rpc(h.differ.real_url + "/ext/bc/P", "platform.getValidatorFeeState")["result"]["price"])
            h.differ.refunds[id_from_str(built["txID"]).hex()] = price * TIME_SKEW_S
            h.issue(built["chain"], built["tx"], f"p-set-weight {json.dumps({'message': msg})[:80]}")
            h.reads_after(built["chain"], built["txID"])
        h.compare_all(p_reads(h, subnet, chain, hrp, [*vids, vid]))
    # a conversion validator's weight (its nonce starts at 0), then the same nonce again: refused
    first = id_from_str(vids[0])
    signer.settle(h)
    step(h, "p-set-weight", message=signer.sign(acp77.L1ValidatorWeight(first, 0, 50).encode()))
    _issue_built(h, "p-set-weight", "reject SetL1ValidatorWeight with a used nonce",
                 message=signer.sign(acp77.L1ValidatorWeight(first, 0, 60).encode()))
    h.compare_all(p_reads(h, subnet, chain, hrp, vids) + l1_evm_reads(chain))

def _issue_built(h: Harness, kind: str, label: str, **args: Any) -> None:
    """A tx both nodes must refuse: built on the real node, issued on both, the replies compared."""
    built = build(h.differ.real_url, kind, **args)
    h.issue(built["chain"], built["tx"], label)


def run_l1_diff(work: Path, binaries: Binaries, log: Callable[[str], None] = print) -> L1Run:
    """Export a simnode network with an L1, boot it on real nodes and on simnode, run `l1_section`."""
    from ..config import NodeConfig
    from ..node import Node
    from .export_trial import Trial, build_source

    why = js_missing() or binaries.l1_problem
    if why:
        raise RuntimeError(why)
    export = build_source(Trial(work), nodes=5)
    genesis = json.loads((export / "genesis.json").read_text())
    network_id = int(genesis["networkID"])
    net = RealNetwork.from_export(export, binaries, work / "real")
    config = NodeConfig(http_port=0, ephemeral=True, log_level="ERROR", network_id=network_id,
                        genesis_file=export / "genesis.json", relayer=False, clock_mode="wall")
    with Node.start_in_thread(config) as sim:
        try:
            net.start()
            boot = net.wait_healthy(900, ("P", "X", "C"))
            run = L1Run(Differ(net.nodes[0].url, sim.url, recording=[]), boot_seconds=boot)
            log(f"5 real nodes healthy in {boot:.1f}s")
            h = Harness(run.differ, log=run.log)
            try:
                l1_section(run, h, export, net, network_id)
            except Exception as err:  # reported; what was compared so far stays
                run.log.append(f"L1 section stopped: {type(err).__name__}: {err}")
            return run
        finally:
            net.stop()


__all__ = ["L1Run", "ManagerSigner", "l1_evm_reads", "l1_section", "on_chain", "p_reads", "run_l1_diff"]
