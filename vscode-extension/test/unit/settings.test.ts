import * as assert from 'assert';
import { test } from 'node:test';
import { executableSetting, serverSettingKeys, serverSettings } from '../../src/settings';

test('settings at their defaults go to the server as null (reset), the others as they are', () => {
  const fresh: Record<string, unknown> = { model: 'default', compileCommandsDir: '', bufferBound: null, checkOn: 'change', robustness: false };
  const s = serverSettings((k) => fresh[k]);
  assert.strictEqual(s.model, null);
  assert.strictEqual(s.compileCommandsDir, null);
  assert.strictEqual(s.bufferBound, null);
  assert.strictEqual(s.checkOn, 'change');
  assert.strictEqual(s.robustness, false);
  assert.strictEqual(s.timeLimit, null);
  assert.deepStrictEqual(Object.keys(s).sort(), [...serverSettingKeys].sort());
  // SC, then back to "from annotation / default": the server is told to reset it.
  assert.strictEqual(serverSettings((k) => (k === 'model' ? 'sc' : undefined)).model, 'sc');
  assert.strictEqual(serverSettings((k) => (k === 'model' ? 'default' : undefined)).model, null);
  assert.strictEqual(serverSettings((k) => (k === 'compileCommandsDir' ? '/w/build' : undefined)).compileCommandsDir, '/w/build');
});

test('a program path from the workspace counts only in a trusted workspace; the user setting wins otherwise', () => {
  const i = { defaultValue: '', globalValue: '/usr/local/bin/tsocheck', workspaceValue: './evil.sh' };
  assert.strictEqual(executableSetting(i, false), '/usr/local/bin/tsocheck');
  assert.strictEqual(executableSetting(i, true), './evil.sh');
  assert.strictEqual(executableSetting({ defaultValue: '', workspaceFolderValue: './evil.sh' }, false), '');
  assert.strictEqual(executableSetting({ defaultValue: '', workspaceValue: '/a', workspaceFolderValue: '/b' }, true), '/b');
  assert.strictEqual(executableSetting(undefined, true), undefined);
});
