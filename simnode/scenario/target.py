"""`simnode replay FILE --target URL`: a scenario's steps over HTTP against any AvalancheGo-compatible
endpoint (AvalancheGo, tmpnet, another simnode) on its wall clock.

Before anything is sent the steps a live node cannot do are listed — time travel, dev methods and
simnode's own API, REST routes that only the hosted Data API or icm-services serve — and the run
is refused unless told to skip them. Txs are built and signed here from the scenario's keys
(derived from its seed, or given) and followed to their acceptance, so a funded key on the target
(ewoq on a local network) is all a scenario needs; P-Chain txs are built from the target's own
UTXOs and fees (remote_p.py). A recorded session's `block` steps wait for their txs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import ScenarioError
from .model import Scenario, Step
from .replay import ReplayResult, as_scenario
from .runner import Runner
from .transport import HttpTransport, ErrorReply, TransportError

TIME_TRAVEL_METHODS = frozenset({
    "evm_increaseTime", "anvil_increaseTime", "evm_setNextBlockTimestamp", "anvil_setNextBlockTimestamp",
    "evm_setTime", "anvil_setTime", "simnode.advanceTime", "simnode.setTime",
})
DEV_PREFIXES = ("evm_", "anvil_", "hardhat_", "tenderly_", "simnode.")
DATA_API_PREFIXES = ("/v1/", "/v2/")


class TargetRefused(ScenarioError):
    """The scenario has steps the target cannot do, and skipping them was not asked for."""


@dataclass(frozen=True, slots=True)
class Unsupported:
    step: str  # its number, "4" or "7.2"
    kind: str
    why: str

    def __str__(self) -> str:
        return f"step {self.step} ({self.kind}): {self.why}"


def why_unsupported(kind: str, raw: dict[str, Any]) -> str | None:
    """Why a live AvalancheGo-compatible endpoint cannot run a step (None: it can)."""
    if kind in ("advance_time", "set_time"):
        return "time travel"
    if kind == "mine":
        return "a dev method (mining on demand)"
    if kind in ("snapshot", "revert"):
        return "a dev method (snapshots)"
    if kind == "l1_acknowledgement":
        return "the signature aggregator's REST route (icm-services, the Data API), which AvalancheGo does not serve"
    if kind == "expect" and isinstance(raw.get("get"), str) and raw["get"].startswith(DATA_API_PREFIXES):
        return "a Data API route (hosted by Avalanche, not served by AvalancheGo)"
    if kind in ("rpc", "expect", "request") and isinstance(raw.get("method"), str):
        method = raw["method"]
        endpoint = str(raw.get("endpoint", ""))
        if method in TIME_TRAVEL_METHODS:
            return f"time travel ({method})"
        if method.startswith(DEV_PREFIXES) or endpoint in ("simnode", "/ext/simnode"):
            return f"a dev method ({method})"
    return None


def unsupported_steps(scenario: Scenario) -> list[Unsupported]:
    out: list[Unsupported] = []

    def walk(steps: list[Step]) -> None:
        for step in steps:
            if step.kind == "repeat":
                walk(step.children)
                continue
            why = why_unsupported(step.kind, step.raw)
            if why is not None:
                out.append(Unsupported(step.number, step.kind, why))
    walk(scenario.steps)
    return out


def refusal(scenario: Scenario, url: str, bad: list[Unsupported]) -> str:
    lines = [f"{scenario.source}: {url} cannot do {len(bad)} step(s); nothing was sent:"]
    lines += [f"  {u}" for u in bad]
    lines.append("run with --skip-unsupported to run the other steps")
    return "\n".join(lines)


def run_on_target(source: Any, url: str, *, vars: dict[str, Any] | None = None, skip_unsupported: bool = False,
                  progress: bool | None = False, out: Any = None) -> ReplayResult:
    """Run a scenario against a live endpoint; raises TargetRefused (before sending anything),
    StepFailed or ScenarioError when the target cannot be reached."""
    scenario = as_scenario(source, vars)
    bad = unsupported_steps(scenario)
    if bad and not skip_unsupported:
        raise TargetRefused(refusal(scenario, url, bad))
    transport = HttpTransport(url)
    try:
        try:
            network_id = int(transport.call("info", "info.getNetworkID", {})["networkID"])
        except (ErrorReply, TransportError, OSError, KeyError, ValueError) as exc:
            raise ScenarioError(f"{url}: not an AvalancheGo-compatible endpoint (info.getNetworkID: {exc})") from None
        runner = Runner(scenario, transport, network_id=network_id, virtual=False, progress=progress, out=out)
        runner.target = True
        runner.skip = {u.step: u for u in bad}
        try:
            stats = runner.run()
        except OSError as exc:
            raise ScenarioError(f"lost the target {url}: {exc}") from None
    finally:
        transport.close()
    return ReplayResult(scenario, stats, runner.saved, runner.accounts, None, runner.txs, runner)
