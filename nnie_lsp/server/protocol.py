"""The JSON-RPC protocol: every request gets a response, even one whose params are malformed."""

from __future__ import annotations

import logging

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger("nnie_lsp.server")

REQUEST_FAILED = -32803


def request_failed(message: str) -> JsonRpcException:
    """The error response of a request that could not be done (shown to the user by most clients)."""
    return JsonRpcException(message=message, code=REQUEST_FAILED)


class _Ignored:
    jsonrpc = None


_IGNORED = _Ignored()


class NnieProtocol(LanguageServerProtocol):
    """Answers requests whose params cannot be structured with an InvalidParams *response*
    (pygls 2.1.1 only logs and leaves the client waiting)."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                cause = exc.__cause__
                detail = str(cause).splitlines()[0] if cause else str(exc)
                error = JsonRpcInvalidParams(f"invalid params for {data['method']}: {detail}")
                self._send_response(data["id"], None, error.to_response_error())
                try:
                    self._server.log(f"rejected malformed {data['method']} request: {detail}", lsp.MessageType.Warning)
                except Exception:
                    pass
                return _IGNORED
            if isinstance(data, dict) and "method" in data and "jsonrpc" in data:
                log.warning("dropping malformed notification %s", data.get("method"))
                return _IGNORED
            raise

    def handle_message(self, message):
        if message is _IGNORED:
            return
        super().handle_message(message)
