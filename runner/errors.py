"""The host's user-facing errors: one line that names the problem and the fix, then a non-zero exit."""


class UserError(Exception):
    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


class Stopped(BaseException):
    """SIGINT or SIGTERM reached the host: the run stops after recording what is in flight. A BaseException,
    like KeyboardInterrupt, so that no `except Exception` on the way swallows it."""

    def __init__(self, signum: int):
        super().__init__(f"stopped by signal {signum}")
        self.signum = signum
