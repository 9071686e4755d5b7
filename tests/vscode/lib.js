'use strict';
// Shared plumbing for the VS Code end-to-end tests: a private code-server on
// 127.0.0.1 and Debian's Chromium driven by playwright-core.

const fs = require('fs');
const os = require('os');
const path = require('path');
const net = require('net');
const http = require('http');
const { spawn, spawnSync } = require('child_process');

const CHROMIUM = process.env.TSOCHECK_CHROMIUM || '/usr/bin/chromium';
const SKIP = 77;

function parseArgs(argv, known) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const key = a.slice(2);
    if (!known.includes(key)) throw new Error(`unknown option --${key} (known: ${known.map(k => '--' + k).join(' ')})`);
    if (i + 1 >= argv.length) throw new Error(`--${key} needs a value`);
    out[key] = argv[++i];
  }
  return out;
}

function log(...a) { console.log('[vscode-e2e]', ...a); }

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function sleep(ms) { return new Promise(r => setTimeout(r, ms)); }

function httpStatus(url) {
  return new Promise(resolve => {
    const req = http.get(url, res => { res.resume(); resolve(res.statusCode); });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => { req.destroy(); resolve(0); });
  });
}

function copyDir(src, dst) {
  fs.cpSync(src, dst, { recursive: true, dereference: true });
}

function mkTemp(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Settings written to <user-data-dir>/User/settings.json. */
function userSettings(tsocheckBin, extra = {}) {
  return {
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'workbench.editor.enablePreview': false,
    'chat.commandCenter.enabled': false,
    'git.enabled': false,
    'git.openRepositoryInParentFolders': 'never',
    'files.autoSave': 'off',
    'editor.minimap.enabled': false,
    'window.confirmBeforeClose': 'never',
    'remote.autoForwardPorts': false,
    'remote.restoreForwardedPorts': false,
    'tsocheck.serverPath': tsocheckBin,
    ...extra,
  };
}

/** XDG_* directories under `root`, so nothing lands in $HOME/.config etc. */
function xdgEnv(root) {
  const env = {};
  for (const [k, d] of [['XDG_CONFIG_HOME', 'config'], ['XDG_DATA_HOME', 'data'], ['XDG_CACHE_HOME', 'cache']]) {
    env[k] = path.join(root, 'xdg', d);
    fs.mkdirSync(env[k], { recursive: true });
  }
  return env;
}

/**
 * A code-server with its own user-data-dir, extensions-dir and config, on a
 * free 127.0.0.1 port.  Everything lives under `root` (a temp dir).
 */
class CodeServer {
  constructor({ bin, root, settings, env = {} }) {
    this.bin = bin;
    this.root = root;
    this.userDataDir = path.join(root, 'user-data');
    this.extensionsDir = path.join(root, 'extensions');
    this.configFile = path.join(root, 'config.yaml');
    this.logFile = path.join(root, 'code-server.log');
    // Keep code-server's own files (config, logs, heartbeat) out of $HOME and
    // its vscode-ipc-*.sock sockets out of /tmp: all of it goes with `root`.
    const tmp = path.join(root, 'tmp');
    fs.mkdirSync(tmp, { recursive: true });
    this.env = { ...xdgEnv(root), TMPDIR: tmp, ...env };
    fs.mkdirSync(path.join(this.userDataDir, 'User'), { recursive: true });
    fs.mkdirSync(this.extensionsDir, { recursive: true });
    fs.writeFileSync(path.join(this.userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
    fs.writeFileSync(this.configFile, 'auth: none\n');
    this.proc = null;
  }

  commonArgs() {
    return ['--config', this.configFile, '--user-data-dir', this.userDataDir,
            '--extensions-dir', this.extensionsDir];
  }

  /** `code-server --install-extension <vsix>` into this server's extensions dir. */
  installExtension(vsix) {
    const r = spawnSync(this.bin, [...this.commonArgs(), '--force', '--install-extension', vsix],
                        { encoding: 'utf8', timeout: 120000, env: { ...process.env, ...this.env, EXTENSIONS_GALLERY: '{}' } });
    fs.appendFileSync(this.logFile, `$ code-server --install-extension ${vsix}\n${r.stdout}${r.stderr}\n`);
    if (r.status !== 0) throw new Error(`--install-extension ${vsix} failed (${r.status}): ${r.stdout}${r.stderr}`);
    return r.stdout.trim();
  }

  async start(timeoutMs = 60000) {
    this.port = await freePort();
    const out = fs.openSync(this.logFile, 'a');
    this.proc = spawn(this.bin, [
      ...this.commonArgs(),
      '--bind-addr', `127.0.0.1:${this.port}`, '--auth', 'none',
      '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
      '--disable-getting-started-override', '--ignore-last-opened',
    ], {
      detached: true,                                  // own process group, killed as a whole
      stdio: ['ignore', out, out],
      // EXTENSIONS_GALLERY={} turns the extension gallery (open-vsx.org) off.
      env: { ...process.env, ...this.env, EXTENSIONS_GALLERY: '{}' },
    });
    fs.closeSync(out);
    this.exited = false;
    this.proc.on('exit', () => { this.exited = true; });
    this.url = `http://127.0.0.1:${this.port}`;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`code-server exited during start-up; see ${this.logFile}`);
      if (await httpStatus(`${this.url}/healthz`) === 200) return this.url;
      await sleep(250);
    }
    throw new Error(`code-server did not answer on ${this.url} within ${timeoutMs / 1000} s`);
  }

  async stop() {
    if (!this.proc || this.exited) return;
    const pgid = this.proc.pid;
    try { process.kill(-pgid, 'SIGTERM'); } catch { /* already gone */ }
    for (let i = 0; i < 40 && !this.exited; i++) await sleep(100);
    try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ }
  }

  log() { try { return fs.readFileSync(this.logFile, 'utf8'); } catch { return ''; } }
}

