"""No 5xx from bad input anywhere in the Data and Metrics API, swept from the real documents.

Every operation of both OpenAPI documents, every integer parameter (query and body): a request
with valid values for everything else and one out-of-range value (past the document's maximum
or minimum; where the document leaves a side open, past JavaScript's safe integers, including
values past 64 and 256 bits) answers 400 with NestJS's body and class-validator's sentence. The
edges of each range answer what the operation declares, never a 5xx. Number parameters take huge,
negative and fractional values without a 5xx, and string parameters, path and query, that name
numbers (chain IDs, block numbers, token IDs, amounts) take numbers of any size. The deprecated
routes served beyond the documents (/v1/teleporter/*, /v1/chains/allBlocks, …, /v1/rpcUsageMetrics)
and an export's download are swept with their successors' parameters. Page tokens of
any size and shape are a 400, and so are the legacy /v1/avg_tps route's timestamps past the
safe integers. None of it changes the chains.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from eth_account import Account

from simnode.api.data import deprecated_evm, icm, usage
from simnode.api.data.routes import NOT_SERVED, account_bound
from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.node import Node

from ..openapi_contract import contract, raw_document
from .dataapi import request
from .rpc import call

EWOQ = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
EWOQ_P = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
GWEI = 10**9
SAFE = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER: the implied bound of an open side
HUGE = (2**64, 2**256)
METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def h():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="ERROR")) as handle:
        rpc = handle.url + "/ext/bc/C/rpc"
        tx = {"chainId": 43112, "nonce": 0, "to": Account.create().address, "value": 10**18, "gas": 21000,
              "maxFeePerGas": 300 * GWEI, "maxPriorityFeePerGas": GWEI}
        handle.tx_hash = call(rpc, "eth_sendRawTransaction", [EWOQ.sign_transaction(tx).raw_transaction.to_0x_hex()])
        assert call(rpc, "eth_getTransactionReceipt", [handle.tx_hash])["status"] == "0x1"
        handle.avax = handle.node.genesis.avax_asset_id
        yield handle


def resolve(schema: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def path_values(h, name: str, schema: dict[str, Any]) -> list[str]:
    """Valid values of a path parameter: one, or each primary chain a {blockchainId} admits."""
    if "enum" in schema:
        chains = [v for v in schema["enum"] if v.endswith("-chain")]
        return chains if name == "blockchainId" and chains else schema["enum"][:1]
    return [{
        "chainId": "43112", "address": EWOQ.address, "blockId": "1", "txHash": h.tx_hash, "tokenId": "1",
        "subnetId": "11111111111111111111111111111111LpoYY", "blockchainId": "c-chain",
        "nodeId": "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg", "assetId": id_to_str(h.avax),
        "l1ValidationId": "11111111111111111111111111111111LpoYY", "messageId": "0x" + "ab" * 32,
        "vertexHash": "11111111111111111111111111111111LpoYY", "id": "webhook", "operationId": "operation",
    }[name]]


# required query parameters (and `addresses`, which the staking lists need), request bodies: valid
REQUIRED_QUERY = {"addresses": EWOQ_P, "vertexHeight": "0", "network": "fuji", "threshold": "1"}
BODIES = {
    "/v1/networks/{network}/blockchains/{blockchainId}/utxos": {"addresses": EWOQ_P},
    "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses": {"addresses": EWOQ_P},
    "/v1/signatureAggregator/{network}/aggregateSignatures": {"message": "00"},
}


# the deprecated routes served beyond the documents -> the route whose parameters and answers they have
SUCCESSORS = {**{route: current for route, (current, *_) in {**icm.DEPRECATED_ROUTES, **deprecated_evm.DEPRECATED_ROUTES,
                                                            **usage.DEPRECATED_ROUTES}.items()},
              "/v1/operations/{operationId}/download": "/v1/operations/{operationId}"}


def operations() -> list[tuple[str, str, str, dict[str, Any], dict[str, Any]]]:
    """(api, METHOD, template, operation, document) for every operation of both documents, and
    for each deprecated GET route (and an export's download) with its successor's operation."""
    out = []
    for api in ("data", "metrics"):
        doc = raw_document(api)
        for template, item in doc["paths"].items():
            for method, op in item.items():
                if method in METHODS:
                    out.append((api, method.upper(), template, op, doc))
    doc = raw_document("data")
    out += [("data", "GET", route, doc["paths"][current]["get"], doc) for route, current in SUCCESSORS.items()]
    return out


def build(h, template: str, op: dict[str, Any], doc: dict[str, Any],
          override: tuple[str, str] | None = None) -> list[str]:
    """The request paths with valid parameters (one per primary chain a {blockchainId} admits),
    `override` = (name, raw value) replacing one."""
    variants: list[tuple[str, list[str]]] = [(template, [])]
    for p in op.get("parameters", ()):
        name = p["name"]
        schema = resolve(p.get("schema", {}), doc)
        if override is not None and name == override[0]:
            values = [override[1]]
        elif p["in"] == "path":
            values = path_values(h, name, schema)
        elif p.get("required") or name == "addresses":
            values = [REQUIRED_QUERY[name]]
        else:
            continue
        if p["in"] == "path":
            variants = [(path.replace("{" + name + "}", quote(v, safe=":")), query)
                        for path, query in variants for v in values]
        else:
            variants = [(path, [*query, (name, values[0])]) for path, query in variants]
    out = []
    for path, query in variants:
        pairs = [(k, on_chain_of(path, v) if k == "addresses" else v) for k, v in query]
        out.append(path + ("?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in pairs) if pairs else ""))
    return out


def on_chain_of(path: str, address: str) -> str:
    """EWOQ's P-Chain address as an address of the primary chain `path` names."""
    chain = next((c for c in ("x-chain", "c-chain") if f"/{c}/" in path), "p-chain")
    return address.replace("P-", chain[0].upper() + "-", 1)


def numeric_params(op: dict[str, Any], doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(name, location, schema) of every integer or number parameter and body field."""
    out = []
    for p in op.get("parameters", ()):
        schema = resolve(p.get("schema", {}), doc)
        if schema.get("type") in ("integer", "number"):
            out.append((p["name"], p["in"], schema))
    if "requestBody" in op:
        body = resolve(op["requestBody"]["content"]["application/json"]["schema"], doc)
        for name, sub in body.get("properties", {}).items():
            sub = resolve(sub, doc)
            if sub.get("type") in ("integer", "number"):
                out.append((name, "body", sub))
    return out


def out_of_range(name: str, schema: dict[str, Any]) -> list[tuple[int, str]]:
    """(value, class-validator's sentence) for an integer parameter's values out of its range."""
    hi = schema.get("maximum", SAFE)
    lo = schema.get("minimum", -SAFE)
    over = f"{name} must not be greater than {hi}"
    under = f"{name} must not be less than {lo}"
    values = [(hi + 1, over), *((v, over) for v in HUGE if v > hi), (lo - 1, under), *((-v, under) for v in HUGE)]
    if lo > 0:
        values += [(0, under), (-1, under)]
    elif lo == 0:
        values.append((-1, under))
    return values


def send(h, method: str, template: str, path: str, body: Any = None) -> tuple[int, Any]:
    """Status and parsed answer of a request, checked against the document; never a 5xx."""
    if body is None and method != "GET":
        body = {}
    status, headers, raw = request(h.url, method, path, body=body)
    assert status < 500, (method, path, status, raw[:300])
    return status, contract().check(method, path, status, headers, raw, SUCCESSORS.get(template))


def unreachable(method: str, template: str) -> bool:
    """A route that answers 404 before validating anything (account-bound or not served here)."""
    return account_bound(template) is not None or (method, template) in NOT_SERVED


def chain_state(h) -> tuple[Any, ...]:
    c = h.url + "/ext/bc/C/rpc"
    return (call(c, "eth_getBlockByNumber", ["latest", False])["hash"],
            call(h.url + "/ext/bc/P", "platform.getHeight")["height"],
            call(h.url + "/ext/bc/X", "avm.getHeight")["height"])


def with_value(h, template: str, op: dict[str, Any], doc: dict[str, Any], name: str, location: str,
               value: Any) -> list[tuple[str, Any]]:
    """(path, body) of the requests that give parameter or body field `name` the value `value`."""
    if location == "body":
        return [(path, {**(body_for(template, path) or {}), name: value}) for path in build(h, template, op, doc)]
    return [(path, body_for(template, path)) for path in build(h, template, op, doc, (name, str(value)))]


def body_for(template: str, path: str) -> dict[str, Any] | None:
    """A valid body of an operation that takes one (None: it takes none)."""
    body = BODIES.get(template)
    return None if body is None else {k: on_chain_of(path, v) if k == "addresses" else v for k, v in body.items()}


def enum_choices(op: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    """"" and `name=value` for each value of each optional enum query parameter (intervals,
    sort orders, statuses: each takes a handler down another path)."""
    out = [""]
    for p in op.get("parameters", ()):
        schema = resolve(p.get("schema", {}), doc)
        if p["in"] == "query" and not p.get("required") and "enum" in schema:
            out += [f"{p['name']}={quote(v, safe='')}" for v in schema["enum"]]
    return out


def test_every_integer_parameter_out_of_range_is_a_400(h):
    before = chain_state(h)
    checked = 0
    for _api, method, template, op, doc in operations():
        for name, location, schema in numeric_params(op, doc):
            if schema["type"] != "integer":
                continue
            for value, sentence in out_of_range(name, schema):
                for path, body in with_value(h, template, op, doc, name, location, value):
                    status, answer = send(h, method, template, path, body)
                    if unreachable(method, template):
                        assert status == 404, (path, answer)
                        continue
                    assert answer == {"message": [sentence], "error": "Bad Request", "statusCode": 400}, (path, answer)
                    checked += 1
    assert checked > 500
    assert chain_state(h) == before


def test_range_edges_and_number_parameters_never_5xx(h):
    """The edges of every integer's range: never a 5xx, never a 400 (the request is otherwise
    valid); number parameters, given numbers of every size and sign: never a 5xx (a handler may
    refuse what its parameter cannot mean, e.g. a negative block number)."""
    before = chain_state(h)
    for _api, method, template, op, doc in operations():
        for name, location, schema in numeric_params(op, doc):
            lo, hi = schema.get("minimum"), schema.get("maximum")
            if schema["type"] == "integer":
                values: list[Any] = [-SAFE if lo is None else lo, SAFE if hi is None else hi]
            else:
                values = [-(2**256), -1, 0, 0.5, 1e300, 2**64, 2**256, *(v for v in (lo, hi) if v is not None)]
            for value in values:
                for path, body in with_value(h, template, op, doc, name, location, value):
                    for choice in enum_choices(op, doc):
                        full = path + ("&" if "?" in path else "?") + choice if choice else path
                        status, answer = send(h, method, template, full, body)
                        if schema["type"] == "integer" and not unreachable(method, template):
                            assert status != 400, (full, answer)
    assert chain_state(h) == before


NUMBERS = ("0", "-1", "1.5", "1e400", str(2**63), str(2**64), str(2**256), str(2**256 * 10**30),
           "0x" + "f" * 80, "9" * 400, "9" * 5000)
TOKENS = ("A" * 5000, "_" * 17, "0" * 64, "00000000-0000-4000-8000-000000000000", "%ff%fe", "eyJ" + "A" * 100)


def test_string_parameters_of_any_size_never_5xx(h):
    """Every string parameter, path and query (block numbers, chain IDs, token IDs, amounts and
    the rest), given numbers of every size and shape: a 4xx or a 2xx the operation declares,
    never a 5xx. A page token that this node did not issue, whatever its shape, is a 400."""
    before = chain_state(h)
    for _api, method, template, op, doc in operations():
        for p in op.get("parameters", ()):
            schema = resolve(p.get("schema", {}), doc)
            if schema.get("type", "string") != "string" or "enum" in schema:
                continue
            token = p["name"] == "pageToken"
            for value in NUMBERS + TOKENS if token else NUMBERS:
                for path, body in with_value(h, template, op, doc, p["name"], p["in"], value):
                    status, answer = send(h, method, template, path, body)
                    if token and not unreachable(method, template):
                        assert status == 400 and answer["error"] == "Bad Request", (path, answer)
                        assert isinstance(answer["message"], list) and answer["message"], (path, answer)
    assert chain_state(h) == before


def test_legacy_avg_tps_bounds(h):
    """The legacy Metrics route (not in the current document): its timestamps and chain ID."""
    for query, sentence in ((f"from={SAFE + 1}", f"from must not be greater than {SAFE}"),
                            (f"to={2**256}", f"to must not be greater than {SAFE}"),
                            (f"from=1&to={'9' * 5000}", f"to must not be greater than {SAFE}"),
                            ("from=-1", "from must be a UNIX timestamp (seconds)")):
        status, _, raw = request(h.url, "GET", f"/v1/avg_tps/43112?{query}")
        assert (status, json.loads(raw)) == (400, {"message": [sentence], "error": "Bad Request", "statusCode": 400})
    status, _, raw = request(h.url, "GET", f"/v1/avg_tps/43112?from={SAFE}&to={SAFE}")
    assert status == 200 and json.loads(raw)["results"] == []
    for ref in (str(2**256), "9" * 5000):
        status, _, raw = request(h.url, "GET", f"/v1/avg_tps/{ref}")
        assert status == 404 and json.loads(raw)["error"] == "Not Found"
