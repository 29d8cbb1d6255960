"""`simnode export-network DIR`: a stopped node's network, ready for real AvalancheGo nodes.

From the data dir it writes
* `DIR/genesis.json`: AvalancheGo's genesis format (genesis.UnparsedConfig) for a new network ID,
  whose allocations are this network's balances (each address's AVAX UTXOs on X as its
  `initialAmount`, on P as its `unlockSchedule`, locked ones with their locktime), whose C-Chain
  genesis (`cChainGenesis`) holds the C-Chain's current state as its `alloc` (balances, nonces,
  code, storage), and whose initial stakers are the exported nodes, staking what this network's
  genesis staked (`initialStakedFunds`);
* `DIR/nodes/node-K/staker.crt`, `staker.key`, `signer.key`: each node's staking TLS certificate
  and key (ECDSA P-256, self-signed, PEM, as AvalancheGo's `staking.NewCertAndKeyBytes` makes them)
  and BLS signer key (32 raw bytes, as `--staking-signer-key-file` reads it). A NodeID is
  ripemd160(sha256(certificate DER)), as AvalancheGo's `ids.NodeIDFromCert`. The keys derive from
  the node's seed, so an export of the same data dir gives the same files;
* `DIR/l1s/<name>/genesis.json` (the L1 EVM chain's current state as its alloc), `config.json`,
  and `DIR/recreate-l1s.toml`: the scenario steps that create its subnet and chain again and convert
  it to an L1 validated by the exported nodes (`simnode replay DIR/recreate-l1s.toml --target URL`);
* `DIR/README.md`: the `avalanchego` command line of each node, and what could not be carried.

C-Chain accounts and storage slots are keyed by hashes in the state; their addresses and slots are
found by re-executing every block with the writes watched (plus the genesis, atomic txs and the
upgrades), and an account or slot still without one is reported, never guessed.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from ..config import NodeConfig
from ..crypto import bls
from ..crypto.hashing import keccak256, ripemd160, sha256
from ..formats.address import format_address, hrp_for_network
from ..formats.ids import ZERO_ID, id_to_str, node_id_to_str
from ..vms.atomic import PREFIX as ATOMIC_PREFIX
from .tomlout import toml_key_values

DEFAULT_NETWORK_ID = 1337
DEFAULT_NODES = 5
ZERO_ETH = "0x" + "00" * 20
GENESIS_LEAD_S = 60
_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
# AvalancheGo's template: NotBefore time.Date(2000, January, 0) (= Dec 31 1999), NotAfter 100 years on
_NOT_BEFORE = datetime(1999, 12, 31, tzinfo=timezone.utc)
_NOT_AFTER = datetime(2125, 1, 1, tzinfo=timezone.utc)


class ExportError(ValueError):
    pass


# ------------------------------------------------------------------------------------ node identities


def node_id_of_certificate(cert: bytes) -> bytes:
    """AvalancheGo's ids.NodeIDFromCert: ripemd160(sha256(the certificate's DER)); PEM or DER in."""
    if cert.lstrip().startswith(b"-----BEGIN"):
        cert = x509.load_pem_x509_certificate(cert).public_bytes(serialization.Encoding.DER)
    return ripemd160(sha256(cert))


def staking_certificate(secret: bytes) -> tuple[bytes, bytes]:
    """(certificate PEM, PKCS#8 key PEM) from 32 secret bytes: an ECDSA P-256 key and a self-signed
    certificate as AvalancheGo's staking.NewCertAndKeyBytes makes them (digital signature key
    usage, basic constraints; serial 1 where AvalancheGo writes 0, which X.509 and `cryptography`
    refuse and AvalancheGo never reads), signed deterministically (RFC 6979) so the same secret
    gives the same certificate, hence the same NodeID."""
    scalar = int.from_bytes(sha256(b"simnode-staking-tls/" + secret), "big") % (_P256_ORDER - 1) + 1
    key = ec.derive_private_key(scalar, ec.SECP256R1())
    empty = x509.Name([])
    cert = (x509.CertificateBuilder().subject_name(empty).issuer_name(empty).public_key(key.public_key())
            .serial_number(1).not_valid_before(_NOT_BEFORE).not_valid_after(_NOT_AFTER)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256(), ecdsa_deterministic=True))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


@dataclass(frozen=True, slots=True)
class ExportedNode:
    name: str
    node_id: bytes
    cert_pem: bytes
    key_pem: bytes
    signer: bls.SecretKey

    @property
    def public_key(self) -> bytes:
        return bls.public_key(self.signer)

    @property
    def proof_of_possession(self) -> bytes:
        return bls.prove_possession(self.signer)


def exported_nodes(count: int, seed: int) -> list[ExportedNode]:
    out = []
    for k in range(1, count + 1):
        secret = sha256(b"simnode-export-node/" + seed.to_bytes(8, "big") + k.to_bytes(4, "big"))
        cert, key = staking_certificate(secret)
        signer = bls.secret_key_from_seed(b"simnode-export-signer/" + secret)
        out.append(ExportedNode(f"node-{k}", node_id_of_certificate(cert), cert, key, signer))
    return out


# ------------------------------------------------------------------------------------ EVM state


@dataclass(slots=True)
class _Writes:
    """Addresses and storage slots seen written, as the storage trie keys them (the preimages the
    state's hashed keys lack; on the C-Chain, coreth's key rule: rules.CorethAccountDB)."""

    addresses: set[bytes] = field(default_factory=set)
    slots: dict[bytes, set[int]] = field(default_factory=lambda: defaultdict(set))

    def watch(self, db: Any) -> Any:
        for name in ("set_balance", "delta_balance", "set_nonce", "increment_nonce", "set_code", "touch_account"):
            original = getattr(db, name, None)
            if original is None:
                continue

            def watched(address: bytes, *args: Any, _original: Any = original) -> Any:
                self.addresses.add(address)
                return _original(address, *args)
            setattr(db, name, watched)
        set_storage, storage_key = db.set_storage, db.storage_key

        def watched_storage(address: bytes, slot: int, value: int) -> Any:
            self.addresses.add(address)
            self.slots[address].add(storage_key(slot))
            return set_storage(address, slot, value)
        db.set_storage = watched_storage
        return db


def _seen_writes(chain: Any) -> _Writes:
    """Re-run the chain's genesis and every block's txs (and atomic txs, upgrades) on their pre-state,
    watching what they write."""
    from ..vms.evm.atomic_txs import UnsignedExportTx, UnsignedImportTx, decode_block_txs
    from ..vms.evm.headers import evm_header

    seen = _Writes()
    g = chain.genesis_json
    genesis_state = seen.watch(chain.account_db(chain.block(0).header.state_root))
    chain.apply_upgrades(genesis_state, None, 0, chain.block(0).header.timestamp)
    for addr, acct in (g.get("alloc") or {}).items():
        a = bytes.fromhex(addr.removeprefix("0x").removeprefix("0X"))
        seen.addresses.add(a)
        for slot in acct.get("storage") or {}:
            seen.slots[a].add(genesis_state.storage_key(int(slot, 16)))
    for n in range(1, chain.head.number + 1):
        block = chain.block(n)
        parent = chain.block(n - 1)
        header = evm_header(block.header, state_root=chain.pre_state_root(block), gas_used=0, bloom=0)
        vm = chain.vm_at(header, chain.warp_failed_of(block))
        seen.watch(vm.state._account_db)
        chain.apply_upgrades(vm.state, parent.header.timestamp, n, header.timestamp)
        seen.addresses.add(block.header.coinbase)
        prev = header
        for tx in block.txs:
            seen.addresses.add(tx.sender)
            receipt, _ = vm.apply_transaction(prev, tx)
            prev = vm.add_receipt_to_header(prev, receipt)
        for atx in decode_block_txs(block.ext) if block.ext else ():
            u = atx.unsigned
            if isinstance(u, UnsignedImportTx):
                seen.addresses.update(o.address for o in u.outs)
            elif isinstance(u, UnsignedExportTx):
                seen.addresses.update(i.address for i in u.ins)
    return seen


@dataclass(slots=True)
class EvmExport:
    alloc: dict[str, dict[str, Any]]
    unnamed_accounts: int = 0
    unnamed_wei: int = 0
    unnamed_slots: int = 0


def evm_alloc(chain: Any, extra_addresses: Iterable[bytes] = ()) -> EvmExport:
    """The chain's latest state (dev edits included) as a genesis `alloc`."""
    import rlp
    from trie import HexaryTrie
    from trie.iter import NodeIterator

    from ..vms.evm.rules import account_from_rlp

    seen = _seen_writes(chain)
    named = {keccak256(a): a for a in (*seen.addresses, *extra_addresses)}
    empty_code = keccak256(b"")
    out = EvmExport({})
    for key, value in NodeIterator(HexaryTrie(chain.db, chain.state_root)).items():
        acct = account_from_rlp(value)
        address = named.get(bytes(key))
        if address is None:
            out.unnamed_accounts += 1
            out.unnamed_wei += acct.balance
            continue
        entry: dict[str, Any] = {"balance": hex(acct.balance)}
        if acct.nonce:
            entry["nonce"] = hex(acct.nonce)
        if acct.code_hash != empty_code:
            entry["code"] = "0x" + chain.db[acct.code_hash].hex()
        slots = {keccak256(s.to_bytes(32, "big")): s for s in seen.slots.get(address, ())}
        storage = {}
        for skey, sval in NodeIterator(HexaryTrie(chain.db, acct.storage_root)).items():
            slot = slots.get(bytes(skey))
            if slot is None:
                out.unnamed_slots += 1
                continue
            storage["0x" + slot.to_bytes(32, "big").hex()] = "0x" + rlp.decode(sval).rjust(32, b"\0").hex()
        if storage:
            entry["storage"] = dict(sorted(storage.items()))
        out.alloc[address.hex()] = entry
    out.alloc = dict(sorted(out.alloc.items()))
    return out


