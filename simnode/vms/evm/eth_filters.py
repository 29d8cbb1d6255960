"""The eth_ filter methods of an EVM chain's JSON-RPC: log, block and pending-tx filters polled
with eth_getFilterChanges (the filters and their matching are EthAPI's)."""

from __future__ import annotations

import time
from typing import Any

from ...rpc.jsonrpc import EthService
from .rpcjson import hb, parse_quantity
from .service import EthAPI
from .vmerrors import ChainError


# rpc.BlockNumber's tags as coreth numbers them
_TAGS = {"latest": -2, "pending": -1, "accepted": -3, "finalized": -3, "safe": -4, "earliest": 0}


def _filter_block(tag: Any) -> int:
    if tag is None:
        return _TAGS["latest"]
    if isinstance(tag, str) and tag in _TAGS:
        return _TAGS[tag]
    return parse_quantity(tag)


def _accepted_logs_range(start: int, end: int) -> bool:
    """The from/to pairs coreth's SubscribeAcceptedLogs (eth_newFilter) takes."""
    latest, pending = _TAGS["latest"], _TAGS["pending"]
    return (start == end == pending or start == end == latest or 0 <= start <= end
            or (start >= latest and end == pending) or (start >= 0 and end == latest))


def register_eth_filters(svc: EthService, api: EthAPI) -> None:
    chain = api.chain
    reg = svc.register

    def new_filter(crit: Any) -> str:
        api._gc_filters()
        f = api.parse_log_filter(crit)
        if not _accepted_logs_range(_filter_block(f["fromBlock"]), _filter_block(f["toBlock"])):
            raise ChainError("invalid from and to block combination: from > to")
        fid = api._new_filter_id()
        head = chain.head.number
        f.update(type="logs", seen=time.monotonic(), last=head)
        api.filters[fid] = f
        return fid
    reg("eth_newFilter", new_filter, 1)

    def new_block_filter() -> str:
        api._gc_filters()
        fid = api._new_filter_id()
        api.filters[fid] = {"type": "blocks", "seen": time.monotonic(), "last": chain.head.number}
        return fid
    reg("eth_newBlockFilter", new_block_filter)

    def new_pending_filter(_full: Any = None) -> str:
        api._gc_filters()
        fid = api._new_filter_id()
        api.filters[fid] = {"type": "pending", "seen": time.monotonic(), "items": []}
        return fid
    reg("eth_newPendingTransactionFilter", new_pending_filter, 0, 1)

    def filter_changes(fid: Any) -> list:
        f = api.filters.get(str(fid).lower()) or api.filters.get(str(fid))
        if f is None:
            raise ChainError("filter not found")
        f["seen"] = time.monotonic()
        head = chain.head.number
        if f["type"] == "pending":
            items, f["items"] = f["items"], []
            return items
        if f["type"] == "blocks":
            out = []
            for n in range(f["last"] + 1, head + 1):
                b = chain.block(n)
                if b is not None:
                    out.append(hb(b.hash))
            f["last"] = head
            return out
        start = max(f["last"] + 1, api._tag_number(f["fromBlock"], 0) if f["fromBlock"] else 0)
        end = api._tag_number(f["toBlock"], head) if f["toBlock"] else head
        logs = api.logs_in_range(f, start, min(end, head)) if start <= head else []
        f["last"] = head
        return logs
    reg("eth_getFilterChanges", filter_changes, 1)

    def filter_logs(fid: Any) -> list:
        f = api.filters.get(str(fid))
        if f is None or f["type"] != "logs":
            raise ChainError("filter not found")
        f["seen"] = time.monotonic()
        crit = {"address": [hb(a) for a in f["addresses"]],
                "topics": [None if t is None else [hb(x) for x in sorted(t)] for t in f["topics"]],
                "fromBlock": f["fromBlock"], "toBlock": f["toBlock"], "blockHash": f["blockHash"]}
        return api.get_logs(crit)
    reg("eth_getFilterLogs", filter_logs, 1)
    reg("eth_uninstallFilter", lambda fid: api.filters.pop(str(fid), None) is not None, 1)
