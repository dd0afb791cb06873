"""The error of a compare-and-swap write (a list, an event pack) that lost its race."""


class VersionConflict(Exception):
    """The list (or event pack) changed since the version the caller based its change on."""

    def __init__(self, current: int):
        self.current = current
        super().__init__(f"it is at version {current}")
