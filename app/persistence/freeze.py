"""A test hook (``ATOUT_TEST_HOOKS=1`` only): the process freezes itself inside a write.

A process that stops in the middle of a database transaction (SIGSTOP, a stuck VM, a long
pause) is the stall that PostgreSQL's ``idle_in_transaction_session_timeout`` and the
takeover's ``lock_timeout`` must survive (docs/scaling.md), and a process that dies between
two writes of one step (the last Continue stored, the next deal not yet) is the one a restored
room must finish (``Room.after_load``). Both need the freeze at an exact point, which a
signal from outside cannot hit; this hook makes it reproducible:

* SIGUSR1: freeze (SIGSTOP to itself) inside the next room write's transaction;
* SIGUSR2: let the next room write commit, and freeze inside the one after it.

On PostgreSQL the point is right after the fence has locked the room's lease row
(leases.py ``Fenced``); on SQLite, after the write's statements, before its commit. SIGCONT
wakes the process, which then goes on: its transaction commits or fails as the database
decides (a fenced-out process commits nothing). tests/scale/test_freeze.py and
``atout bench failover --freezes`` use it.
"""

from __future__ import annotations

import os
import signal
import threading

_lock = threading.Lock()
_countdown = 0  # room writes still to pass before the freeze (0: not armed)


def _arm(writes: int) -> None:
    global _countdown
    with _lock:
        _countdown = writes


def install() -> None:
    """Arm on SIGUSR1 (the next write) and SIGUSR2 (the write after the next)."""
    signal.signal(signal.SIGUSR1, lambda _s, _f: _arm(1))
    signal.signal(signal.SIGUSR2, lambda _s, _f: _arm(2))


def point() -> None:
    """Called inside each room write's transaction: freeze here when armed for this one."""
    global _countdown
    if not _countdown:  # the common case: one read of an int, no lock
        return
    with _lock:
        _countdown -= 1
        freeze = _countdown == 0
    if freeze:
        os.kill(os.getpid(), signal.SIGSTOP)