# ------------------------------------------------------------------------------------ X and P


@dataclass(slots=True)
class Balances:
    x: dict[bytes, int] = field(default_factory=lambda: defaultdict(int))
    p: dict[bytes, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))  # (amount, locktime)
    left_out: list[str] = field(default_factory=list)


def xp_balances(node: Any) -> Balances:
    """Every AVAX UTXO a single address owns on X and on P (what a genesis allocation can say)."""
    from ..codec import TransferOutput, decode_utxo
    from ..codec.stakeable import StakeableLockOut
    from ..vms.avm.state import UTXO_PREFIX
    from ..vms.platform.state import K_UTXO
    from ..vms.platform.txs import P_REGISTRY

    store, g = node.store, node.genesis
    out = Balances()
    skipped: dict[str, int] = defaultdict(int)
    x = node.chains[g.x_chain_id]
    from ..vms.avm.state import decode_utxo_cached
    for _, raw in store.iterate(x.prefix + UTXO_PREFIX):
        u = decode_utxo_cached(raw)
        o = u.out
        if u.asset_id != g.avax_asset_id:
            skipped["X-Chain UTXO(s) of assets other than AVAX (a genesis allocates AVAX only)"] += 1
        elif not isinstance(o, TransferOutput) or o.owners.threshold != 1 or len(o.owners.addresses) != 1 \
                or o.owners.locktime:
            skipped["X-Chain UTXO(s) with several owners or a locktime"] += 1
        else:
            out.x[o.owners.addresses[0]] += o.amount
    for _, raw in store.iterate(K_UTXO):
        u = decode_utxo(raw, P_REGISTRY)
        o, locktime = (u.out.out, u.out.locktime) if isinstance(u.out, StakeableLockOut) else (u.out, 0)
        if u.asset_id != g.avax_asset_id or not isinstance(o, TransferOutput) or o.owners.threshold != 1 \
                or len(o.owners.addresses) != 1 or o.owners.locktime:
            skipped["P-Chain UTXO(s) of other assets, with several owners or a non-stakeable lock"] += 1
            continue
        out.p[o.owners.addresses[0]].append((o.amount, locktime))
    in_flight = sum(1 for key, _ in store.iterate(ATOMIC_PREFIX) if key[len(ATOMIC_PREFIX) + 64:][:1] == b"u")
    if in_flight:
        skipped["UTXO(s) exported from one chain and not yet imported on the other (shared memory: a genesis has "
                "none; import them before the export)"] += in_flight
    out.left_out = [f"{n} {what}" for what, n in sorted(skipped.items())]
    return out


