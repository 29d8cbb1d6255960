"""Logging: AvalancheGo's level names on top of Python loggers, one console handler.

Each logger has a log level (what it records) and a display level (what reaches the console),
as `admin.setLoggerLevel` sets them.
"""

from __future__ import annotations

import logging
import sys
from simnode.errors import InvalidInput

LEVELS = {"OFF": logging.CRITICAL + 10, "FATAL": logging.CRITICAL, "ERROR": logging.ERROR,
          "WARN": logging.WARNING, "INFO": logging.INFO, "TRACE": 15, "DEBUG": logging.DEBUG, "VERBO": 5}
_NAMES = {v: k for k, v in LEVELS.items()}
ROOT = "simnode"

_display: dict[str, int] = {}
_handler: logging.Handler | None = None


class LogLevelError(InvalidInput):
    pass


def parse_level(name: str) -> int:
    level = LEVELS.get(name.strip().upper())
    if level is None:
        raise LogLevelError(f"unknown log level: {name}")
    return level


def level_name(level: int) -> str:
    return _NAMES.get(level, logging.getLevelName(level))


class _DisplayFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        name = record.name
        while True:
            if name in _display:
                return record.levelno >= _display[name]
            if "." not in name:
                return True
            name = name.rsplit(".", 1)[0]


def configure(level: str = "INFO") -> None:
    """Install the console handler once; set the node's root log level."""
    global _handler
    for name in ("aiohttp.access", "aiohttp.server", "asyncio"):
        logging.getLogger(name).setLevel(logging.WARNING)
    root = logging.getLogger(ROOT)
    lv = parse_level(level)
    root.setLevel(lv)
    _display.setdefault(ROOT, lv)
    if _handler is None:
        _handler = logging.StreamHandler(sys.stderr)
        _handler.setFormatter(logging.Formatter("[%(asctime)s] %(levelname)s %(name)s: %(message)s"))
        _handler.addFilter(_DisplayFilter())
        root.addHandler(_handler)
        root.propagate = False


def logger_names() -> list[str]:
    """Every simnode logger that exists, the root first."""
    names = [n for n in logging.Logger.manager.loggerDict if n == ROOT or n.startswith(ROOT + ".")]
    return sorted(set(names) | {ROOT}, key=lambda n: (n != ROOT, n))


def get_levels(name: str) -> tuple[str, str]:
    logger = logging.getLogger(name)
    lv = logger.getEffectiveLevel()
    disp = _display.get(name, _display.get(ROOT, lv))
    return level_name(lv), level_name(disp)


def set_levels(name: str, log_level: str | None, display_level: str | None) -> None:
    if log_level is not None:
        logging.getLogger(name).setLevel(parse_level(log_level))
    if display_level is not None:
        _display[name] = parse_level(display_level)
