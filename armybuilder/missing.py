"""The one error of a lookup that finds nothing: every selector `*_get` raises it (never
None, never an HTTP answer), and each front end turns it into its 404: the API's JSON
(api/exceptions.py), the site's error page (errors.py, by middleware.MissingMiddleware)."""


class Missing(LookupError):
    """Nothing of `kind` ("list", "shared list", "ruleset", "book", "event pack") by that
    key, or nothing the caller may see: the same answer, so that nothing tells a stranger
    what is there. The message names what was asked for in the catalogue, which anyone
    may read ('no ruleset "aof-club"'); of what may be someone else's (a list, an event
    pack) it says nothing more. A page says it in its own words (errors.MISSING)."""

    def __init__(self, kind: str, message: str = ""):
        self.kind = kind
        super().__init__(message)
