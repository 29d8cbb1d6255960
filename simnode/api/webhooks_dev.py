"""The explorer's view of the webhooks, as `simnode.*` methods of `/ext/simnode` (dev tools, not
part of the hosted API):

* `simnode.getWebhooks {}` → `{paused, queued, delivered, givenUp, webhooks: [{id, name, url,
  eventType, chainId, status, createdAt, deliveries}]}`; `deliveries` are the webhook's recent
  messages, newest first: `{messageId, status (pending | retrying | delivered | failed), label,
  createdMs, attempts: [[at ms, HTTP status or error, latency ms]], nextRetryMs}`.
* `simnode.setWebhookDelivery {paused}` holds (true) or resumes (false) every delivery → `{paused}`.
* `simnode.sendTestWebhookEvent {id}` queues a test delivery of an address_activity webhook, built
  from its chain's latest tx, with a fresh messageId → `{messageId}`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..rpc.jsonrpc import RPCError
from ..webhooks.service import WebhookService

RECENT = 20


class WebhookNode(Protocol):
    """What these methods read of the node."""

    @property
    def webhooks(self) -> WebhookService: ...

    @property
    def chains(self) -> dict[bytes, Any]: ...


def methods(node: WebhookNode) -> dict[str, Callable[[dict[str, Any]], Any]]:
    def parts() -> tuple[Any, Any]:
        service = node.webhooks
        if service.engine is None or service.delivery is None:
            raise RPCError("webhooks are not running")
        return service.engine, service.delivery

    def get_webhooks(_: dict[str, Any]) -> dict[str, Any]:
        engine, delivery = parts()
        hooks = [{"id": w.id, "name": w.name, "url": w.url, "eventType": w.event_type, "chainId": w.chain_id,
                  "status": w.status, "createdAt": w.created_at, "deliveries": delivery.history(w.id)[:RECENT]}
                 for w in engine.listed()]
        return {"paused": delivery.paused, "queued": delivery.queued(), "delivered": delivery.delivered,
                "givenUp": delivery.given_up, "webhooks": hooks}

    def set_delivery(params: dict[str, Any]) -> dict[str, Any]:
        paused = params.get("paused")
        if not isinstance(paused, bool):
            raise RPCError("paused must be true or false")
        parts()[1].pause(paused)
        return {"paused": paused}

    def send_test_event(params: dict[str, Any]) -> dict[str, Any]:
        engine, _ = parts()
        webhook = engine.webhooks.get(params.get("id"))
        if webhook is None:
            raise RPCError(f"no webhook {params.get('id')!r}")
        chain = node.chains.get(webhook.chain)
        if chain is None:
            raise RPCError(f"chain {webhook.chain_id} is not running")
        try:
            return {"messageId": engine.send_test_event(chain, webhook)}
        except ValueError as exc:
            raise RPCError(str(exc)) from exc

    return {"getWebhooks": get_webhooks, "setWebhookDelivery": set_delivery, "sendTestWebhookEvent": send_test_event}
