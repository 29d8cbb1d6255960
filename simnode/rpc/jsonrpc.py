"""The two JSON-RPC envelopes a node speaks, exactly as node-api.md §1.2–1.3 describes.

* `GorillaService` — AvalancheGo's gorilla/rpc v2 (info, admin, avm, platform, avax, ...):
  always HTTP 200, no batches, object or `[object]` params, the method-case rule, `id` echoed
  raw, notifications get an empty body, replies written like Go's json.Encoder.
* `EthService` — go-ethereum's rpc.Server (the EVM chains' /rpc and /ws): batches, array
  params with arity checks, -32601/-32602/-32700 codes.

Handlers return plain Python values and raise errors; this module is the only place that turns
an error into an envelope, so handlers never build error JSON. A user error is an RPCError (a
handler's own code and data) or a `simnode.errors.DomainError` (-32000 with its text, as both
servers answer a handler's error; an `InvalidArgument`, an argument geth's rpc package fails to
decode before the method runs, -32602 "invalid argument N: ..."); anything else is a bug, logged
with its traceback and answered -32603, never as a user error.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any

import orjson

from simnode.errors import DomainError, InvalidArgument

log = logging.getLogger("simnode.api")


class RPCError(Exception):
    """An error a handler wants the client to see, with its JSON-RPC code and data."""

    def __init__(self, message: str, code: int = -32000, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data


class MethodNotFound(RPCError):
    def __init__(self, message: str) -> None:
        super().__init__(message, -32601)


class InvalidParams(RPCError):
    def __init__(self, message: str) -> None:
        super().__init__(message, -32602)


INTERNAL_ERROR = -32603


def user_error(exc: BaseException, geth: bool = True) -> tuple[int, str, Any] | None:
    """The (code, message, data) a user error is answered with by geth's rpc package (or, not
    `geth`, by gorilla, where any error is -32000); None for any other exception, a bug."""
    if isinstance(exc, RPCError):
        return exc.code, exc.message, exc.data
    if isinstance(exc, InvalidArgument) and geth:
        return -32602, f"invalid argument {exc.index}: {exc.message}", None
    if isinstance(exc, DomainError):
        return -32000, exc.message, None
    return None


# ---------------------------------------------------------------------------------------------
# raw JSON helpers


class _RawNumber(str):
    """A JSON number kept as its source text, so an `id` like 1.0 is echoed byte for byte."""


def _result_reply(has_id: bool, id_bytes: bytes, result: Any) -> bytes | None:
    """A call's success reply; nothing for a notification (no id)."""
    if not has_id:
        return None
    return b'{"jsonrpc":"2.0","id":' + id_bytes + b',"result":' + orjson.dumps(result) + b"}"


def _raw_id(body: bytes, parsed_id: Any) -> bytes:
    """The request id as raw JSON. Floats are re-read from the source to keep their spelling."""
    if isinstance(parsed_id, float):
        try:
            doc = json.loads(body, parse_float=_RawNumber, parse_int=_RawNumber)
            raw = doc.get("id") if isinstance(doc, dict) else None
            if isinstance(raw, _RawNumber):
                return raw.encode()
        except ValueError:
            pass
    return orjson.dumps(parsed_id)


def _go_json(value: Any) -> bytes:
    """Serialise like Go's json.Marshal: HTML-sensitive characters escaped."""
    out = orjson.dumps(value)
    if b"<" in out or b">" in out or b"&" in out or b"\xe2\x80\xa8" in out or b"\xe2\x80\xa9" in out:
        out = (
            out.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")
            .replace("\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")
        )
    return out


Handler = Callable[..., Any]


