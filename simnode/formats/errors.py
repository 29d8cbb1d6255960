"""The one error type of the formats package."""

from simnode.errors import InvalidInput


class FormatError(InvalidInput):
    """A value is not in the expected wire format (bad string, wrong length, bad checksum...)."""
