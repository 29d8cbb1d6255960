"""The explorer (a browser client of this node's public APIs, served as static files) and the API
documents with their docs page. `add_routes` registers them on the node's aiohttp app."""

from .serve import add_routes

__all__ = ["add_routes"]
