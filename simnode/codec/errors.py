"""Errors of the codec package."""


class CodecError(ValueError):
    """Bytes that do not decode (truncated, trailing bytes, unknown type ID...) or a value that cannot encode."""


class VerifyError(ValueError):
    """A decoded structure that breaks a syntactic rule (AvalancheGo's ``Verify()``); texts match AvalancheGo."""
