import asyncio
import inspect
import logging

import orjson
import pytest

from simnode.errors import InvalidArgument, InvalidInput, NotFound, Refused, Unavailable
from simnode.rpc.jsonrpc import UNMARSHAL_ERROR, EthService, GorillaService, RPCError


def run(coro):
    return asyncio.run(coro)


def gorilla():
    def echo(params):
        return {"got": params}

    def fail(_):
        raise RPCError("boom <tag> & more")

    def empty(_):
        return None

    return GorillaService({"test": {"echo": echo, "fail": fail, "empty": empty}})


def call(svc, body, method="POST", ctype="application/json"):
    return run(svc.handle(method, ctype, body if isinstance(body, bytes) else body.encode()))


def test_gorilla_success_key_order_trailing_newline_and_raw_id():
    r = call(gorilla(), '{"jsonrpc":"2.0","id":1.0,"method":"test.echo","params":{"a":1}}')
    assert r.status == 200
    assert r.body == b'{"jsonrpc":"2.0","result":{"got":{"a":1}},"id":1.0}\n'


def test_gorilla_params_array_of_object_and_absent():
    r = call(gorilla(), '{"jsonrpc":"2.0","id":"x","method":"test.echo","params":[{"a":2},5]}')
    assert orjson.loads(r.body)["result"] == {"got": {"a": 2}}
    r = call(gorilla(), '{"jsonrpc":"2.0","id":3,"method":"test.echo"}')
    assert orjson.loads(r.body)["result"] == {"got": {}}
    r = call(gorilla(), '{"jsonrpc":"2.0","id":3,"method":"test.echo","params":[1]}')
    assert orjson.loads(r.body)["error"] == {"code": -32000, "message": UNMARSHAL_ERROR, "data": None}


def test_gorilla_errors_escape_html_and_carry_null_data():
    r = call(gorilla(), '{"jsonrpc":"2.0","id":7,"method":"test.fail"}')
    assert r.body == (b'{"jsonrpc":"2.0","error":{"code":-32000,"message":"boom \\u003ctag\\u003e \\u0026 more",'
                      b'"data":null},"id":7}\n')
    assert call(gorilla(), '{"jsonrpc":"2.0","id":7,"method":"test.empty"}').body.startswith(b'{"jsonrpc":"2.0","result":{}')


@pytest.mark.parametrize("method,message", [
    ("test.Echo", "method must start with a non-uppercase letter"),
    ("echo", 'rpc: service/method request ill-formed: "echo"'),
    ("nope.getHeight", 'rpc: can\'t find service "nope.GetHeight"'),
    ("test.fooBar", 'rpc: can\'t find method "test.FooBar"'),
])
def test_gorilla_method_lookup_errors(method, message):
    r = call(gorilla(), orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method}))
    assert orjson.loads(r.body)["error"] == {"code": -32000, "message": message, "data": None}


def test_gorilla_batch_is_a_parse_error_and_notifications_are_silent():
    r = call(gorilla(), '[{"jsonrpc":"2.0","id":1,"method":"test.echo"}]')
    err = orjson.loads(r.body)
    assert err["error"]["code"] == -32700
    assert "cannot unmarshal array" in err["error"]["message"]
    assert err["id"] is None
    assert call(gorilla(), '{"jsonrpc":"2.0","method":"test.echo"}').body == b""
    assert call(gorilla(), '{"jsonrpc":"2.0","id":null,"method":"test.fail"}').body == b""
    assert orjson.loads(call(gorilla(), '{"jsonrpc":"1.0","id":1,"method":"test.echo"}').body)["error"]["code"] == -32600


def test_gorilla_http_method_and_content_type():
    r = call(gorilla(), "", method="GET")
    assert (r.status, r.body) == (405, b"rpc: POST method required, received GET")
    r = call(gorilla(), "{}", ctype="text/plain")
    assert (r.status, r.body) == (415, b"rpc: unrecognized Content-Type: text/plain")
    assert call(gorilla(), '{"jsonrpc":"2.0","id":1,"method":"test.echo"}',
                ctype="application/json; charset=UTF-8").status == 200


