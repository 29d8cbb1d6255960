"""An exported simnode network, run on real AvalancheGo nodes and compared with simnode.

The trial, step by step (each step's figures land in the `Trial` it returns):
1. the source: a scenario replayed into a kept data dir (`simnode replay FILE --data-dir D`);
2. `simnode export-network OUT --data-dir D --nodes N`;
3. N real nodes on loopback from the export, timed until every node is healthy with P, X and C
   bootstrapped;
4. the L1s created again on them (`recreate-l1s.toml` with `--target`), the nodes restarted to
   track the new subnets with the exported chain configs, timed until healthy again;
5. every carried balance, nonce, code and storage slot read on the source and on each real node;
   the L1's validators on the real P-Chain against the exported nodes' keys;
6. new txs on each chain (C, X, P and the L1), every node reading their results the same;
7. a scenario run on the real network with `simnode replay FILE --target URL --skip-unsupported`,
   and the same sequence (recreated L1s, new txs, the scenario) on simnode started from the same
   exported genesis: the scenario's accounts end with the same balances on both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import NodeConfig
from ..formats.address import format_address, hrp_for_network
from ..node import Node
from ..scenario.accounts import Account, derive_key, parse_key
from ..scenario.export_check import Comparison, compare_l1s, compare_primary, l1_manager, l1_validators
from ..scenario.model import load_scenario
from ..scenario.target import run_on_target
from ..scenario.transport import HttpTransport, Transport
from .realnet import Binaries, RealNetwork

ROOT = Path(__file__).resolve().parents[2]
SOURCE_SCENARIO = ROOT / "tests" / "avalanchego" / "export_source.toml"
REPLAY_SCENARIO = ROOT / "scenarios" / "quickstart.toml"
NEWCOMER = "0x" + "5e" * 20  # the new txs' recipient: an address no scenario uses


@dataclass(slots=True)
class Trial:
    work: Path
    export_stdout: str = ""
    source_seconds: float = 0.0
    export_seconds: float = 0.0
    boot_seconds: float = 0.0
    recreate_seconds: float = 0.0
    restart_seconds: float = 0.0
    l1s: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # name -> (source chain, subnet, chain)
    l1_chain_skipped: str | None = None  # why the L1 chains could not run on the real nodes
    comparisons: list[Comparison] = field(default_factory=list)  # one per real node
    l1_validators_real: list[tuple[str, int, str]] = field(default_factory=list)
    l1_validators_exported: list[tuple[str, int, str]] = field(default_factory=list)
    l1_validators_simnode: list[tuple[str, int, str]] = field(default_factory=list)
    l1_managers: dict[str, tuple[tuple[bool, str, str], tuple[bool, str, str]]] = field(default_factory=dict)
    l1_reads_agree: bool = False  # every real node lists the same L1 validators and manager
    new_txs: dict[str, Any] = field(default_factory=dict)  # what each node read after the new txs
    replay_real: dict[str, Any] = field(default_factory=dict)
    replay_simnode: dict[str, Any] = field(default_factory=dict)
    replay_nodes_agree: bool = False  # every real node ends with the same scenario balances
    replay_exit: int | None = None
    replay_output: str = ""
    replay_seconds: float = 0.0


def _simnode(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, ETH_HASH_BACKEND=os.environ.get("ETH_HASH_BACKEND", "pysha3"))
    return subprocess.run([sys.executable, "-m", "simnode", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def build_source(trial: Trial, scenario: Path = SOURCE_SCENARIO, nodes: int = 5) -> Path:
    """Steps 1 and 2: the source's data dir and its export."""
    data, out = trial.work / "source", trial.work / "export"
    t0 = time.monotonic()
    run = _simnode("replay", str(scenario), "--data-dir", str(data), "--quiet")
    if run.returncode:
        raise RuntimeError(f"source scenario failed: {run.stderr.strip()}")
    t1 = time.monotonic()
    run = _simnode("export-network", str(out), "--data-dir", str(data), "--nodes", str(nodes), "--source-seed",
                   str(load_scenario(scenario).seed))
    if run.returncode:
        raise RuntimeError(f"export-network failed: {run.stderr.strip()}")
    trial.source_seconds, trial.export_seconds = t1 - t0, time.monotonic() - t1
    trial.export_stdout = run.stdout
    return out


