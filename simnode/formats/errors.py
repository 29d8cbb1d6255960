"""The one error type of the formats package."""


class FormatError(ValueError):
    """A value is not in the expected wire format (bad string, wrong length, bad checksum...)."""
