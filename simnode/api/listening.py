"""Where the node listens: its HTTP socket, and the URLs a user reaches from its base URL."""

from __future__ import annotations

import socket

from ..errors import NodeError


def node_urls(base: str) -> dict[str, str]:
    """The URLs of the node at `base` (http://host:port): the ready line, the CLI, the fixtures."""
    return {
        "base": base,
        "info": f"{base}/ext/info",
        "X": f"{base}/ext/bc/X",
        "P": f"{base}/ext/bc/P",
        "C": f"{base}/ext/bc/C/rpc",
        "C_ws": base.replace("http://", "ws://") + "/ext/bc/C/ws",
        "C_avax": f"{base}/ext/bc/C/avax",
        "explorer": f"{base}/explorer/",
        "docs": f"{base}/docs",
    }


def bind_listener(host: str, port: int) -> socket.socket:
    """A non-blocking listening socket on host:port (IPv6 if the host has a colon)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise NodeError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.listen(512)
    sock.setblocking(False)
    return sock
