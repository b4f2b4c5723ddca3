// The npm `hbase-rpc-client` (falsecz/hbase-rpc-client: a native HBase 0.98–1.2 client in
// CoffeeScript, ZooKeeper discovery through node-zookeeper-client) against Basalt's native
// RPC. Run by crates/basalt-cli/tests/hbase_driver.rs with BASALT_ZK=host:port, NODE_PATH
// pointing at the client installed by scripts/node-env.sh, and a table `node_rpc` with
// family `cf` created beforehand (the client has no DDL).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const hbase = require('hbase-rpc-client');

const client = hbase({
  zookeeperHosts: [process.env.BASALT_ZK],
  zookeeperRoot: '/hbase',
  rpcTimeout: 10000,
  callTimeout: 5000,
  tcpNoDelay: true,
});
client.on('error', (err) => {
  throw new Error(`hbase-rpc-client error: ${err}`);
});

// Calls a callback-style method of the client as a promise.
const call = (method, ...args) =>
  new Promise((resolve, reject) =>
    client[method](...args, (err, value) => (err ? reject(err) : resolve(value))));

const value = (row, column) => row && row.cols[column] && row.cols[column].value.toString();

// The client keeps its ZooKeeper session open: the process ends when the test does, with
// the test's outcome as its status.
const ending = (body) => async () => {
  try {
    await body();
  } catch (err) {
    process.exitCode = 1;
    throw err;
  } finally {
    setImmediate(() => process.exit());
  }
};

test('hbase-rpc-client drives puts, gets, batches, counters, conditions and scans', ending(async () => {
  const put = new hbase.Put('r1');
  put.add('cf', 'a', 'v1');
  put.add('cf', 'b', 'v2');
  await call('put', 'node_rpc', put);
  const row = await call('get', 'node_rpc', new hbase.Get('r1'));
  assert.equal(value(row, 'cf:a'), 'v1');
  assert.equal(value(row, 'cf:b'), 'v2');

  const rows = [];
  for (let i = 0; i < 10; i += 1) rows.push({ row: `m${i}`, 'cf:q': `x${i}` });
  await call('mput', 'node_rpc', rows);
  const got = await call('mget', 'node_rpc', ['m3', 'm7', 'missing']);
  assert.equal(value(got[0], 'cf:q'), 'x3');
  assert.equal(value(got[1], 'cf:q'), 'x7');

  const counter = await call('incrementColumnValue', 'node_rpc', 'n', 'cf', 'c', 5);
  assert.ok(counter);
  const again = await call('get', 'node_rpc', new hbase.Get('n'));
  assert.equal(again.cols['cf:c'].value.readInt32BE(4), 5);

  const guarded = new hbase.Put('r1');
  guarded.add('cf', 'a', 'changed');
  assert.equal((await call('checkAndPut', 'node_rpc', 'r1', 'cf', 'a', 'wrong', guarded)).processed, false);
  assert.equal((await call('checkAndPut', 'node_rpc', 'r1', 'cf', 'a', 'v1', guarded)).processed, true);
  assert.equal(value(await call('get', 'node_rpc', new hbase.Get('r1')), 'cf:a'), 'changed');

  const del = new hbase.Delete('m0');
  await call('delete', 'node_rpc', del);
  assert.equal(await call('get', 'node_rpc', new hbase.Get('m0')), null);

  const scanned = await new Promise((resolve, reject) => {
    client.getScanner('node_rpc', 'm', 'n').toArray((err, list) => (err ? reject(err) : resolve(list)));
  });
  assert.deepEqual(scanned.map((r) => r.row.toString()), ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9']);
}));