def recreate_l1s(export: Path, url: str) -> dict[str, tuple[str, str]]:
    """Run the export's recreate-l1s.toml on `url`: L1 name -> (subnet ID, blockchain ID)."""
    steps = export / "recreate-l1s.toml"
    if not steps.is_file():
        return {}
    saved = run_on_target(steps, url).saved
    return {name: (saved[f"subnet_{name}"], saved[f"chain_{name}"])
            for name in sorted(p.name for p in (export / "l1s").iterdir())}


def boot(trial: Trial, net: RealNetwork, timeout: float = 900) -> None:
    """Step 3. The caller stops the network (also when this raises)."""
    net.start()
    trial.boot_seconds = net.wait_healthy(timeout, ("P", "X", "C"))


def recreate_and_track(trial: Trial, net: RealNetwork, source: Transport, timeout: float = 900) -> None:
    """Step 4: the L1s made again on the real network, and the nodes restarted to track them."""
    export = net.export_dir
    t0 = time.monotonic()
    made = recreate_l1s(export, net.nodes[0].url)
    trial.recreate_seconds = time.monotonic() - t0
    if not made:
        return
    by_name = _source_l1_chains(source, list(made))
    for name, (subnet, chain) in made.items():
        trial.l1s[name] = (by_name.get(name, ""), subnet, chain)
    trial.l1_chain_skipped = net.binaries.l1_problem
    if trial.l1_chain_skipped:
        return  # the P-Chain side is made; the chains themselves cannot run
    for name, (_subnet, chain) in made.items():
        d = export / "l1s" / name
        upgrade = d / "upgrade.json"
        net.write_chain_config(chain, (d / "config.json").read_bytes(),
                               upgrade.read_bytes() if upgrade.is_file() else None)
    net.restart(sorted({subnet for subnet, _ in made.values()}))
    trial.restart_seconds = net.wait_healthy(timeout, ("P", "X", "C", *(c for _, c in made.values())))


def _source_l1_chains(t: Transport, names: list[str]) -> dict[str, str]:
    chains = t.call("P", "platform.getBlockchains", {})["blockchains"]
    by_name = {c["name"]: c["id"] for c in chains}
    return {name: by_name[name] for name in names if name in by_name}


def _each_node(net: RealNetwork, fn: Any) -> list[Any]:
    return [_on(node.url, fn) for node in net.nodes]


def _on(url: str, fn: Any) -> Any:
    t = HttpTransport(url)
    try:
        return fn(t)
    finally:
        t.close()


def source_node(trial: Trial) -> Any:
    """The source reopened from its data dir (read only by these reads)."""
    return Node.start_in_thread(NodeConfig(http_port=0, data_dir=trial.work / "source", log_level="WARN",
                                           clock_mode="virtual", relayer=False))


def new_txs(url: str, l1s: dict[str, tuple[str, str, str]], export: Path) -> None:
    """Step 6's txs: AVAX to a new address on C, X and P, and an L1 token transfer to it."""
    steps: list[dict[str, Any]] = [
        {"kind": "transfer", "chain": "C", "from": "ewoq", "to": NEWCOMER, "amount": "1.25 AVAX"},
        {"kind": "transfer", "chain": "X", "from": "ewoq", "to": _newcomer_bech32("X", export), "amount": "2 AVAX"},
        {"kind": "transfer", "chain": "P", "from": "ewoq", "to": _newcomer_bech32("P", export), "amount": "3 AVAX"},
    ]
    for name, (_, _, chain) in sorted(l1s.items()):
        token = _a_contract(export / "l1s" / name / "genesis.json")
        if token:
            steps.append({"kind": "transact", "evm_chain": chain, "contract": token, "from": "ewoq",
                          "function": "transfer(address,uint256)", "args": [NEWCOMER, "0.5 ether"]})
    run_on_target(steps, url)


