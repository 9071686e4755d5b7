// What the status bar says: the server's own words for each file (the
// `file` of its `tsocheck/status` notification: verified, bounded and what
// cut it, a violation, does not compile, timed out, not checked), with an
// icon per state; the workspace's files counted by state in the tooltip.
// Documents the server sent no status for fall back on diagnostics, which
// never read as "verified". Pure.
import { formatCount, plural } from './format';

export type CheckStatus = 'violation' | 'verified' | 'bounded' | 'timeout' | 'error';

export interface CheckSummary {
  function: string;
  status: CheckStatus | string;
  executions?: number;
  model?: string;
  /** The check's result message, e.g. "no violation with store buffers of at most 2 entries". */
  message?: string;
}

/** The file's state as the server words it. */
export type FileState = 'verified' | 'bounded' | 'violation' | 'input-error' | 'timeout' | 'unchecked' | 'checking';

export interface FileStatus {
  state: FileState | string;
  text: string;
}

/** Params of the server's `tsocheck/status` notification. */
export interface StatusParams {
  uri: string;
  checking: boolean;
  executions?: number;
  checks?: CheckSummary[];
  file?: FileStatus;
}

export interface DiagnosticLike {
  /** 0 error, 1 warning, 2 information, 3 hint (vscode.DiagnosticSeverity). */
  severity: number;
  source?: string;
  code?: string | number | { value: string | number };
}

export interface DocumentInput {
  uri: string;
  /** A short name for the tooltip. */
  name: string;
  status?: StatusParams;
  /** Whether the server published diagnostics for it (fallback mode). */
  diagnosed: boolean;
  diagnostics: DiagnosticLike[];
}

export type SummaryKind = 'checking' | 'violations' | 'input-error' | 'inconclusive' | 'bounded' | 'verified' | 'unchecked' | 'idle';

export interface Summary {
  kind: SummaryKind;
  text: string;
  tooltip: string;
  executions: number;
  violations: number;
  inconclusive: number;
  passed: number;
}

function codeOf(d: DiagnosticLike): string {
  const c = d.code;
  if (c === undefined) return '';
  return typeof c === 'object' ? String(c.value) : String(c);
}

/** Counts tsocheck diagnostics: Errors are violations; timeouts, unsupported and input problems are inconclusive. */
export function classifyDiagnostics(diags: DiagnosticLike[]): { violations: number; inconclusive: number } {
  let violations = 0, inconclusive = 0;
  for (const d of diags) {
    if (d.source !== 'tsocheck') continue;
    if (d.severity === 0) violations++;
    else if (d.severity === 1 && codeOf(d) !== 'bounded') inconclusive++;
  }
  return { violations, inconclusive };
}

/** Each state's icon and summary kind. */
const stateLook: Record<string, { icon: string; kind: SummaryKind }> = {
  checking: { icon: '$(sync~spin)', kind: 'checking' },
  violation: { icon: '$(error)', kind: 'violations' },
  'input-error': { icon: '$(error)', kind: 'input-error' },
  timeout: { icon: '$(watch)', kind: 'inconclusive' },
  unchecked: { icon: '$(circle-slash)', kind: 'unchecked' },
  bounded: { icon: '$(info)', kind: 'bounded' },
  verified: { icon: '$(check)', kind: 'verified' },
};

/** A document's state: the server's words, or (no status from the server) what its diagnostics show. */
function stateOf(d: DocumentInput): FileStatus | undefined {
  const s = d.status;
  if (s?.checking) return { state: 'checking', text: s.file?.state === 'checking' ? s.file.text : `checking… ${plural(s.executions ?? 0, 'execution')}` };
  if (s?.file) return s.file;
  if (!d.diagnosed) return undefined;
  const c = classifyDiagnostics(d.diagnostics);
  if (c.violations) return { state: 'violation', text: plural(c.violations, 'problem') };
  if (c.inconclusive) return { state: 'timeout', text: `${plural(c.inconclusive, 'check')} not verified` };
  return { state: 'unchecked', text: 'no problem reported' };
}