# ------------------------------------------------------------------------------------ the export


@dataclass(slots=True)
class ExportResult:
    directory: Path
    network_id: int
    nodes: list[ExportedNode]
    genesis: dict[str, Any]
    l1s: list[str]
    left_out: list[str]


def export_network(out_dir: Path, *, data_dir: Path | None = None, source_network_id: int = 12345,
                   source_genesis: Path | None = None, source_seed: int = 0, nodes: int = DEFAULT_NODES,
                   network_id: int = DEFAULT_NETWORK_ID, start_time: int | None = None) -> ExportResult:
    from ..node import Node

    if network_id in (1, 5, 12345):
        raise ExportError(f"network ID {network_id} is one AvalancheGo takes no genesis file for; choose another "
                          "(default 1337)")
    if not 1 <= nodes <= 100:
        raise ExportError("--nodes must be 1..100")
    # a virtual clock at the epoch: opening the chains must not move them (no staker's end is due then)
    config = NodeConfig(data_dir=data_dir, network_id=source_network_id, genesis_file=source_genesis, index=False,
                        seed=source_seed,
                        clock_mode="virtual", start_time_ms=0, log_level="WARN", relayer=False)
    db = config.resolved_data_dir() / "db"
    if not db.is_dir():
        raise ExportError(f"no database in {db.parent}")
    node = Node(config)
    try:
        node.open_offline()
        return _export(node, Path(out_dir), nodes, network_id, start_time)
    finally:
        asyncio.run(node.stop())


