// jobs.ts: the hone jobs (check, profile, optimize) this window has started and not seen end, so
// Stop can cancel them, the status bar can show them, and a second Optimize of the same kernel is
// refused. Pure: a job is cancelled through the callback its starter gave.

export type JobKind = 'check' | 'profile' | 'optimize';

export interface Job {
  id: number;
  kind: JobKind;
  kernelUri: string;
  /** Short words for the status bar: "checking softmax.cu", then the job's latest progress. */
  label: string;
  startedAt: number;
  cancel: () => void;
}

/** Used from the extension host thread only. */
export class JobTracker {
  private jobs = new Map<number, Job>();
  private nextId = 1;
  private listeners: Array<() => void> = [];

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  /** Registers a job; call the returned `end` exactly when it finishes, fails or is cancelled. */
  begin(kind: JobKind, kernelUri: string, label: string, cancel: () => void, now = Date.now()): { job: Job; end: () => void } {
    const job: Job = { id: this.nextId++, kind, kernelUri, label, startedAt: now, cancel };
    this.jobs.set(job.id, job);
    this.changed();
    return {
      job,
      end: () => {
        if (this.jobs.delete(job.id)) this.changed();
      },
    };
  }

  /** New words for a running job's status ("round 3/8 · best 2.1× · 41 candidates"). */
  setLabel(id: number, label: string): void {
    const job = this.jobs.get(id);
    if (job && job.label !== label) {
      job.label = label;
      this.changed();
    }
  }

  running(kind?: JobKind, kernelUri?: string): Job[] {
    return [...this.jobs.values()].filter((j) => (!kind || j.kind === kind) && (!kernelUri || j.kernelUri === kernelUri));
  }

  /** Cancels matching jobs (all when no filter); returns how many were asked to stop. */
  cancel(kind?: JobKind, kernelUri?: string): number {
    const matching = this.running(kind, kernelUri);
    for (const j of matching) j.cancel();
    return matching.length;
  }

  cancelAll(): number {
    return this.cancel();
  }
}
