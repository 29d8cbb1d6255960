"""Who the fork is: the upstream network's identity and the fork point, read once and kept.

A fork takes the upstream's network ID (and so its HRP and name), AVAX asset ID, X- and C-Chain
blockchain IDs and the C-Chain's EVM chain ID, from `info`, `avm` and `eth` answers, and the fork
block (number, hash, time). The record lives in the fork cache: a restart reads it back without
the upstream, and refuses to start when a reachable upstream serves another network (or another
block at that height) than the one the data dir holds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from ..formats.address import hrp_for_network, network_name
from ..formats.ids import id_from_str, id_to_str
from .cache import IDENTITY_KEY, ForkCache
from .client import Upstream, UpstreamAnswerError, UpstreamUnreachable
from .errors import ForkError

log = logging.getLogger("simnode.fork")


@dataclass(frozen=True, slots=True)
class ForkIdentity:
    url: str
    network_id: int
    avax_asset_id: bytes
    x_chain_id: bytes
    c_chain_id: bytes
    evm_chain_id: int
    block_number: int  # the C-Chain fork block
    block_hash: bytes
    block_time_ms: int

    def to_record(self) -> list:
        return [self.url, self.network_id, self.avax_asset_id, self.x_chain_id, self.c_chain_id, self.evm_chain_id,
                self.block_number, self.block_hash, self.block_time_ms]

    @classmethod
    def from_record(cls, rec: list) -> ForkIdentity:
        return cls(*rec)

    def describe(self) -> str:
        return (f"network {self.network_id} ({network_name(self.network_id)}) at C-Chain block "
                f"{self.block_number} 0x{self.block_hash.hex()}")


def _quantity(v: Any) -> int:
    return int(v, 16) if isinstance(v, str) else int(v)


def block_time_ms(block: dict) -> int:
    """A C-Chain block's time in milliseconds (coreth's timestampMilliseconds from Granite on)."""
    ms = block.get("timestampMilliseconds")
    return _quantity(ms) if ms is not None else _quantity(block["timestamp"]) * 1000


def fetch_block_header(upstream: Upstream, number: int | None, chain: str = "C") -> dict:
    tag = "latest" if number is None else hex(number)
    block = upstream.eth("eth_getBlockByNumber", [tag, False], chain)
    if block is None:
        head = _quantity(upstream.eth("eth_blockNumber", [], chain))
        raise ForkError(f"fork upstream {upstream.url}: there is no block {number} on its chain {chain} "
                        f"(its last accepted block is {head})")
    return block


def fetch_identity(upstream: Upstream, block_number: int | None) -> ForkIdentity:
    network_id = int(upstream.avax("/ext/info", "info.getNetworkID")["networkID"])
    x_id = upstream.avax("/ext/info", "info.getBlockchainID", {"alias": "X"})["blockchainID"]
    c_id = upstream.avax("/ext/info", "info.getBlockchainID", {"alias": "C"})["blockchainID"]
    asset = upstream.avax("/ext/bc/X", "avm.getAssetDescription", {"assetID": "AVAX"})["assetID"]
    evm_chain_id = _quantity(upstream.eth("eth_chainId", []))
    block = fetch_block_header(upstream, block_number)
    return ForkIdentity(upstream.url, network_id, id_from_str(asset), id_from_str(x_id), id_from_str(c_id),
                        evm_chain_id, _quantity(block["number"]), bytes.fromhex(block["hash"][2:]),
                        block_time_ms(block))


def open_identity(upstream: Upstream, cache: ForkCache, block_number: int | None) -> ForkIdentity:
    """The identity the cache holds (checked against a reachable upstream), or the upstream's,
    fetched and kept now."""
    try:
        held = ForkIdentity.from_record(cache.get(IDENTITY_KEY))
    except KeyError:
        identity = fetch_identity(upstream, block_number)
        cache.put(IDENTITY_KEY, identity.to_record())
        log.info("forking %s from %s", identity.describe(), upstream.url)
        return identity
    if block_number is not None and block_number != held.block_number:
        raise ForkError(f"the data dir holds a fork of {held.describe()} from {held.url}; --fork-block "
                        f"{block_number} asks for another block: use another --data-dir")
    probe = Upstream(upstream.url, timeout=min(upstream.timeout, 5.0), retries=0)  # a check, not a need
    try:
        try:
            network_id = int(probe.avax("/ext/info", "info.getNetworkID")["networkID"])
            if network_id != held.network_id:
                raise _refusal(upstream.url, held, f"network {network_id} ({network_name(network_id)})")
            block = probe.eth("eth_getBlockByNumber", [hex(held.block_number), False])
        except UpstreamUnreachable as exc:
            log.warning("fork upstream not checked (%s); serving what the cache holds", exc)
            return replace(held, url=upstream.url)
        except UpstreamAnswerError as exc:
            # it answered, and not with the block: the same network would have served it
            raise _refusal(upstream.url, held, f"network {network_id} ({network_name(network_id)}), which "
                           f"answers {exc.upstream_message!r} for block {held.block_number},") from None
    finally:
        probe.close()
    served = None if block is None else bytes.fromhex(block["hash"][2:])
    if served != held.block_hash:
        raise _refusal(upstream.url, held, f"network {network_id} ({network_name(network_id)}) with "
                       + ("no block" if served is None else f"block 0x{served.hex()}") + f" at {held.block_number}")
    return replace(held, url=upstream.url)


def _refusal(url: str, held: ForkIdentity, theirs: str) -> ForkError:
    return ForkError(f"fork upstream {url} serves {theirs}, but the data dir holds a fork of "
                     f"{held.describe()}: refusing to start (use another --data-dir)")


def forked_genesis(genesis: Any, identity: ForkIdentity) -> Any:
    """The node's genesis record with the upstream's identity in place of its own."""
    cg = genesis.c_chain_genesis
    parsed = dict(cg.parsed)
    parsed["config"] = dict(parsed.get("config") or {}, chainId=identity.evm_chain_id)
    n = identity.network_id
    return replace(genesis, network_id=n, hrp=hrp_for_network(n), network_name=network_name(n),
                   avax_asset_id=identity.avax_asset_id, x_chain_id=identity.x_chain_id,
                   c_chain_id=identity.c_chain_id,
                   c_chain_genesis=replace(cg, parsed=parsed, chain_id=identity.evm_chain_id))


def describe_ids(identity: ForkIdentity) -> str:
    return (f"X {id_to_str(identity.x_chain_id)}, C {id_to_str(identity.c_chain_id)} "
            f"(EVM chain {identity.evm_chain_id}), AVAX {id_to_str(identity.avax_asset_id)}")
