"""A bound on the size of every HTTP reply from a server, counted after decoding, while it is read.

httpx decodes a compressed body (``Content-Encoding: gzip``, ``deflate``, ...) as it is read, and the
MCP SDK then reads a JSON reply whole: a few megabytes of gzip on the wire can decode to gigabytes
in memory.  :class:`BoundedTransport` is the transport of the client the SDK is given: it decodes
each reply itself with httpx's own decoders (:meth:`httpx2.Response.aiter_bytes`, which decompress in
pieces of at most 1 MiB), counts the decoded bytes, and stops reading the moment they pass the
limit (``--max-reply-bytes``).  The reply handed on carries the decoded bytes without its
``Content-Encoding``, so nothing above decodes it a second time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx2


class ReplyTooLarge(Exception):
    """A reply decoded to more bytes than the limit; raised while reading it."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the reply decoded to more than {limit} bytes (--max-reply-bytes)")
        self.limit = limit


class _Decoded(httpx2.AsyncByteStream):
    """The body of *response*, decoded, ending with :class:`ReplyTooLarge` once it passes *limit* bytes."""

    def __init__(self, response: httpx2.Response, limit: int, overflow: Callable[[], None]) -> None:
        self._response = response
        self._limit = limit
        self._overflow = overflow

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for chunk in self._response.aiter_bytes():
            size += len(chunk)
            if size > self._limit:
                self._overflow()
                await self._response.aclose()
                raise ReplyTooLarge(self._limit)
            yield chunk

    async def aclose(self) -> None:
        await self._response.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    """An httpx transport whose replies are decoded here and cut off past *limit* decoded bytes.

    The requests are sent by a plain inner :class:`httpx2.AsyncClient`, so the environment's proxy
    and certificate settings apply exactly as they would without this bound.  *overflow* is
    called when a reply passes the limit, before :class:`ReplyTooLarge` is raised: the SDK turns
    some read failures into other errors (an SSE stream that "ended without a response"), so the
    caller learns the real cause this way.
    """

    def __init__(self, limit: int, overflow: Callable[[], None]) -> None:
        self._limit = limit
        self._overflow = overflow
        self._inner = httpx2.AsyncClient()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send *request* as it is (its timeouts included); the reply's body is decoded and bounded as it is read."""
        response = await self._inner.send(request, stream=True, follow_redirects=False)
        encoded = "content-encoding" in response.headers
        # The decoded body replaces the encoded one: its length is no longer the header's.
        dropped = ("content-encoding", "content-length") if encoded else ()
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in dropped]
        return httpx2.Response(
            response.status_code,
            headers=headers,
            stream=_Decoded(response, self._limit, self._overflow),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
