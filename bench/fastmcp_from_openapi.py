"""FastMCP's from_openapi over the NWS description, as its documentation shows it: every
operation a tool, the backend reached through an httpx client at the bench backend's URL, served
over Streamable HTTP statelessly with JSON answers (no SSE stream per call).

    python fastmcp_from_openapi.py DESCRIPTION.json BACKEND_URL PORT
"""

import json
import sys

import httpx2
from fastmcp import FastMCP


def main() -> None:
    description, backend_url, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(description, encoding="utf-8") as f:
        spec = json.load(f)
    client = httpx2.AsyncClient(base_url=backend_url, timeout=10.0)
    mcp = FastMCP.from_openapi(openapi_spec=spec, client=client, name="weather.gov")
    mcp.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        stateless_http=True,
        json_response=True,
        show_banner=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
