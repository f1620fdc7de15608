# An HTTP service for internal/staging made of Python's standard library:
# http.server.ThreadingHTTPServer, one thread per connection and no limit
# on how many, so nothing queues in the service itself. Each request
# sleeps a fixed floor (STAGING_PY_FLOOR_S, which releases the GIL), then
# works STAGING_PY_WORK_S seconds holding the GIL, in quanta of 1 ms with
# the interpreter's switch interval at 1 ms: the GIL time-slices the
# threads that work (processor sharing on one "core", the GIL), so the
# more requests in flight, the longer each takes. The work holds the GIL
# without using the CPU (libc's usleep called through ctypes.PyDLL, which
# keeps the GIL, as a C extension's call does), so that the service's
# capacity is the GIL's and not what a 2-core machine shared with the
# driver and other tests has left. A request whose client has left is
# still worked on to the end; only its answer is lost.
#
# STAGING_PY_SCAN_S > 0 adds a naive in-flight tracker: after its sleep
# every request scans the registry of requests in flight under a lock,
# STAGING_PY_SCAN_S of work (under the GIL) per entry, so a request's work
# grows with the number in flight and the service serves less the fuller
# it is.
#
# prometheus_client's counters, on a port of their own (a thread of this
# process): pyapp_requests_total counts a request as its handler starts
# (ingress: nothing waits before it but the kernel's accept backlog),
# pyapp_served_total as it ends, and pyapp_in_flight is a gauge of the
# requests between the two. The same two counts are kept in the file
# STAGING_PY_COUNTS (two little-endian uint64 at offsets 0 and 8, mapped
# shared), which the test reads without asking this process, whose threads
# may be slow to answer under load.
import ctypes
import mmap
import os
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import Counter, Gauge, start_http_server

FLOOR_S = float(os.environ["STAGING_PY_FLOOR_S"])
WORK_S = float(os.environ["STAGING_PY_WORK_S"])
SCAN_S = float(os.environ["STAGING_PY_SCAN_S"])
QUANTUM_S = 0.005
sys.setswitchinterval(QUANTUM_S)
_usleep = ctypes.PyDLL(None).usleep  # PyDLL: the GIL is kept during the call

STARTED = Counter("pyapp_requests", "Requests whose handler started.")
SERVED = Counter("pyapp_served", "Requests whose handler finished.")
IN_FLIGHT = Gauge("pyapp_in_flight", "Requests started and not finished.")

with open(os.environ["STAGING_PY_COUNTS"], "r+b") as f:
    COUNTS = mmap.mmap(f.fileno(), 16)

LOCK = threading.Lock()
REGISTRY = {}
started = 0
served = 0

BODY = b"ok\n"


def work(seconds):
    """Holds the GIL for seconds, a quantum at a time: between quanta the
    interpreter hands the GIL to a thread that asked for it."""
    while seconds > 1e-6:
        q = min(seconds, QUANTUM_S)
        _usleep(int(q * 1e6))
        seconds -= q


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        global started, served
        if self.path == "/_ready":
            self.answer()
            return
        key = object()
        with LOCK:
            started += 1
            COUNTS[0:8] = struct.pack("<Q", started)
            REGISTRY[key] = time.monotonic()
        STARTED.inc()
        IN_FLIGHT.inc()
        time.sleep(FLOOR_S)
        if SCAN_S:
            with LOCK:
                n = 0
                for _ in REGISTRY.values():
                    n += 1
                work(n * SCAN_S)
        work(WORK_S)
        with LOCK:
            del REGISTRY[key]
            served += 1
            COUNTS[8:16] = struct.pack("<Q", served)
        SERVED.inc()
        IN_FLIGHT.dec()
        self.answer()

    def answer(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, format, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = int(os.environ["STAGING_PY_BACKLOG"])

    def handle_error(self, request, client_address):
        pass  # a client that left: its answer is lost, nothing more


start_http_server(int(os.environ["STAGING_PY_METRICS_PORT"]), addr="127.0.0.1")
Server(("127.0.0.1", int(os.environ["STAGING_PY_PORT"])), Handler).serve_forever()
