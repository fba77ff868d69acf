// Reads a V8 .cpuprofile (node --cpu-prof) and says where the self time went: by function and by package.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly byFunction: Record<string, number>;
  readonly byPackage: Record<string, number>;
}

const IGNORED = new Set(['(idle)', '(program)', 'dispatch']);

function packageOf(url: string): string {
  if (!url) return '(native/idle/gc)';
  const nodeModule = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nodeModule) return nodeModule[1];
  if (url.startsWith('node:')) return url;
  if (url.endsWith('scale-worker.cjs')) return 'src/ + bench/ (worker bundle)';
  const source = /\/(src|bench)\/(.*?)(\/[^/]+)?$/.exec(url);
  return source ? `${source[1]}/${source[2]}` : url;
}

function top(entries: Map<string, number>, count: number): Record<string, number> {
  return Object.fromEntries(
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, ms]) => [key, Math.round(ms * 10) / 10]),
  );
}

export function summarizeProfile(file: string, count = 15): ProfileSummary {
  return summarizeProfiles([JSON.parse(readFileSync(file, 'utf8')) as CpuProfile], count);
}

/** One summary over several profiles, e.g. one per measured window of the same process. */
export function summarizeProfiles(profiles: readonly CpuProfile[], count = 15): ProfileSummary {
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let totalMs = 0;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    profile.samples.forEach((id, index) => {
      const node = nodes.get(id);
      const ms = (profile.timeDeltas[index] ?? 0) / 1000;
      // `dispatch` is the inspector answering the profiler itself.
      if (!node || IGNORED.has(node.callFrame.functionName)) return;
      totalMs += ms;
      const frame = node.callFrame;
      const where = frame.url ? `${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}` : '';
      const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
      byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
      const pkg = packageOf(frame.url);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
    });
  }
  return { totalMs: Math.round(totalMs), byFunction: top(byFunction, count), byPackage: top(byPackage, count) };
}
