# A WSGI application for internal/staging: what a small Python service
# looks like to trigger. uWSGI runs it in one worker process with one
# thread, so requests wait in the kernel's accept backlog in arrival order
# (FIFO), and a request whose client has left is still read and served:
# the worker does not look at the connection before it works.
#
# The counters are prometheus_client's, counted as most applications count
# them: when the worker starts a request and when it ends one, on a port of
# their own (a thread of the worker), so a scrape does not queue behind the
# requests. Neither counter sees what waits in the backlog.
import os
import time

from prometheus_client import Counter, start_http_server

REQUESTS = Counter("app_requests", "Requests the worker started to handle.")
SERVED = Counter("app_served", "Requests the worker finished handling.")
SERVICE_S = float(os.environ["STAGING_APP_SERVICE_S"])
start_http_server(int(os.environ["STAGING_APP_METRICS_PORT"]), addr="127.0.0.1")

BODY = b"ok\n"


def application(environ, start_response):
    REQUESTS.inc()
    time.sleep(SERVICE_S)
    SERVED.inc()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(BODY)))])
    return [BODY]
