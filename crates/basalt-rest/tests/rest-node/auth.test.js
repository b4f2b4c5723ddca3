// The npm `hbase` REST client (adaltas/node-hbase) with credentials, against a gateway
// requiring authentication. The client passes its options to Node's http.request, so
// `auth: 'user:password'` sends Basic and `headers: { Authorization: 'Bearer …' }` a token.
// Run by crates/basalt-cli/tests/rest_auth.rs with BASALT_REST=host:port,
// BASALT_REST_BASIC=user:password and BASALT_REST_TOKEN; the table node_auth (family cf,
// row r1 with cf:a = v1) exists and both users may read it.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const hbase = require('hbase');

const [host, port] = process.env.BASALT_REST.split(':');
const call = (target, method, ...args) =>
  new Promise((resolve, reject) =>
    target[method](...args, (err, value) => (err ? reject(err) : resolve(value))));

const clients = {
  basic: hbase({ host, port: Number(port), auth: process.env.BASALT_REST_BASIC }),
  bearer: hbase({
    host,
    port: Number(port),
    headers: { Authorization: `Bearer ${process.env.BASALT_REST_TOKEN}` },
  }),
};

for (const [how, client] of Object.entries(clients)) {
  test(`the npm hbase client reads and scans with ${how} credentials`, async () => {
    const table = client.table('node_auth');
    const cells = await call(table.row('r1'), 'get', 'cf:a');
    assert.equal(cells[0].$, 'v1');
    const scanned = await call(table, 'scan', { maxVersions: 1 });
    assert.deepEqual(scanned.map((c) => `${c.key}/${c.column}=${c.$}`), ['r1/cf:a=v1']);
  });
}

test('the npm hbase client without credentials is refused with 401', async () => {
  const anonymous = hbase({ host, port: Number(port) });
  await assert.rejects(call(anonymous.table('node_auth').row('r1'), 'get', 'cf:a'),
    (err) => err.code === 401);
});
