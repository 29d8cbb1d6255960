"""`/ext/bc/C/ws`: the same JSON-RPC over a websocket, plus eth_subscribe / eth_unsubscribe.

Subscriptions: newHeads (coreth's header JSON, headers.py), logs (with address/topics filter),
newPendingTransactions (hashes, or full txs with `true`), newAcceptedTransactions (coreth; hashes or full txs).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import web
from aiohttp.http import WSCloseCode, WSMsgType  # not the package root: its __init__ loads the client (lazy_package)

from ...rpc.jsonrpc import EthService, InvalidParams
from ...crypto.hashing import keccak256
from .rpcjson import hb, pending_tx_json, tx_json

if TYPE_CHECKING:
    from .service import EthAPI

log = logging.getLogger("simnode.evm.ws")
_ids = itertools.count(1)
# Notifications waiting for a slow reader: past this many the connection is closed, as geth's
# maxClientSubscriptionBuffer does (a reader that never reads would otherwise hold them all).
MAX_QUEUED = 20_000


def make_ws_handler(svc: EthService, api: EthAPI) -> Any:
    chain = api.chain

    async def handler(request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=16 * 1024 * 1024, heartbeat=None)
        await ws.prepare(request)
        subs: dict[str, tuple[str, Any]] = {}
        outbox: asyncio.Queue[bytes | None] = asyncio.Queue()

        def notify(sid: str, result: Any) -> None:
            if outbox.qsize() >= MAX_QUEUED:
                if subs:
                    log.warning("websocket subscriber %d notifications behind: closing it", MAX_QUEUED)
                    subs.clear()
                    asyncio.ensure_future(ws.close(code=WSCloseCode.POLICY_VIOLATION,
                                                   message=b"subscription queue overflow"))
                return
            outbox.put_nowait(orjson.dumps({"jsonrpc": "2.0", "method": "eth_subscription",
                                            "params": {"subscription": sid, "result": result}}))

        def on_event(kind: str, payload: Any) -> None:
            for sid, (what, arg) in list(subs.items()):
                if kind == "block":
                    if what == "newHeads":  # the header's own MarshalJSON, as coreth sends it
                        notify(sid, payload.header.marshal_json(payload.hash))
                    elif what == "logs":
                        for lg in api.logs_in_block(payload, arg):
                            notify(sid, lg)
                    elif what == "newAcceptedTransactions":
                        for i, raw in enumerate(payload.raws):
                            if arg:
                                notify(sid, tx_json(chain, payload.txs[i], payload.senders[i], payload, i, raw))
                            else:
                                notify(sid, hb(keccak256(raw)))
                elif kind == "pending" and what == "newPendingTransactions":
                    notify(sid, pending_tx_json(chain, payload) if arg else hb(payload.hash))

        def subscribe(params: Any) -> str:
            if not isinstance(params, list) or not params:
                raise InvalidParams("missing value for required argument 0")
            what = params[0]
            arg: Any = None
            if what == "logs":
                arg = api.parse_log_filter(params[1] if len(params) > 1 and params[1] else {})
                api.check_topics(arg)
            elif what in ("newPendingTransactions", "newAcceptedTransactions"):
                arg = bool(params[1]) if len(params) > 1 else False
            elif what != "newHeads":
                raise InvalidParams(f"no \"{what}\" subscription in eth namespace")
            sid = hex(int.from_bytes(keccak256(b"sub" + next(_ids).to_bytes(8, "big"))[:16], "big"))
            subs[sid] = (what, arg)
            return sid

        def unsubscribe(params: Any) -> bool:
            if not isinstance(params, list) or not params:
                raise InvalidParams("missing value for required argument 0")
            return subs.pop(str(params[0]), None) is not None

        extra = {"eth_subscribe": subscribe, "eth_unsubscribe": unsubscribe}

        async def writer() -> None:
            while True:
                msg = await outbox.get()
                if msg is None or ws.closed:
                    return
                try:
                    await ws.send_bytes(msg) if False else await ws.send_str(msg.decode())
                except (ConnectionResetError, RuntimeError):
                    return

        chain.listeners.append(on_event)
        wtask = asyncio.create_task(writer())
        try:
            async for msg in ws:
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    body = msg.data.encode() if isinstance(msg.data, str) else msg.data
                    reply = await svc.handle_body(body, extra=extra)
                    if reply is not None:
                        outbox.put_nowait(reply)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            if on_event in chain.listeners:
                chain.listeners.remove(on_event)
            outbox.put_nowait(None)
            try:
                await asyncio.wait_for(wtask, 2)
            except (TimeoutError, asyncio.CancelledError):
                wtask.cancel()
        return ws

    return handler
