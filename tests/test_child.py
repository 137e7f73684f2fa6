"""ChildServer: requests answered by one child in turn, each under its own hard time limit."""

import os
import time

from verify._child import ChildServer


def _work(seconds, value):
    time.sleep(seconds)
    return value, os.getpid()


def test_one_child_serves_requests_and_one_past_its_limit_is_killed():
    server = ChildServer(_work)
    try:
        a, pid_a = server.call((0, "a"), 5.0)
        b, pid_b = server.call((0, "b"), 5.0)
        assert (a, b) == ("a", "b") and pid_a == pid_b != os.getpid()  # the same child, not a fork per request
        t = time.perf_counter()
        assert server.call((30, "slow"), 0.5) is None  # killed at its limit, not waited for
        assert time.perf_counter() - t < 5
        c, pid_c = server.call((0, "c"), 5.0)
        assert c == "c" and pid_c != pid_a  # a fresh child after the kill
    finally:
        server.close()