async def _call(fn: Handler, *args: Any) -> Any:
    result = fn(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


# ---------------------------------------------------------------------------------------------
# gorilla (AvalancheGo)

UNMARSHAL_ERROR = (
    "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
    "See documentation for example calls"
)


@dataclass(slots=True)
class GorillaReply:
    status: int
    body: bytes
    content_type: str = "application/json; charset=utf-8"


def go_decode_error(body: bytes, exc: ValueError) -> str:
    """Go's encoding/json text for a body that does not decode: "EOF" for an empty one,
    "unexpected EOF" for one cut short; other syntax errors keep the decoder's own text."""
    text = body.strip()
    if not text:
        return "EOF"
    pos = getattr(exc, "pos", None)
    if isinstance(pos, int) and pos >= len(text):
        return "unexpected EOF"
    return str(exc)


class GorillaService:
    """One or more gorilla services on one endpoint, e.g. {"avm": {...}} at /ext/bc/X.

    A handler takes the params object (a dict; {} when absent) and returns the result.
    """

    def __init__(self, services: dict[str, dict[str, Handler]] | None = None) -> None:
        # service name -> Go method name ("GetHeight") -> handler
        self._services: dict[str, dict[str, Handler]] = {}
        for name, methods in (services or {}).items():
            self.register(name, methods)
        # True when a block build the call scheduled is due at the loop's next turn: the reply
        # waits for that turn, so an acknowledged tx is on disk first (as EthService.settling)
        self.settling: Callable[[], bool] = lambda: False

    def register(self, service: str, methods: dict[str, Handler]) -> None:
        table = self._services.setdefault(service, {})
        for name, fn in methods.items():
            table[name[:1].upper() + name[1:]] = fn

    def has_methods(self) -> bool:
        return any(self._services.values())

    def method_names(self) -> list[str]:
        """Every method as a client calls it ("avm.issueTx")."""
        return sorted(f"{service}.{go[:1].lower()}{go[1:]}" for service, table in self._services.items()
                      for go in table)

    def wrap(self, method: str, wrapper: Callable[[Handler], Handler]) -> bool:
        """Replace the handler of `method` ("avm.issueTx") with wrapper(handler); False when the
        endpoint has no such method."""
        service, _, name = method.partition(".")
        table = self._services.get(service)
        go_name = name[:1].upper() + name[1:]
        if table is None or go_name not in table:
            return False
        table[go_name] = wrapper(table[go_name])
        return True

    async def handle(self, http_method: str, content_type: str | None, body: bytes) -> GorillaReply:
        if http_method != "POST":
            return GorillaReply(405, f"rpc: POST method required, received {http_method}".encode(),
                                "text/plain; charset=utf-8")
        media = (content_type or "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            return GorillaReply(415, f"rpc: unrecognized Content-Type: {content_type or ''}".encode(),
                                "text/plain; charset=utf-8")
        try:
            req = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            return self._parse_error(go_decode_error(body, exc))
        if not isinstance(req, dict):
            kind = "array" if isinstance(req, list) else type(req).__name__
            return self._parse_error(f"json: cannot unmarshal {kind} into Go value of type json2.serverRequest")
        raw_id = req.get("id")
        id_bytes = _raw_id(body, raw_id)
        if req.get("jsonrpc") != "2.0":
            data = {"jsonrpc": req.get("jsonrpc") if isinstance(req.get("jsonrpc"), str) else "",
                    "method": req.get("method") if isinstance(req.get("method"), str) else "",
                    "params": req.get("params"), "id": raw_id}
            return self._error(-32600, "jsonrpc must be 2.0", id_bytes, data, notify=raw_id is None)
        method = req.get("method")
        if not isinstance(method, str):
            method = ""
        try:
            fn = self._lookup(method)
            params = req.get("params")
            if params is None:
                args: Any = {}
            elif isinstance(params, dict):
                args = params
            elif isinstance(params, list):
                if not params:
                    args = {}
                elif isinstance(params[0], dict):
                    args = params[0]
                else:
                    raise RPCError(UNMARSHAL_ERROR)
            else:
                raise RPCError(UNMARSHAL_ERROR)
            result = await _call(fn, args)
            if self.settling():
                await asyncio.sleep(0)  # the build was scheduled first: it runs before this resumes
        except Exception as exc:  # noqa: BLE001 - every failure becomes an envelope
            answer = user_error(exc, geth=False)
            if answer is None:
                log.exception("gorilla handler %s failed", method)
                answer = INTERNAL_ERROR, "internal error", None
            if raw_id is None:
                return GorillaReply(200, b"", "")
            return self._error(answer[0], answer[1], id_bytes, answer[2])
        if raw_id is None:
            return GorillaReply(200, b"", "")
        return GorillaReply(
            200,
            b'{"jsonrpc":"2.0","result":' + _go_json({} if result is None else result) + b',"id":' + id_bytes + b"}\n"
        )

    def _lookup(self, method: str) -> Handler:
        if "." not in method:
            raise RPCError(f'rpc: service/method request ill-formed: "{method}"')
        service, name = method.split(".", 1)
        if name[:1].isupper():
            raise RPCError("method must start with a non-uppercase letter")
        go_name = name[:1].upper() + name[1:]
        table = self._services.get(service)
        if table is None:
            raise RPCError(f'rpc: can\'t find service "{service}.{go_name}"')
        fn = table.get(go_name)
        if fn is None:
            raise RPCError(f'rpc: can\'t find method "{service}.{go_name}"')
        return fn

    def _parse_error(self, message: str) -> GorillaReply:
        data = {"jsonrpc": "", "method": "", "params": None, "id": None}
        return self._error(-32700, message, b"null", data)

    @staticmethod
    def _error(code: int, message: str, id_bytes: bytes, data: Any, notify: bool = False) -> GorillaReply:
        if notify:
            return GorillaReply(200, b"", "")
        err = (b'{"code":' + str(code).encode() + b',"message":' + _go_json(message)
               + b',"data":' + _go_json(data) + b"}")
        return GorillaReply(200, b'{"jsonrpc":"2.0","error":' + err + b',"id":' + id_bytes + b"}\n")


# ---------------------------------------------------------------------------------------------
# go-ethereum


@dataclass(frozen=True, slots=True)
class EthMethod:
    fn: Handler
    min_args: int
    max_args: int
    is_async: bool = False  # a coroutine function: always answered on a task


# what handlers mostly return: never awaitable, so the reply needs no inspect.isawaitable
_PLAIN_RESULTS = frozenset((str, dict, list, int, bool, type(None)))

GETH_MEDIA_TYPES = {"application/json", "application/json-rpc", "application/jsonrequest"}


class DueReply:
    """A reply that waits for the work due at the event loop's next turn (EthService.settling).
    Awaited, it yields that one turn, as `await asyncio.sleep(0)`; the HTTP fast path instead
    writes it from a callback it schedules now (loop.call_soon), which the loop runs after that
    work, scheduled earlier: the same order without a task."""

    __slots__ = ("reply",)

    def __init__(self, reply: bytes | None) -> None:
        self.reply = reply

    def __await__(self) -> Generator[None, None, bytes | None]:
        yield None  # what asyncio.sleep(0) yields: the task resumes at the loop's next turn
        return self.reply


class EthService:
    """geth-style dispatcher: a handler takes positional params (after arity checks)."""

    def __init__(self, batch_limit: int = 1000) -> None:
        self._methods: dict[str, EthMethod] = {}
        self.batch_limit = batch_limit
        # True when work the calls started is due at the event loop's next turn (an automine
        # block): the reply then waits for that turn, so what it acknowledges is on disk first
        self.settling: Callable[[], bool] = lambda: False

    def register(self, name: str, fn: Handler, min_args: int = 0, max_args: int | None = None) -> None:
        self._methods[name] = EthMethod(fn, min_args, min_args if max_args is None else max_args,
                                        inspect.iscoroutinefunction(fn))

    def method(self, name: str, min_args: int = 0, max_args: int | None = None) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            self.register(name, fn, min_args, max_args)
            return fn
        return deco

    def has(self, name: str) -> bool:
        return name in self._methods

    def method_names(self) -> list[str]:
        return sorted(self._methods)

    def wrap(self, name: str, wrapper: Callable[[Handler], Handler]) -> bool:
        """Replace `name`'s function by `wrapper(function)`, same arity; False when there is no
        such method."""
        m = self._methods.get(name)
        if m is None:
            return False
        self.register(name, wrapper(m.fn), m.min_args, m.max_args)
        return True

    async def handle_body(self, body: bytes, extra: dict[str, Handler] | None = None) -> bytes | None:
        """Answer a raw request body (single or batch); None when nothing is to be written."""
        try:
            req = orjson.loads(body)
        except orjson.JSONDecodeError:
            return _eth_error_bytes(b"null", -32700, "parse error", None)
        if isinstance(req, list):
            if not req:
                return _eth_error_bytes(b"null", -32600, "empty batch", None)
            if len(req) > self.batch_limit:
                return _eth_error_bytes(b"null", -32600, "batch too large", None)
            replies = [r for r in [await self._one(item, None, extra) for item in req] if r is not None]
            reply = b"[" + b",".join(replies) + b"]" if replies else None
        else:
            reply = await self._one(req, body, extra)
        if self.settling():
            await asyncio.sleep(0)  # the due work was scheduled first: it runs before this resumes
        return reply

    async def _settled(self, reply: bytes | None | Awaitable[bytes | None]) -> bytes | None:
        """`reply` once the work the call left due has run (see `settling`)."""
        if inspect.isawaitable(reply):
            reply = await reply
        if self.settling():
            await asyncio.sleep(0)
        return reply

    async def _one(self, req: Any, body: bytes | None, extra: dict[str, Handler] | None) -> bytes | None:
        head = self._envelope_head(req, body)
        if isinstance(head, bytes):
            return head
        has_id, id_bytes = head
        try:
            result = await self.call(req["method"], req.get("params"), extra)
        except Exception as exc:  # noqa: BLE001
            return self._failed(req, exc, has_id, id_bytes)
        return _result_reply(has_id, id_bytes, result)

    @staticmethod
    def _envelope_head(req: Any, body: bytes | None) -> bytes | tuple[bool, bytes]:
        """The invalid-request reply (bytes), or (has_id, raw id bytes) for a well-formed call."""
        if not isinstance(req, dict) or req.get("jsonrpc") != "2.0" or not isinstance(req.get("method"), str):
            rid = req.get("id") if isinstance(req, dict) else None
            return _eth_error_bytes(orjson.dumps(rid), -32600, "invalid request", None)
        raw_id = req.get("id")
        return "id" in req, (_raw_id(body, raw_id) if body is not None else orjson.dumps(raw_id))

    @staticmethod
    def _failed(req: dict, exc: Exception, has_id: bool, id_bytes: bytes) -> bytes | None:
        answer = user_error(exc)
        if answer is None:
            log.exception("eth handler %s failed", req.get("method"), exc_info=exc)
            answer = INTERNAL_ERROR, "method handler crashed", None  # geth's words for a panic
        if not has_id:
            return None
        return _eth_error_bytes(id_bytes, *answer)

    def handle_body_now(self, body: bytes) -> bytes | None | Awaitable[bytes | None]:
        """`handle_body` without a coroutine when it can be answered at once: a single call to a
        plain (non-async) handler is run here and its reply returned; anything else (batches,
        async handlers, a handler returning an awaitable) comes back as an awaitable that gives
        the same reply `handle_body` would; a reply that must wait for due work (`settling`) as a
        DueReply. The HTTP fast path uses this."""
        try:
            req = orjson.loads(body)
        except orjson.JSONDecodeError:
            return _eth_error_bytes(b"null", -32700, "parse error", None)
        if not isinstance(req, dict):
            return self.handle_body(body)
        name = req.get("method")
        m = self._methods.get(name) if isinstance(name, str) else None
        if m is None or m.is_async:
            return self._settled(self._one(req, body, None))
        raw_id = req.get("id")
        if type(raw_id) is int and req.get("jsonrpc") == "2.0":  # what clients send: the envelope is fine
            has_id, id_bytes = True, b"%d" % raw_id
        else:
            head = self._envelope_head(req, body)
            if isinstance(head, bytes):
                return head
            has_id, id_bytes = head
        try:
            result = m.fn(*self._args(m, req.get("params")))
        except Exception as exc:  # noqa: BLE001
            return self._failed(req, exc, has_id, id_bytes)
        if type(result) not in _PLAIN_RESULTS and inspect.isawaitable(result):
            return self._settled(self._finish(req, result, has_id, id_bytes))
        reply = _result_reply(has_id, id_bytes, result)
        return DueReply(reply) if self.settling() else reply

    async def _finish(self, req: dict, pending: Awaitable[Any], has_id: bool, id_bytes: bytes) -> bytes | None:
        try:
            result = await pending
        except Exception as exc:  # noqa: BLE001
            return self._failed(req, exc, has_id, id_bytes)
        return _result_reply(has_id, id_bytes, result)

    @staticmethod
    def _args(m: EthMethod, params: Any) -> list[Any]:
        if params is None:
            args: list[Any] = []
        elif isinstance(params, list):
            args = params
        else:
            raise InvalidParams("non-array args")
        if len(args) > m.max_args:
            raise InvalidParams(f"too many arguments, want at most {m.max_args}")
        if len(args) < m.min_args:
            # geth treats trailing nulls as missing optional args, but required ones must be there
            raise InvalidParams(f"missing value for required argument {len(args)}")
        return args

    async def call(self, name: str, params: Any, extra: dict[str, Handler] | None = None) -> Any:
        if extra and name in extra:
            return await _call(extra[name], params)
        m = self._methods.get(name)
        if m is None:
            raise MethodNotFound(f"the method {name} does not exist/is not available")
        return await _call(m.fn, *self._args(m, params))


def _eth_error_bytes(id_bytes: bytes, code: int, message: str, data: Any) -> bytes:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return b'{"jsonrpc":"2.0","id":' + id_bytes + b',"error":' + orjson.dumps(err) + b"}"

