"""moto's S3 server answering one request at a time.

moto checks a conditional PUT (`If-None-Match: *`) and then stores the object without a
lock, so under concurrent requests several creators of one key can all be told they created
it (Basalt's start-up probe saw 2 of 8 on a loaded machine), where S3 lets exactly one win.
Basalt's log fencing rests on that atomicity and its probe refuses a store without it. One
lock around each request makes moto's conditional writes atomic, as S3's are; the tests'
loads are small enough that serving requests in turn costs little.

Usage: moto_server_serial.py HOST PORT
"""
import signal
import sys
import threading

from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)


def main() -> None:
    host, port = sys.argv[1], int(sys.argv[2])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    app = DomainDispatcherApplication(create_backend_app)
    one_at_a_time = threading.Lock()

    def serial(environ, start_response):
        with one_at_a_time:
            # The whole answer is produced under the lock, not only its start.
            return list(app(environ, start_response))

    run_simple(host, port, serial, threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
