"""The errors a user may see, below every API: what is wrong, never which wire code says so.

Every layer raises these (or a subclass naming its domain) for a request the node refuses; the
API's one mapper per wire format (`rpc/jsonrpc.py` for gorilla and geth JSON-RPC, the Data API's
app for REST) turns them into the real node's codes and messages. Any other exception that reaches
a mapper is a bug: it is logged with its traceback and answered as an internal error.

The message is the text the user reads, so it matches the real node's wording.
"""


class DomainError(Exception):
    """A request the node answers with this text instead of a result."""

    def __init__(self, message: object = "") -> None:
        super().__init__(message)
        self.message = str(message)

    def __str__(self) -> str:
        return self.message


class InvalidInput(DomainError, ValueError):
    """Input that does not parse or breaks a syntactic rule (a ValueError, so parsers that
    tolerate bad input keep catching it)."""


class InvalidArgument(InvalidInput):
    """A method's argument that does not decode as the Go type the real method takes: geth's rpc
    package (the EVM chains' JSON-RPC) refuses the call before running the method and answers
    -32602 "invalid argument N: <decoder's text>"; an InvalidInput the method itself raises is
    answered -32000, as geth answers any error its method returns."""

    def __init__(self, index: int, message: object) -> None:
        super().__init__(message)
        self.index = index


class NotFound(DomainError, ValueError):
    """Something the request names does not exist (a chain, alias, block, snapshot)."""


class Refused(DomainError, ValueError):
    """Well-formed input a rule refuses: a tx that does not verify, a state that forbids it."""


class Unavailable(DomainError):
    """What the answer needs cannot be had now (a fork's upstream, an index that is off). Not a
    ValueError, so no parser that tolerates bad input swallows it."""


class NodeError(Refused):
    """Node-level refusals: a bad alias, an unknown snapshot, a data dir in use."""


class TxError(Refused):
    """A transaction a chain's rules refuse (X-, P- and C-Chain atomic txs), in AvalancheGo's words."""


class BuildError(InvalidInput):
    """A wallet cannot build the transaction asked for (funds, keys, arguments)."""


class GenesisError(InvalidInput):
    """A genesis or chain config that does not parse or breaks a rule."""