def eth():
    svc = EthService(batch_limit=3)
    svc.register("eth_add", lambda a, b=0: a + b, 1, 2)
    svc.register("eth_fail", lambda: (_ for _ in ()).throw(RPCError("execution reverted: no", 3, "0x08c379a0")))
    return svc


def eth_call(body):
    out = run(eth().handle_body(body.encode()))
    return None if out is None else orjson.loads(out)


def test_eth_single_and_batch():
    assert eth_call('{"jsonrpc":"2.0","id":1,"method":"eth_add","params":[1,2]}') == {"jsonrpc": "2.0", "id": 1, "result": 3}
    out = eth_call('[{"jsonrpc":"2.0","id":1,"method":"eth_add","params":[1]},{"jsonrpc":"2.0","id":2,"method":"x"}]')
    assert out[0]["result"] == 1
    assert out[1]["error"] == {"code": -32601, "message": "the method x does not exist/is not available"}
    assert eth_call("[]")["error"] == {"code": -32600, "message": "empty batch"}
    assert eth_call("[" + ",".join(['{"jsonrpc":"2.0","id":1,"method":"eth_add","params":[1]}'] * 4) + "]")["error"]["message"] == "batch too large"


def test_eth_param_and_parse_errors():
    assert eth_call("{")["error"] == {"code": -32700, "message": "parse error"}
    assert eth_call('{"jsonrpc":"2.0","id":1,"method":"eth_add","params":{"a":1}}')["error"] == {"code": -32602, "message": "non-array args"}
    assert eth_call('{"jsonrpc":"2.0","id":1,"method":"eth_add","params":[1,2,3]}')["error"]["message"] == "too many arguments, want at most 2"
    assert eth_call('{"jsonrpc":"2.0","id":1,"method":"eth_add","params":[]}')["error"]["message"] == "missing value for required argument 0"
    assert eth_call('{"jsonrpc":"2.0","id":9,"method":"eth_fail"}')["error"] == {"code": 3, "message": "execution reverted: no", "data": "0x08c379a0"}
    assert eth_call('{"jsonrpc":"2.0","method":"eth_add","params":[1]}') is None


# ---------------------------------------------------------------------------------------------
# user errors and bugs: one mapper per wire format

def _raiser(exc):
    def handler(*_args):
        raise exc
    return handler


BUGS = [KeyError("x"), LookupError("gone"), ValueError("invalid literal for int()"), TypeError("NoneType"),
        AttributeError("no attribute"), ZeroDivisionError("division by zero")]
DOMAIN = [(InvalidInput("bad input"), "bad input"), (NotFound("not found"), "not found"),
          (Refused("input has less signers than expected"), "input has less signers than expected"),
          (Unavailable("fork upstream http://x: unreachable"), "fork upstream http://x: unreachable")]


@pytest.mark.parametrize("exc", BUGS, ids=lambda e: type(e).__name__)
def test_gorilla_internal_exception_is_logged_and_answered_as_internal_error(exc, caplog):
    svc = GorillaService({"test": {"bug": _raiser(exc)}})
    with caplog.at_level(logging.ERROR, logger="simnode.api"):
        r = call(svc, '{"jsonrpc":"2.0","id":1,"method":"test.bug"}')
    assert r.body == b'{"jsonrpc":"2.0","error":{"code":-32603,"message":"internal error","data":null},"id":1}\n'
    [record] = [r for r in caplog.records if r.name == "simnode.api"]
    assert record.exc_info[1] is exc and "test.bug" in record.getMessage()


@pytest.mark.parametrize("exc,message", DOMAIN, ids=lambda e: type(e).__name__)
def test_gorilla_domain_error_is_a_user_error_and_not_logged(exc, message, caplog):
    svc = GorillaService({"test": {"refused": _raiser(exc)}})
    with caplog.at_level(logging.DEBUG, logger="simnode.api"):
        r = call(svc, '{"jsonrpc":"2.0","id":1,"method":"test.refused"}')
    assert orjson.loads(r.body)["error"] == {"code": -32000, "message": message, "data": None}
    assert not [r for r in caplog.records if r.name == "simnode.api"]


