// CPU time of the processes a benchmark started, from /proc (Linux): shared by bench/work.ts and bench/scale.ts.

import { readdir, readFile } from 'node:fs/promises';

export interface ProcessCpu {
  pid: number;
  ppid: number;
  /** The command name (`postgres`, `temporal`, `node`…). */
  name: string;
  /** CPU seconds, user + system. */
  cpu: number;
  /** CPU seconds of its children that ended and were waited for (PostgreSQL's closed backends). */
  reaped: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** Every process of the machine that /proc shows, each with its CPU seconds so far. */
export async function allProcesses(): Promise<ProcessCpu[]> {
  const processes: ProcessCpu[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      processes.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        name: stat.slice(stat.indexOf('(') + 1, close),
        cpu: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
        reaped: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
      });
    } catch {
      // The process ended meanwhile.
    }
  }
  return processes;
}

/** The processes `roots` and all their descendants, out of `processes` (one reading of /proc). */
export function descendants(processes: ProcessCpu[], roots: Iterable<number>): ProcessCpu[] {
  const children = new Map<number, number[]>();
  for (const entry of processes) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry.pid]);
  const mine = new Set<number>(roots);
  const queue = [...mine];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      if (!mine.has(child)) {
        mine.add(child);
        queue.push(child);
      }
    }
  }
  return processes.filter((entry) => mine.has(entry.pid));
}

/** The process `root` and all its descendants, each with its CPU seconds so far. */
export async function processTree(root: number = process.pid): Promise<ProcessCpu[]> {
  return descendants(await allProcesses(), [root]);
}

/** PostgreSQL's and the Temporal dev server's processes, told by their names. */
export function serverKind(name: string): 'PostgreSQL' | 'Temporal dev server' | null {
  if (name.startsWith('postgres') || name === 'postmaster') return 'PostgreSQL';
  if (name.includes('temporal')) return 'Temporal dev server';
  return null;
}
