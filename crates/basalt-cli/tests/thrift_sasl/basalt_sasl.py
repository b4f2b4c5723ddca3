"""happybase over SASL PLAIN: the client set-up README's Security section shows.

happybase has no credentials hook, but it builds its transport from the class registered
under the name given as `transport=`, called with the socket. Registering a SASL PLAIN
transport (thriftpy2's TSaslClientTransport, with pure-sasl's PLAIN client) under a
name of one's own makes `happybase.Connection(..., transport='sasl')` authenticate,
pools included.

Over TLS (a gateway with `[security] tls_cert_file`), the socket happybase made is
replaced by thriftpy2's TSSLSocket to the same host and port, wrapped with
`ssl.create_default_context(cafile=...)` (the server's name is checked), and SASL PLAIN
runs inside it.
"""

import ssl

import happybase.connection
from thriftpy2.transport.sslsocket import TSSLSocket
from puresasl.client import SASLClient
try:  # happybase's protocols are thriftpy2's Cython ones when built: the transport must be too
    from thriftpy2.transport.sasl import TCySaslClientTransport as TSaslClientTransport
except ImportError:
    from thriftpy2.transport.sasl import TSaslClientTransport


class PlainSasl:
    """pure-sasl's PLAIN client in the shape thriftpy2's TSaslClientTransport calls."""

    def __init__(self, user, password):
        self._client = SASLClient("basalt", "hbase", mechanism="PLAIN",
                                  username=user, password=password)

    def start(self, mechanism):
        return True, mechanism, self._client.process()

    def step(self, challenge):
        return True, self._client.process(challenge)

    def encode(self, data):
        return True, data

    def decode(self, data):
        return True, data

    def getError(self):
        return "SASL PLAIN failed"


def register_sasl_transport(user, password, name="sasl", cafile=None):
    """Makes `transport=name` in happybase mean SASL PLAIN as `user` (over TLS trusting
    the CA certificates in `cafile`, when given)."""
    def transport(socket):
        if cafile:
            context = ssl.create_default_context(cafile=cafile)
            timeout_ms = int(socket.socket_timeout * 1000) if socket.socket_timeout else None
            socket = TSSLSocket(socket.host, socket.port, ssl_context=context,
                                socket_timeout=timeout_ms)
        return TSaslClientTransport(lambda: PlainSasl(user, password), "PLAIN", socket)
    happybase.connection.THRIFT_TRANSPORTS[name] = transport
