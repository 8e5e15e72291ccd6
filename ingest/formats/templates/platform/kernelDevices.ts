// The kernel's reports of a device the transfer path runs on failing: the NVIDIA driver's GPU that fell off the bus
// or could not be brought up (one GPU, or the count its module load gives), the AMD GPU driver resetting a GPU, a ConnectX NIC whose firmware health check failed (mlx5_core), and a PCIe device's
// fatal uncorrectable error (AER). Each names a PCI address, never a process or a rank: the machine's event
// (`scope: machine`), judged by transport-failure (the link or the NIC) or process-failure (the GPU itself).

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

/** `0000:3b:00.0`: a PCI address as the kernel prints it (domain, bus, device, function). */
const PCI = String.raw`[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9a-fA-F]`;

function nicHead(line: string, at: number): boolean {
  return line.startsWith("mlx5_core ", at) && (line.includes("Fatal error", at) || line.includes("health compromised", at));
}

function aerHead(line: string, at: number): boolean {
  return line.includes("(Fatal)", at);
}

function offTheBus(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `GPU ${g.pci} has fallen off the bus`;
}

function initFailed(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = g.pci !== undefined ? `GPU ${g.pci}: RmInitAdapter failed (${g.codes})` : `the NVIDIA driver could not initialize GPU minor ${g.minor}`;
}

function probeFailed(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = g.count !== undefined ? `the NVIDIA driver could not bring up ${g.count} GPU(s) when it loaded` : "the NVIDIA driver initialized none of the GPUs: it did not load";
  if (g.count === undefined) ev.attrs!.fatal = true;
}

function amdgpuReset(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `amdgpu is resetting GPU ${g.pci}${g.source !== undefined ? ` (reset source ${g.source})` : ""}: the work on it is lost`;
}

function nicFatal(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = g.code !== undefined ? `NIC ${g.pci}: firmware fatal error ${g.code}` : `NIC ${g.pci}: firmware stopped answering its health counter`;
}

function aerFatal(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `PCIe fatal uncorrectable error reported by ${g.port}${g.source !== undefined ? ` from ${g.source}` : ""}`;
}