function checkLine(c: CheckSummary): string {
  const extra = [c.model ? `under ${c.model}` : undefined, c.executions !== undefined ? plural(c.executions, 'execution') : undefined].filter(Boolean).join(', ');
  return `  ${c.function}: ${c.status}${extra ? ` (${extra})` : ''}${c.message ? ` — ${c.message}` : ''}`;
}

/** Order of precedence when several files are summed up: the first present names the workspace. */
const precedence: SummaryKind[] = ['checking', 'violations', 'input-error', 'inconclusive', 'unchecked', 'bounded', 'verified'];

export function summarize(docs: DocumentInput[]): Summary {
  let executions = 0, violations = 0, inconclusive = 0, passed = 0;
  const lines: string[] = [];
  const files = new Map<SummaryKind, number>();
  const states: { kind: SummaryKind; file: FileStatus }[] = [];
  for (const d of docs) {
    const st = stateOf(d);
    if (!st) continue;
    const kind = stateLook[st.state]?.kind ?? 'unchecked';
    files.set(kind, (files.get(kind) ?? 0) + 1);
    states.push({ kind, file: st });
    lines.push(`${d.name}: ${st.text}`);
    if (kind === 'checking') executions += d.status?.executions ?? 0;
    const checks = d.status?.checking ? [] : d.status?.checks ?? [];
    for (const c of checks) {
      if (c.status === 'violation') violations++;
      else if (c.status === 'verified') passed++;
      else inconclusive++;
      lines.push(checkLine(c));
    }
    if (!d.status && kind === 'violations') violations += classifyDiagnostics(d.diagnostics).violations;
    if (kind === 'inconclusive' || kind === 'input-error' || kind === 'unchecked') inconclusive += checks.length ? 0 : 1;
  }
  const tooltip = lines.length ? lines.join('\n') : 'tsocheck: no results for the open C files yet';
  const base = { tooltip, executions, violations, inconclusive, passed };
  const kind = precedence.find((k) => files.has(k));
  if (!kind) return { kind: 'idle', text: '$(shield) tsocheck', ...base };
  const icon = Object.values(stateLook).find((l) => l.kind === kind)!.icon;
  // One file: the server's own words.
  if (states.length === 1) return { kind, text: `${icon} tsocheck: ${states[0].file.text}`, ...base };
  const n = files.get(kind)!;
  const words: Record<SummaryKind, string> = {
    checking: `checking… ${formatCount(executions)} executions`,
    violations: plural(violations || n, 'violation'),
    'input-error': `${plural(n, 'file')} cannot be checked`,
    inconclusive: `${plural(n, 'file')} not verified`,
    unchecked: `${plural(n, 'file')} not checked`,
    bounded: `no violation, ${plural(n, 'file')} bounded`,
    verified: `verified (${plural(n, 'file')})`,
    idle: '',
  };
  return { kind, text: `${icon} tsocheck: ${words[kind]}`, ...base };
}

/**
 * What the status bar shows: the active C file's state (the workspace total
 * goes into the tooltip); "not checked yet" for an active C file without
 * results; the workspace's state when no C file is in front.
 */
/** Whether the Problems panel says more than the server log (a violation, a file that does not compile). */
export function problemsFirst(s: Summary): boolean {
  return s.kind === 'violations' || s.kind === 'input-error' || s.violations > 0;
}

export function summarizeFor(docs: DocumentInput[], activeUri: string | undefined): Summary {
  const all = summarize(docs);
  const mine = activeUri ? docs.filter((d) => d.uri === activeUri) : [];
  if (mine.length === 0) return all;
  let own = summarize(mine);
  if (own.kind === 'idle')
    own = { ...own, kind: 'unchecked', text: `${stateLook.unchecked.icon} tsocheck: not checked yet`, tooltip: `${mine[0].name}: not checked yet` };
  if (docs.length < 2) return own;
  const total = all.kind === 'idle' ? 'no results yet' : all.text.replace(/^\$\([^)]*\) tsocheck: /, '');
  return { ...own, tooltip: `${own.tooltip}\n\nWorkspace (${docs.length} C files): ${total}` };
}
