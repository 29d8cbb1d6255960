"""The request log's pure parts (simnode/api/request_log.py) and the usage routes' time buckets
(simnode/api/data/usage.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from simnode.api.data.usage import _bucket
from simnode.api.request_log import (RAW_BODY_MAX, RequestLog, data_chain_id, key_alias, key_id, request_type_of,
                                     rpc_methods)


class _Node:
    endpoint_aliases: dict[str, str] = {}
    chains: dict[bytes, Any] = {}

    def chain_by_alias(self, ref: str) -> None:
        return None


def test_rpc_methods_of_single_calls_batches_and_junk():
    assert rpc_methods(b'{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}') == ["eth_chainId"]
    assert rpc_methods(b'[{"method":"a"},{"id":2},{"method":5}]') == ["a", None, None]
    assert rpc_methods(b"not json") == [None]
    assert rpc_methods(b"[]") == [None]
    assert rpc_methods(b"") == [None]


def test_data_chain_ids():
    assert data_chain_id("/v1/chains/43112/blocks") == "43112"
    assert data_chain_id("/v2/chains/43112/metrics/txCount") == "43112"
    assert data_chain_id("/v1/networks/fuji/blockchains/p-chain/utxos") == "p-chain"
    assert data_chain_id("/v1/chains/allBlocks") is None and data_chain_id("/v1/chains/address/0xab") is None
    assert data_chain_id("/v1/apiLogs") is None


def test_keys_are_named_without_being_shown():
    assert key_id("secret-key-1") == key_id("secret-key-1") != key_id("secret-key-2") != key_id(None)
    assert "secret" not in key_alias("secret-key-1") and key_alias("secret-key-1").endswith("ey-1")
    assert key_alias("short") == "…" and key_alias(None) == "anonymous"
    assert request_type_of("/v1/chains") == "data" and request_type_of("/ext/bc/C/rpc") == "rpc"
    assert request_type_of("/ext/bc/C/ws") is None and request_type_of("/explorer/") is None


def test_batches_are_one_entry_listed_call_by_call():
    log = RequestLog(_Node(), max_entries=2)  # type: ignore[arg-type]
    log.record_rpc("/ext/bc/C/rpc", b'[{"method":"a"},{"method":"b"}]', 200, 1.0, "k", "ip", "h", "ua")
    big = b'{"method":"c","params":["' + b"0" * RAW_BODY_MAX + b'"]}'
    log.record_rpc("/ext/bc/C/rpc", big, 200, 1.0, "k", "ip", "h", "ua")  # parsed at once, not kept
    assert [(c.rpc_method, c.part) for c in log.calls()] == [("a", 0), ("b", 1), ("c", 0)]
    assert log.entries[1].rpc_method == ("c",)
    log.record_data("/v1/x", 20, 404, 1.0, None, "ip", "h", "ua")
    assert [c.rpc_method for c in log.calls()] == ["c", None] and log.count == 3


def test_buckets():
    t = int(datetime(2026, 11, 26, 15, 42, 7, tzinfo=UTC).timestamp())  # a Thursday
    day = int(datetime(2026, 11, 26, tzinfo=UTC).timestamp())
    assert _bucket(t, "minute") == (t - 7, 60)
    assert _bucket(t, "hourly") == (day + 15 * 3600, 3600)
    assert _bucket(t, "daily") == (day, 86_400)
    assert _bucket(t, "weekly") == (day - 3 * 86_400, 7 * 86_400)
    assert _bucket(t, "monthly") == (int(datetime(2026, 11, 1, tzinfo=UTC).timestamp()), 30 * 86_400)
    feb = int(datetime(2028, 2, 29, 23, 0, tzinfo=UTC).timestamp())
    assert _bucket(feb, "monthly") == (int(datetime(2028, 2, 1, tzinfo=UTC).timestamp()), 29 * 86_400)