const templates: LogTemplate[] = [
  {
    id: "devices.gpu_off_bus",
    kind: LogKind.error,
    checked: "✔",
    level: "err",
    format: "NVRM: GPU {domain}:{bus}:{device}.{function}: GPU has fallen off the bus. — the GPU stopped answering on PCIe (what Xid 79 reports)",
    source:
      "NVIDIA/open-gpu-kernel-modules, index copies: NV_DEV_PRINTF(NV_DBG_ERRORS, nv, \"GPU has fallen off the bus.\\n\") with NV_DEV_PRINTF's `\"NVRM: GPU \" NV_PCI_DEV_FMT \": \"` (kernel-open/common/inc/nv.h)",
    head: "NVRM: GPU ",
    pattern: new RegExp(String.raw`NVRM: GPU (?<pci>${PCI}): GPU has fallen off the bus\.`, "y"),
    attrs: { scope: "machine", level: "error", pci: cap("pci"), failureClass: "transport" },
    refine: offTheBus,
    samples: ["[ 2011.550991] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."],
  },
  {
    id: "devices.gpu_init_failed",
    kind: LogKind.error,
    checked: "✔",
    level: "err",
    format:
      "NVRM: GPU {pci}: RmInitAdapter failed! ({codes}) | NVRM: rm_init_adapter failed, device minor number {n} — the driver could not bring the GPU up: it is unusable (`nvidia-smi` then finds no device)",
    source: "NVIDIA/open-gpu-kernel-modules, index copies: NV_DEV_PRINTF in src/nvidia/arch/nvalloc/unix/src/osinit.c RmInitAdapter; nv_printf(NV_DBG_ERRORS, \"NVRM: rm_init_adapter failed, device minor number %d\\n\") in kernel-open/nvidia/nv.c",
    head: (line, at) => line.startsWith("NVRM: ", at) && line.includes("nit", at),
    firstChars: "N",
    pattern: new RegExp(String.raw`NVRM: (?:GPU (?<pci>${PCI}): RmInitAdapter failed! \((?<codes>[^)]*)\)|rm_init_adapter failed, device minor number (?<minor>\d+))`, "y"),
    attrs: { scope: "machine", level: "error", pci: cap("pci"), failureClass: "gpu-device" },
    refine: initFailed,
    samples: ["[   12.904410] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x62:0x55:2477)", "[   12.904598] NVRM: rm_init_adapter failed, device minor number 3"],
  },
  {
    // After probing each GPU (where a GPU that fell off the bus, one the release does not support and one it could not
    // map fail, each with its own multi-line message), the module counts those that came up: fewer than it probed is
    // this line; none at all is the second, and the module does not load (-ENODEV).
    id: "devices.gpu_probe_failed",
    kind: LogKind.error,
    checked: "✔",
    level: "err",
    format:
      "NVRM: The NVIDIA probe routine failed for {n} device(s). | NVRM: None of the NVIDIA devices were initialized. (before 2022: `None of the NVIDIA graphics adapters were initialized!`) — the driver loaded without some GPUs, or without any (then it does not load)",
    source:
      "NVIDIA/open-gpu-kernel-modules, index copies: kernel-open/nvidia/nv.c nv_drivers_init's caller (nvidia_init_module): nv_printf(NV_DBG_ERRORS, \"NVRM: The NVIDIA probe routine failed for %d device(s).\\n\", num_probed_nv_devices - num_nv_devices) and \"NVRM: None of the NVIDIA devices were initialized.\\n\" before `rc = -ENODEV`; older drivers' nv.c prints the same count and `None of the NVIDIA graphics adapters were initialized!`",
    head: (line, at) => line.startsWith("NVRM: ", at) && (line.startsWith("The NVIDIA probe routine failed", at + 6) || line.startsWith("None of the NVIDIA ", at + 6)),
    firstChars: "N",
    pattern: /NVRM: (?:The NVIDIA probe routine failed for (?<count>\d+) device\(s\)\.?|None of the NVIDIA (?:devices were initialized\.|graphics adapters were initialized!))\s*$/y,
    attrs: { scope: "machine", level: "error", failureClass: "gpu-device" },
    refine: probeFailed,
    samples: ["[   12.905102] NVRM: The NVIDIA probe routine failed for 2 device(s).", "[   12.905120] NVRM: None of the NVIDIA devices were initialized."],
  },
  {
    // amdgpu_device_gpu_recover runs when a job on a ring timed out (amdgpu_job_timedout), a RAS error or a hung
    // queue asks for a reset: every process with work on the GPU loses it, and VRAM may be lost with it.
    id: "devices.amdgpu_reset",
    kind: LogKind.error,
    checked: "✔",
    level: "info",
    format: "amdgpu {pci}: [amdgpu: ]GPU reset begin![. Source:  {n}] — the AMD GPU driver is resetting a hung or failed GPU; the work on it is lost",
    source:
      "torvalds/linux, index copies: drivers/gpu/drm/amd/amdgpu/amdgpu_device.c amdgpu_device_gpu_recover, dev_info(adev->dev, \"GPU reset begin!\\n\") (newer kernels add the reset's source: \"GPU reset begin!. Source:  %d\\n\"); the `amdgpu: ` after the device is the driver's dev_fmt in kernels that define it",
    head: (line, at) => line.startsWith("amdgpu ", at) && line.includes("GPU reset begin!", at),
    firstChars: "a",
    pattern: new RegExp(String.raw`amdgpu (?<pci>${PCI}): (?:amdgpu: )?GPU reset begin!(?:\. Source: +(?<source>\d+))?\s*$`, "y"),
    attrs: { scope: "machine", level: "error", pci: cap("pci"), failureClass: "gpu-device" },
    refine: amdgpuReset,
    samples: ["[ 2237.944732] amdgpu 0000:0a:00.0: amdgpu: GPU reset begin!", "[  312.774536] amdgpu 0000:28:00.0: GPU reset begin!. Source:  1"],
  },
  {
    id: "devices.mlx5_fatal",
    kind: LogKind.error,
    checked: "✔",
    level: "err",
    format:
      "mlx5_core {pci}: poll_health:{line}:(pid {pid}): Fatal error {n} detected | mlx5_core {pci}: poll_health:{line}:(pid {pid}): device's health compromised - reached miss count — the ConnectX NIC's firmware reported a fatal error, or stopped counting; the driver resets it (a VF disabled with SR-IOV may print the first too)",
    source: "torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/health.c poll_health (mlx5_core_err, which prefixes the function, line and pid), index copies",
    head: nicHead,
    firstChars: "m",
    pattern: new RegExp(String.raw`mlx5_core (?<pci>${PCI}): \w+:\d+:\(pid \d+\): (?:Fatal error (?<code>\d+) detected|device's health compromised - reached miss count)`, "y"),
    attrs: { scope: "machine", level: "error", pci: cap("pci"), failureClass: "transport" },
    refine: nicFatal,
    samples: [
      "[ 1843.309055] mlx5_core 0000:3b:00.0: poll_health:800:(pid 0): Fatal error 1 detected",
      "[ 1843.309101] mlx5_core 0000:3b:00.0: poll_health:785:(pid 0): device's health compromised - reached miss count",
    ],
  },
  {
    id: "devices.pcie_fatal",
    kind: LogKind.error,
    checked: "✔",
    level: "err",
    format:
      "{driver} {port}: AER: [Multiple ]Uncorrected (Fatal) error received: {source} | {driver} {port}: PCIe Bus Error: severity=Uncorrected (Fatal), type={layer}, ({agent}) — a PCIe device or its link failed beyond correction (`Uncorrectable` in later kernels' words); the device is reset or lost",
    source: "torvalds/linux drivers/pci/pcie/aer.c (aer_error_severity_string, aer_print_error, the root port's `error received` message), index copies",
    head: aerHead,
    firstChars: "abcdefghijklmnopqrstuvwxyz",
    pattern: new RegExp(
      String.raw`(?<driver>[\w-]+) (?<port>${PCI}): (?:AER: (?:Multiple )?Uncorrect(?:ed|able) \(Fatal\) error (?:message )?received(?: from)?:? (?<source>${PCI})?|PCIe Bus Error: severity=Uncorrect(?:ed|able) \(Fatal\))`,
      "y",
    ),
    attrs: { scope: "machine", level: "error", pci: cap("port"), failureClass: "transport" },
    refine: aerFatal,
    samples: [
      "[ 5120.400117] pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0",
      "[ 5120.400123] pcieport 0000:00:01.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)",
    ],
  },
];

export const KERNEL_DEVICES: TemplateComponent = {
  name: "devices",
  dialect: "kernel",
  title: "The kernel: a GPU, a NIC or a PCIe link that failed",
  intro:
    "Lines of the kernel's log, as the kernel's other templates: the NVIDIA driver's GPU that fell off the bus or could not be initialized (or the count of GPUs its module load could not bring up), the AMD GPU driver's reset of a GPU, a ConnectX NIC whose firmware health check failed, a PCIe device's fatal uncorrectable error. They name a PCI address: each event is the machine's (`scope: machine`); a GPU that cannot be initialized is judged by process-failure, a link or a NIC that failed by transport-failure. A corrected PCIe error, a NIC's `Link down` and a firmware command's failure (`mlx5_cmd_out_err`) are not judged: healthy machines print them too, at boot and when an interface is taken down.",
  templates,
};
