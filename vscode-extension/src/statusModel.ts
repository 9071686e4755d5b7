// What the status bar says, from the server's `tsocheck/status`
// notifications or, for documents without one, from diagnostics. Pure.
import { formatCount, plural } from './format';

export type CheckStatus = 'violation' | 'verified' | 'bounded' | 'timeout' | 'error';

export interface CheckSummary {
  function: string;
  status: CheckStatus | string;
  executions?: number;
  model?: string;
}

/** Params of the server's `tsocheck/status` notification. */
export interface StatusParams {
  uri: string;
  checking: boolean;
  executions?: number;
  checks?: CheckSummary[];
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

export type SummaryKind = 'checking' | 'violations' | 'inconclusive' | 'verified' | 'idle';

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

const statusWord: Record<string, string> = {
  violation: '✗ violation',
  verified: '✓ verified',
  bounded: '✓ no violation (bounded)',
  timeout: '⧗ time limit',
  error: 'not checked',
};

export function summarize(docs: DocumentInput[]): Summary {
  let checking = false, executions = 0, violations = 0, inconclusive = 0, passed = 0, known = false;
  const lines: string[] = [];
  for (const d of docs) {
    if (d.status) {
      known = true;
      if (d.status.checking) {
        checking = true;
        executions += d.status.executions ?? 0;
        lines.push(`${d.name}: checking… ${formatCount(d.status.executions ?? 0)} executions`);
      }
      for (const c of d.status.checks ?? []) {
        if (c.status === 'violation') violations++;
        else if (c.status === 'verified' || c.status === 'bounded') passed++;
        else inconclusive++;
        if (!d.status.checking) {
          const extra = [c.model, c.executions !== undefined ? `${formatCount(c.executions)} executions` : undefined].filter(Boolean).join(', ');
          lines.push(`${d.name}: ${c.function} ${statusWord[c.status] ?? c.status}${extra ? ` (${extra})` : ''}`);
        }
      }
    } else if (d.diagnosed) {
      known = true;
      const c = classifyDiagnostics(d.diagnostics);
      violations += c.violations;
      inconclusive += c.inconclusive;
      if (c.violations + c.inconclusive === 0) passed++;
      lines.push(`${d.name}: ${c.violations ? plural(c.violations, 'violation') : c.inconclusive ? plural(c.inconclusive, 'check') + ' not verified' : 'no violation'}`);
    }
  }
  const tooltip = lines.length ? lines.join('\n') : 'tsocheck: no results for the open C files yet';
  const base = { tooltip, executions, violations, inconclusive, passed };
  if (checking) return { kind: 'checking', text: `$(sync~spin) tsocheck: checking… ${formatCount(executions)} executions`, ...base };
  if (violations > 0) return { kind: 'violations', text: `$(error) tsocheck: ${plural(violations, 'violation')}`, ...base };
  if (inconclusive > 0) return { kind: 'inconclusive', text: `$(warning) tsocheck: ${formatCount(inconclusive)} not verified`, ...base };
  if (known) return { kind: 'verified', text: '$(check) tsocheck: verified', ...base };
  return { kind: 'idle', text: '$(shield) tsocheck', ...base };
}

/**
 * What the status bar shows: the active C file's state (the workspace total
 * goes into the tooltip); the workspace's when no C file with results is in
 * front.
 */
export function summarizeFor(docs: DocumentInput[], activeUri: string | undefined): Summary {
  const all = summarize(docs);
  const mine = activeUri ? docs.filter((d) => d.uri === activeUri) : [];
  if (mine.length === 0) return all;
  const own = summarize(mine);
  if (own.kind === 'idle') return all;
  const total = all.kind === 'idle' ? 'no results yet' : all.text.replace(/^\$\([^)]*\) tsocheck: /, '');
  return { ...own, tooltip: `${own.tooltip}\n\nWorkspace (${docs.length} C files): ${total}` };
}
