"""`/ext/health` (GET, and POST health.health/readiness/liveness): the node's checks, shaped as
AvalancheGo v1.14.2 reports them (tests/vectors/avalanchego_answers holds a real node's reply).

Each check is a health.Result: `message` (omitted when nil), `error` (only when failing),
`timestamp`, `duration` (ns), and `contiguousFailures`/`timeOfFirstFailure` only when failing.
Per chain (registered under its alias, tagged with its subnet): the consensus engine's state and
networking. Node-wide: bls, bootstrapped, database, diskspace, futureupgrade, network, router.
Readiness is the `bootstrapped` check alone; liveness has no check. Keys are sorted, as Go
marshals a map. While the node starts (a primary chain still loading) the chains' checks and
`bootstrapped` are "not yet run", as a real node answers then
(tests/vectors/avalanchego_bootstrap_health.json)."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from typing import TYPE_CHECKING, Any

from aiohttp import web

from ..formats.ids import id_to_str
from ..formats.jsonnum import format_rfc3339, format_rfc3339_nano
from ..network import UNSCHEDULED_TIME, params_for
from ..rpc.jsonrpc import GorillaService
from .server import serve_gorilla

if TYPE_CHECKING:
    from .node_services import NodeServices

NOT_BOOTSTRAPPED = "subnets not bootstrapped"  # chains/manager.go errNotBootstrapped
NOT_YET_RUN = "not yet run"
ZERO_TIME = "0001-01-01T00:00:00Z"


def _result(ts: str, message: Any = None, error: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {} if message is None else {"message": message}
    if error is not None:
        out["error"] = error
    out.update(timestamp=ts, duration=0)
    if error is not None:
        out.update(contiguousFailures=1, timeOfFirstFailure=ts)
    return out


def _chain_message(accepted: tuple[bytes, int]) -> dict[str, Any]:
    block_id, height = accepted
    consensus = {"avgAcceptanceTime": "0s", "lastAcceptedHeight": height, "lastAcceptedID": id_to_str(block_id),
                 "longestProcessingBlock": "0s", "processingBlocks": 0}
    return {"engine": {"consensus": consensus, "vm": None},
            "networking": {"disconnectedValidators": [], "percentConnected": 1}}


def _not_yet_run() -> dict[str, Any]:
    """A check registered but not run yet (api/health's notYetRunResult: Go's zero time, no failure count)."""
    return {"error": NOT_YET_RUN, "timestamp": ZERO_TIME, "duration": 0}


def _starting(node: NodeServices) -> bool:
    """A primary chain is still loading. AvalancheGo has then not run the checks of its chains and
    `bootstrapped` since it registered them (checks run every health-check-frequency, 30 s by
    default): a client sees them "not yet run"."""
    return any(not c.is_bootstrapped() and c.subnet_id == bytes(32) for c in node.chains.values())


def _bootstrapped(node: NodeServices, ts: str) -> dict[str, Any]:
    if _starting(node):
        return _not_yet_run()
    pending = sorted({id_to_str(c.subnet_id) for c in node.chains.values() if not c.is_bootstrapped()})
    return _result(ts, pending, NOT_BOOTSTRAPPED if pending else None)


def _upgrade_time(node: NodeServices) -> str:
    """The latest scheduled network upgrade (the time this node announces to its peers)."""
    u = params_for(node.genesis.network_id).upgrades
    times = (u.apricot_phase1, u.apricot_phase2, u.apricot_phase3, u.apricot_phase4, u.apricot_phase5,
             u.apricot_phase_pre6, u.apricot_phase6, u.apricot_phase_post6, u.banff, u.cortina, u.durango, u.etna,
             u.fortuna, u.granite, u.helicon)
    return format_rfc3339(max(t for t in times if t < UNSCHEDULED_TIME))


def _disk(node: NodeServices) -> dict[str, Any]:
    usage = shutil.disk_usage(node.data_dir if node.data_dir.exists() else tempfile.gettempdir())
    return {"availableDiskBytes": usage.free, "availableDiskPercentage": usage.free * 100 // usage.total}


def _node_checks(node: NodeServices, ts: str) -> dict[str, dict[str, Any]]:
    return {
        "bls": _result(ts, "node has the correct BLS key"),
        "bootstrapped": _bootstrapped(node, ts),
        "database": _result(ts),
        "diskspace": _result(ts, _disk(node)),
        "futureupgrade": _result(ts, {"localUpgradeTime": _upgrade_time(node),
                                      "modeUpgradeTime": "1970-01-01T00:00:00Z",
                                      "modeUpgradeWeightPercentage": 0, "numUpgradeTimes": 0}),
        "network": _result(ts, {"connectedPeers": 0, "sendFailRate": 0}),
        "router": _result(ts, {"longestRunningRequest": "0s", "outstandingRequests": 0}),
    }


def report(node: NodeServices, tags: list[str] | None = None) -> dict[str, Any]:
    """health.health: chain checks (of the subnets in `tags`, when given) and the node's checks."""
    ts = format_rfc3339_nano(time.time_ns())
    checks: dict[str, dict[str, Any]] = {}
    starting = _starting(node)
    for chain in node.chains.values():
        if tags is not None and id_to_str(chain.subnet_id) not in tags:
            continue
        alias = (chain.default_aliases or (id_to_str(chain.chain_id),))[0]  # an L1 chain's alias is its ID
        accepted = chain.last_accepted()
        checks[alias] = (_not_yet_run() if accepted is None or starting
                         else _result(ts, _chain_message(accepted)))
    # chains that failed to start (AvalancheGo registers a failing check under the chain's alias)
    for alias, error in node.chain_manager.health_checks().items():
        checks[alias] = _result(ts, error=error)
    checks.update(_node_checks(node, ts))
    return _finish(checks)


def readiness(node: NodeServices) -> dict[str, Any]:
    return _finish({"bootstrapped": _bootstrapped(node, format_rfc3339_nano(time.time_ns()))})


def liveness(_: NodeServices) -> dict[str, Any]:
    return _finish({})


def _finish(checks: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"checks": dict(sorted(checks.items())), "healthy": all("error" not in c for c in checks.values())}


def _tags(params: dict[str, Any]) -> list[str] | None:
    tags = params.get("tags") if isinstance(params, dict) else None
    return [str(t) for t in tags] if isinstance(tags, list) and tags else None


def health_endpoints(node: NodeServices) -> dict[str, Any]:
    service = GorillaService({"health": {
        "health": lambda params: report(node, _tags(params)),
        "readiness": lambda _: readiness(node),
        "liveness": lambda _: liveness(node),
    }})
    reports = {"health": lambda: report(node), "health/readiness": lambda: readiness(node),
               "health/liveness": lambda: liveness(node)}

    def endpoint(path: str) -> Any:
        async def serve(request: web.Request) -> web.StreamResponse:
            if request.method == "GET":
                body = reports[path]()
                # Go's json.Encoder: compact, a newline after, and no charset in the content type
                return web.Response(body=json.dumps(body, separators=(",", ":")).encode() + b"\n",
                                    status=200 if body["healthy"] else 503,
                                    headers={"Content-Type": "application/json"})
            return await serve_gorilla(service, request)
        return serve

    return {path: endpoint(path) for path in reports}