def _newcomer_bech32(chain: str, export: Path) -> str:
    network_id = json.loads((export / "genesis.json").read_text())["networkID"]
    return format_address(chain, hrp_for_network(network_id), bytes.fromhex(NEWCOMER[2:]))


def _a_contract(genesis: Path) -> str | None:
    """The ERC-20 the source put on the L1: the alloc account with code and storage that is not the
    ICM messenger (which simnode places on every EVM chain)."""
    from ..icm.messages import MESSENGER_ADDRESS

    alloc = json.loads(genesis.read_text())["alloc"]
    found = [a for a, acct in sorted(alloc.items()) if acct.get("code") and acct.get("storage")
             and bytes.fromhex(a.removeprefix("0x")) != MESSENGER_ADDRESS]
    return "0x" + found[0].removeprefix("0x") if found else None


def read_new_txs(url: str, l1s: dict[str, tuple[str, str, str]], export: Path) -> dict[str, Any]:
    t = HttpTransport(url)
    try:
        out = {"C": int(t.call("C", "eth_getBalance", [NEWCOMER, "latest"]), 16),
               "X": int(t.call("X", "avm.getBalance", {"address": _newcomer_bech32("X", export),
                                                        "assetID": "AVAX"})["balance"]),
               "P": int(t.call("P", "platform.getBalance", {"addresses": [_newcomer_bech32("P", export)]})
                        ["balance"])}
        for name, (_, _, chain) in sorted(l1s.items()):
            token = _a_contract(export / "l1s" / name / "genesis.json")
            if token:
                data = "0x70a08231" + NEWCOMER[2:].rjust(64, "0")
                out[name] = int(t.call(f"/ext/bc/{chain}/rpc", "eth_call", [{"to": token, "data": data}, "latest"]),
                                16)
        return out
    finally:
        t.close()


def reads_settled(net: RealNetwork, read: Any, timeout: float = 60) -> dict[str, Any]:
    """What each node reads once it has accepted what node-1 accepted (the others accept a moment
    later), or what it reads after `timeout`."""
    first = read(net.nodes[0].url)
    out = {net.nodes[0].name: first}
    for node in net.nodes[1:]:
        deadline = time.monotonic() + timeout
        while (value := read(node.url)) != first and time.monotonic() < deadline:
            time.sleep(0.5)
        out[node.name] = value
    return out


def scenario_balances(url: str, scenario: Path, network_id: int) -> dict[str, Any]:
    """The scenario's accounts' AVAX on C (wei), X and P (nAVAX)."""
    s = load_scenario(scenario)
    t = HttpTransport(url)
    out: dict[str, Any] = {}
    try:
        for spec in s.accounts:
            key = parse_key(spec.key) if spec.key else derive_key(s.seed, spec.name)
            a = Account(spec.name, key, network_id)
            out[f"{spec.name} C"] = int(t.call("C", "eth_getBalance", [a.c_address, "latest"]), 16)
            out[f"{spec.name} X"] = int(t.call("X", "avm.getBalance", {"address": a.x_address,
                                                                       "assetID": "AVAX"})["balance"])
            out[f"{spec.name} P"] = int(t.call("P", "platform.getBalance", {"addresses": [a.p_address]})["balance"])
    finally:
        t.close()
    return out


def replay_on(url: str, scenario: Path) -> tuple[int, str, float]:
    t0 = time.monotonic()
    run = _simnode("replay", str(scenario), "--target", url, "--skip-unsupported")
    return run.returncode, (run.stdout + run.stderr).strip(), time.monotonic() - t0


def on_exported_simnode(trial: Trial, export: Path, scenario: Path, with_l1_txs: bool = True) -> None:
    """Step 7's other side: simnode from the exported genesis (wall clock), the same sequence."""
    genesis = json.loads((export / "genesis.json").read_text())
    config = NodeConfig(http_port=0, ephemeral=True, log_level="ERROR", network_id=int(genesis["networkID"]),
                        genesis_file=export / "genesis.json", relayer=False)
    with Node.start_in_thread(config) as h:
        made = recreate_l1s(export, h.url)
        l1s = {name: ("", subnet, chain) for name, (subnet, chain) in made.items()}
        for _, subnet, _ in l1s.values():
            trial.l1_validators_simnode = l1_validators(HttpTransport(h.url), subnet)
        new_txs(h.url, l1s if with_l1_txs else {}, export)
        code, output, _ = replay_on(h.url, scenario)
        if code:
            raise RuntimeError(f"the scenario failed on simnode from the exported genesis: {output}")
        trial.replay_simnode = scenario_balances(h.url, scenario, int(genesis["networkID"]))


