// settings.ts: reads the hone.* settings into one typed value and maps it onto what hone-server
// gets: its environment at start (the API key only ever goes there), its initializationOptions /
// didChangeConfiguration payload, and job options. No vscode import: unit-tested directly.
import type { JobOptions, ServerSettings } from './wire';

export interface HoneSettings {
  serverPath: string;
  python: string;
  device: 'auto' | 'cpu' | 'cuda';
  /** The GPUs checks spread over: 'all', a count ('2') or indices ('0,2'); '' for one GPU. */
  gpus: string;
  llm: { baseUrl: string; model: string };
  optimize: { budgetMinutes: number; samples: number; rounds: number };
  tolerance: { atol: number | null; rtol: number | null };
}

/** A settings reader: vscode.WorkspaceConfiguration.get for the "hone" section, or a test's map. */
export type SettingsGetter = (key: string) => unknown;

export interface SettingsReading {
  settings: HoneSettings;
  /** Values that were out of range or of the wrong type, each with what was used instead. */
  problems: string[];
}

export const DEFAULTS: HoneSettings = {
  serverPath: '',
  python: '',
  device: 'auto',
  gpus: '',
  llm: { baseUrl: '', model: '' },
  optimize: { budgetMinutes: 15, samples: 4, rounds: 8 },
  tolerance: { atol: null, rtol: null },
};

/** Settings whose change needs a new server process (the rest travel by didChangeConfiguration). */
export const RESTART_KEYS = ['hone.server.path'];

/** Reads and validates the settings; called on the extension host thread. */
export function readSettings(get: SettingsGetter): SettingsReading {
  const problems: string[] = [];
  const str = (key: string, dflt: string): string => {
    const v = get(key);
    if (v === undefined || v === null) return dflt;
    if (typeof v !== 'string') {
      problems.push(`hone.${key} must be a string; using "${dflt}"`);
      return dflt;
    }
    return v.trim();
  };
  const num = (key: string, dflt: number, min: number, max: number, integer: boolean): number => {
    const v = get(key);
    if (v === undefined || v === null) return dflt;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
      problems.push(`hone.${key} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}]; using ${dflt}`);
      return dflt;
    }
    return v;
  };
  const tol = (key: string): number | null => {
    const v = get(key);
    if (v === undefined || v === null) return null;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      problems.push(`hone.${key} must be a non-negative number or null; using the task's default`);
      return null;
    }
    return v;
  };

  const deviceText = str('device', 'auto');
  let device = DEFAULTS.device;
  if (deviceText === 'auto' || deviceText === 'cpu' || deviceText === 'cuda') device = deviceText;
  else problems.push(`hone.device must be auto, cpu or cuda, not "${deviceText}"; using auto`);

  let gpus = str('gpus', '');
  if (gpus && !/^(all|[1-9][0-9]*|[0-9]+(,[0-9]+)+)$/.test(gpus)) {
    problems.push(`hone.gpus must be all, a count (2) or GPU indices (0,2), not "${gpus}"; using one GPU`);
    gpus = '';
  }

  const settings: HoneSettings = {
    serverPath: str('server.path', ''),
    python: str('python', ''),
    device,
    gpus,
    llm: { baseUrl: str('llm.baseUrl', ''), model: str('llm.model', '') },
    optimize: {
      budgetMinutes: num('optimize.budgetMinutes', DEFAULTS.optimize.budgetMinutes, 0.1, 1440, false),
      samples: num('optimize.samples', DEFAULTS.optimize.samples, 1, 64, true),
      rounds: num('optimize.rounds', DEFAULTS.optimize.rounds, 1, 100, true),
    },
    tolerance: { atol: tol('tolerance.atol'), rtol: tol('tolerance.rtol') },
  };
  if (settings.llm.baseUrl && !/^https?:\/\/[^\s]+$/.test(settings.llm.baseUrl)) {
    problems.push(`hone.llm.baseUrl must be an http(s) URL, not "${settings.llm.baseUrl}"; using the built-in proposer`);
    settings.llm.baseUrl = '';
  }
  if (settings.llm.baseUrl && !settings.llm.model) {
    problems.push('hone.llm.model is empty while hone.llm.baseUrl is set; set the model name the endpoint serves');
  }
  return { settings, problems };
}

/** The name of the environment variable that carries the LLM API key to the server. */
export const API_KEY_ENV = 'HONE_LLM_API_KEY';

/**
 * The server's environment: the editor's own, plus the API key from SecretStorage when one is
 * stored (it replaces an inherited one). Never written anywhere else.
 */
export function serverEnvironment(base: NodeJS.ProcessEnv, apiKey: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  if (apiKey) env[API_KEY_ENV] = apiKey;
  return env;
}

/** The settings the server reads (initializationOptions and didChangeConfiguration's `hone`): lsp.schema.json Settings. */
export function serverSettings(s: HoneSettings): ServerSettings {
  const out: ServerSettings = { device: s.device };
  if (s.python) out.python = s.python;
  if (s.gpus) out.gpus = s.gpus;
  if (s.llm.baseUrl) out.llm = { baseUrl: s.llm.baseUrl, model: s.llm.model };
  return out;
}

/** Words for the Optimize notification: which proposer, what budget. */
export function describeOptimizeSettings(s: HoneSettings): string {
  const who = s.llm.baseUrl ? `${s.llm.model || 'LLM'} at ${new URL(s.llm.baseUrl).host}` : 'built-in proposer';
  const budget = s.optimize.budgetMinutes >= 1 ? `${+s.optimize.budgetMinutes.toFixed(1)} min` : `${Math.round(s.optimize.budgetMinutes * 60)} s`;
  return `${who} · ${s.optimize.samples} samples × ${s.optimize.rounds} rounds · ${budget}`;
}

/** Options of a check or profile job: the device and the tolerance overrides that are set. */
export function checkJobOptions(s: HoneSettings): JobOptions {
  const o: JobOptions = { device: s.device };
  if (s.tolerance.atol !== null) o.atol = s.tolerance.atol;
  if (s.tolerance.rtol !== null) o.rtol = s.tolerance.rtol;
  return o;
}

/** Options of an optimize job: the check's, the budget and samples × rounds. The proposer follows the server's llm setting (none: the built-in tuner). */
export function optimizeJobOptions(s: HoneSettings, hint?: string): JobOptions {
  const options: JobOptions = {
    ...checkJobOptions(s),
    budgetSeconds: Math.max(1, Math.round(s.optimize.budgetMinutes * 60)),
    samples: s.optimize.samples,
    rounds: s.optimize.rounds,
  };
  const direction = hint?.trim();
  if (direction) options.hint = direction;
  return options;
}

/** The hint in a command's extra argument ({hint: "..."}, as hone-server's code actions pass it), if not blank. */
export function hintFrom(extra: unknown): string | undefined {
  const hint = typeof extra === 'object' && extra !== null ? (extra as { hint?: unknown }).hint : undefined;
  return typeof hint === 'string' && hint.trim() !== '' ? hint.trim() : undefined;
}
