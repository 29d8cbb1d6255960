"""Does an exported network read the same on its new nodes as on the simnode it came from?

Given the export folder, the source node and a node of the exported network (real AvalancheGo or
simnode on the exported genesis), every balance the export carried is read on both through the
public APIs and compared: each allocation's AVAX on X (`avm.getBalance`) and on P
(`platform.getBalance`: balance, unlocked, locked stakeable and not), each C-Chain alloc account's
balance, nonce, code and every storage slot the alloc names (`eth_getBalance`,
`eth_getTransactionCount`, `eth_getCode`, `eth_getStorageAt`) and its storage root (`eth_getProof`,
against the root of the alloc's slots: no other slot on either side), and the same for each L1 EVM chain
(its blockchain ID differs: the L1 was created again). Addresses on X and P are the same bytes in
each network's HRP.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..formats.address import format_address, hrp_for_network, parse_address
from .transport import Transport


def storage_root(storage: dict[str, str], coreth_keys: bool = False) -> str:
    """The storage trie root of an alloc's `storage`. With `coreth_keys`, as the C-Chain keys it
    (coreth, and simnode: vms/evm/rules.CorethAccountDB): the lowest bit of a slot key's first byte
    cleared (an odd first byte marks its multicoin balances); without, as an L1 (subnet-evm) keys it."""
    import rlp
    from trie import HexaryTrie

    from ..crypto.hashing import keccak256

    t = HexaryTrie({})
    for key, value in storage.items():
        k = bytearray(bytes.fromhex(key.removeprefix("0x").rjust(64, "0")))
        if coreth_keys:
            k[0] &= 0xFE
        v = int(value, 16)
        if v:
            t[keccak256(bytes(k))] = rlp.encode(v.to_bytes(32, "big").lstrip(b"\0"))
    return "0x" + t.root_hash.hex()


@dataclass(slots=True)
class Comparison:
    counts: Counter[str] = field(default_factory=Counter)
    differences: list[str] = field(default_factory=list)

    def check(self, kind: str, what: str, source: Any, target: Any) -> None:
        self.counts[kind] += 1
        if source != target:
            self.differences.append(f"{what}: source {source}, target {target}")

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _p_balance(t: Transport, address: str) -> tuple[int, int, int, int]:
    b = t.call("P", "platform.getBalance", {"addresses": [address]})
    return int(b["balance"]), int(b["unlocked"]), int(b["lockedStakeable"]), int(b["lockedNotStakeable"])


def compare_xp(export_dir: Path, source: Transport, source_network_id: int, target: Transport,
               out: Comparison) -> None:
    genesis = json.loads((export_dir / "genesis.json").read_text())
    staked = {parse_address(a)[2] for a in genesis["initialStakedFunds"]}
    src_hrp, dst_hrp = hrp_for_network(source_network_id), hrp_for_network(int(genesis["networkID"]))
    for alloc in genesis["allocations"]:
        raw = parse_address(alloc["avaxAddr"])[2]
        a, b = format_address("X", src_hrp, raw), format_address("X", dst_hrp, raw)
        out.check("X balances", f"X {b}", int(source.call("X", "avm.getBalance", {"address": a, "assetID": "AVAX"})
                                              ["balance"]),
                  int(target.call("X", "avm.getBalance", {"address": b, "assetID": "AVAX"})["balance"]))
        if raw in staked:
            continue  # its P-Chain funds are the genesis stake, not UTXOs
        a, b = format_address("P", src_hrp, raw), format_address("P", dst_hrp, raw)
        out.check("P balances", f"P {b}", _p_balance(source, a), _p_balance(target, b))


def compare_evm(alloc: dict[str, Any], source: Transport, source_endpoint: str, target: Transport,
                target_endpoint: str, label: str, out: Comparison, coreth_keys: bool = False) -> None:
    """Each alloc account's balance, nonce, code, storage root and alloc'd storage slots at the latest block."""
    for address, acct in alloc.items():
        a = "0x" + address.removeprefix("0x")
        for method, kind in (("eth_getBalance", "balances"), ("eth_getTransactionCount", "nonces"),
                             ("eth_getCode", "codes")):
            out.check(f"{label} {kind}", f"{label} {method} {a}", _num(source.call(source_endpoint, method,
                                                                                 [a, "latest"])),
                      _num(target.call(target_endpoint, method, [a, "latest"])))
        # the whole storage trie holds the alloc's slots and no other, on each side (the chain's key rule)
        expected = storage_root(acct.get("storage") or {}, coreth_keys)
        for side, t, endpoint in (("source", source, source_endpoint), ("target", target, target_endpoint)):
            out.check(f"{label} storage roots", f"{label} {a} storage root on the {side}", expected,
                      t.call(endpoint, "eth_getProof", [a, [], "latest"])["storageHash"])
        for slot in acct.get("storage") or {}:
            params = [a, slot, "latest"]
            out.check(f"{label} storage slots", f"{label} {a} slot {slot}",
                      _num(source.call(source_endpoint, "eth_getStorageAt", params)),
                      _num(target.call(target_endpoint, "eth_getStorageAt", params)))


def _num(value: str) -> int | str:
    """Quantities and slots compare as numbers (0x0 = 0x00…0), code as its hex."""
    text = value.lower()
    return int(text, 16) if 2 < len(text) <= 66 else text


def compare_primary(export_dir: Path, source: Transport, target: Transport, *, source_network_id: int = 12345,
                    out: Comparison | None = None) -> Comparison:
    """X, P and C, read before anything is sent to the target (the L1s' recreation spends ewoq's P funds)."""
    out = out or Comparison()
    compare_xp(export_dir, source, source_network_id, target, out)
    genesis = json.loads((export_dir / "genesis.json").read_text())
    compare_evm(json.loads(genesis["cChainGenesis"])["alloc"], source, "C", target, "C", "C", out, coreth_keys=True)
    return out


def compare_l1s(export_dir: Path, source: Transport, target: Transport, l1_chains: dict[str, tuple[str, str]],
                out: Comparison | None = None) -> Comparison:
    """`l1_chains`: L1 folder name → (source blockchain ID, target blockchain ID)."""
    out = out or Comparison()
    for name, (src_chain, dst_chain) in sorted(l1_chains.items()):
        alloc = json.loads((export_dir / "l1s" / name / "genesis.json").read_text())["alloc"]
        compare_evm(alloc, source, f"/ext/bc/{src_chain}/rpc", target, f"/ext/bc/{dst_chain}/rpc", f"L1 {name}", out)
    return out


def l1_validators(t: Transport, subnet_id: str) -> list[tuple[str, int, str]]:
    """The L1's current validators as (NodeID, weight, BLS public key), sorted."""
    vdrs = t.call("P", "platform.getCurrentValidators", {"subnetID": subnet_id})["validators"]
    return sorted((v["nodeID"], int(v["weight"]), v.get("publicKey", "")) for v in vdrs)


def l1_manager(t: Transport, subnet_id: str) -> tuple[bool, str, str]:
    """(isPermissioned, managerChainID, managerAddress) of a subnet."""
    s = t.call("P", "platform.getSubnet", {"subnetID": subnet_id})
    return bool(s["isPermissioned"]), s.get("managerChainID") or "", (s.get("managerAddress") or "").lower()


__all__ = ["Comparison", "compare_evm", "compare_l1s", "compare_primary", "compare_xp", "l1_manager", "l1_validators",
           "storage_root"]
