"""Content-Length framing of JSON-RPC messages (LSP and DAP alike), for the
protocol tests."""
import json, queue, time


def frame(message):
    """The bytes of one message on the wire."""
    b = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(b) + b


def read_into(stream, q):
    """Puts every message read from stream on q, then None at end of file."""
    while True:
        h = b""
        while not h.endswith(b"\r\n\r\n"):
            c = stream.read(1)
            if not c:
                q.put(None)
                return
            h += c
        n = int(h.split(b"Content-Length:")[1].split(b"\r\n")[0])
        q.put(json.loads(stream.read(n)))


def messages(q, timeout):
    """The messages read_into puts on q, until `timeout` seconds have passed
    or the stream ends."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            m = q.get(timeout=max(0.01, end - time.time()))
        except queue.Empty:
            return
        if m is None:
            return
        yield m
