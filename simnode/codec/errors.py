"""Errors of the codec package."""

from simnode.errors import InvalidInput


class CodecError(InvalidInput):
    """Bytes that do not decode (truncated, trailing bytes, unknown type ID...) or a value that cannot encode."""


class VerifyError(InvalidInput):
    """A decoded structure that breaks a syntactic rule (AvalancheGo's ``Verify()``); texts match AvalancheGo."""
