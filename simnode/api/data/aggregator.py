"""The signature aggregator over HTTP, in both dialects, on the node's aggregator (signing/aggregator.py).

* Data API: `POST /v1/signatureAggregator/{network}/aggregateSignatures` with the camelCase body
  `{message, justification, signingSubnetId, quorumPercentage, quorumPercentageBuffer, pChainHeight}`
  and `GET /v1/signatureAggregator/{network}/aggregateSignatures/{txHash}` (the Warp message of an
  L1-related P-Chain tx), both answering 201 `{signedMessage}` (hex, as the hosted service's
  example) and NestJS error bodies for bad input and refusals. `network` names the hosted service's
  networks; this node answers each with its own validators.
* icm-services (self-hosted): `POST /aggregate-signatures` with the kebab-case body
  `{message, justification, signing-subnet-id, quorum-percentage, quorum-percentage-buffer,
  pchain-height}`, answering 200 `{"signed-message": hex}` or `{"error": …}` with the status.

`message` is the unsigned message's bytes (or the SendWarpMessage event data carrying them), hex
with or without 0x; `signingSubnetId` is hex or cb58; a quorum of 0 (or none) means 67 and a
P-Chain height of 0 (or none) the current height. A message is required: simnode does not build
one from a justification alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import web

from ...formats import id_from_str
from ...signing.aggregator import DEFAULT_QUORUM_PERCENTAGE, AggregationRefused, AggregationRequest, Aggregator
from .context import RequestContext
from .errors import ApiError

if TYPE_CHECKING:
    from ..node_services import NodeServices


def _hex(value: Any, name: str) -> bytes:
    if value is None or value == "":
        return b""
    if not isinstance(value, str):
        raise AggregationRefused(400, f"{name} must be a hex string")
    text = value[2:] if value[:2].lower() == "0x" else value
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise AggregationRefused(400, f"{name} is not valid hex: {value!r}") from None


def _subnet(value: Any, name: str) -> bytes | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value[2:] if value[:2].lower() == "0x" else value
        if len(text) == 64:
            try:
                return bytes.fromhex(text)
            except ValueError:
                pass
        try:
            return id_from_str(value)
        except ValueError:
            pass
    raise AggregationRefused(400, f"{name} must be a hex or cb58 subnet ID, got {value!r}")


def _whole(value: Any, name: str, default: int, top: int | None) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < 0 \
            or (top is not None and value > top):
        bound = f" from 0 to {top}" if top is not None else ""
        raise AggregationRefused(400, f"{name} must be an integer{bound}, got {value!r}")
    return int(value)


def _request(body: dict, names: dict[str, str]) -> AggregationRequest:
    """The aggregator's request from a body whose field names are `names` (dialect -> meaning)."""
    message = _hex(body.get(names["message"]), names["message"])
    justification = _hex(body.get(names["justification"]), names["justification"])
    if not message:
        raise AggregationRefused(400, "message must be provided: simnode builds no message from a justification "
                                      "alone" if justification else "Either message or justification must be provided")
    quorum = _whole(body.get(names["quorum"]), names["quorum"], 0, 100) or DEFAULT_QUORUM_PERCENTAGE
    buffer = _whole(body.get(names["buffer"]), names["buffer"], 0, 100)
    height = _whole(body.get(names["height"]), names["height"], 0, None) or None
    return AggregationRequest(message, justification, _subnet(body.get(names["subnet"]), names["subnet"]), quorum,
                              buffer, height)


_DATA_API = {"message": "message", "justification": "justification", "subnet": "signingSubnetId",
             "quorum": "quorumPercentage", "buffer": "quorumPercentageBuffer", "height": "pChainHeight"}
_ICM_SERVICES = {"message": "message", "justification": "justification", "subnet": "signing-subnet-id",
                 "quorum": "quorum-percentage", "buffer": "quorum-percentage-buffer", "height": "pchain-height"}


def _aggregator(node: NodeServices) -> Aggregator:
    if node.aggregator is None:
        raise AggregationRefused(503, "the signature aggregator is not running yet")
    return node.aggregator


def aggregate_signatures(ctx: RequestContext) -> dict:
    """POST …/aggregateSignatures."""
    try:
        signed = _aggregator(ctx.node).aggregate(_request(ctx.body or {}, _DATA_API))
    except AggregationRefused as e:
        raise ApiError(e.status, e.message) from None
    return {"signedMessage": signed.encoded.hex()}


def get_aggregated_signatures(ctx: RequestContext) -> dict:
    """GET …/aggregateSignatures/{txHash}."""
    tx_hash = ctx.params["txHash"]
    try:
        tx_id = id_from_str(tx_hash)
    except ValueError:
        raise ApiError(400, f"txHash must be a cb58 P-Chain transaction ID, got {tx_hash!r}") from None
    try:
        signed = _aggregator(ctx.node).aggregate_tx(tx_id)
    except AggregationRefused as e:
        raise ApiError(e.status, e.message) from None
    return {"signedMessage": signed.encoded.hex()}


async def icm_services_aggregate(node: NodeServices, request: web.Request) -> web.Response:
    """icm-services' `POST /aggregate-signatures`."""
    if request.method != "POST":
        return _icm_reply(405, {"error": f"method {request.method} not allowed"})
    try:
        body = orjson.loads(await request.read())
    except orjson.JSONDecodeError as e:
        return _icm_reply(400, {"error": f"could not decode request body: {e}"})
    if not isinstance(body, dict):
        return _icm_reply(400, {"error": "could not decode request body: not a JSON object"})
    try:
        signed = _aggregator(node).aggregate(_request(body, _ICM_SERVICES))
    except AggregationRefused as e:
        return _icm_reply(e.status, {"error": e.message})
    return _icm_reply(200, {"signed-message": signed.encoded.hex()})


def _icm_reply(status: int, body: dict) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(body), content_type="application/json")
