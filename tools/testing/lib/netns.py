# SPDX-License-Identifier: GPL-2.0
"""Network namespaces by their `ip netns` names, for the test tools.

One process that works in several namespaces (a socket made in a
namespace stays in it; /proc/net shows the namespace the reader is in)
spares a slow guest the start of an interpreter per namespace.

  with netns.inside("h3"):
      s = socket.socket(...)      # a socket of h3's
"""
import contextlib
import ctypes
import os

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET):
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


@contextlib.contextmanager
def inside(name):
    """run the block in network namespace NAME, then come back"""
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    try:
        there = os.open(os.path.join("/run/netns", name), os.O_RDONLY)
        try:
            _setns(there)
        finally:
            os.close(there)
        try:
            yield
        finally:
            _setns(home)
    finally:
        os.close(home)
