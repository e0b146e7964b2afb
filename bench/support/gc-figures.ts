// What bench/gc.ts reads from a window of gc-window.ts: collections and promotion from V8's GC
// profile, and the sampling heap profile's bytes charged to their owner, the innermost frame of a
// package or of this repository on the allocation's stack (Node's own functions go to their caller).
import type { GCProfilerResult } from 'node:v8';

interface ProfileNode {
  callFrame: { url: string };
  selfSize: number;
  children: ProfileNode[];
}
export interface GCWindow {
  collections: GCProfilerResult;
  profile: { head: ProfileNode };
  cpuMicros: number;
}

/** The owners a figure is split by, in the order printed. */
export const OWNERS = ['store', 'SDK', 'util-dynamodb', 'ours', 'Node'] as const;
type Owner = (typeof OWNERS)[number];

/** The embedded DynamoDB: dynalite, its LevelDB modules and streams, and our patches to them. */
const STORE =
  /^(dynalite|abstract-level|classic-level|level|level-.*|memory-level|lazy|big\.js|buffer-crc32|module-error|maybe-combine-errors|napi-macros|node-gyp-build)$|infra\/local\/(dynalite|embedded-dynamodb|dynamodb-socket|dynamodb-thread|index-repair)/;

const ownerOf = (url: string): string | undefined => {
  if (!url || url.startsWith('node:')) return undefined;
  return /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? url;
};
const kind = (owner: string | undefined): Owner => {
  if (owner === undefined) return 'Node';
  if (STORE.test(owner)) return 'store';
  if (owner === '@aws-sdk/util-dynamodb') return 'util-dynamodb';
  if (/^@(smithy|aws-sdk)\//.test(owner)) return 'SDK';
  return 'ours'; // the repository's code, middy, zod, Powertools
};

/** KB allocated (or, with survivors only, promoted) per request, in all and by owner. */
export const allocationByOwner = ({ profile }: GCWindow, requests: number) => {
  const bytes = Object.fromEntries(OWNERS.map((o) => [o, 0])) as Record<Owner, number>;
  const walk = (node: ProfileNode, owners: (string | undefined)[]) => {
    const own = ownerOf(node.callFrame.url);
    const stack = own === undefined ? owners : [...owners, own];
    if (node.selfSize) bytes[kind(stack.at(-1))] += node.selfSize;
    for (const child of node.children) walk(child, stack);
  };
  walk(profile.head, []);
  const kb = (n: number) => n / requests / 1024;
  const byOwner = Object.fromEntries(OWNERS.map((o) => [o, kb(bytes[o])])) as Record<Owner, number>;
  return { total: kb(Object.values(bytes).reduce((a, b) => a + b, 0)), byOwner };
};

const OLD_SPACES = new Set(['old_space', 'code_space', 'large_object_space']);
const oldBytes = (spaces: GCProfilerResult['statistics'][number]['beforeGC']['heapSpaceStatistics']) =>
  spaces.filter((s) => OLD_SPACES.has(s.spaceName)).reduce((sum, s) => sum + s.spaceUsedSize, 0);

/** Scavenges and mark-compacts per 1,000 requests; KB a request the scavenges moved to the old generation. */
export const collections = ({ collections }: GCWindow, requests: number) => {
  let scavenges = 0;
  let markCompacts = 0;
  let promoted = 0;
  for (const { gcType, beforeGC, afterGC } of collections.statistics) {
    if (gcType === 'Scavenge' || gcType === 'MinorMarkSweep') {
      scavenges++;
      promoted += oldBytes(afterGC.heapSpaceStatistics) - oldBytes(beforeGC.heapSpaceStatistics);
    } else if (gcType === 'MarkSweepCompact') markCompacts++;
  }
  return {
    scavengesPer1000: (scavenges / requests) * 1000,
    markCompactsPer1000: (markCompacts / requests) * 1000,
    promotedKB: promoted / requests / 1024,
  };
};