def run_trial(work: Path, binaries: Binaries, *, nodes: int = 5, scenario: Path = REPLAY_SCENARIO,
              log: Any = print) -> Trial:
    trial = Trial(work)
    export = build_source(trial, nodes=nodes)
    log(f"source {trial.source_seconds:.1f}s, export {trial.export_seconds:.1f}s")
    net = RealNetwork.from_export(export, binaries, work / "real")
    genesis = json.loads((export / "genesis.json").read_text())
    trial.l1_validators_exported = sorted((s["nodeID"], 100, s["signer"]["publicKey"])
                                          for s in genesis["initialStakers"])
    with source_node(trial) as h:
        source = HttpTransport(h.url)
        try:
            boot(trial, net)
            log(f"{nodes} nodes healthy in {trial.boot_seconds:.1f}s")
            trial.comparisons = _each_node(net, lambda t: compare_primary(export, source, t))
            recreate_and_track(trial, net, source)
            log(f"L1s recreated in {trial.recreate_seconds:.1f}s; " + (
                f"their chains not run: {trial.l1_chain_skipped}" if trial.l1_chain_skipped
                else f"healthy again after the restart in {trial.restart_seconds:.1f}s"))
            chains = {} if trial.l1_chain_skipped else {name: (src, chain)
                                                        for name, (src, _, chain) in trial.l1s.items()}
            running = {} if trial.l1_chain_skipped else trial.l1s
            for c, node in zip(trial.comparisons, net.nodes):
                t = HttpTransport(node.url)
                compare_l1s(export, source, t, chains, out=c)
                t.close()
            log(f"compared {sum(c.total for c in trial.comparisons)} values, "
                f"{sum(len(c.differences) for c in trial.comparisons)} differ")
            for name, (src, subnet, chain) in trial.l1s.items():
                def l1_side(t: HttpTransport, subnet: str = subnet) -> tuple[Any, Any]:
                    return l1_validators(t, subnet), l1_manager(t, subnet)

                reads = reads_settled(net, lambda url: _on(url, l1_side))
                first = reads[net.nodes[0].name]
                trial.l1_reads_agree = all(r == first for r in reads.values())
                trial.l1_validators_real, real = first
                src_subnet = next(c["subnetID"] for c in source.call("P", "platform.getBlockchains", {})["blockchains"]
                                  if c["id"] == src)
                was = l1_manager(source, src_subnet)
                # the same manager address, on the chain made again
                trial.l1_managers[name] = (was[:1] + (chain,) + was[2:], real)
            new_txs(net.nodes[0].url, running, export)
            trial.new_txs = reads_settled(net, lambda url: read_new_txs(url, running, export))
            trial.replay_exit, trial.replay_output, trial.replay_seconds = replay_on(net.nodes[0].url, scenario)
            ends = reads_settled(net, lambda url: scenario_balances(url, scenario, net.network_id))
            trial.replay_real = ends[net.nodes[0].name]
            trial.replay_nodes_agree = all(v == trial.replay_real for v in ends.values())
            log(f"replay --target: exit {trial.replay_exit} in {trial.replay_seconds:.1f}s")
        finally:
            source.close()
            net.stop()
    on_exported_simnode(trial, export, scenario, with_l1_txs=not trial.l1_chain_skipped)
    return trial


__all__ = ["NEWCOMER", "REPLAY_SCENARIO", "SOURCE_SCENARIO", "Trial", "boot", "build_source", "new_txs",
           "on_exported_simnode", "read_new_txs", "reads_settled", "recreate_and_track", "recreate_l1s", "replay_on",
           "run_trial", "scenario_balances", "source_node"]
