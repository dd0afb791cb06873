"""E-mail that goes out after the answer (password resets): the answer to a reset request
takes the same time whether or not an account has the address, instead of as long as the
mail server takes for a registered one, which told addresses apart and held a worker.

One sending thread per process, at most `MAX_WAITING` mails waiting for it (more are
dropped and logged: a flood of requests cannot pile up work); each send bounded by the
SMTP timeout (settings.EMAIL_TIMEOUT)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

logger = logging.getLogger(__name__)
MAX_WAITING = 50

_sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="armybuilder-mail")
_lock = threading.Lock()
_waiting: set[Future[Any]] = set()


def send_later(send: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """Send in the background; False (and a warning logged) when too many are waiting."""
    with _lock:
        if len(_waiting) >= MAX_WAITING:
            logger.warning("e-mail dropped: %s are waiting to be sent", len(_waiting))
            return False
        future = _sender.submit(_logged, send, args, kwargs)
        _waiting.add(future)
    future.add_done_callback(_done)
    return True


def _logged(send: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    try:
        send(*args, **kwargs)
    except Exception:  # a mail server down must not go unnoticed, nor stop the next mail
        logger.exception("e-mail could not be sent")


def _done(future: Future[Any]) -> None:
    with _lock:
        _waiting.discard(future)


def sent(timeout: float = 10.0) -> None:
    """Wait until every mail waiting has been sent (tests, and a clean shutdown)."""
    with _lock:
        pending = list(_waiting)
    wait(pending, timeout=timeout)
