// The machine a figure was measured on: figures mean little without it.
import { availableParallelism, cpus, platform, release, totalmem } from 'node:os';

export interface MachineInfo {
  nproc: number;
  cpu: string;
  node: string;
  os: string;
  memoryGiB: number;
}

export const machineInfo = (): MachineInfo => ({
  nproc: availableParallelism(),
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  node: process.version,
  os: `${platform()} ${release()}`,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
});

export const describeMachine = (m: MachineInfo): string =>
  `${m.nproc} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}`;
