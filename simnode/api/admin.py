"""The node admin API (`/ext/admin`, off unless --api-admin-enabled), node-api.md §6.

Profiles are written into `<data dir>/profiles/` under fixed names, never to a path taken from
the request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import logs
from ..formats.hexenc import decode_bytes, encode_bytes
from ..formats.ids import id_from_str
from ..profiling import stack_dump
from ..rpc.jsonrpc import GorillaService, RPCError
from ..rpc.params import str_arg

if TYPE_CHECKING:
    from .node_services import NodeServices

MAX_ALIAS_LENGTH = 512


def _logger_name(name: str) -> str:
    """AvalancheGo logger names ("main", "C", "P", "X", "http") onto our Python loggers."""
    if name in ("", "main", logs.ROOT):
        return logs.ROOT
    return name if name.startswith(logs.ROOT + ".") else f"{logs.ROOT}.{name}"


def _public_logger_name(name: str) -> str:
    return "main" if name == logs.ROOT else name[len(logs.ROOT) + 1:]


def build_service(node: NodeServices) -> GorillaService:
    prof = node.profiler

    def start_cpu_profiler(_: dict[str, Any]) -> dict[str, Any]:
        prof.start_cpu()
        return {}

    def stop_cpu_profiler(_: dict[str, Any]) -> dict[str, Any]:
        prof.stop_cpu()
        return {}

    def memory_profile(_: dict[str, Any]) -> dict[str, Any]:
        prof.memory()
        return {}

    def lock_profile(_: dict[str, Any]) -> dict[str, Any]:
        prof.locks()
        return {}

    def stacktrace(_: dict[str, Any]) -> dict[str, Any]:
        (prof.directory / "stacktrace.txt").write_text(stack_dump())
        return {}

    def alias(params: dict[str, Any]) -> dict[str, Any]:
        endpoint, name = str_arg(params, "endpoint"), str_arg(params, "alias")
        if len(name) > MAX_ALIAS_LENGTH:
            raise RPCError("alias length is too long")
        if not name:
            raise RPCError("alias must not be empty")
        node.add_endpoint_alias(endpoint, name)
        return {}

    def alias_chain(params: dict[str, Any]) -> dict[str, Any]:
        ref, name = str_arg(params, "chain"), str_arg(params, "alias")
        if len(name) > MAX_ALIAS_LENGTH:
            raise RPCError("alias length is too long")
        chain = node.chain_by_alias(ref)
        if chain is None:
            raise RPCError(f"there is no ID with alias: {ref}")
        node.add_chain_alias(chain.chain_id, name)
        return {}

    def get_chain_aliases(params: dict[str, Any]) -> dict[str, Any]:
        ref = str_arg(params, "chain")
        try:
            chain_id = id_from_str(ref)
        except ValueError as exc:
            raise RPCError(f"problem parsing chainID \"{ref}\": {exc}") from exc
        return {"aliases": node.aliases_of(chain_id)}

    def levels(names: list[str]) -> dict[str, Any]:
        out = {}
        for name in names:
            log_level, display = logs.get_levels(name)
            out[_public_logger_name(name)] = {"logLevel": log_level, "displayLevel": display}
        return {"loggerLevels": out}

    def get_logger_level(params: dict[str, Any]) -> dict[str, Any]:
        name = str_arg(params, "loggerName")
        return levels([_logger_name(name)] if name else logs.logger_names())

    def set_logger_level(params: dict[str, Any]) -> dict[str, Any]:
        name = str_arg(params, "loggerName")
        log_level = params.get("logLevel") or None
        display = params.get("displayLevel") or None
        if log_level is None and display is None:
            raise RPCError("need to specify either displayLevel or logLevel")
        names = [_logger_name(name)] if name else logs.logger_names()
        for level in (log_level, display):  # validate before changing anything
            if level is not None:
                logs.parse_level(str(level))
        for n in names:
            logs.set_levels(n, log_level, display)
        return levels(names)

    def load_vms(_: dict[str, Any]) -> dict[str, Any]:
        # Every VM simnode runs is built in; there is no plugin directory to scan.
        return {"newVMs": {}}

    def get_config(_: dict[str, Any]) -> dict[str, Any]:
        c = node.config
        return {"httpHost": c.http_host, "httpPort": node.port, "networkID": c.network_id,
                "dataDir": str(node.data_dir), "ephemeral": c.ephemeral, "apiAdminEnabled": c.api_admin_enabled,
                "seed": c.seed, "clock": c.clock_mode, "logLevel": c.log_level, "blockTime": c.block_time,
                "genesisFile": str(c.genesis_file) if c.genesis_file else None}

    def db_get(params: dict[str, Any]) -> dict[str, Any]:
        key = decode_bytes(str_arg(params, "key"), "hexnc")
        assert node.store is not None
        value = node.store.get(key)
        if value is None:
            raise RPCError("not found")
        return {"value": encode_bytes(value, "hexnc"), "errorCode": 0}

    return GorillaService({"admin": {
        "startCPUProfiler": start_cpu_profiler, "stopCPUProfiler": stop_cpu_profiler,
        "memoryProfile": memory_profile, "lockProfile": lock_profile, "stacktrace": stacktrace,
        "alias": alias, "aliasChain": alias_chain, "getChainAliases": get_chain_aliases,
        "getLoggerLevel": get_logger_level, "setLoggerLevel": set_logger_level, "loadVMs": load_vms,
        "getConfig": get_config, "dbGet": db_get,
    }})
