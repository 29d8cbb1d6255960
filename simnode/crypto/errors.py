"""The one exception type of simnode.crypto."""

from simnode.errors import InvalidInput


class CryptoError(InvalidInput):
    """Bad key, signature or encoding. Messages mirror AvalancheGo's where it has one,
    because they surface verbatim in API error strings."""