def _export(node: Any, out: Path, count: int, network_id: int, start_time: int | None) -> ExportResult:
    g = node.genesis
    source = g.config
    hrp = hrp_for_network(network_id)
    members = exported_nodes(count, node.config.seed)
    left_out: list[str] = []
    balances = xp_balances(node)
    left_out += balances.left_out

    platform = node.chains[ZERO_ID]
    staked_extra = sum(s.weight for s in platform.state.stakers.values())
    genesis_stake = sum(v.weight for v in g.validators)
    if staked_extra > genesis_stake:
        left_out.append(f"{staked_extra - genesis_stake} nAVAX staked by validators and delegators added after "
                        "genesis (a genesis stakes for its initial stakers only)")

    # What this network's genesis staked, staked again by the exported nodes.
    staked = [a for a in source.allocations if a.avax_addr in set(source.initial_staked_funds)]
    allocations: list[dict[str, Any]] = []
    staked_addresses = {a.avax_addr for a in staked}
    for a in staked:
        if a.avax_addr in balances.p:
            left_out.append(f"the P-Chain balance of {format_address('P', hrp, a.avax_addr)} (its address stakes the "
                            "genesis funds; AvalancheGo would stake all its allocations)")
            del balances.p[a.avax_addr]
        allocations.append(_allocation(hrp, a.avax_addr, balances.x.pop(a.avax_addr, 0),
                                       [(u.amount, u.locktime) for u in a.unlock_schedule]))
    for addr in sorted(set(balances.x) | set(balances.p)):
        allocations.append(_allocation(hrp, addr, balances.x.get(addr, 0), balances.p.get(addr, [])))

    c_chain = node.chains[g.c_chain_id]
    c = evm_alloc(c_chain, _known_evm_addresses(node))
    left_out += _unnamed(c, "C-Chain")
    c_genesis = dict(c_chain.genesis_json)
    c_genesis["alloc"] = c.alloc

    first = source.initial_stakers[0]
    # a minute back: the P-Chain's fee capacity grows from its genesis time, and is full by the time
    # a node starts (a genesis time of this very second would refuse the first P-Chain txs)
    now = int(time.time()) - GENESIS_LEAD_S if start_time is None else start_time
    genesis = {
        "networkID": network_id,
        "allocations": allocations,
        "startTime": now,
        "initialStakeDuration": source.initial_stake_duration,
        "initialStakeDurationOffset": source.initial_stake_duration_offset,
        "initialStakedFunds": [format_address("X", hrp, a) for a in sorted(staked_addresses)],
        "initialStakers": [{
            "nodeID": node_id_to_str(m.node_id), "rewardAddress": format_address("X", hrp, first.reward_address),
            "delegationFee": first.delegation_fee,
            "signer": {"publicKey": "0x" + m.public_key.hex(), "proofOfPossession": "0x" + m.proof_of_possession.hex()},
        } for m in members],
        "cChainGenesis": json.dumps(c_genesis, separators=(",", ":")),
        "message": source.message,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "genesis.json").write_text(json.dumps(genesis, indent=2) + "\n")
    for m in members:
        d = out / "nodes" / m.name
        d.mkdir(parents=True, exist_ok=True)
        (d / "staker.crt").write_bytes(m.cert_pem)
        _secret(d / "staker.key", m.key_pem)
        _secret(d / "signer.key", m.signer.to_bytes())
    l1s = _export_l1s(node, out, members, left_out, now)
    (out / "README.md").write_text(_readme(out, genesis, members, l1s, left_out))
    return ExportResult(out, network_id, members, genesis, l1s, left_out)


