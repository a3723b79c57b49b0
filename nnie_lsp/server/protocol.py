"""The JSON-RPC protocol: every request gets a response, even one whose params are malformed.

Expected outcomes are not errors of the server: a refused argument, a job that failed with the
tool's message, a user's Cancel, a missing optional package.  They reach the client as the error
response (its message is what the user reads) and leave **one line** in the client's log
(:meth:`~nnie_lsp.server.server.NnieLanguageServer.report_server_error`), never a traceback:
pygls logs every failed request with ``logger.exception``, so :class:`ExpectedOutcomes` drops
those records for every :class:`JsonRpcException` but an internal error.  A ``$/cancelRequest``
for a request that already answered is normal (the client cancels what it no longer needs) and is
ignored quietly.
"""

from __future__ import annotations

import logging

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger("nnie_lsp.server")

REQUEST_FAILED = -32803
PARSE_ERROR = -32700        # JSON-RPC 2.0: the body is not JSON
INVALID_REQUEST = -32600    # JSON, but not a request, response or notification object


def request_failed(message: str, data=None) -> JsonRpcException:
    """The error response of a request that could not be done (shown to the user by most clients);
    `data` (JSON) tells a client more, e.g. ``{"missingPackage": {...}}`` (docs/editor-protocol.md)."""
    return JsonRpcException(message=message, code=REQUEST_FAILED, data=data)


def is_expected(error: BaseException) -> bool:
    """An outcome the client is told in the error response (module doc), not a server bug."""
    return isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError)


class ExpectedOutcomes(logging.Filter):
    """Drops pygls' traceback records of expected outcomes (module doc)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (error is not None and is_expected(error))


def install_log_filter() -> None:
    """Once per process: pygls' request logger keeps quiet about expected outcomes."""
    logger = logging.getLogger("pygls.protocol.json_rpc")
    if not any(isinstance(f, ExpectedOutcomes) for f in logger.filters):
        logger.addFilter(ExpectedOutcomes())


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

    def _handle_cancel_notification(self, msg_id):
        """``$/cancelRequest``: a request that already answered is normal, not a warning."""
        if msg_id not in self._request_futures:
            log.debug("cancel for a request that already answered (%s)", msg_id)
            return
        super()._handle_cancel_notification(msg_id)

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