/** Chromium via playwright-core, fresh profile under `root`. */
async function launchBrowser(root, { width = 1400, height = 900 } = {}) {
  let chromium;
  try { ({ chromium } = require('playwright-core')); } catch {
    throw new Error('playwright-core missing: run `npm ci` in tests/vscode');
  }
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run scripts/install-code-server.sh`);
  const profile = path.join(root, 'chromium-profile');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width, height },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--no-first-run',
           '--disable-dev-shm-usage',
           // Nothing but 127.0.0.1: every other host name fails to resolve.
           '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
    timeout: 60000,
    env: { ...process.env, ...xdgEnv(path.join(root, 'chromium')) },
  });
  return context;
}

async function closeBrowser(context) {
  if (!context) return;
  await Promise.race([context.close().catch(() => {}), sleep(10000)]);
}

/** Collects the page's console output (the remote extension host forwards its console there). */
function recordConsole(page, file) {
  const lines = [];
  page.on('console', m => lines.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', e => lines.push(`[pageerror] ${e && e.stack || e}`));
  page.on('requestfailed', r => lines.push(`[requestfailed] ${r.url()} ${r.failure() && r.failure().errorText}`));
  page.on('response', r => { if (r.status() >= 400) lines.push(`[http ${r.status()}] ${r.url()}`); });
  return () => { try { fs.writeFileSync(file, lines.join('\n') + '\n'); } catch { /* ignore */ } };
}

/** Copies code-server's own log plus the VS Code logs of its user-data-dir. */
function saveServerLogs(server, dir) {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'code-server.log'), server.log());
    const logs = path.join(server.userDataDir, 'logs');
    if (fs.existsSync(logs)) fs.cpSync(logs, path.join(dir, 'vscode-logs'), { recursive: true });
  } catch (e) { log(`could not save logs: ${e.message}`); }
}

/** A remote file URI as the code-server workbench expects it (vscode-remote://host:port/path). */
function remoteUri(server, p) {
  return `vscode-remote://127.0.0.1:${server.port}${encodeURI(path.resolve(p))}`;
}

/** Runs `fn` with SIGINT/SIGTERM turned into clean-up. */
function onSignals(cleanup) {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, async () => {
      log(`got ${sig}, cleaning up`);
      try { await cleanup(); } finally { process.exit(130); }
    });
  }
}

/**
 * The clean-up of a run, done once (also on SIGINT/SIGTERM/SIGHUP): flush the
 * browser console, close the browser, stop code-server, remove the temp dir
 * (kept with TSOCHECK_KEEP_TMP). `current()` gives the browser context and
 * console flusher as they are at clean-up time.
 */
function cleanupOnce(server, root, current) {
  let done = false;
  const cleanup = async () => {
    if (done) return;
    done = true;
    const { context, flushConsole } = current();
    flushConsole();
    await closeBrowser(context);
    await server.stop();
    if (!process.env.TSOCHECK_KEEP_TMP) fs.rmSync(root, { recursive: true, force: true });
    else log(`kept ${root}`);
  };
  onSignals(cleanup);
  return cleanup;
}

module.exports = {
  SKIP, CHROMIUM, parseArgs, log, sleep, freePort, copyDir, mkTemp, userSettings,
  CodeServer, launchBrowser, closeBrowser, recordConsole, saveServerLogs, remoteUri, onSignals, cleanupOnce,
};
