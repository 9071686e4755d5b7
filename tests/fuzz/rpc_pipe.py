"""A peer process spoken to with Content-Length framing over its stdin/stdout
(the LSP and the DAP share it): start it, read its messages on a thread into
a queue (None when its output ends), write raw bytes or JSON objects."""
import json, queue, subprocess, threading, time


class RpcPipe:
    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.queue = queue.Queue()
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        f = self.proc.stdout
        while True:
            h = b""
            while not h.endswith(b"\r\n\r\n"):
                c = f.read(1)
                if not c:
                    self.queue.put(None)
                    return
                h += c
            n = int(h.split(b"Content-Length:")[1].split(b"\r\n")[0])
            self.queue.put(json.loads(f.read(n)))

    def raw(self, b):
        self.proc.stdin.write(b)
        self.proc.stdin.flush()

    def send(self, obj):
        b = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(b) + b)

    def wait(self, pred, timeout):
        """The first message pred accepts within timeout seconds (others are
        dropped); None on timeout or when the peer's output ended."""
        end = time.time() + timeout
        while time.time() < end:
            try:
                m = self.queue.get(timeout=max(0.01, end - time.time()))
            except queue.Empty:
                return None
            if m is None:
                return None
            if pred(m):
                return m
        return None