def _allocation(hrp: str, addr: bytes, x_amount: int, p: list[tuple[int, int]]) -> dict[str, Any]:
    return {"ethAddr": ZERO_ETH, "avaxAddr": format_address("X", hrp, addr), "initialAmount": x_amount,
            "unlockSchedule": [{"amount": amount, "locktime": locktime} if locktime else {"amount": amount}
                               for amount, locktime in sorted(p, key=lambda e: (e[1], e[0]))]}


def _known_evm_addresses(node: Any) -> list[bytes]:
    from ..icm.messages import MESSENGER_ADDRESS
    from ..icm.relayer_account import relayer_address

    return [MESSENGER_ADDRESS, relayer_address(node.config.seed)]


def _unnamed(e: EvmExport, chain: str) -> list[str]:
    out = []
    if e.unnamed_accounts:
        out.append(f"{e.unnamed_accounts} {chain} account(s) holding {e.unnamed_wei} wei whose address no block "
                   "names (set with dev methods only, or the in-process relayer's when --source-seed is not the "
                   "seed the node ran with)")
    if e.unnamed_slots:
        out.append(f"{e.unnamed_slots} {chain} storage slot(s) whose key no block names (set with dev methods only)")
    return out


def _secret(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    path.chmod(0o600)


def _export_l1s(node: Any, out: Path, members: list[ExportedNode], left_out: list[str],
                genesis_time: int) -> list[str]:
    """Each L1 EVM chain's genesis (its current state) and chain config, and the steps that create
    it again on the exported network."""
    from ..config import read_chain_config_files
    from ..formats.ids import SUBNET_EVM_VM_ID

    platform = node.chains[ZERO_ID]
    steps: list[dict[str, Any]] = []
    names: list[str] = []
    for cid, rec in sorted(platform.state.chains.items(), key=lambda kv: kv[1].name):
        if rec.subnet_id == ZERO_ID:
            continue  # X and C: in the genesis itself
        chain = node.chains.get(cid)
        if rec.vm_id != SUBNET_EVM_VM_ID or chain is None or not hasattr(chain, "genesis_json"):
            left_out.append(f"chain {rec.name} ({id_to_str(cid)}): only subnet-EVM chains are exported")
            continue
        name = _dir_name(rec.name, names)
        names.append(name)
        d = out / "l1s" / name
        d.mkdir(parents=True, exist_ok=True)
        e = evm_alloc(chain)
        left_out += _unnamed(e, f"chain {rec.name}")
        doc = dict(chain.genesis_json)
        doc["alloc"] = e.alloc
        # the state of now, at the network's genesis time: at a genesis block of time 0 subnet-EVM
        # runs the alloc's code under the rules before Durango (no PUSH0) until a block is built
        doc["timestamp"] = hex(genesis_time)
        (d / "genesis.json").write_text(json.dumps(doc, indent=2) + "\n")
        files = read_chain_config_files(node.config.chain_config_dir, (id_to_str(cid),))
        (d / "config.json").write_bytes(files.config or b"{}\n")
        if files.upgrade:
            (d / "upgrade.json").write_bytes(files.upgrade)
        subnet = platform.state.subnets.get(rec.subnet_id)
        steps.append({"kind": "create_subnet", "label": f"the subnet of {rec.name}", "from": "ewoq",
                      "save": f"subnet_{name}"})
        steps.append({"kind": "create_chain", "from": "ewoq", "subnet": f"subnet_{name}", "name": rec.name,
                      "genesis": f"l1s/{name}/genesis.json", "save": f"chain_{name}"})
        if subnet is not None and subnet.conversion_id is not None:
            manager = "0x" + (subnet.manager_address or bytes(20)).hex()
            if subnet.manager_chain_id != cid:
                left_out.append(f"L1 {rec.name}: its validator manager lives on another chain; the steps name this one")
            steps.append({"kind": "convert_to_l1", "from": "ewoq", "subnet": f"subnet_{name}",
                          "chain": f"chain_{name}", "manager": manager, "validators": [
                              {"node_id": node_id_to_str(m.node_id), "weight": 100, "balance": "1 AVAX",
                               "public_key": "0x" + m.public_key.hex(),
                               "proof_of_possession": "0x" + m.proof_of_possession.hex()} for m in members]})
    if steps:
        text = ("# The subnets and L1s of the exported network, created again on it:\n"
                "#   simnode replay recreate-l1s.toml --target http://127.0.0.1:9650\n"
                "# `from` must be a funded key on the target (ewoq is, if this network's ewoq was).\n"
                "name = \"recreate the L1s\"\n")
        text += "".join("\n[[steps]]\n" + toml_key_values(s) for s in steps)
        (out / "recreate-l1s.toml").write_text(text)
    return names


def _dir_name(name: str, taken: list[str]) -> str:
    base = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name) or "chain"
    out, k = base, 2
    while out in taken:
        out, k = f"{base}-{k}", k + 1
    return out


