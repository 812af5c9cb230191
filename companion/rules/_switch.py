"""A function that does nothing, as Python bytecode: calling it lets the
interpreter hand itself to another thread.

CPython changes threads only between bytecode instructions: a thread that
has held the interpreter for its switch interval (5 ms) is asked to let go,
and does so at the next function start or loop turn it runs *as bytecode*.
The solver compiled by mypyc (``setup.py``) runs none, so it would keep the
interpreter from a server's loop for as long as it searched (up to 110 ms at
a time in a 2 s search, measured); calling this every few hundred
microseconds gives the loop its turns exactly as the Python solver does.
``time.sleep(0)`` would too, but each call is a system call: it made the
compiled solver 12 % slower. This module must never be compiled itself.
"""


def let_other_threads_run() -> None:
    """Nothing: the call is what matters (see the module text)."""
