"""Schemathesis hooks for bench/fuzz.sh: every request carries the API token of an
ordinary user (FUZZ_USER, FUZZ_PASSWORD), fetched from POST /api/auth/token/.

The fuzzer also calls DELETE /api/auth/token/, which revokes that token; the next request
is then refused (403 "Invalid token."), and Schemathesis fetches a new token and sends
the request again. A 403 that a new token does not cure (staff-only import) is learnt
as such and not retried."""

import os

import requests
import schemathesis


@schemathesis.auth(retry_on=[401, 403])
class UserToken:
    def get(self, case, context) -> str:
        base_url = context.operation.schema.get_base_url().rstrip("/")
        response = requests.post(
            f"{base_url}/api/auth/token/",
            json={"username": os.environ["FUZZ_USER"], "password": os.environ["FUZZ_PASSWORD"]},
            timeout=10,
        )
        response.raise_for_status()
        return response.json()["token"]

    def set(self, case, data: str, context) -> None:
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Token {data}"
