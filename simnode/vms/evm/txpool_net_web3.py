"""The txpool_, net_ and web3_ methods of an EVM chain's JSON-RPC."""

from __future__ import annotations

from typing import Any

from ...crypto.hashing import keccak256
from ...rpc.jsonrpc import EthService
from .rpcjson import hb, hx, parse_address, parse_data, pending_tx_json
from .service import EthAPI

CLIENT_VERSION = "v1.14.2"


def register_txpool_net_web3(svc: EthService, api: EthAPI) -> None:
    chain = api.chain
    reg = svc.register

    reg("web3_clientVersion", lambda: CLIENT_VERSION)
    reg("web3_sha3", lambda d: hb(keccak256(parse_data(d))), 1)
    reg("net_version", lambda: str(chain.evm_chain_id))
    reg("net_listening", lambda: True)
    reg("net_peerCount", lambda: "0x0")

    def txpool_content() -> dict:
        pending, queued = chain.pool.split(chain.nonce_of)
        def fmt(groups: dict[bytes, list[Any]]) -> dict[str, Any]:
            return {"0x" + s.hex(): {str(p.nonce): pending_tx_json(chain, p) for p in ps}
                    for s, ps in sorted(groups.items())}
        return {"pending": fmt(pending), "queued": fmt(queued)}
    reg("txpool_content", txpool_content)

    def txpool_content_from(addr: Any) -> dict:
        a = parse_address(addr)
        pending, queued = chain.pool.split(chain.nonce_of)
        return {"pending": {str(p.nonce): pending_tx_json(chain, p) for p in pending.get(a, [])},
                "queued": {str(p.nonce): pending_tx_json(chain, p) for p in queued.get(a, [])}}
    reg("txpool_contentFrom", txpool_content_from, 1)

    def txpool_status() -> dict:
        pending, queued = chain.pool.split(chain.nonce_of)
        return {"pending": hx(sum(map(len, pending.values()))), "queued": hx(sum(map(len, queued.values())))}
    reg("txpool_status", txpool_status)

    def txpool_inspect() -> dict:
        pending, queued = chain.pool.split(chain.nonce_of)

        def line(p: Any) -> str:
            to = "0x" + p.tx.to.hex() if p.tx.to else "contract creation"
            return f"{to}: {p.value} wei + {p.gas} gas × {p.max_fee} wei"
        def fmt(groups: dict[bytes, list[Any]]) -> dict[str, Any]:
            return {"0x" + s.hex(): {str(p.nonce): line(p) for p in ps} for s, ps in sorted(groups.items())}
        return {"pending": fmt(pending), "queued": fmt(queued)}
    reg("txpool_inspect", txpool_inspect)
