"""The Webhooks API routes: `/v1/webhooks…` over the node's webhook engine (simnode/webhooks).

Create and generateOrRotateSharedSecret answer 201, the rest 200. A bad body gets a 400 with
class-validator sentences and changes nothing; an unknown webhook ID a 404. `network` is
`mainnet` or `fuji` (either names the running network, as every other route's does). A receiver
URL must be an absolute http(s) URL. Optional fields are omitted, never null; `name` and
`description` are always strings (empty when not given). Lists are newest first, pageSize 1..100
(default 10), with signed page tokens.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from ...formats.address import hrp_for_network
from ...formats.bech32 import bech32_decode
from ...formats.ids import ZERO_ID, id_from_str, id_to_str, node_id_from_str
from ...webhooks import records as r
from .context import RequestContext
from .errors import ApiError, bad_request, not_found
from .params import enum_message
from .resolve import evm_chain, evm_chain_id_of, primary_chain_name

EVENT_TYPES = (r.ADDRESS_ACTIVITY, r.PRIMARY_ADDRESS_ACTIVITY, r.VALIDATOR_ACTIVITY)
NETWORKS = ("mainnet", "fuji")
STATUSES = ("active", "inactive")
ADDRESS_SUB_EVENTS = ("balance_change", "balance_threshold", "reward_distribution")
VALIDATOR_SUB_EVENTS = ("validator_stake", "delegator_stake", "reward_distribution", "l1_validator_balance_increased",
                        "l1_validator_disabled", "l1_validator_removed", "l1_validator_balance_threshold")
BALANCE_TYPES = ("unlockedUnstaked", "unlockedStaked", "lockedPlatform", "lockedStakeable", "lockedStaked",
                 "pendingStaked", "unlocked", "locked", "atomicMemoryUnlocked", "atomicMemoryLocked")
KEY_TYPES = ("nodeId", "subnetId")
MAX_KEYS = 50_000


def engine(ctx: RequestContext) -> Any:
    eng = ctx.node.webhooks.engine
    if eng is None:
        raise ApiError(503, "webhooks are not open yet")
    return eng


# ------------------------------------------------------------------------------ shapes

def webhook_json(w: r.Webhook) -> dict[str, Any]:
    out = {"id": w.id, "url": w.url, "chainId": w.chain_id, "status": w.status, "createdAt": w.created_at,
           "name": w.name, "description": w.description, "eventType": w.event_type, "metadata": w.metadata}
    if w.event_type == r.ADDRESS_ACTIVITY:
        out["includeInternalTxs"] = w.include_internal_txs
        out["includeLogs"] = w.include_logs
    return out


# ------------------------------------------------------------------------------ validation

def _string(body: dict[str, Any], name: str, errors: list[str], required: bool = False) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            errors.append(f"{name} must be a string")
        return None
    if not isinstance(value, str):
        errors.append(f"{name} must be a string")
        return None
    return value


def _bool(body: dict[str, Any], name: str, errors: list[str]) -> bool | None:
    value = body.get(name)
    if value is not None and not isinstance(value, bool):
        errors.append(f"{name} must be a boolean value")
        return None
    return value


def _url(body: dict[str, Any], errors: list[str], required: bool) -> str | None:
    url = _string(body, "url", errors, required)
    if url is None:
        return None
    try:
        parts = urlsplit(url)
        _ = parts.port  # a malformed port raises
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        ok = False
    if not ok:
        errors.append("url must be a URL address with the http or https protocol")
    return url


def _string_list(value: Any, name: str, errors: list[str], required: bool = True) -> list[str] | None:
    if value is None:
        if required:
            errors.append(f"{name} must be an array")
        return None
    if not isinstance(value, list):
        errors.append(f"{name} must be an array")
        return None
    if not all(isinstance(v, str) for v in value):
        errors.append(f"each value in {name} must be a string")
        return None
    if len(value) > MAX_KEYS:
        errors.append(f"{name} must contain no more than {MAX_KEYS} elements")
        return None
    return list(value)


def _evm_addresses(values: list[str], name: str, errors: list[str]) -> list[str]:
    out: list[str] = []
    for v in values:
        if len(v) != 42 or v[:2].lower() != "0x" or any(c not in "0123456789abcdefABCDEF" for c in v[2:]):
            errors.append(f"each value in {name} must be an Ethereum address")
            return []
        if v.lower() not in (o.lower() for o in out):
            out.append(v)
    return out


def _event_signatures(md: dict[str, Any], errors: list[str]) -> list[str] | None:
    sigs = _string_list(md.get("eventSignatures"), "metadata.eventSignatures", errors, required=False)
    if sigs is None:
        return None
    for s in sigs:
        if len(s) != 66 or s[:2].lower() != "0x" or any(c not in "0123456789abcdefABCDEF" for c in s[2:]):
            errors.append("each value in metadata.eventSignatures must be a 32-byte hexadecimal string")
            return None
    return sigs


def _sub_events(md: dict[str, Any], key: str, allowed: tuple[str, ...], errors: list[str]) -> list[str]:
    subs = md.get("subEvents")
    if not isinstance(subs, dict):
        errors.append("metadata.subEvents must be an object")
        return []
    values = _string_list(subs.get(key), f"metadata.subEvents.{key}", errors)
    if values is None:
        return []
    if not values or any(v not in allowed for v in values):
        errors.append(enum_message(f"metadata.subEvents.{key}", allowed, each=True))
        return []
    return list(dict.fromkeys(values))


def _metadata(body: dict[str, Any], errors: list[str]) -> dict[str, Any]:
    md = body.get("metadata")
    if not isinstance(md, dict):
        errors.append("metadata must be an object")
        return {}
    return md


def _hrp(ctx: RequestContext) -> str:
    return hrp_for_network(ctx.node.config.network_id)


def _primary_keys(ctx: RequestContext, alias: str, keys: list[str], errors: list[str]) -> None:
    hrp = _hrp(ctx)
    for key in keys:
        prefix, _, rest = key.rpartition("-")
        try:
            got, payload = bech32_decode(rest)
            ok = got == hrp and len(payload) == 20 and prefix in ("", alias)
        except Exception:  # noqa: BLE001 - any malformed address is the same 400
            ok = False
        if not ok:
            errors.append(f"each value in metadata.keys must be an {alias}-Chain address of this network "
                          f"({alias}-{hrp}1… or {hrp}1…)")
            return


def _new_webhook(ctx: RequestContext, body: dict[str, Any]) -> r.Webhook:
    errors: list[str] = []
    event_type = body.get("eventType")
    if event_type not in EVENT_TYPES:
        raise bad_request(enum_message("eventType", EVENT_TYPES))
    url = _url(body, errors, True)
    name = _string(body, "name", errors) or ""
    description = _string(body, "description", errors) or ""
    md = _metadata(body, errors)
    fields: dict[str, Any] = {}
    if event_type == r.ADDRESS_ACTIVITY:
        chain_ref = _string(body, "chainId", errors, True)
        addresses = _string_list(md.get("addresses"), "metadata.addresses", errors) if md else None
        metadata: dict[str, Any] = {}
        sigs = _event_signatures(md, errors) if md else None
        if sigs:
            metadata["eventSignatures"] = sigs
        metadata["addresses"] = _evm_addresses(addresses or [], "metadata.addresses", errors)
        fields["include_internal_txs"] = bool(_bool(body, "includeInternalTxs", errors))
        fields["include_logs"] = bool(_bool(body, "includeLogs", errors))
        network = "fuji"
        if errors or chain_ref is None:  # a missing chainId is among the errors
            raise bad_request(*errors)
        try:
            chain = evm_chain(ctx.node, chain_ref)
        except ApiError as exc:
            raise bad_request(f"chainId {exc.message}") from None
        chain_id, chain_key = str(evm_chain_id_of(ctx.node, chain)), chain.chain_id
    else:
        network = body.get("network") or ""
        if network not in NETWORKS:
            errors.append(enum_message("network", NETWORKS))
        keys = _string_list(md.get("keys"), "metadata.keys", errors) if md else None
        metadata = {}
        if event_type == r.PRIMARY_ADDRESS_ACTIVITY:
            chain_ref = _string(body, "chainId", errors, True)
            name_of = primary_chain_name(ctx.node, chain_ref) if chain_ref else None
            if chain_ref is not None and name_of not in ("p-chain", "x-chain"):
                errors.append("chainId must be p-chain or x-chain (or the P- or X-Chain's blockchain ID)")
            if md and md.get("keyType") != "addresses":
                errors.append(enum_message("metadata.keyType", ("addresses",)))
            subs = _sub_events(md, "addressActivitySubEvents", ADDRESS_SUB_EVENTS, errors) if md else []
            alias = "P" if name_of == "p-chain" else "X"
            if keys is not None and name_of in ("p-chain", "x-chain"):
                _primary_keys(ctx, alias, keys, errors)
            metadata = {"keyType": "addresses", "keys": keys or [], "subEvents": {"addressActivitySubEvents": subs}}
            threshold = md.get("balanceThresholdFilter") if md else None
            if threshold is not None or "balance_threshold" in subs:
                metadata["balanceThresholdFilter"] = _threshold(threshold, errors)
            chain_key = ZERO_ID if name_of == "p-chain" else ctx.node.genesis.x_chain_id
            chain_id = name_of or ""
        else:
            key_type = md.get("keyType") if md else None
            if md and key_type not in KEY_TYPES:
                errors.append(enum_message("metadata.keyType", KEY_TYPES))
            if keys is not None and len(keys) != 1:
                errors.append("metadata.keys must contain exactly 1 element")
            elif keys and key_type in KEY_TYPES:
                _validator_key(key_type, keys[0], errors)
            subs = _sub_events(md, "validatorActivitySubEvents", VALIDATOR_SUB_EVENTS, errors) if md else []
            metadata = {"keyType": key_type, "keys": keys or [], "subEvents": {"validatorActivitySubEvents": subs}}
            for extra in ("nodeIds", "subnetIds"):
                if md and md.get(extra) is not None:
                    metadata[extra] = _string_list(md.get(extra), f"metadata.{extra}", errors)
            fee = md.get("l1ValidatorFeeBalanceThreshold") if md else None
            if fee is not None:
                if not isinstance(fee, str) or not fee.isdigit():
                    errors.append("metadata.l1ValidatorFeeBalanceThreshold must be a number string")
                metadata["l1ValidatorFeeBalanceThreshold"] = fee
            chain_key, chain_id = ZERO_ID, id_to_str(ZERO_ID)
        if errors:
            raise bad_request(*errors)
    eng = engine(ctx)
    return r.Webhook(id=eng.new_id(), url=url or "", chain_id=chain_id, chain=chain_key, event_type=event_type,
                     network=network, metadata=metadata, name=name, description=description,
                     created_at=int(time.time()), **fields)


def _threshold(value: Any, errors: list[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        errors.append("metadata.balanceThresholdFilter must be an object")
        return {}
    kind, limit = value.get("balanceType"), value.get("balanceThreshold")
    if kind not in BALANCE_TYPES:
        errors.append(enum_message("metadata.balanceThresholdFilter.balanceType", BALANCE_TYPES))
    if not isinstance(limit, str) or not limit.isdigit():
        errors.append("metadata.balanceThresholdFilter.balanceThreshold must be a number string")
    return {"balanceType": kind, "balanceThreshold": limit}


def _validator_key(key_type: str, key: str, errors: list[str]) -> None:
    try:
        node_id_from_str(key) if key_type == "nodeId" else id_from_str(key)
    except Exception:  # noqa: BLE001 - any malformed ID is the same 400
        errors.append(f"each value in metadata.keys must be a {'NodeID' if key_type == 'nodeId' else 'subnet ID'}")


def _found(ctx: RequestContext) -> r.Webhook:
    w = engine(ctx).webhooks.get(ctx.params["id"])
    if w is None:
        raise not_found(f"Webhook {ctx.params['id']} not found")
    return w


def _evm_only(w: r.Webhook) -> None:
    if w.event_type != r.ADDRESS_ACTIVITY:
        raise bad_request(f"webhook {w.id} is a {w.event_type} webhook: addresses belong to address_activity "
                          "webhooks (EVM chains)")


# ------------------------------------------------------------------------------ handlers

def create_webhook(ctx: RequestContext) -> dict[str, Any]:
    body = ctx.body or {}
    w = _new_webhook(ctx, body)
    eng = engine(ctx)
    eng.secret()  # deliveries are signed from the first one on
    return webhook_json(eng.save(w))


def list_webhooks(ctx: RequestContext) -> dict[str, Any]:
    hooks = engine(ctx).listed(ctx.params.get("status"))
    start = int(ctx.cursor or 0)
    size = ctx.params["pageSize"]
    page = hooks[start:start + size]
    more = start + size < len(hooks)
    return ctx.paged({"webhooks": [webhook_json(w) for w in page]}, start + size if more else None)


def get_webhook(ctx: RequestContext) -> dict[str, Any]:
    return webhook_json(_found(ctx))


def deactivate_webhook(ctx: RequestContext) -> dict[str, Any]:
    return webhook_json(engine(ctx).save(_found(ctx).with_(status="inactive")))


def update_webhook(ctx: RequestContext) -> dict[str, Any]:
    w = _found(ctx)
    body = ctx.body or {}
    errors: list[str] = []
    changes: dict[str, Any] = {}
    for name in ("name", "description"):
        value = _string(body, name, errors)
        if value is not None:
            changes[name] = value
    url = _url(body, errors, False)
    if url is not None:
        changes["url"] = url
    status = body.get("status")
    if status is not None:
        if status not in STATUSES:
            errors.append(enum_message("status", STATUSES))
        changes["status"] = status
    for field, key in (("include_internal_txs", "includeInternalTxs"), ("include_logs", "includeLogs")):
        flag = _bool(body, key, errors)
        if flag is not None and w.event_type == r.ADDRESS_ACTIVITY:
            changes[field] = flag
    if errors:
        raise bad_request(*errors)
    return webhook_json(engine(ctx).save(w.with_(**changes)))


def list_addresses(ctx: RequestContext) -> dict[str, Any]:
    w = _found(ctx)
    _evm_only(w)
    addresses = w.addresses
    start = int(ctx.cursor or 0)
    size = ctx.params["pageSize"]
    more = start + size < len(addresses)
    return ctx.paged({"addresses": addresses[start:start + size], "totalAddresses": len(addresses)},
                     start + size if more else None)


def _change_addresses(ctx: RequestContext, add: bool) -> dict[str, Any]:
    w = _found(ctx)
    _evm_only(w)
    errors: list[str] = []
    given = _string_list((ctx.body or {}).get("addresses"), "addresses", errors)
    wanted = _evm_addresses(given or [], "addresses", errors)
    if errors:
        raise bad_request(*errors)
    current = list(w.addresses)
    lowered = {a.lower() for a in wanted}
    if add:
        have = {a.lower() for a in current}
        current += [a for a in wanted if a.lower() not in have]
    else:
        current = [a for a in current if a.lower() not in lowered]
    return webhook_json(engine(ctx).save(w.with_(metadata={**w.metadata, "addresses": current})))


def add_addresses(ctx: RequestContext) -> dict[str, Any]:
    return _change_addresses(ctx, True)


def remove_addresses(ctx: RequestContext) -> dict[str, Any]:
    return _change_addresses(ctx, False)


def rotate_secret(ctx: RequestContext) -> dict[str, Any]:
    return {"secret": engine(ctx).rotate_secret()}


def get_secret(ctx: RequestContext) -> dict[str, Any]:
    return {"secret": engine(ctx).secret()}


ROUTES = {
    ("POST", "/v1/webhooks"): create_webhook,
    ("GET", "/v1/webhooks"): list_webhooks,
    ("GET", "/v1/webhooks/{id}"): get_webhook,
    ("PATCH", "/v1/webhooks/{id}"): update_webhook,
    ("DELETE", "/v1/webhooks/{id}"): deactivate_webhook,
    ("GET", "/v1/webhooks/{id}/addresses"): list_addresses,
    ("PATCH", "/v1/webhooks/{id}/addresses"): add_addresses,
    ("DELETE", "/v1/webhooks/{id}/addresses"): remove_addresses,
    ("POST", "/v1/webhooks:generateOrRotateSharedSecret"): rotate_secret,
    ("GET", "/v1/webhooks:getSharedSecret"): get_secret,
}
