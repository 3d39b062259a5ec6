"""The one exception type the command line turns into a one-line message, and the hint such a message gives
for a mistyped name."""

import difflib


class RtscopeError(Exception):
    """A problem the user can fix: bad input, a missing file, a foreign database.

    The message is a single line meant for the user, without the "rtscope: " prefix.
    ``exit_status`` is what the command line exits with (2: usage or bad input).
    ``already_reported`` is true when the user has seen the message already (the probe printed it).
    """

    exit_status = 2
    already_reported = False


class ProbeError(RtscopeError):
    """The probe ended without a usable result (crash, unreadable output): not the user's input."""

    exit_status = 1


class ProbeRejected(RtscopeError):
    """The probe refused its arguments; its own one-line message has already reached the user."""

    already_reported = True


def did_you_mean(name: str, names: list[str]) -> str:
    """ "; did you mean lat.wakeup?" for the names closest to a mistyped one; empty when none is close."""
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""