@pytest.mark.parametrize("exc", BUGS, ids=lambda e: type(e).__name__)
def test_eth_internal_exception_is_logged_and_answered_as_internal_error(exc, caplog):
    svc = EthService()
    svc.register("eth_bug", _raiser(exc))
    svc.register("eth_asyncBug", _async_raiser(exc))
    for method in ("eth_bug", "eth_asyncBug"):
        caplog.clear()
        body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method})
        with caplog.at_level(logging.ERROR, logger="simnode.api"):
            replies = [run(svc.handle_body(body)), _now(svc.handle_body_now(body))]
        for reply in replies:
            assert reply == b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"method handler crashed"}}'
        records = [r for r in caplog.records if r.name == "simnode.api"]
        assert len(records) == 2 and all(r.exc_info[1] is exc for r in records)


@pytest.mark.parametrize("exc,message", DOMAIN, ids=lambda e: type(e).__name__)
def test_eth_domain_error_is_a_user_error_and_not_logged(exc, message, caplog):
    svc = EthService()
    svc.register("eth_refused", _raiser(exc))
    with caplog.at_level(logging.DEBUG, logger="simnode.api"):
        reply = run(svc.handle_body(b'{"jsonrpc":"2.0","id":1,"method":"eth_refused"}'))
    assert orjson.loads(reply)["error"] == {"code": -32000, "message": message}
    assert not [r for r in caplog.records if r.name == "simnode.api"]


def _async_raiser(exc):
    async def handler(*_args):
        raise exc
    return handler


def _now(reply):
    return run(reply) if inspect.isawaitable(reply) else reply


def _settling_call(service_kind: str) -> list[str]:
    """What happened, in order, when a call that schedules work for the loop's next turn (as
    automine does) is answered: the reply must come after the work."""
    events: list[str] = []

    async def go() -> None:
        loop = asyncio.get_running_loop()
        due = []

        def submit(*_):
            due.append(True)
            loop.call_soon(lambda: (events.append("block written"), due.clear()))
            return "0x01"

        if service_kind == "eth":
            svc = EthService()
            svc.register("eth_sendRawTransaction", submit, 1)
            svc.settling = lambda: bool(due)
            body = b'{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x"]}'
            reply = svc.handle_body_now(body)  # the HTTP fast path's entry
            if not isinstance(reply, bytes):
                reply = await reply
        else:
            svc = GorillaService({"avm": {"issueTx": submit}})
            svc.settling = lambda: bool(due)
            reply = (await svc.handle("POST", "application/json",
                                      b'{"jsonrpc":"2.0","id":1,"method":"avm.issueTx","params":{}}')).body
        events.append("reply " + orjson.loads(reply)["result"])

    run(go())
    return events


@pytest.mark.parametrize("kind", ["eth", "gorilla"])
def test_a_reply_waits_for_the_block_its_call_scheduled(kind):
    assert _settling_call(kind) == ["block written", "reply 0x01"]


def test_invalid_argument_is_geths_invalid_params_and_gorillas_user_error():
    """An argument that does not decode: -32602 "invalid argument N: ..." from geth's rpc package
    (coreth refuses the call before its method runs); gorilla answers every error -32000."""
    svc = EthService()
    svc.register("eth_bad", _raiser(InvalidArgument(1, "hex string without 0x prefix")))
    svc.register("eth_refused", _raiser(InvalidInput("hex string invalid")))
    body = b'{"jsonrpc":"2.0","id":1,"method":"eth_bad"}'
    for reply in (run(svc.handle_body(body)), _now(svc.handle_body_now(body))):
        assert orjson.loads(reply)["error"] == {"code": -32602, "message": "invalid argument 1: hex string without 0x prefix"}
    reply = run(svc.handle_body(b'{"jsonrpc":"2.0","id":1,"method":"eth_refused"}'))
    assert orjson.loads(reply)["error"] == {"code": -32000, "message": "hex string invalid"}
    g = GorillaService({"test": {"bad": _raiser(InvalidArgument(0, "bad"))}})
    r = call(g, '{"jsonrpc":"2.0","id":1,"method":"test.bad"}')
    assert orjson.loads(r.body)["error"] == {"code": -32000, "message": "bad", "data": None}
