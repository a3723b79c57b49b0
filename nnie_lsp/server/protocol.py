"""The JSON-RPC protocol: every request gets a response, even one whose params are malformed."""

from __future__ import annotations

import logging

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger("nnie_lsp.server")

REQUEST_FAILED = -32803
PARSE_ERROR = -32700        # JSON-RPC 2.0: the body is not JSON
INVALID_REQUEST = -32600    # JSON, but not a request, response or notification object


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
            if isinstance(data, dict) and "id" in data and "method" in data and not self._knows(data["method"]):
                error = JsonRpcException(message=f"Method Not Found: {data['method']}", code=-32601)
                self._send_response(data["id"], None, error.to_response_error())
                return _IGNORED
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
            if isinstance(data, dict) and "jsonrpc" in data:  # neither a request nor a notification
                self.reject(INVALID_REQUEST, "invalid request: a JSON-RPC message needs 'method' (a request or "
                                             "notification) or 'id' with 'result' or 'error' (a response)")
                return _IGNORED
            raise

    def _knows(self, method) -> bool:
        """A method of LSP or one this server registered (else MethodNotFound, not InvalidParams)."""
        return isinstance(method, str) and (method in lsp.METHOD_TO_TYPES or method in self.fm.features
                                            or method in self.fm.builtin_features)

    def handle_message(self, message):
        if message is _IGNORED:
            return
        if not hasattr(message, "jsonrpc"):  # a batch (LSP has none), a number, an object without method/id
            self.reject(INVALID_REQUEST, f"invalid request: a JSON-RPC message is an object with 'jsonrpc' and "
                                         f"'method' or 'id', not {type(message).__name__}")
            return
        super().handle_message(message)

    def reject(self, code: int, message: str) -> None:
        """The error response JSON-RPC gives when the request's id cannot be known (``id: null``),
        and a warning in the client's log; never a crash."""
        # a plain object: the converter would drop the null id that JSON-RPC 2.0 requires here
        self._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})
        log.warning("%s", message)
        try:
            self._server.log(message, lsp.MessageType.Warning)
        except Exception:
            pass

    def reject_unreadable_body(self, error: Exception) -> None:
        """A message body that is not JSON (or not UTF-8): Parse error, the position in the message."""
        self.reject(PARSE_ERROR, f"parse error: the message is not JSON: {error}")
