// The kernel's rows (ingest/formats/templates/platform/kernel.ts): what each line of
// the kernel's log must give, written by hand from the format strings of
// mm/oom_kill.c, arch/x86/mm/fault.c, kernel/hung_task.c, kernel/watchdog.c,
// kernel/panic.c and the NVIDIA
// driver's kernel_rc.c. Every record is the machine's, none a rank's.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

const machine = { scope: "machine" };

export const KERNEL_ROWS: EngineConformanceRow[] = [
  {
    template: "kernel.oom_killed",
    expect: {
      kind: LogKind.crash,
      attrs: { ...machine, pid: 41234, process: "python3", anonRssKb: 251234560, signal: "SIGKILL", fatal: true, failureClass: "host-oom", error: "python3 (pid 41234) killed by the kernel's OOM killer" },
    },
  },
  {
    template: "kernel.oom_killed",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { pid: 7781, process: "sglang::schedul", error: "sglang::schedul (pid 7781) killed by the kernel's OOM killer (its memory cgroup's limit)" } },
  },
  { template: "kernel.oom_killed", sample: 2, expect: { kind: LogKind.crash, attrs: { pid: 7781, process: "python", anonRssKb: 61234567, failureClass: "host-oom" } } },
  {
    template: "kernel.oom_chose",
    expect: {
      kind: LogKind.crash,
      attrs: { ...machine, pid: 41234, process: "python3", oomScore: 912, signal: "SIGKILL", fatal: true, failureClass: "host-oom", error: "python3 (pid 41234) or a child of it killed by the kernel's OOM killer" },
    },
  },
  {
    template: "kernel.trap",
    expect: {
      kind: LogKind.crash,
      attrs: { ...machine, pid: 41301, process: "python3", signal: "SIGSEGV", fatal: true, failureClass: "segfault", error: "python3 (pid 41301) killed by SIGSEGV: general protection fault in libmooncake_transfer_engine.so" },
    },
  },
  {
    template: "kernel.trap",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { pid: 41301, signal: "SIGILL", failureClass: "crash", error: "python3 (pid 41301) killed by SIGILL: trap invalid opcode in libtorch_cuda.so" } },
  },
  { template: "kernel.oom_invoked", expect: { kind: LogKind.message, attrs: { ...machine, level: "warning", process: "python3", gfpMask: "0x140cca" } } },
  { template: "kernel.oom_summary", expect: { kind: LogKind.message, attrs: { ...machine, level: "info", constraint: "CONSTRAINT_NONE", process: "python3", pid: 41234 } } },
  {
    template: "kernel.segfault",
    expect: {
      kind: LogKind.crash,
      attrs: {
        ...machine, pid: 41301, process: "python3", address: "0", signal: "SIGSEGV", fatal: true, failureClass: "segfault",
        error: "python3 (pid 41301) killed by SIGSEGV: segfault at 0 in libmooncake_transfer_engine.so",
      },
    },
  },
  {
    template: "kernel.hung_task",
    expect: { kind: LogKind.error, attrs: { ...machine, level: "error", pid: 41301, process: "python3", blockedS: 122, failureClass: "hung-task", error: "python3 (pid 41301) blocked in the kernel for more than 122 s" } },
  },
  {
    template: "kernel.soft_lockup",
    expect: { kind: LogKind.error, attrs: { ...machine, level: "error", pid: 41301, process: "python3", blockedS: 23, failureClass: "hung-task", error: "CPU 17 stuck in the kernel for 23 s, running python3 (pid 41301)" } },
  },
  { template: "kernel.oops", expect: { kind: LogKind.error, attrs: { ...machine, level: "error", failureClass: "kernel-oops", error: "the kernel faulted (an oops): BUG: unable to handle page fault for address: ffffafe180a40084" } } },
  { template: "kernel.oops", sample: 1, expect: { kind: LogKind.error, attrs: { error: "the kernel faulted (an oops): BUG: kernel NULL pointer dereference, address: 0000000000000008" } } },
  { template: "kernel.oops", sample: 2, expect: { kind: LogKind.error, attrs: { error: "the kernel faulted (an oops): kernel BUG at mm/slub.c:385!" } } },
  { template: "kernel.oops", sample: 3, expect: { kind: LogKind.error, attrs: { error: "the kernel faulted (an oops): Oops: 0002 [#1]" } } },
  { template: "kernel.panic", expect: { kind: LogKind.crash, attrs: { ...machine, fatal: true, failureClass: "kernel-panic", error: "the kernel panicked: Fatal exception" } } },
  {
    template: "kernel.nvidia_xid",
    expect: {
      kind: LogKind.error,
      attrs: { ...machine, xid: 79, pci: "0000:3b:00", pid: 41301, process: "python3", failureClass: "transport", error: "Xid 79 on GPU PCI:0000:3b:00: GPU has fallen off the bus." },
    },
  },
  {
    template: "kernel.nvidia_xid",
    sample: 1,
    expect: {
      kind: LogKind.error,
      attrs: { xid: 74, pci: "0000:b3:00", failureClass: "transport", error: "Xid 74 on GPU PCI:0000:b3:00 (NVLink Error): NVLink: fatal error detected on link 3(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" },
    },
  },
  { template: "kernel.nvidia_xid", sample: 2, expect: { kind: LogKind.error, attrs: { xid: 79, pci: "0000:01:00", failureClass: "transport" } } },
  { template: "kernel.nvidia_xid", sample: 3, expect: { kind: LogKind.error, attrs: { xid: 31, pid: 41301, process: "python3", failureClass: "cuda-error" } } },
  { template: "kernel.nvidia_xid_warning", expect: { kind: LogKind.message, attrs: { ...machine, xid: 45, level: "warning", pid: 41301, process: "python3" } } },
  // The device rows (ingest/formats/templates/platform/kernelDevices.ts), from the NVIDIA driver's nv.h/osinit.c/nv.c,
  // mlx5 health.c and the PCIe AER driver's format strings.
  { template: "devices.gpu_off_bus", expect: { kind: LogKind.error, attrs: { ...machine, level: "error", pci: "0000:3b:00.0", failureClass: "transport", error: "GPU 0000:3b:00.0 has fallen off the bus" } } },
  { template: "devices.gpu_init_failed", expect: { kind: LogKind.error, attrs: { ...machine, pci: "0000:3b:00.0", failureClass: "gpu-device", error: "GPU 0000:3b:00.0: RmInitAdapter failed (0x62:0x55:2477)" } } },
  { template: "devices.gpu_init_failed", sample: 1, expect: { kind: LogKind.error, attrs: { failureClass: "gpu-device", error: "the NVIDIA driver could not initialize GPU minor 3" } } },
  { template: "devices.gpu_probe_failed", expect: { kind: LogKind.error, attrs: { ...machine, level: "error", failureClass: "gpu-device", error: "the NVIDIA driver could not bring up 2 GPU(s) when it loaded" } } },
  { template: "devices.gpu_probe_failed", sample: 1, expect: { kind: LogKind.error, attrs: { failureClass: "gpu-device", fatal: true, error: "the NVIDIA driver initialized none of the GPUs: it did not load" } } },
  // amdgpu_device.c amdgpu_device_gpu_recover's dev_info, with the driver's `amdgpu: ` and without it (and the reset's source).
  { template: "devices.amdgpu_reset", expect: { kind: LogKind.error, attrs: { ...machine, level: "error", pci: "0000:0a:00.0", failureClass: "gpu-device", error: "amdgpu is resetting GPU 0000:0a:00.0: the work on it is lost" } } },
  { template: "devices.amdgpu_reset", sample: 1, expect: { kind: LogKind.error, attrs: { pci: "0000:28:00.0", error: "amdgpu is resetting GPU 0000:28:00.0 (reset source 1): the work on it is lost" } } },
  { template: "devices.mlx5_fatal", expect: { kind: LogKind.error, attrs: { ...machine, pci: "0000:3b:00.0", failureClass: "transport", error: "NIC 0000:3b:00.0: firmware fatal error 1" } } },
  { template: "devices.mlx5_fatal", sample: 1, expect: { kind: LogKind.error, attrs: { error: "NIC 0000:3b:00.0: firmware stopped answering its health counter" } } },
  { template: "devices.pcie_fatal", expect: { kind: LogKind.error, attrs: { ...machine, pci: "0000:00:01.0", failureClass: "transport", error: "PCIe fatal uncorrectable error reported by 0000:00:01.0 from 0000:3b:00.0" } } },
  { template: "devices.pcie_fatal", sample: 1, expect: { kind: LogKind.error, attrs: { error: "PCIe fatal uncorrectable error reported by 0000:00:01.0" } } },
];
