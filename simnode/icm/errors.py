"""The one exception type of simnode.icm."""


class ICMError(ValueError):
    """A Teleporter message, calldata or log that does not decode, or a value that cannot encode."""
