// The npm `hbase` REST client (adaltas/node-hbase) against Basalt's REST gateway.
// Run by crates/basalt-cli/tests/rest_node.rs with BASALT_REST=host:port and NODE_PATH
// pointing at the client installed by scripts/node-env.sh.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const hbase = require('hbase');

const [host, port] = process.env.BASALT_REST.split(':');
const client = hbase({ host, port: Number(port) });

// Calls a callback-style method of `target` as a promise.
const call = (target, method, ...args) =>
  new Promise((resolve, reject) =>
    target[method](...args, (err, value) => (err ? reject(err) : resolve(value))));

test('the npm hbase client drives schema, rows, scans and deletes', async () => {
  const version = await call(client, 'version');
  assert.equal(version.REST, '0.0.3');

  const table = client.table('node_table');
  await call(table, 'create', { ColumnSchema: [{ name: 'cf', VERSIONS: '3' }] });
  assert.equal(await call(table, 'exists'), true);
  const schema = await call(table, 'schema');
  assert.equal(schema.ColumnSchema[0].name, 'cf');
  assert.equal(schema.ColumnSchema[0].VERSIONS, '3');
  const tables = await call(client, 'tables');
  assert.deepEqual(tables.map((t) => t.name), ['node_table']);

  await call(table.row('r1'), 'put', 'cf:a', 'v1');
  await call(table.row('r2'), 'put', ['cf:a', 'cf:b'], ['x', 'y']);
  await call(table.row(null), 'put', [
    { key: 'r3', column: 'cf:a', $: 'z' },
    { key: 'r4', column: 'cf:a', timestamp: 1234, $: 'old' },
  ]);

  const cells = await call(table.row('r1'), 'get', 'cf:a');
  assert.equal(cells.length, 1);
  assert.equal(cells[0].column, 'cf:a');
  assert.equal(cells[0].$, 'v1');
  const r2 = await call(table.row('r2'), 'get', 'cf');
  assert.deepEqual(r2.map((c) => [c.column, c.$]), [['cf:a', 'x'], ['cf:b', 'y']]);
  const r4 = await call(table.row('r4'), 'get', 'cf:a');
  assert.equal(r4[0].timestamp, 1234);
  const glob = await call(table.row('r*'), 'get', 'cf:a');
  assert.deepEqual(glob.map((c) => c.key), ['r1', 'r2', 'r3', 'r4']);

  const scanned = await call(table, 'scan', { startRow: 'r1', endRow: 'r3', maxVersions: 1 });
  assert.deepEqual(scanned.map((c) => `${c.key}/${c.column}=${c.$}`), ['r1/cf:a=v1', 'r2/cf:a=x', 'r2/cf:b=y']);
  const filtered = await call(table, 'scan', { filter: { type: 'PrefixFilter', value: 'r3' } });
  assert.deepEqual(filtered.map((c) => c.key), ['r3']);
  const paged = await call(table, 'scan', { batch: 1, column: ['cf:b'] });
  assert.deepEqual(paged.map((c) => c.$), ['y']);

  await call(table.row('r1'), 'delete', 'cf:a');
  assert.equal(await call(table.row('r1'), 'exists'), false);
  assert.equal(await call(table.row('r2'), 'exists', 'cf:b'), true);
  await assert.rejects(call(table.row('r1'), 'get', 'cf:a'), (err) => err.code === 404);

  await call(table, 'delete');
  assert.equal(await call(table, 'exists'), false);
});
