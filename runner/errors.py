"""The host's user-facing error: one line that names the problem and the fix, then a non-zero exit."""


class UserError(Exception):
    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code
