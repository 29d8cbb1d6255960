"""What a Data/Metrics API handler gets: the node, the operation, its validated parameters and
body, the cursor its pageToken carried, how to hand out the next page's token, and what the
handlers keep between requests (in memory, per node). `NULL` is a JSON null a handler's answer
keeps (the pipeline drops every None: an optional field is omitted, never null)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .pages import binding_of
from .spec import Operation

if TYPE_CHECKING:
    from ...store import Store
    from ..node_services import NodeServices


class _Null:
    def __repr__(self) -> str:
        return "NULL"


NULL = _Null()  # for a field the document requires and allows to be null


class PageTokens(Protocol):
    def issue(self, binding: bytes, cursor: Any) -> str: ...

    def read(self, binding: bytes, token: str) -> Any: ...


@dataclass(slots=True)
class RequestContext:
    node: NodeServices
    op: Operation
    params: dict[str, Any]          # path and query parameters, validated, defaults applied
    body: dict[str, Any] | None     # the validated JSON body of a POST route
    base_url: str                   # scheme://host[:port] the client reached this node at
    tokens: PageTokens
    memo: dict[str, Any]            # what handlers keep between requests, by name
    cursor: Any = None              # what the request's pageToken carried; None on a first page
    caller_key: str | None = None   # the API key the request came with (request_log.api_key)

    @classmethod
    def read(cls, node: NodeServices, op: Operation, params: dict[str, Any], body: dict[str, Any] | None,
             base_url: str, tokens: PageTokens, memo: dict[str, Any]) -> RequestContext:
        """The context, with the pageToken checked against this route and filters (400 if not theirs)."""
        ctx = cls(node, op, params, body, base_url, tokens, memo)
        token = params.get("pageToken")
        if token:
            ctx.cursor = tokens.read(ctx._binding(), token)
        return ctx

    @property
    def store(self) -> Store:
        """The node's store: a node serves requests only once started, when it has one."""
        store = self.node.store
        assert store is not None
        return store

    def _binding(self) -> bytes:
        return binding_of(self.op.method, self.op.template, self.params)

    def paged(self, body: dict[str, Any], next_cursor: Any | None) -> dict[str, Any]:
        """`body` with `nextPageToken` when there is a next page (the key is absent on the last)."""
        if next_cursor is not None:
            body["nextPageToken"] = self.tokens.issue(self._binding(), next_cursor)
        return body
