"""The one exception type the command line turns into a one-line message."""


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
