// task_pragma.ts: reads and writes the `// hone: task=PATH` line that pairs a kernel with its
// reference (PATH relative to the kernel's folder), and ranks candidate task files for the
// "Select task" picker. Pure: the feature in task_select.ts does the editing.
import * as path from 'node:path';

// As toolchain/task_pairing.cpp reads it: `// hone: task=PATH` or `// hone: task="PATH with spaces"`.
const PRAGMA = /^\s*\/\/\s*hone\s*:\s*task\s*=\s*(?:"([^"]+)"|(\S+))/;

/** The task named by the kernel's pragma and its 0-based line, or undefined. */
export function findTaskPragma(text: string): { line: number; task: string } | undefined {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = PRAGMA.exec(lines[i]);
    if (m) return { line: i, task: m[1] ?? m[2] };
  }
  return undefined;
}

/** The path to write into the pragma: relative to the kernel's folder, with forward slashes. */
export function pragmaPath(kernelFile: string, taskFile: string): string {
  return path.relative(path.dirname(kernelFile), taskFile).split(path.sep).join('/');
}

/** The edit that makes the kernel name `task`: replace the existing pragma line, else insert one as the first line. */
export function pragmaEdit(text: string, task: string): { line: number; replaceLine: boolean; newText: string } {
  const pragma = `// hone: task=${/\s/.test(task) ? `"${task}"` : task}`;
  const found = findTaskPragma(text);
  if (found) return { line: found.line, replaceLine: true, newText: pragma };
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return { line: 0, replaceLine: false, newText: pragma + eol };
}

/** Does this Python source look like a KernelBench task (a `class Model` and `get_inputs`)? */
export function looksLikeTask(source: string): boolean {
  return /^class\s+Model\s*\(/m.test(source) && /^def\s+get_inputs\s*\(/m.test(source);
}

/**
 * Orders task files for the picker: the same stem as the kernel first, then files in the
 * kernel's folder, then by path.
 */
export function rankTasks(kernelFile: string, tasks: string[]): string[] {
  const stem = path.basename(kernelFile).replace(/\.[^.]*$/, '');
  const dir = path.dirname(kernelFile);
  const score = (t: string): number => (path.basename(t, '.py') === stem ? 0 : path.dirname(t) === dir ? 1 : 2);
  return [...tasks].sort((a, b) => score(a) - score(b) || a.localeCompare(b));
}
