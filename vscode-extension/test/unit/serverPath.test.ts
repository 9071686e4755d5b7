import * as assert from 'assert';
import { test } from 'node:test';
import { expandConfiguredPath, notFoundMessage, resolveServerPath } from '../../src/serverPath';

const ext = '/opt/repo/vscode-extension';
const only = (...files: string[]) => (f: string) => files.includes(f);

test('the setting wins and is never replaced by another binary', () => {
  const r = resolveServerPath({ configured: '/x/tsocheck', extensionPath: ext, pathEnv: '/usr/bin', isExecutable: only('/x/tsocheck', '/opt/repo/build/lsp/tsocheck') });
  assert.deepStrictEqual([r.path, r.source], ['/x/tsocheck', 'setting']);
  const missing = resolveServerPath({ configured: '/nope/tsocheck', extensionPath: ext, pathEnv: '/usr/bin', isExecutable: only('/opt/repo/build/lsp/tsocheck') });
  assert.strictEqual(missing.path, undefined);
  assert.deepStrictEqual(missing.tried, ['/nope/tsocheck']);
  assert.match(notFoundMessage(missing, '/nope/tsocheck'), /tsocheck\.serverPath.*\/nope\/tsocheck/);
});

test('bundled, then development build, then PATH', () => {
  const bundled = resolveServerPath({ extensionPath: ext, pathEnv: '/usr/bin', isExecutable: only(`${ext}/bin/tsocheck`, '/opt/repo/build/lsp/tsocheck') });
  assert.deepStrictEqual([bundled.path, bundled.source], [`${ext}/bin/tsocheck`, 'bundled']);
  const dev = resolveServerPath({ configured: '  ', extensionPath: ext, pathEnv: '/usr/bin', isExecutable: only('/opt/repo/build/lsp/tsocheck') });
  assert.deepStrictEqual([dev.path, dev.source], ['/opt/repo/build/lsp/tsocheck', 'development']);
  const onPath = resolveServerPath({ extensionPath: ext, pathEnv: '/a:/usr/local/bin', isExecutable: only('/usr/local/bin/tsocheck') });
  assert.deepStrictEqual([onPath.path, onPath.source], ['/usr/local/bin/tsocheck', 'PATH']);
});

test('nothing found: the message lists every place looked at', () => {
  const r = resolveServerPath({ extensionPath: ext, pathEnv: '/a:/b', isExecutable: () => false });
  assert.strictEqual(r.path, undefined);
  const msg = notFoundMessage(r);
  for (const p of [`${ext}/bin/tsocheck`, '/opt/repo/build/lsp/tsocheck', 'tsocheck on PATH', 'tsocheck.serverPath']) assert.ok(msg.includes(p), `${p} in ${msg}`);
});

test('setting expansion: ${workspaceFolder}, ~, relative paths, bare names on PATH', () => {
  assert.strictEqual(expandConfiguredPath('${workspaceFolder}/build/tsocheck', ['/w']), '/w/build/tsocheck');
  assert.strictEqual(expandConfiguredPath('~/bin/tsocheck', [], '/home/u'), '/home/u/bin/tsocheck');
  assert.strictEqual(expandConfiguredPath('build/lsp/tsocheck', ['/w']), '/w/build/lsp/tsocheck');
  const bare = resolveServerPath({ configured: 'tsocheck-19', extensionPath: ext, pathEnv: '/usr/bin', isExecutable: only('/usr/bin/tsocheck-19') });
  assert.deepStrictEqual([bare.path, bare.source], ['/usr/bin/tsocheck-19', 'setting']);
});
