"""The one exception type of simnode.icm."""

from simnode.errors import InvalidInput


class ICMError(InvalidInput):
    """A Teleporter message, calldata or log that does not decode, or a value that cannot encode."""
