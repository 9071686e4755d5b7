import * as assert from 'assert';
import { test } from 'node:test';
import { formatCount, pendingGhostText, plural, shortStepLabel, staleReadNote, valueText } from '../../src/format';
import { serverSettingKeys, serverSettings } from '../../src/settings';

test('counts are grouped by thousands', () => {
  assert.strictEqual(formatCount(0), '0');
  assert.strictEqual(formatCount(999), '999');
  assert.strictEqual(formatCount(41200), '41,200');
  assert.strictEqual(formatCount(1234567), '1,234,567');
  assert.strictEqual(plural(1, 'violation'), '1 violation');
  assert.strictEqual(plural(3, 'violation'), '3 violations');
});

test('ghost text and stale-read notes', () => {
  assert.strictEqual(pendingGhostText({ thread: 0, address: 'x', value: 1 }), "x = 1 ⟶ still in T0's buffer");
  assert.strictEqual(staleReadNote({ thread: 1, address: 'x', value: 0, pendingIn: 0, pendingValue: 1 }),
    "reads x = 0 from memory — T0's x = 1 is still buffered");
  assert.strictEqual(valueText(null), '?');
  assert.strictEqual(valueText('flag[1]'), 'flag[1]');
  assert.strictEqual(shortStepLabel('step 3 · T1 · store x = 1 (buffered)'), 'T1 · store x = 1 (buffered)');
});

test('server settings: every key, unset as null, serverPath left out', () => {
  const cfg: Record<string, unknown> = { serverPath: '/x', model: 'pso', loopBound: 4, fenceStyle: 'sync', compileCommandsDir: '' };
  const s = serverSettings((k) => cfg[k]);
  // Every key of the list (tests/vscode/settings_keys_test.py checks it against the server's schema), unset as null.
  assert.deepStrictEqual(Object.keys(s).sort(), [...serverSettingKeys].sort());
  assert.deepStrictEqual([s.model, s.loopBound, s.fenceStyle, s.compileCommandsDir, s.bufferBound], ['pso', 4, 'sync', null, null]);
  assert.ok(!('serverPath' in s));
  for (const k of serverSettingKeys) if (!['model', 'loopBound', 'fenceStyle'].includes(k)) assert.strictEqual(s[k], null, k);
});

test('serverSettings: the model choice "from annotation / default" is sent as null', () => {
  const s = serverSettings((k) => (k === 'model' ? 'default' : undefined));
  assert.strictEqual(s.model, null);
});
