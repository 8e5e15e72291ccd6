// The run's settings as the incident's own records state them (probe `config`
// records, DESIGN.md "Probe JSONL record"), per role. Later records override
// earlier ones key by key; a key stated by only one role applies to both.

import type { Role } from "../../domain/vocabulary.js";
import type { StoredEvent } from "../../store/read/events.js";

export type ConfigValue = string | number | boolean;

export class RunConfig {
  private readonly perRole = new Map<Role | "any", Map<string, { value: ConfigValue; ev: StoredEvent }>>();

  constructor(configEvents: readonly StoredEvent[]) {
    for (const ev of configEvents) {
      const role: Role | "any" = ev.role ?? "any";
      let m = this.perRole.get(role);
      if (!m) this.perRole.set(role, (m = new Map()));
      for (const [key, value] of Object.entries(ev.attrs ?? {})) {
        if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") m.set(key, { value, ev });
      }
    }
  }

  /** The value and the record that stated it; role-specific first, then any role. */
  entry(key: string, role?: Role): { value: ConfigValue; ev: StoredEvent } | undefined {
    if (role) {
      const own = this.perRole.get(role)?.get(key) ?? this.perRole.get("any")?.get(key);
      if (own) return own;
    }
    let latest: { value: ConfigValue; ev: StoredEvent } | undefined;
    for (const m of this.perRole.values()) {
      const e = m.get(key);
      if (e && (!latest || e.ev.seq > latest.ev.seq)) latest = e;
    }
    return latest;
  }

  str(key: string, role?: Role): string | undefined {
    const v = this.entry(key, role)?.value;
    return v === undefined ? undefined : String(v);
  }

  num(key: string, role?: Role): number | undefined {
    const v = this.entry(key, role)?.value;
    if (typeof v === "number") return v;
    if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
    return undefined;
  }

  bool(key: string, role?: Role): boolean | undefined {
    const v = this.entry(key, role)?.value;
    if (typeof v === "boolean") return v;
    if (v === "true" || v === 1) return true;
    if (v === "false" || v === 0) return false;
    return undefined;
  }

  /** Roles that stated a value for the key, with their values (to spot prefill/decode disagreements). */
  byRole(key: string): { role: Role | "any"; value: ConfigValue; ev: StoredEvent }[] {
    const out: { role: Role | "any"; value: ConfigValue; ev: StoredEvent }[] = [];
    for (const [role, m] of this.perRole) {
      const e = m.get(key);
      if (e) out.push({ role, ...e });
    }
    return out;
  }

  /** Flat view for the report: a key with one value across roles, or `key@role` when the roles disagree. */
  flat(): Record<string, ConfigValue> {
    const keys = new Set<string>();
    for (const m of this.perRole.values()) for (const k of m.keys()) keys.add(k);
    const out: Record<string, ConfigValue> = {};
    for (const key of [...keys].sort()) {
      const values = this.byRole(key);
      const distinct = new Set(values.map((v) => String(v.value)));
      if (distinct.size === 1) out[key] = values[0]!.value;
      else for (const v of values) out[`${key}@${v.role}`] = v.value;
    }
    return out;
  }
}
