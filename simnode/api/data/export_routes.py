"""The Data API's operations routes (export_job.py makes the CSV):

    POST /v1/operations/transactions:export       201 OperationStatusResponse, the job RUNNING
    GET  /v1/operations/{operationId}              the job's status (OperationStatusResponse)
    GET  /v1/operations/{operationId}/download     its CSV once it completed (this node's download URL)

The body is one of CreateEvmTransactionExportRequest / CreatePrimaryNetworkTransactionExportRequest
(by `type`), checked here in class-validator's words (the document gives it as a oneOf, which the
generic body check leaves alone): a bad shape, date or address is a 400 and starts nothing.
`firstDate`/`lastDate` (or the deprecated `startDate`/`endDate`) are YYYY-MM-DD days; at most
MAX_ADDRESSES addresses. Timestamps are UNIX seconds (wall clock). `metadata.downloadUrl` is given
for COMPLETED and COMPLETED_WITH_WARNING jobs, as the document says.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from datetime import date
from typing import Any

from aiohttp import web

from .context import RequestContext
from .errors import ApiError, bad_request, not_found
from .evm_reads import index_off
from .export_job import (COMPLETED, EVM, FAILED, RUNNING, WARNED, ExportRequest, csv_chunks, load, run, save)
from .primary import parse_addresses
from .resolve import evm_address
from .spec import DATA, Operation, document, make_operation

MAX_ADDRESSES = 64
PRIMARY_TYPES = ("TRANSACTION_EXPORT_PRIMARY_NETWORK", "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING",
                 "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")


def _now_s() -> int:
    return int(time.time())


# ------------------------------------------------------------------------------ the request


def _day(body: dict[str, Any], name: str, old: str) -> date:
    value = body.get(name, body.get(old))
    if isinstance(value, str) and _DAY.match(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise bad_request(f"{name} must be a valid ISO 8601 date string (YYYY-MM-DD)")


def _strings(options: dict[str, Any], name: str, required: bool) -> list[str]:
    value = options.get(name)
    if value is None and not required:
        return []
    if not isinstance(value, list):
        raise bad_request(f"options.{name} must be an array")
    if not all(isinstance(v, str) for v in value):
        raise bad_request(f"each value in options.{name} must be a string")
    if len(value) > MAX_ADDRESSES:
        raise bad_request(f"options.{name} must contain no more than {MAX_ADDRESSES} elements")
    return value


def _evm_addresses(values: list[str], name: str) -> tuple[bytes, ...]:
    out = []
    for v in values:
        try:
            out.append(evm_address(name, v))
        except ApiError:
            raise bad_request(f"each value in options.{name} must be an Ethereum address") from None
    return tuple(out)


def parse_export(ctx: RequestContext) -> ExportRequest:
    body = ctx.body if isinstance(ctx.body, dict) else {}
    kind = body.get("type")
    if kind not in (EVM, *PRIMARY_TYPES):
        raise bad_request("type must be one of the following values: " + ", ".join((EVM, *PRIMARY_TYPES)))
    options = body.get("options")
    if not isinstance(options, dict):
        raise bad_request("options must be an object")
    first, last = _day(body, "firstDate", "startDate"), _day(body, "lastDate", "endDate")
    if first > last:
        raise bad_request("firstDate must not be after lastDate")
    chains = _strings(options, "includeChains", True)
    if not chains:
        raise bad_request("options.includeChains should not be empty")
    if kind == EVM:
        addresses = _evm_addresses(_strings(options, "addresses", True), "addresses")
        if not addresses:
            raise bad_request("options.addresses should not be empty")
        return ExportRequest(kind, first, last, addresses, tuple(chains))
    allowed = document(DATA)["components"]["schemas"]["PrimaryNetworkOptions"]["properties"]["includeChains"]
    names = allowed["items"]["enum"]
    if any(c not in names for c in chains):
        raise bad_request("each value in options.includeChains must be one of the following values: "
                          + ", ".join(names))
    texts = _strings(options, "addresses", False)
    c_addresses = _evm_addresses(_strings(options, "cChainEvmAddresses", False), "cChainEvmAddresses")
    if not texts and not c_addresses:
        raise bad_request("options.addresses should not be empty")
    addresses = tuple(parse_addresses(ctx.node, ",".join(texts), None, "options.addresses")) if texts else ()
    return ExportRequest(kind, first, last, addresses, tuple(chains), c_addresses)


# ------------------------------------------------------------------------------ the job


def _tasks(ctx: RequestContext) -> dict[bytes, asyncio.Task]:
    return ctx.memo.setdefault("export_tasks", {})


def _start(ctx: RequestContext, op_id: bytes) -> None:
    tasks = _tasks(ctx)
    task = asyncio.get_running_loop().create_task(run(ctx.node, op_id, _now_s))
    tasks[op_id] = task
    task.add_done_callback(lambda _t: tasks.pop(op_id, None))


def _status(ctx: RequestContext, op_id: bytes, rec: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"operationId": str(uuid.UUID(bytes=op_id)), "operationType": rec["type"],
                            "operationStatus": rec["status"], "createdAtTimestamp": rec["created"],
                            "updatedAtTimestamp": rec["updated"]}
    if rec.get("message"):
        body["message"] = rec["message"]
    meta: dict[str, Any] = {}
    if rec.get("code"):
        meta["code"] = rec["code"]
    if rec["status"] in (COMPLETED, WARNED):
        meta["downloadUrl"] = f"{ctx.base_url}/v1/operations/{body['operationId']}/download"
    if rec.get("next"):
        meta["nextDate"] = rec["next"]
    if meta:
        body["metadata"] = meta
    return body


def _store(ctx: RequestContext) -> Any:
    if ctx.store is None or ctx.node.indexer is None:
        raise index_off()
    return ctx.store


def create_export(ctx: RequestContext) -> dict[str, Any]:
    store = _store(ctx)
    req = parse_export(ctx)
    op_id = uuid.uuid4().bytes
    now = _now_s()
    rec = {"type": req.type, "status": RUNNING, "created": now, "updated": now, "request": req.record()}
    save(store, op_id, rec)
    _start(ctx, op_id)
    return _status(ctx, op_id, rec)


def _operation(ctx: RequestContext) -> tuple[bytes, dict[str, Any]]:
    ref = ctx.params["operationId"]
    if not _UUID.match(ref):
        raise bad_request("operationId must be a UUID")
    op_id = uuid.UUID(ref).bytes
    rec = load(_store(ctx), op_id)
    if rec is None:
        raise not_found(f"operation {ref} was not found")
    return op_id, rec


def get_operation(ctx: RequestContext) -> dict[str, Any]:
    op_id, rec = _operation(ctx)
    if rec["status"] == RUNNING and op_id not in _tasks(ctx):  # the node stopped while it ran
        _start(ctx, op_id)
    return _status(ctx, op_id, rec)


def download(ctx: RequestContext) -> web.Response:
    op_id, rec = _operation(ctx)
    if rec["status"] not in (COMPLETED, WARNED):
        what = "failed" if rec["status"] == FAILED else "is still running"
        raise not_found(f"operation {ctx.params['operationId']} {what}: it has no file")
    body = b"".join(csv_chunks(ctx.store, op_id))
    resp = web.Response(status=200, body=body, content_type="text/csv", charset="utf-8")
    resp.headers["Content-Disposition"] = f'attachment; filename="transactions-{ctx.params["operationId"]}.csv"'
    return resp


def download_operations() -> list[Operation]:
    """The download route (not in the document: the hosted API hands out a storage URL instead)."""
    doc = document(DATA)
    op = {"operationId": "downloadOperationResult",
          "parameters": doc["paths"]["/v1/operations/{operationId}"]["get"]["parameters"],
          "responses": {"200": {"description": "The CSV file"}}}
    return [make_operation(DATA, "get", "/v1/operations/{operationId}/download", op, doc)]


ROUTES = {
    ("POST", "/v1/operations/transactions:export"): create_export,
    ("GET", "/v1/operations/{operationId}"): get_operation,
    ("GET", "/v1/operations/{operationId}/download"): download,
}
