"""Replay: start a node for a scenario, run it, record or check its golden trace.

`replay()` is what `simnode replay` calls; `run_on()` runs a scenario against a node that is
already up (the pytest plugin and `simnode run --scenario`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import NodeConfig
from ..node import Node, NodeThread
from .golden_trace import compare as compare_traces, read as read_trace, record as record_trace, write as write_trace
from .accounts import Account
from .errors import ScenarioError
from .model import Scenario, load_scenario, scenario_from_dict
from .recorded import PRIMARY, TX_METHODS, endpoint_chain
from .runner import Runner
from .schema import v_json_text, v_time
from .stats import RunStats
from .transport import HttpTransport, InProcessTransport, Transport


_RECORDED_FIELDS = {"at": v_time, "result": v_json_text}


class TraceMismatch(ScenarioError):
    pass


@dataclass(slots=True)
class ReplayResult:
    scenario: Scenario
    stats: RunStats
    saved: dict[str, Any]
    accounts: dict[str, Account]
    trace: dict[str, Any] | None = None
    txs: list[Any] = field(default_factory=list)
    runner: Runner | None = None


def as_scenario(source: str | Path | Scenario | list[dict[str, Any]] | dict[str, Any],
                vars: dict[str, Any] | None = None, base_dir: Path | None = None) -> Scenario:
    """A Scenario from a path, a parsed document, a list of step tables or a Scenario."""
    if isinstance(source, Scenario):
        return source
    if isinstance(source, list):
        return scenario_from_dict({"steps": source}, "<steps>", base_dir=base_dir, vars=vars)
    if isinstance(source, dict):
        return scenario_from_dict(source, "<scenario>", base_dir=base_dir, vars=vars)
    return load_scenario(source, vars=vars)


def node_config(scenario: Scenario, *, clock: str | None = None, data_dir: Path | None = None,
                http_host: str = "127.0.0.1", http_port: int = 0, log_level: str = "WARN",
                api_admin_enabled: bool = False) -> NodeConfig:
    net = scenario.network
    mode = clock or net.get("clock", "virtual")
    return NodeConfig(
        http_host=http_host, http_port=http_port, network_id=net.get("network_id", 12345),
        genesis_file=(scenario.base_dir / net["genesis"]) if "genesis" in net else None,
        data_dir=data_dir, ephemeral=data_dir is None, seed=net.get("seed", 0), clock_mode=mode,
        start_time_ms=net.get("start_time"), log_level=log_level, block_time=net.get("block_time", 0.0),
        api_admin_enabled=api_admin_enabled or net.get("admin_api", False), relayer=net.get("relayer", True),
        chain_config_dir=(scenario.base_dir / net["chain_config_dir"]) if "chain_config_dir" in net else None,
    )


def transport_for(handle: NodeThread, kind: str = "inprocess") -> Transport:
    if kind == "http":
        return HttpTransport(handle.url, handle.node, handle.loop)
    return InProcessTransport(handle.node, handle.loop)


def run_on(handle: NodeThread, source: Any, *, vars: dict[str, Any] | None = None,
           extra_accounts: dict[str, Account] | None = None, setup: bool = True, progress: bool | None = False,
           transport: str = "inprocess", out: Any = None, base_dir: Path | None = None,
           with_trace: bool = False) -> ReplayResult:
    """Run a scenario (path, document, step list) against a running node."""
    scenario = as_scenario(source, vars, base_dir)
    node: Node = handle.node
    t = transport_for(handle, transport)
    runner = Runner(scenario, t, network_id=node.config.network_id, virtual=node.clock.mode == "virtual",
                    block_time=node.config.block_time, extra_accounts=extra_accounts, progress=progress, out=out)
    try:
        stats = runner.run(setup=setup)
        tr = record_trace(runner) if with_trace else None
    finally:
        t.close()
    return ReplayResult(scenario, stats, runner.saved, runner.accounts, tr, runner.txs, runner)


def replay(source: Any, *, vars: dict[str, Any] | None = None, check: str | Path | None = None,
           record: str | Path | None = None, data_dir: Path | None = None, progress: bool | None = None,
           out: Any = None, transport: str = "inprocess", serve: Any = None, http_port: int = 0,
           http_host: str = "127.0.0.1",
           with_trace: bool = False, log_level: str = "WARN") -> ReplayResult:
    """Start a fresh node on a virtual clock, run the scenario as fast as possible, stop.

    `serve`, if given, is called with the running NodeThread after the run (it keeps the node up
    as long as it does not return). Raises StepFailed / ScenarioLoadError / TraceMismatch.
    """
    scenario = as_scenario(source, vars)
    config = node_config(scenario, clock="virtual", data_dir=data_dir, http_port=http_port, http_host=http_host,
                         log_level=log_level)
    with Node.start_in_thread(config) as handle:
        result = run_on(handle, scenario, progress=progress, transport=transport, out=out,
                        with_trace=with_trace or check is not None or record is not None)
        if record is not None and result.trace is not None:
            write_trace(result.trace, record)
        if check is not None and result.trace is not None:
            golden = read_trace(check)
            diff = compare_traces(result.trace, golden)
            if diff is not None:
                raise TraceMismatch(f"{scenario.source}: diverges from {check}: {diff}")
        if serve is not None:
            serve(handle)
    return result


def session_trace(transport: Any, scenario: Any) -> dict[str, Any]:
    """The golden trace of the node a session was recorded on, read through its public API as
    `simnode replay FILE --record` reads the replay's: every block of every chain the recording
    names, the tx IDs its requests got, and its start and end times. Equal traces: the replay
    reproduced the session's chains."""
    r = Runner(scenario, transport, network_id=scenario.network.get("network_id", 12345), virtual=False)
    last = 0

    def walk(steps: list[Any]) -> None:
        nonlocal last
        for step in steps:
            if step.kind == "repeat":
                walk(step.children)
                continue
            if step.kind not in ("request", "block"):
                continue
            f = {k: _RECORDED_FIELDS[k](v) if k in _RECORDED_FIELDS else v for k, v in step.raw.items()}
            last = max(last, f.get("at", 0))
            r._label = step.describe()
            if step.kind == "request" and f["method"] in TX_METHODS and "result" in f:
                result = f["result"]
                tx_id = result.get("txID") if isinstance(result, dict) else result
                r.record_tx(TX_METHODS[f["method"]] or endpoint_chain(f["endpoint"]) or "C", str(tx_id))
            elif step.kind == "block" and f["chain"] not in PRIMARY:
                r.evm_for({"evm_chain": f["chain"]})
    walk(scenario.steps)
    r.stats.start_ms = scenario.network.get("start_time", 0)
    r.stats.end_ms = last
    return record_trace(r)
