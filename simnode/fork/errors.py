"""The one error a forked node's upstream raises: it names the upstream URL and says what failed.

It is an Unavailable domain error, so whatever API call needed the upstream answers with its text
(the wire mappers pick the code) instead of a crash or an empty result; it is not a ValueError, so
no parser that tolerates bad input swallows it.
"""

from __future__ import annotations

from ..errors import Unavailable


class ForkError(Unavailable):
    """The upstream could not give what the fork needs (unreachable, too slow, rate-limited,
    an error answer, or a different network than the cache holds)."""


class NotForked(Exception):
    """A chain the upstream P-Chain lists that the fork cannot run (the upstream does not serve
    its RPC): it exists on the fork's P-Chain only."""