def node_arguments(export_dir: Path, genesis: dict[str, Any], k: int, *, http_port: int, staking_port: int,
                   beacon_port: int, chain_config_dir: Path | None = None, data_dir: Path | None = None) -> list[str]:
    """AvalancheGo's flags for the export's node k (0-based) on one machine: its keys, ports and data dir
    (default its folder under nodes/); node-1 (k = 0) is the others' bootstrap beacon, on `beacon_port`."""
    d = export_dir.resolve()
    keys = d / "nodes" / f"node-{k + 1}"
    args = [f"--network-id={genesis['networkID']}", f"--genesis-file={d / 'genesis.json'}",
            f"--staking-tls-cert-file={keys / 'staker.crt'}", f"--staking-tls-key-file={keys / 'staker.key'}",
            f"--staking-signer-key-file={keys / 'signer.key'}", f"--data-dir={data_dir or keys}",
            f"--http-port={http_port}", f"--staking-port={staking_port}", "--public-ip=127.0.0.1"]
    if k:
        beacon = genesis["initialStakers"][0]["nodeID"]
        args += [f"--bootstrap-ips=127.0.0.1:{beacon_port}", f"--bootstrap-ids={beacon}"]
    else:
        args += ["--bootstrap-ips=", "--bootstrap-ids="]
    if chain_config_dir is not None:
        args.append(f"--chain-config-dir={chain_config_dir}")
    return args


def _readme(out: Path, genesis: dict[str, Any], members: list[ExportedNode], l1s: list[str],
            left_out: list[str]) -> str:
    from ..formats.ids import SUBNET_EVM_VM_ID

    network_id = genesis["networkID"]
    lines = [f"# Network {network_id}, exported by simnode", "",
             "Start each node with its own command line (on one machine as written; on several, give each its "
             "`--public-ip` and the first node's address in `--bootstrap-ips`). AvalancheGo raises its open-files "
             "limit to 32768 and refuses to start where the hard limit (`ulimit -Hn`) is lower: there, add "
             "`--fd-limit=N` with N under it.", ""]
    for k, m in enumerate(members):
        args = node_arguments(out, genesis, k, http_port=9650 + 2 * k, staking_port=9651 + 2 * k, beacon_port=9651,
                              chain_config_dir=out.resolve() / "chain-configs" if l1s else None)
        lines += [f"## {m.name}: {node_id_to_str(m.node_id)}", "", "```",
                  " \\\n  ".join(["avalanchego " + args[0], *args[1:]]), "```", ""]
    lines += ["simnode runs the same network: `simnode run --genesis genesis.json --network-id "
              f"{network_id}`.", ""]
    if l1s:
        lines += ["## L1s", "",
                  "Once the nodes are up, `simnode replay recreate-l1s.toml --target http://127.0.0.1:9650` creates "
                  "each subnet and chain again from `l1s/<name>/genesis.json` and converts it to an L1 validated by "
                  "these nodes. The new chains get new blockchain IDs: copy `l1s/<name>/config.json` to "
                  "`chain-configs/<new blockchain ID>/config.json` and restart the nodes with "
                  "`--track-subnets=<new subnet ID>`. The nodes run the chains with the subnet-EVM plugin: a file "
                  f"named by its VM ID, `{id_to_str(SUBNET_EVM_VM_ID)}`, in their plugin dir (`--plugin-dir`, "
                  "default `~/.avalanchego/plugins`). The plugin also raises its open-files limit to 32768, with no "
                  "flag to lower it: it exits at start (AvalancheGo logs \"vm process not found\") where the hard "
                  "limit is lower.", ""]
    lines += ["## Not carried over", ""]
    lines += [f"* {what}" for what in left_out] or ["* nothing"]
    return "\n".join(lines) + "\n"


__all__ = ["DEFAULT_NETWORK_ID", "DEFAULT_NODES", "ExportError", "ExportResult", "ExportedNode", "evm_alloc",
           "export_network", "exported_nodes", "node_arguments", "node_id_of_certificate", "staking_certificate",
           "xp_balances"]
