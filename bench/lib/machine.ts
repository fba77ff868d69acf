// What the figures were measured on: they mean little without it.
import { cpus, totalmem, platform, release, arch, loadavg } from 'node:os';

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
  readonly totalMemoryMB: number;
  readonly loadAverageAtStart: readonly number[];
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    node: process.version,
    platform: `${platform()} ${release()}`,
    arch: arch(),
    totalMemoryMB: Math.round(totalmem() / 2 ** 20),
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}
