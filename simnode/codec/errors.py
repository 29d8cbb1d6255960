"""Errors of the codec package, and the one place a failed syntactic check becomes a TxError."""

from collections.abc import Iterator
from contextlib import contextmanager

from simnode.errors import InvalidInput, TxError


class CodecError(InvalidInput):
    """Bytes that do not decode (truncated, trailing bytes, unknown type ID...) or a value that cannot encode."""


class VerifyError(InvalidInput):
    """A decoded structure that breaks a syntactic rule (AvalancheGo's ``Verify()``); texts match AvalancheGo."""


@contextmanager
def tx_errors(prefix: str = "", catch: tuple[type[Exception], ...] = (VerifyError,)) -> Iterator[None]:
    """A failed check (`catch`) as the TxError AvalancheGo's executors return: `prefix` + its text."""
    try:
        yield
    except catch as e:
        raise TxError(f"{prefix}{e}") from None
