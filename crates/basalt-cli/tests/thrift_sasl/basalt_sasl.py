"""happybase over SASL PLAIN: the client set-up README's Security section shows.

happybase has no credentials hook, but it builds its transport from the class registered
under the name given as `transport=`, called with the socket. Registering a SASL PLAIN
transport (thriftpy2's TSaslClientTransport, with pure-sasl's PLAIN client) under a
name of one's own makes `happybase.Connection(..., transport='sasl')` authenticate,
pools included.
"""

import happybase.connection
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


def register_sasl_transport(user, password, name="sasl"):
    """Makes `transport=name` in happybase mean SASL PLAIN as `user`."""
    happybase.connection.THRIFT_TRANSPORTS[name] = lambda socket: TSaslClientTransport(
        lambda: PlainSasl(user, password), "PLAIN", socket)
