"""The one error a forked node's upstream raises: it names the upstream URL and says what failed.

It is an RPCError (code -32000), so whatever API call needed the upstream answers with its text
instead of a crash or an empty result; it is not a ValueError, so no parser that tolerates bad
input swallows it.
"""

from __future__ import annotations

from ..rpc.jsonrpc import RPCError


class ForkError(RPCError):
    """The upstream could not give what the fork needs (unreachable, too slow, rate-limited,
    an error answer, or a different network than the cache holds)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, -32000)


class NotForked(Exception):
    """A chain the upstream P-Chain lists that the fork cannot run (the upstream does not serve
    its RPC): it exists on the fork's P-Chain only."""
